"""Live: the headline, tabs sharing one pane, charts that redraw only on new data (nothing runs)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Log, Static

from benchdeck.engine.events import (
    BenchBatch,
    CaptureBatch,
    LogLine,
    Planned,
    RunCancelled,
    RunEvent,
    RunStarted,
)
from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.profiling.capture import CaptureOptions, capture_plan
from benchdeck.engine.profiling.records import CounterWindow, ProfileWindow
from benchdeck.engine.profiling.stream import CaptureGap
from benchdeck.engine.records import BenchInterval
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.dialogs import ConfirmDialog
from benchdeck.tui.app.screens.live import HostPane, HostTab, HostTabs, LiveScreen, headline
from benchdeck.tui.app.state.live_model import LiveModel, RunView, perf_line
from benchdeck.tui.app.widgets.charts import LineChart
from benchdeck.tui.app.widgets.keybar import KeyBar
from tests.app.helpers import on_screen, settle, static_text
from tests.app.make_live_screenshots import show_live, wait_for_launch, write_inventory

SIZE = (120, 36)
OPEN_ENDED_S = 14400  # what engine.session plans for a load step: a cap, not its length


@pytest.fixture(autouse=True)
def inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(INVENTORY_ENV, str(write_inventory(tmp_path)))
    return tmp_path


def view(*, duration_s: int = 300, open_ended: bool = False, t: float | None = 37.0) -> RunView:
    v = RunView(7, host="db1", workload="l.i0", build="pg174_o2nofp", phase="measuring")
    v.duration_s, v.open_ended = duration_s, open_ended
    if t is not None:
        v.t, v.qps = [t], [12345.0]
    return v


def test_headline_two_lines_what_runs_and_how_it_goes() -> None:
    v = view()
    v.base_qps = 10000.0
    assert headline(v, 300.0, 3, 42).split("\n") == [
        "run 7  pg174_o2nofp  l.i0",
        "measuring 37/300 s  QPS 12,345.0  rQPS 1.23  queue 3/42 ETA 5m00s",
    ]
    assert headline(view(t=None), None, 0, 0).split("\n")[1] == "measuring  QPS -"


def test_open_ended_steps_show_the_time_so_far_not_the_cap() -> None:
    line = headline(view(duration_s=OPEN_ENDED_S, open_ended=True), None, 0, 0)
    assert line.split("\n")[1] == "loading 37 s  QPS 12,345.0"
    assert "14400" not in line

    done = view(duration_s=OPEN_ENDED_S, open_ended=True, t=3721.0)
    done.phase = "finished"
    assert headline(done, None, 0, 0).split("\n")[1].startswith("finished 3721 s  ")


def run_events(run_id: int, host: str, qps: float, log: str) -> list[RunEvent]:
    plan = RunPlan(
        run_id=run_id,
        host=host,
        workload="point-query_range=100",
        remote_dir=f"/tmp/run{run_id}",
        bench_argv=("sysbench",),
        duration_s=60,
        build="my8040_rel",
    )
    rows = tuple(BenchInterval(t=float(t), threads=8, tps=qps, qps=qps, latency_ms=1.0) for t in range(1, 6))
    return [
        Planned(run_id, plan),
        RunStarted(run_id, host, plan.remote_dir, datetime(2024, 11, 1, 12, 0, 0)),
        BenchBatch(run_id, rows),
        LogLine(run_id, "stdout", log),
    ]


async def open_live_with_two_hosts(pilot: Pilot[BenchdeckApp]) -> LiveScreen:
    """Live with the fixed run on ``local`` and another on host ``db2``."""
    app = pilot.app
    for ev in run_events(11, "db2", 7777.0, "db2 says hello"):
        app.hub.model.apply(ev)
    await show_live(pilot)
    live = on_screen(app, LiveScreen)
    assert [t.host for t in live.query(HostTab)] == ["db2", "local"]
    return live


def shown(live: LiveScreen) -> tuple[str, list[str]]:
    """The headline and the log lines on screen."""
    return static_text(live.query_one(".live-headline", Static)), list(live.query_one(Log).lines)


async def test_tabs_show_each_hosts_run_in_the_one_pane(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_launch(pilot)
        live = await open_live_with_two_hosts(pilot)
        assert len(live.query(HostPane)) == 1
        qps = live.query_one("#live-qps", LineChart)

        line, log = shown(live)
        assert live.active_host() == "db2"  # the first tab
        assert line.startswith("run 11  my8040_rel  point-query_range=100\nmeasuring 5/60 s  QPS 7,777.0")
        assert log == ["stdout: db2 says hello"]
        assert qps.lines[0].ys[-1] == 7777.0

        live.query_one("#live-tabs", HostTabs).focus()
        await pilot.press("right")  # the next tab, from the keyboard
        await settle(pilot)
        line, log = shown(live)
        assert live.active_host() == "local"
        assert line.startswith("run 3  sqlite-sync  update-index_range=100\nmeasuring 12/30 s")
        assert "stdout: db2 says hello" not in log
        assert log[-1] == "stderr: sqlite: synchronous=FULL, journal_mode=WAL"
        assert qps.lines[0].ys[-1] != 7777.0

        await pilot.press("left")
        await settle(pilot)
        assert live.active_host() == "db2"
        assert shown(live) == (
            static_text(live.query_one(".live-headline", Static)),
            ["stdout: db2 says hello"],
        )
        assert shown(live)[0].startswith("run 11  ")
        assert qps.lines[0].ys[-1] == 7777.0


async def test_charts_redraw_only_when_their_data_changed(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_launch(pilot)
        await show_live(pilot)
        live = on_screen(app, LiveScreen)
        charts = {c.id: c for c in live.query(LineChart) if c.display}  # no lag chart: one server
        builds = {k: c.builds for k, c in charts.items()}
        assert all(builds.values()), builds

        app.hub.model.version += 1  # something changed elsewhere: this run's data did not
        live.refresh_live()
        await settle(pilot)
        assert {k: c.builds for k, c in charts.items()} == builds

        app.hub.model.apply(
            BenchBatch(3, (BenchInterval(t=13.0, threads=1, tps=1300.0, qps=1300.0, latency_ms=1.2),))
        )
        live.refresh_live()
        await settle(pilot)
        now = {k: c.builds for k, c in charts.items()}
        assert now["live-qps"] == builds["live-qps"] + 1  # QPS and p95 got a sample
        assert now["live-lat"] == builds["live-lat"] + 1
        assert now["live-cpu"] == builds["live-cpu"]  # vmstat did not


async def test_x_asks_first_and_is_off_when_nothing_runs(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_launch(pilot)
        await show_live(pilot)  # the fixed run, measuring
        live = on_screen(app, LiveScreen)
        keys = [d for _k, _disp, d, _on in live.query_one(KeyBar).keys()[0]]
        assert "Cancel run" in keys
        await pilot.press("x")
        await settle(pilot)
        dialog = on_screen(app, ConfirmDialog)
        assert dialog.question.startswith("Cancel run 3 (sqlite-sync update-index_range=100) on local?")
        await pilot.press("n")  # no: nothing is cancelled
        await settle(pilot)
        on_screen(app, LiveScreen)

        app.hub.model.apply(
            RunCancelled(3, datetime(2024, 11, 1, 12, 1, 0))
        )  # the run ends (as a cancel from elsewhere would)
        live.refresh_live()
        await settle(pilot)
        keys = [d for _k, _disp, d, _on in live.query_one(KeyBar).keys()[0]]
        assert "Cancel run" not in keys, "nothing runs: no x in the footer"
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, LiveScreen), "no question when nothing runs"
        assert any("Nothing runs on this host" in n.message for n in app._notifications)


def test_perf_line_counts_the_windows_as_their_batches_arrive() -> None:
    """A run with --profile: one line per host of the windows so far (none without a capture)."""
    opts = CaptureOptions(("counters", "cpu"))
    capture, _ = capture_plan(opts, ("port:3306",), False, "/tmp/run5", local=True)
    model = LiveModel()
    [planned, *_] = run_events(5, "db1", 100.0, "")
    assert perf_line(model.apply(planned)) == ""
    v = model.apply(replace(planned, plan=replace(planned.plan, capture=capture)))
    assert perf_line(v) == "perf: 0 counter windows, 0 cpu windows, 0 gaps"
    window = CounterWindow(0, 10.0, ())
    v = model.apply(CaptureBatch(5, counters=(window,), gaps=(CaptureGap("cpu", 0, 0.0, "perf killed"),)))
    assert perf_line(v) == "perf: 1 counter window, 0 cpu windows, 1 gap"
    cpu = ProfileWindow(1, 10.0, "cpu-clock", 99.0, (("mariadbd;main", 3),))
    v = model.apply(CaptureBatch(5, counters=(replace(window, window=1),), profiles=(cpu,)))
    assert perf_line(v) == "perf: 2 counter windows, 1 cpu window, 1 gap"
