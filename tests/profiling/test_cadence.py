"""The capture's default cadence: a window, then a pause (counters 10 s of every 150 s, cpu 10 s
of every 60 s, after a settle), so a whole run pays a window's cost for a small share of its
time (engine/profiling/capture.py, bench/bench_capture.py); the two kinds take turns, never
counting each other; a short run gets shorter windows of each kind, or a reason per kind when
it is too short even for those (engine/profiling/cadence.py); an explicit period keeps the
windows from the start."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from benchdeck.engine.profiling.cadence import MIN_WINDOW_S, ORDER, SETTLE_S, SHORT_GAP_S, schedule, tail_s
from benchdeck.engine.profiling.capture import CaptureOptions, CapturePlan
from benchdeck.store.storage.db import Store
from benchdeck.tui.cli.capture_options import capture
from tests.fixtures.cli_helpers import CLI, ROOT, bd, inventory_env, local_host

BOTH = ("counters", "cpu")


def test_default_periods_pause_between_windows() -> None:
    o = CaptureOptions(BOTH)
    assert (o.period("counters"), o.period("cpu")) == (150.0, 60.0)
    assert CaptureOptions(BOTH, window_s=200).period("cpu") == 200, "never shorter than the window"
    assert CaptureOptions(BOTH, window_s=5, period_s=5).period("counters") == 5, "--profile-period wins"
    assert capture(profile="counters,cpu") == o, "the command line's default is the cadence"
    assert capture(profile="cpu", profile_period=30).period_s == 30  # type: ignore[union-attr]


@pytest.mark.parametrize("explicit", [False, True], ids=["default", "period"])
@pytest.mark.parametrize("kinds", [BOTH, ("cpu",), ("counters",)], ids="+".join)
@pytest.mark.parametrize("window", [10.0, 1.0])
def test_every_run_length_gets_turns_that_fit_or_a_reason(
    kinds: tuple[str, ...], window: float, explicit: bool
) -> None:
    """--time 1 to 60: the kinds take turns (cpu after counters' window and a gap), the last
    window leaves perf its time to exit and fold before the run ends, the windows shrink no
    lower than MIN_WINDOW_S; a run too short for that has no window and says so per kind."""
    fitted = []
    for run_s in range(1, 61):
        s = schedule(kinds, window, float(run_s), explicit)
        if not s.slots:
            assert set(s.missing) == set(kinds)
            assert all(f"the run ({run_s} s) is too short" in why for why in s.missing.values())
            continue
        fitted.append(run_s)
        assert set(s.slots) == set(kinds)
        assert not s.missing
        w = s.window_s
        assert w is not None
        assert MIN_WINDOW_S <= w <= window
        slots = [s.slots[k] for k in ORDER if k in kinds]
        assert slots[0].first_s >= 0
        for a, b in itertools.pairwise(slots):
            assert a.first_s + a.window_s + SHORT_GAP_S <= b.first_s + 1e-9, (run_s, s)
        assert slots[-1].first_s + w + tail_s(w) <= run_s + 1e-9, (run_s, s)
        if run_s >= 45:
            assert w == window, "a long run keeps the asked window"
            assert slots[0].first_s == (0 if explicit else SETTLE_S)
    assert fitted
    assert fitted == list(range(fitted[0], 61)), "every run longer than one that fits fits too"
    assert fitted[0] <= (9 if len(kinds) == 2 else 5)


@pytest.mark.parametrize(
    ("run_s", "counters", "cpu", "window"),
    [
        (None, 10.0, 22.0, 10.0),  # open-ended: the settle, cpu after counters' window and a gap
        (300, 10.0, 22.0, 10.0),
        (15, 3.25, 8.182, 4.432),  # issue 37's run: both shrink to fit, one after the other
    ],
)
def test_the_turns_of_a_long_and_a_short_run(
    run_s: float | None, counters: float, cpu: float, window: float
) -> None:
    s = schedule(BOTH, 10.0, run_s, explicit_period=False)
    assert s.slots["counters"].first_s == pytest.approx(counters, abs=1e-3)
    assert s.slots["cpu"].first_s == pytest.approx(cpu, abs=1e-3)
    assert s.window_s == pytest.approx(window, abs=1e-3)


def test_the_loops_argv_carries_each_kinds_cadence() -> None:
    plan = CapturePlan(CaptureOptions(BOTH), ("port:3306",), run_s=300)
    for kind, period, first, until in (
        ("counters", "150", "10.000", "300.000"),
        ("cpu", "60", "22.000", "296.500"),
    ):
        argv = plan.argv(kind)
        assert argv[argv.index("--period") + 1] == period
        assert argv[argv.index("--first") + 1] == first
        assert argv[argv.index("--until") + 1] == until, (
            "no later window that ends after the run (and its fold)"
        )
    assert "--until" not in CapturePlan(CaptureOptions(BOTH), ("port:3306",)).argv("cpu"), "open-ended"


def stored_windows(store: Store, table: str) -> list[tuple[float, float]]:
    rows = store.con.execute(f"SELECT start_s, start_s + seconds FROM {table} ORDER BY start_s").fetchall()
    return [(float(a), float(b)) for a, b in rows]


def short_run(tmp_path: Path, time_s: int, kinds: str) -> tuple[Any, ...]:
    """``bd``'s environment and arguments: the built-in workload on this machine with the real
    perf, a quick prepare (one small table), the default window."""
    small = "threads = 1\ntables = 1\ntable_size = 2000"
    env = inventory_env(tmp_path, local_host("local", tmp_path / "w", small), store="s.duckdb")
    args = ("run", "--host", "local", "--build", "sqlite", "--workload", "point-query", "--time", str(time_s))
    return (env, *args, "--profile", kinds)


# A real run of the built-in workload with the real perf and the default window (10 s): the
# times of issue 37 (every --time from 1 to 60 is checked above as a schedule). 4: too short for
# both kinds; 5: the shortest with a window of each; 15: the cpu window lost before (folded
# while the run ended). 12, 20 and 30 take the same path as 15 with longer windows.
@pytest.mark.integration
@pytest.mark.parametrize(("time_s", "windows"), [(4, 0), (5, 1), (15, 1)])
def test_a_short_run_stores_each_kinds_window_or_says_why_not(
    time_s: int, windows: int, tmp_path: Path
) -> None:
    res = bd(*short_run(tmp_path, time_s, "counters,cpu"), timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    store = Store.open(tmp_path / "s.duckdb")
    counters, cpu = stored_windows(store, "counter_windows"), stored_windows(store, "profile_windows")
    gaps = store.con.execute("SELECT kind, reason FROM capture_gaps ORDER BY kind").fetchall()
    assert (len(counters), len(cpu)) == (windows, windows), (counters, cpu, gaps, res.stdout)
    closing = [ln for ln in res.stdout.splitlines() if "benchdeck: perf: " in ln]
    assert len(closing) == 1, res.stdout
    if windows:
        assert gaps == []
        assert counters[0][1] <= cpu[0][0], f"the two overlap: counters {counters}, cpu {cpu}"
        assert counters[0][0] > 0.5, "after a settle"
        assert cpu[0][1] < time_s, "within the run"
        assert "counters 1 window of" in closing[0]
        assert "cpu 1 window of" in closing[0]
    else:
        assert [k for k, _ in gaps] == ["counters", "cpu"]
        assert all("the run (4 s) is too short" in why for _, why in gaps)
        assert gaps[0][1] in closing[0]


@pytest.mark.integration
def test_a_capture_loop_killed_on_the_host_leaves_a_gap_and_a_line(tmp_path: Path) -> None:
    """The host's own kill -9 of the cpu loop (nothing it could write): the runner stores a gap
    with how the loop ended, and the closing line says it."""
    env, *args = short_run(tmp_path, 5, "cpu")
    run = subprocess.Popen([*CLI, *args], env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 120
    while not (loops := _cpu_loops(tmp_path / "w")):
        assert run.poll() is None, "the run ended before its cpu loop was seen"
        assert time.monotonic() < deadline, "the cpu loop never started"
        time.sleep(0.05)  # polling /proc: nothing to wait on
    os.kill(loops[0], signal.SIGKILL)
    out, _ = run.communicate(timeout=120)
    assert run.returncode == 0, out
    store = Store.open(tmp_path / "s.duckdb")
    gaps = store.con.execute("SELECT kind, reason FROM capture_gaps").fetchall()
    assert store.scalar("SELECT count(*) FROM profile_windows") == 0
    assert len(gaps) == 1, gaps
    assert gaps[0][0] == "cpu"
    assert gaps[0][1].startswith("its capture loop ended (exit 137)"), gaps
    assert f"perf: no cpu window: {gaps[0][1]}" in " ".join(out.split()), out


def _cpu_loops(workdir: Path) -> list[int]:
    """Pids of the cpu capture loops running in a run directory under ``workdir``."""
    found = []
    for d in Path("/proc").iterdir():
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        loop = argv[1:4] == [b"-m", b"benchdeck.engine.profiling.host_perf", b"cpu"]  # not its sh wrapper
        if loop and str(workdir).encode() in b" ".join(argv):
            found.append(int(d.name))
    return found
