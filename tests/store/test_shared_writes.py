"""A shared store's writer: held while flushes come quickly, let go for others, WAL kept short.

Whether the file is free is asked as a user would: a plain DuckDB reader in another process.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from benchdeck.engine.events import BenchBatch
from benchdeck.engine.records import BenchInterval
from benchdeck.store.storage import file_store as store_db
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from tests.store.test_ingest import Clock, _count, _store_with_run


def _other_process_opens(db: Path) -> bool:
    """Whether a plain DuckDB reader in another process gets the file now."""
    code = "import duckdb, sys; duckdb.connect(sys.argv[1], read_only=True).close()"
    return subprocess.run([sys.executable, "-c", code, str(db)], capture_output=True).returncode == 0


def test_a_shared_store_is_held_while_flushes_come_quickly_and_let_go_after_hold_s(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    first, rid = _store_with_run(tmp_path)
    first.close()
    store = Store.open(db, shared=True)
    clock = Clock()
    sink = EventSink(store, batch_time=0.1, hold_s=0.5, clock=clock)

    def line(t: float) -> None:
        clock.t = t
        sink.handle(BenchBatch(rid, (BenchInterval(t=t, threads=1, tps=1.0),)))

    assert _other_process_opens(db), "nothing written yet: the file is free"
    line(1.0)  # the first row after a pause is flushed at once, and the file held
    assert _count(store, "bench_samples") == 1
    assert not _other_process_opens(db)
    line(1.2)
    line(1.4)
    assert not _other_process_opens(db), "flushes 0.2 s apart: held"
    line(1.6)  # held for 0.6 s >= hold_s: let go after this flush
    assert _other_process_opens(db)
    clock.t = 1.62
    assert sink.time_to_due() == pytest.approx(0.03), "it takes the file again 0.05 s later"
    assert sink.flush_if_due() == 0
    assert _other_process_opens(db)
    clock.t = 1.66
    assert sink.flush_if_due() == 0
    assert not _other_process_opens(db), "opened again ahead of the next flush"
    line(1.8)
    assert not _other_process_opens(db)
    clock.t = 1.85
    assert sink.time_to_due() is not None, "a held store is a reason to wake up"
    assert sink.flush_if_due() == 0
    assert not _other_process_opens(db)
    clock.t = 1.95  # no rows for a batch_time since the last commit: let go, not taken again
    assert sink.flush_if_due() == 0
    assert sink.time_to_due() is None
    assert _other_process_opens(db)
    assert _count(store, "bench_samples") == 5
    store.close()


def test_a_shared_store_checkpoints_a_long_wal_when_it_lets_go(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, rid = _store_with_run(tmp_path)
    first.close()
    wal = tmp_path / "s.duckdb.wal"
    store = Store.open(tmp_path / "s.duckdb", shared=True)
    sink = EventSink(store, batch_time=0, hold_s=0)  # the file let go after every flush
    sink.handle(BenchBatch(rid, (BenchInterval(t=1.0, threads=1, tps=1.0),)))
    kept = wal.stat().st_size
    assert kept > 0, "a short WAL is left for the next opener to replay"
    monkeypatch.setattr(store_db, "WAL_CHECKPOINT_BYTES", kept)
    sink.handle(BenchBatch(rid, (BenchInterval(t=2.0, threads=1, tps=1.0),)))
    assert not wal.exists() or wal.stat().st_size == 0, "over the threshold: checkpointed"
    assert _other_process_opens(tmp_path / "s.duckdb")
    assert _count(store, "bench_samples") == 2
    store.close()
