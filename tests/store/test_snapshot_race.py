"""Reading a store while another process writes it: consistent snapshots, no stray copies.

A real second process imports runs in a loop and checkpoints after almost every commit (so the
WAL comes and goes under the reader's feet); this process opens read-only snapshots meanwhile.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchdeck.store.storage import snapshot
from benchdeck.store.storage.db import Store, StoreError
from tests.fixtures.cli_helpers import ROOT

WRITER = """
import sys
from benchdeck.engine.builds import parse_build_name
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
store = Store.open(sys.argv[1])
with store.transaction() as cur:  # bulk, so that a copy takes a while
    cur.execute("INSERT INTO raw_files SELECT 0, 'bulk', 'f', 'none', 16000, "
                "encode(repeat(md5(i::VARCHAR), 500)) FROM range(300) t(i)")
store.con.execute("CHECKPOINT")
print("ready", flush=True)
for i in range(100000):
    with store.transaction() as cur:
        run_id = create_run(cur, NewRun("h", parse_build_name("my8028_rel"), "scan_range=100", "t"))
        cur.execute("INSERT INTO raw_files VALUES (?, 'sysbench', 'f', 'none', 20000, ?)",
                    [run_id, b"x" * 20000])
        save_summary(cur, run_id, RunSummary(qps=float(i)))
        set_status(cur, run_id, "finished")
    if i % 5 == 4:
        store.con.execute("CHECKPOINT")  # rewrites the file and drops the WAL
"""


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Path]:
    db = tmp_path / "busy.duckdb"
    Store.open(db).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    yield db
    proc.kill()
    proc.wait()


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


def test_snapshots_during_writes_are_consistent_and_leave_no_copies(writer: Path, private_tmp: Path) -> None:
    counts: list[int] = []
    messages: list[str] = []
    refused = 0
    for _ in range(20):
        try:
            store = Store.open_for_reading(writer)
        except StoreError as exc:  # allowed, as one line; never FileNotFoundError or damage
            refused += 1
            messages.append(str(exc))
            continue
        with store:
            n = store.scalar("SELECT count(*) FROM runs")
            assert store.scalar("SELECT count(*) FROM run_summary") == n
            assert store.scalar("SELECT count(*) FROM raw_files WHERE run_id > 0") == n
            counts.append(int(n))
        assert not list(private_tmp.iterdir()), "the snapshot copy is removed on close"
    assert refused <= 3
    assert all("try again" in m for m in messages), messages
    assert counts == sorted(counts), "a later snapshot never shows fewer runs"
    assert counts[-1] > counts[0], "the writer kept writing: snapshots followed it"


def test_copies_of_dead_processes_are_removed(private_tmp: Path, tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    orphan = private_tmp / f"{snapshot.PREFIX}{int(dead.stdout)}-abc"
    orphan.mkdir()
    (orphan / "x.duckdb").write_bytes(b"\0" * 1000)
    mine = private_tmp / f"{snapshot.PREFIX}{os.getpid()}-def"
    mine.mkdir()
    db = tmp_path / "s.duckdb"
    Store.open(db).close()
    copy = snapshot.copy_store(db)
    assert not orphan.exists()
    assert mine.exists(), "a live process's copy is kept"
    snapshot.discard(copy)
    assert not copy.parent.exists()
