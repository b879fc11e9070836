"""The store queries the TUI adds: history filters, tags, delete, time series (real DuckDB)."""

from __future__ import annotations

from datetime import date

import pytest

from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_lists import (
    RunFilter,
    busiest_host,
    delete_run,
    latest_run,
    list_configs,
    list_dops,
    run_history,
    run_series,
    set_tags,
)
from tests.app.storedata import BASE, HOST, NEW, OTHER_HOST, Demo

RUN_TABLES = (
    "runs",
    "run_summary",
    "bench_samples",
    "vmstat_samples",
    "iostat_samples",
    "raw_files",
    "skipped_lines",
    "remote_runs",
)


def test_history_filters(demo: Demo) -> None:
    with Store.open(demo.path) as store:
        cur = store.cursor()
        assert len(run_history(cur)) == 35
        assert {r.host for r in run_history(cur, RunFilter(host=OTHER_HOST))} == {OTHER_HOST}
        only = run_history(cur, RunFilter(build=NEW, workload="UPDATE-index"))
        assert [(r.build, r.workload) for r in only] == [(NEW, "update-index_range=100")]
        assert len(run_history(cur, RunFilter(since=date(2024, 11, 1), until=date(2024, 11, 1)))) == 35
        assert run_history(cur, RunFilter(until=date(2024, 10, 31))) == []
        assert len(run_history(cur, RunFilter(limit=5))) == 5
        assert busiest_host(cur) == HOST
        assert list_configs(cur, HOST) == ["z11a_c32r128"]
        assert list_dops(cur, HOST) == [24]
        assert (
            latest_run(cur, host=HOST, build=NEW, workload="update-index_range=100") == demo.new_update_index
        )


def test_tags_are_replaced_and_kept_with_the_summary(demo: Demo) -> None:
    with Store.open(demo.path) as store:
        cur = store.cursor()
        rid = demo.base_update_index
        cur.execute("INSERT INTO remote_runs VALUES (?, 'h', '/r', '{}', '{}', NULL)", [rid])
        assert set_tags(cur, rid, [" a", "b", "a", ""]) == ["a", "b"]
        assert set_tags(cur, rid, ["c"]) == ["c"]
        (row,) = run_history(cur, RunFilter(tag="c"))
        assert (row.run_id, row.tags, row.qps) == (rid, ("c",), 10000.0)
        assert store.scalar("SELECT count(*) FROM remote_runs WHERE run_id = ?", [rid]) == 1
        with pytest.raises(KeyError, match="run 999 does not exist"):
            set_tags(cur, 999, ["x"])


def test_delete_run_removes_every_row_of_the_run(demo: Demo) -> None:
    with Store.open(demo.path) as store:
        cur = store.cursor()
        rid = demo.new_update_index
        cur.execute("INSERT INTO remote_runs VALUES (?, 'h', '/r', '{}', '{}', NULL)", [rid])
        cur.execute("INSERT INTO skipped_lines VALUES (?, 'vmstat', 1, 'x', 'banner')", [rid])
        before = {t: store.scalar(f"SELECT count(*) FROM {t}") for t in RUN_TABLES}
        assert delete_run(cur, rid) is True
        for t in RUN_TABLES:
            assert store.scalar(f"SELECT count(*) FROM {t} WHERE run_id = ?", [rid]) == 0, t
        assert store.scalar("SELECT count(*) FROM bench_samples") == before["bench_samples"] - 30
        assert store.scalar("SELECT count(*) FROM runs") == before["runs"] - 1
        assert delete_run(cur, rid) is False


def test_run_series_uses_the_run_device(demo: Demo) -> None:
    with Store.open(demo.path) as store:
        s = run_series(store.cursor(), demo.base_update_index)
        assert s.device == "nvme0n1"
        assert len(s.t) == len(s.qps) == 30
        assert s.io["w_s"][:2] == [400.0, 401.0], "nvme0n1, not its partition nvme0n1p1"
        assert s.vm["us"][0] == 40
        assert s.run.build == BASE
        with pytest.raises(KeyError):
            run_series(store.cursor(), 12345)
