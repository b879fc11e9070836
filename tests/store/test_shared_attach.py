"""A shared store's writer attaches the file to an in-memory database of its own per hold
(ATTACH/DETACH, not a DuckDB instance start each time): the file is free for other processes,
to read and to write, as soon as it lets go; a let-go leaves a short WAL as a database's
shutdown did; and a writer killed with SIGKILL between flushes loses nothing it committed.

Other processes are real ones: a plain DuckDB connection as a user's script would open, and a
real writer process killed with SIGKILL.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from benchdeck.engine.events import BenchBatch
from benchdeck.engine.records import BenchInterval
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from tests.store.test_ingest import _count, _store_with_run

# Another process opens the store read-write, adds a sample of run $2 at t=$3, and prints the
# samples it sees.
OTHER_WRITER = (
    "import duckdb, sys\n"
    "con = duckdb.connect(sys.argv[1])\n"
    "con.execute('INSERT INTO bench_samples (run_id, t, threads) VALUES (?, ?, 1)', "
    "[int(sys.argv[2]), float(sys.argv[3])])\n"
    "print(con.execute('SELECT count(*) FROM bench_samples').fetchone()[0])\n"
    "con.close()\n"
)

# A shared writer that flushes ten samples per line read from stdin and prints how many rows
# it has committed after each flush; it holds the file between flushes (held) or lets go after
# each as its timer would after a quiet batch_time (let-go).
KILLED_WRITER = (
    "import sys\n"
    "from benchdeck.engine.events import BenchBatch\n"
    "from benchdeck.engine.records import BenchInterval\n"
    "from benchdeck.store.storage.db import Store\n"
    "from benchdeck.store.storage.ingest import EventSink\n"
    "store = Store.open(sys.argv[1], shared=True)\n"
    "sink = EventSink(store, batch_time=0, hold_s=60)\n"
    "rid, t = int(sys.argv[2]), 0\n"
    "print('ready', flush=True)\n"
    "for _ in sys.stdin:\n"
    "    t += 1\n"
    "    rows = tuple(BenchInterval(t=t + i / 10, threads=1, tps=1.0) for i in range(10))\n"
    "    sink.handle(BenchBatch(rid, rows))\n"
    "    if sys.argv[3] == 'let-go':\n"
    "        sink.flush_if_due()\n"
    "    print(sink.rows_written, flush=True)\n"
)


def _other_process(code: str, *args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True)


def test_a_shared_writer_starts_one_database_however_often_it_lets_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, rid = _store_with_run(tmp_path)
    first.close()
    started: list[str] = []
    connect = duckdb.connect

    def counting(database: str = ":memory:", *args: Any, **kwargs: Any) -> duckdb.DuckDBPyConnection:
        started.append(str(database))
        return connect(database, *args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", counting)
    store = Store.open(tmp_path / "s.duckdb", shared=True)
    sink = EventSink(store, batch_time=0, hold_s=60)
    for t in range(1, 6):
        sink.handle(BenchBatch(rid, (BenchInterval(t=float(t), threads=1, tps=1.0),)))
        sink.flush_if_due()  # its timer: no rows for a batch_time (0), so the file is let go
        assert (
            _other_process("import duckdb, sys; duckdb.connect(sys.argv[1]).close()", store.path).returncode
            == 0
        )
    assert _count(store, "bench_samples") == 5
    store.close()
    assert started == [":memory:"], "one in-memory database; the file only attached to it"


def test_another_process_reads_and_writes_right_after_a_let_go(tmp_path: Path) -> None:
    first, rid = _store_with_run(tmp_path)
    first.close()
    db = tmp_path / "s.duckdb"
    store = Store.open(db, shared=True)
    sink = EventSink(store, batch_time=0, hold_s=60)
    sink.handle(BenchBatch(rid, (BenchInterval(t=1.0, threads=1, tps=1.0),)))
    held = _other_process(OTHER_WRITER, db, rid, 2.0)
    assert held.returncode != 0, "held: the file is the writer's"
    assert "lock" in held.stderr.lower()
    sink.hold.close()  # let go
    wal = db.with_name(db.name + ".wal")
    assert wal.exists()
    assert wal.stat().st_size > 0, "a let-go leaves a short WAL, not a checkpoint"
    other = _other_process(OTHER_WRITER, db, rid, 2.0)
    assert other.returncode == 0, other.stderr
    assert other.stdout.strip() == "2", "the other process replays the writer's WAL and adds a row"
    sink.handle(BenchBatch(rid, (BenchInterval(t=3.0, threads=1, tps=1.0),)))
    assert _count(store, "bench_samples") == 3, "attached again, the writer sees the other's row"
    sink.close()
    store.close()
    with Store.open(db, read_only=True) as s:
        assert s.scalar("SELECT list(t ORDER BY t) FROM bench_samples") == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("mode", ["held", "let-go"])
def test_a_writer_killed_between_flushes_loses_nothing_it_committed(tmp_path: Path, mode: str) -> None:
    first, rid = _store_with_run(tmp_path)
    first.close()
    db = tmp_path / "s.duckdb"
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(db), str(rid), mode],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert writer.stdin is not None
    assert writer.stdout is not None
    try:
        assert writer.stdout.readline().strip() == "ready"
        committed = 0
        for _ in range(8):
            writer.stdin.write("\n")
            writer.stdin.flush()
            committed = int(writer.stdout.readline())
        peek = _other_process("import duckdb, sys; duckdb.connect(sys.argv[1], read_only=True).close()", db)
        assert (peek.returncode == 0) == (mode == "let-go"), peek.stderr
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
    assert committed == 80
    assert writer.returncode == -signal.SIGKILL
    with Store.open(db) as store:  # read-write: the WAL replayed
        assert _count(store, "bench_samples") == committed
        with store.transaction() as cur:
            cur.execute("INSERT INTO bench_samples (run_id, t, threads) VALUES (?, 99, 1)", [rid])
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM bench_samples").fetchone() == (committed + 1,)
    finally:
        con.close()


def test_a_shared_writer_runs_its_database_on_one_thread(tmp_path: Path) -> None:
    first, rid = _store_with_run(tmp_path)
    first.close()
    store = Store.open(tmp_path / "s.duckdb", shared=True)
    sink = EventSink(store, batch_time=0, hold_s=60)
    sink.handle(BenchBatch(rid, (BenchInterval(t=1.0, threads=1, tps=1.0),)))
    with store.reading() as cur:
        assert cur.execute("SELECT current_setting('threads')").fetchone() == (1,)
    sink.close()
    store.close()
    fresh = duckdb.connect()
    try:
        default = fresh.execute("SELECT current_setting('threads')").fetchone()
    finally:
        fresh.close()
    with Store.open(tmp_path / "s.duckdb") as own, own.reading() as cur:  # not a shared writer
        assert cur.execute("SELECT current_setting('threads')").fetchone() == default
