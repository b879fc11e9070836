"""The capture's default cadence: a window, then a pause (counters 10 s of every 150 s, cpu 10 s
of every 60 s, after a settle), so a whole run pays a window's cost for a small share of its
time (engine/profiling/capture.py, bench/bench_capture.py); a short run still gets a window of
each kind, and an explicit period keeps the windows from the start."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchdeck.engine.profiling.capture import CaptureOptions, CapturePlan
from benchdeck.store.storage.db import Store
from benchdeck.tui.cli.capture_options import capture
from tests.fixtures.cli_helpers import bd

BOTH = ("counters", "cpu")


def test_default_periods_pause_between_windows() -> None:
    o = CaptureOptions(BOTH)
    assert (o.period("counters"), o.period("cpu")) == (150.0, 60.0)
    assert CaptureOptions(BOTH, window_s=200).period("cpu") == 200, "never shorter than the window"
    assert CaptureOptions(BOTH, window_s=5, period_s=5).period("counters") == 5, "--profile-period wins"
    assert capture(profile="counters,cpu") == o, "the command line's default is the cadence"
    assert capture(profile="cpu", profile_period=30).period_s == 30  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("run_s", "window", "counters", "cpu"),
    [
        (None, 10, 10.0, 22.0),  # open-ended: the settle, cpu after counters' window and a gap
        (300, 10, 10.0, 22.0),
        (30, 10, 20 / 3, 20 / 3),  # a short run: a third of the slack, both at once
        (4, 1, 1.0, 1.0),
    ],
)
def test_first_window_fits_the_run(run_s: float | None, window: float, counters: float, cpu: float) -> None:
    o = CaptureOptions(BOTH, window_s=window)
    assert o.first_s("counters", run_s) == pytest.approx(counters)
    assert o.first_s("cpu", run_s) == pytest.approx(cpu)
    assert CaptureOptions(("cpu",), window_s=window).first_s("cpu", run_s) == pytest.approx(counters)
    assert CaptureOptions(BOTH, window_s=window, period_s=window).first_s("cpu", run_s) == 0.0


def test_the_loops_argv_carries_each_kinds_cadence() -> None:
    plan = CapturePlan(CaptureOptions(BOTH), ("port:3306",), run_s=300)
    for kind, period, first in (("counters", "150", "10"), ("cpu", "60", "22")):
        argv = plan.argv(kind)
        assert argv[argv.index("--period") + 1] == period
        assert argv[argv.index("--first") + 1] == first


@pytest.mark.integration  # a real run of the built-in workload with the real perf
def test_a_short_run_with_the_default_cadence_captures_one_window_of_each_kind(tmp_path: Path) -> None:
    inv = tmp_path / "inv.toml"
    inv.write_text(f'[hosts.local]\ntransport = "local"\nworkdir = "{tmp_path / "w"}"\n')
    env = dict(os.environ, BENCHDECK_DB=str(tmp_path / "s.duckdb"), BENCHDECK_CONFIG=str(inv))
    args = ("run", "--host", "local", "--build", "sqlite", "--workload", "point-query", "--time", "4")
    res = bd(env, *args, "--profile", "counters,cpu", "--profile-window", "1", timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    store = Store.open(tmp_path / "s.duckdb")
    for table in ("counter_windows", "profile_windows"):
        rows = store.con.execute(f"SELECT start_s, seconds FROM {table}").fetchall()
        assert len(rows) == 1, (table, rows)  # the next would start 150 s / 60 s later
        start, seconds = rows[0]
        assert start >= 0.95, f"{table}: after the settle ((4 - 1) / 3 s), not at once: {start}"
        assert 0.95 <= seconds < 2.5, (table, seconds)
    assert store.scalar("SELECT count(*) FROM capture_gaps") == 0
