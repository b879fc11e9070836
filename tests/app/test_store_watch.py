"""The app's look at what other processes store (issue 38 item 8): while a CLI queue streams, the
store file changes every second, and the idle app read it at every look (every 2 s), holding
the file the queue's writer then waited for. It now reads when the runs that live processes
follow change (one starts or ends), not for each batch of samples."""

from __future__ import annotations

from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.records import BenchInterval
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.following import followed_runs, following
from benchdeck.store.storage.runs import NewRun, create_run, set_status
from benchdeck.store.storage.samples import append_bench
from benchdeck.tui.app.state.store_watch import StoreWatch


def _samples(store: Store, run_id: int, start: int) -> None:
    with store.transaction() as cur:
        append_bench(
            cur,
            run_id,
            [BenchInterval(t=float(t), threads=1, tps=5.0, qps=100.0) for t in range(start, start + 5)],
        )


def test_a_followed_runs_samples_are_not_read_its_start_and_end_are(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    writer = Store.open(path, shared=True)  # as a CLI writer: the file held per batch
    app = Store.open(path, shared=True)
    try:
        watch = StoreWatch(lambda: app)
        assert not watch.changed()  # the first look takes the state
        with writer.transaction() as cur:
            rid = create_run(
                cur, NewRun("local", parse_build_name("my8028_rel"), "point-query_range=100", "test")
            )
        with following(path, rid):  # the CLI follows its run while it streams
            assert followed_runs(path) == {rid}
            assert watch.changed(), "a new run shows"
            reads = watch.reads
            for start in range(0, 50, 5):
                _samples(writer, rid, start)
                assert not watch.changed()
            assert watch.reads <= reads + 1, "a batch of samples is no reason to take the file"
            with writer.transaction() as cur:
                set_status(cur, rid, "finished")
        assert followed_runs(path) == frozenset()
        assert watch.changed(), "the run's end shows"
        with writer.transaction() as cur:  # nothing followed: any change is read (imports, tags)
            set_status(cur, rid, "failed", error="x")
        assert watch.changed()
    finally:
        writer.close()
        app.close()
