"""The store file: creation, migrations, and a second process meeting a locked store."""

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.store.storage.db import Store, StoreError, StoreLocked, StoreNotWritable, StoreTooNew
from benchdeck.store.storage.file_store import LOCK_NOTICE_S
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.store.storage.schema import LATEST_VERSION, MIGRATIONS
from tests.fixtures.cli_helpers import CLI

HOLDER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A real second process that holds the store's write lock until told to stop."""
    db = tmp_path / "held.duckdb"
    with Store.open(db) as s, s.transaction() as cur:
        run_id = create_run(cur, NewRun("h1", parse_build_name("my8028_rel"), "scan_range=100", "test"))
        save_summary(cur, run_id, RunSummary(qps=123.0))
        set_status(cur, run_id, "finished")
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    yield db, proc
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()
    proc.wait(timeout=10)


def test_new_store_is_migrated_to_latest(tmp_path: Path) -> None:
    with Store.open(tmp_path / "a.duckdb") as s:
        assert s.schema_version() == LATEST_VERSION
        tables = {r[0] for r in s.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert {
        "hosts",
        "builds",
        "workloads",
        "runs",
        "run_summary",
        "bench_samples",
        "vmstat_samples",
        "iostat_samples",
        "skipped_lines",
        "raw_files",
    } <= tables


def test_reopening_keeps_data_and_does_not_remigrate(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    with Store.open(db) as s, s.transaction() as cur:
        create_run(cur, NewRun("h1", parse_build_name("my8028_rel"), "scan_range=100", "test"))
    with Store.open(db) as s:
        assert s.scalar("SELECT count(*) FROM runs") == 1
        assert s.scalar("SELECT count(*) FROM schema_version") == len(MIGRATIONS)


def test_store_from_a_newer_benchdeck_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "a.duckdb"
    with Store.open(db) as s:
        s.con.execute("INSERT INTO schema_version (version) VALUES (?)", [LATEST_VERSION + 1])
    with pytest.raises(StoreTooNew, match="upgrade benchdeck"):
        Store.open(db)


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.duckdb"
    bad.write_text("this is not a duckdb file\n" * 100)
    with pytest.raises(StoreError, match=r"notes\.duckdb is not a DuckDB database .*--db"):
        Store.open(bad)


def test_locked_store_names_the_holder(holder: tuple[Path, subprocess.Popen[str]]) -> None:
    db, proc = holder
    with pytest.raises(StoreLocked) as err:
        Store.open(db)
    assert err.value.pid == proc.pid
    assert f"process {proc.pid}" in str(err.value)
    assert "--db" in str(err.value)


def test_locked_store_can_still_be_read_from_a_snapshot(
    holder: tuple[Path, subprocess.Popen[str]],
) -> None:
    db, _ = holder
    with Store.open_for_reading(db) as s:
        assert s.read_only
        assert s.snapshot_of == db
        assert s.scalar("SELECT qps FROM run_summary") == 123.0
        snap_dir = s.path.parent
        # a write into the copy would be deleted with it: refused, and nothing is written
        with pytest.raises(StoreNotWritable, match=r"read-only snapshot"), s.transaction() as cur:
            cur.execute("DELETE FROM run_summary")
        assert s.scalar("SELECT count(*) FROM run_summary") == 1
    assert not snap_dir.exists(), "snapshot copy is removed on close"


def test_locked_store_cli_prints_one_line(holder: tuple[Path, subprocess.Popen[str]], tmp_path: Path) -> None:
    """With no wait allowed ($BENCHDECK_LOCK_WAIT=0) a held store is one line naming the holder."""
    db, proc = holder
    f = tmp_path / "out.txt"
    f.write_text("queries: 10 (1.00 per sec.)\n")
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "from benchdeck.tui.cli.main import main; main()",
            "--db",
            str(db),
            "import",
            "sysbench",
            str(f),
            "--host",
            "h",
            "--build",
            "my8028_rel",
            "--workload",
            "point-query_range=100",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCHDECK_LOCK_WAIT": "0"},
    )
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1
    assert f"in use by process {proc.pid}" in r.stderr
    assert "Traceback" not in r.stderr


def test_reading_a_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="does not exist"):
        Store.open_for_reading(tmp_path / "none.duckdb")


def test_a_process_killed_after_creating_the_store_leaves_it_openable(tmp_path: Path) -> None:
    db = tmp_path / "crash.duckdb"
    code = (
        "import os, sys\n"
        "from benchdeck.store.storage.db import Store\n"
        "from benchdeck.store.storage.runs import NewRun, create_run\n"
        "from benchdeck.engine.builds import parse_build_name\n"
        "s = Store.open(sys.argv[1])\n"
        "with s.transaction() as cur:\n"
        "    create_run(cur, NewRun('h', parse_build_name('my8028_rel'), 'scan_range=100', 'test'))\n"
        "os._exit(0)  # no close, no checkpoint: as after SIGKILL\n"
    )
    subprocess.run([sys.executable, "-c", code, str(db)], check=True)
    with Store.open(db) as s:
        assert s.schema_version() == LATEST_VERSION
        assert s.scalar("SELECT count(*) FROM runs") == 1


def test_a_writer_waits_for_a_held_store_then_writes(tmp_path: Path) -> None:
    """A second writer waits its turn (saying so once) and succeeds when the holder lets go."""
    db = tmp_path / "held.duckdb"
    Store.open(db).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdin is not None
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "ready"
    recorded = Path(__file__).resolve().parent.parent / "data" / "recorded" / "sysbench_oltp_point_select.txt"
    cmd = [*CLI, "--db", str(db), "import", "sysbench", str(recorded),
           "--host", "h2", "--build", "my8028_rel", "--workload", "point-query_range=100"]  # fmt: skip
    writer = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert writer.stderr is not None
    started = time.monotonic()
    notice = writer.stderr.readline()
    assert time.monotonic() - started >= LOCK_NOTICE_S, "a wait says so only once it is noticeable"
    assert notice.startswith(f"benchdeck: waiting for store {db}: process {holder.pid} (python"), notice
    assert "has it open; close it, or pick another store" in notice
    holder.stdin.write("\n")  # the holder lets go
    holder.stdin.flush()
    assert holder.wait(timeout=10) == 0
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert out.strip().isdigit(), out
    with Store.open(db, read_only=True) as s:
        assert s.scalar("SELECT count(*) FROM runs") == 1
