"""CPU per query by function: the arithmetic, on stacks stored and read back through the store."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.engine.profiling.cpu import (
    ProfileError,
    diff_functions,
    function_costs,
    queries_in_window,
    side_profile,
)
from benchdeck.engine.profiling.records import ProfileWindow
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.profiles import column_runs, load_profile_windows, load_side
from tests.profiles.data import BASE, HOST, NEW, WORKLOAD, build_profile_store, window


def test_cpu_clock_samples_are_seconds_per_query() -> None:
    w = window(0, {"a;b": 300, "a": 100, "a;c;b": 100})
    side = side_profile("x", [(1, w, 10_000.0, None)])
    costs = function_costs(side)
    # 1,000 Hz: 500 samples = 0.5 s over 10,000 queries = 50 us/q in all
    assert side.cpu_per_query == pytest.approx(50.0)
    assert costs["a"].total_us == pytest.approx(50.0)
    assert costs["a"].self_us == pytest.approx(10.0)
    # b is a leaf in two stacks: self = total = 400 samples
    assert costs["b"].self_samples == 400
    assert costs["b"].total_us == pytest.approx(40.0)


def test_recursion_counts_once_in_total() -> None:
    side = side_profile("x", [(1, window(0, {"f;f;f": 10}), 1000.0, None)])
    assert function_costs(side)["f"].total_samples == 10


def test_cycles_scaled_by_task_clock_and_not_mixed() -> None:
    w = ProfileWindow(0, 10.0, "cycles", 99.0, (("a", 1000),), start_s=0.0)
    side = side_profile("x", [(1, w, 1000.0, 2000.0)])  # 2 s of task-clock over 1,000 samples
    assert side.windows[0].scaled_by == "task-clock"
    assert side.cpu_per_query == pytest.approx(2000.0)
    svg = ProfileWindow(0, 10.0, "cycles", None, (("a", 5_000_000),))
    assert side_profile("y", [(1, svg, 1000.0, None)]).unit == "cycles"
    with pytest.raises(ProfileError, match="cannot be merged"):
        side_profile("z", [(1, w, 1000.0, 2000.0), (2, svg, 1000.0, None)])


def test_queries_from_the_samples_over_the_window() -> None:
    samples = [(float(t), 100.0 if t <= 10 else 300.0) for t in range(1, 21)]
    assert queries_in_window(samples, 5.0, 10.0, None) == pytest.approx(5 * 100 + 5 * 300)
    assert queries_in_window([], None, 10.0, 50.0) == pytest.approx(500.0)  # else the run's QPS
    with pytest.raises(ProfileError):
        queries_in_window([], None, 10.0, None)


def test_stored_windows_read_back_and_diff(tmp_path: Path) -> None:
    base_ids, new_ids = build_profile_store(tmp_path / "p.duckdb")
    with Store.open(tmp_path / "p.duckdb") as store:
        cur = store.cursor()
        stored = load_profile_windows(cur, base_ids[0])
        assert [w.window for w in stored] == [0, 1]
        assert stored[0].frequency_hz == 1000.0
        assert stored[1].start_s == 17.0
        col = column_runs(cur, HOST, NEW, WORKLOAD)
        assert col.run_ids == tuple(new_ids)  # the run without a profile is not in it
        base = load_side(cur, "base", base_ids)
        new = load_side(cur, "col", col.run_ids)
    rows = diff_functions(base, new, limit=None)
    top = rows[0]
    assert top.function == "row_upd_sec_index_entry"
    assert (top.base_self_us, top.col_self_us) == pytest.approx((200.0, 300.0))
    assert top.ratio() == pytest.approx(1.5)
    assert rows[-1].function == "log_write_up_to"
    assert rows[-1].diff() == pytest.approx(-20.0)
    # by total its callers grew as much as the function (the root less: log_write_up_to shrank)
    by_total = {r.function: r.diff("total") for r in diff_functions(base, new, None, "total")}
    assert by_total["mysql_update"] == pytest.approx(100.0)
    assert by_total["mysqld"] == pytest.approx(80.0)
    assert BASE in base.label or base.label == "base"
