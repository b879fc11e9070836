"""The Live screen's model, fed with real engine event types."""

from dataclasses import replace
from datetime import datetime

from benchdeck.engine.events import (
    BenchBatch,
    LogLine,
    Phase,
    Planned,
    RemoteProc,
    RunFinished,
    RunStarted,
    StepStarted,
    VmstatBatch,
)
from benchdeck.engine.metrics import PerOp
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.records import BenchInterval, SysbenchSummary, VmstatSample
from benchdeck.tui.app.screens.live import headline
from benchdeck.tui.app.state.live_model import LOG_LINES, LiveModel
from benchdeck.tui.services.eta import Eta, QueuePhase

NOW = datetime(2026, 11, 21, 12, 0, 0)


def plan(run_id: int, host: str) -> RunPlan:
    return RunPlan(run_id, host, "point-query_range=100", "/tmp/r", ("sysbench",), 300, build="my8040_rel")


def vm(seq: int) -> VmstatSample:
    return VmstatSample(seq, 2, 0, 0, 1, 1, 1, 0, 0, 0, 0, 100, 5000 + seq, 30, 10, 60, 0, 0)


def test_a_run_builds_its_series_and_headline() -> None:
    clock = [100.0]  # a clock the test moves: the header counts down from the log's figure
    m = LiveModel(clock=lambda: clock[0])
    m.apply(
        QueuePhase(1, "queue", "1/4 my8040_rel point-query_range=100 ETA 20m00s", Eta("dell32", 1, 4, 1200))
    )
    m.apply(Planned(1, plan(1, "dell32")))
    m.apply(Phase(1, "prepare"))
    m.apply(RunStarted(1, "dell32", "/tmp/r", NOW))
    for t in (1.0, 2.0, 3.0):
        m.apply(BenchBatch(1, (BenchInterval(t=t, threads=4, tps=10.0, qps=1000.0 * t, latency_ms=2.5),)))
    m.apply(VmstatBatch(1, (vm(0), vm(1))))
    v = m.view(1)
    v.base_qps = 2500.0
    assert v.t == [1.0, 2.0, 3.0]
    assert v.vm["cs"] == [5000.0, 5001.0]
    assert v.rqps == 3000.0 / 2500.0
    queue = m.queue_eta("dell32")
    assert queue is not None
    eta, left = queue
    line = headline(v, left, eta.k, eta.n)
    assert line.split("\n") == [
        "run 1  my8040_rel  point-query_range=100",
        "measuring 3/300 s  QPS 3,000.0  rQPS 1.20  queue 1/4 ETA 20m00s",
    ]
    assert next(iter(v.log)) == "queue: 1/4 my8040_rel point-query_range=100 ETA 20m00s", "the same figure"
    clock[0] += 7
    assert m.queue_eta("dell32") == (eta, 1200 - 7), "the ETA moves while the run runs"
    m.apply(RunFinished(1, SysbenchSummary(qps=2900.0), 2900.0, PerOp(ops=2900.0), NOW))
    assert v.rqps == 2900.0 / 2500.0, "the final figure replaces the last interval"
    assert m.active() == []


def test_an_open_ended_plan_shows_the_time_so_far() -> None:
    m = LiveModel()
    m.apply(Planned(2, replace(plan(2, "dell32"), workload="l.i0", duration_s=14400, open_ended=True)))
    m.apply(RunStarted(2, "dell32", "/tmp/r", NOW))
    m.apply(BenchBatch(2, (BenchInterval(t=37.0, threads=1, tps=1.0, qps=900.0, latency_ms=None),)))
    v = m.view(2)
    assert v.open_ended
    assert headline(v, None, 0, 0) == "run 2  my8040_rel  l.i0\nloading 37 s  QPS 900.0"


def test_each_host_shows_its_newest_run() -> None:
    m = LiveModel()
    for rid, host in ((1, "a"), (2, "b"), (3, "a")):
        m.apply(Planned(rid, plan(rid, host)))
    assert m.hosts() == ["a", "b"]
    current = m.current("a")
    assert current is not None
    assert current.run_id == 3
    assert m.version == 3


def test_log_keeps_a_bounded_tail_and_counts_lines() -> None:
    m = LiveModel()
    for i in range(LOG_LINES + 50):
        m.apply(LogLine(7, "sysbench", f"line {i}"))
    v = m.view(7)
    assert len(v.log) == LOG_LINES
    assert v.log_total == LOG_LINES + 50
    assert v.log[-1] == f"sysbench: line {LOG_LINES + 49}"


def test_a_run_in_its_prepare_knows_the_step_to_cancel() -> None:
    """The app's cancel kills ``view.procs``: during prepare that is the prepare's group (before,
    the view had none until the measured part started, and cancel did nothing)."""
    m = LiveModel()
    m.apply(Planned(1, plan(1, "dell32")))
    m.apply(Phase(1, "prepare"))
    step = RemoteProc("prepare", 4242, 4240, "prepare.out")
    m.apply(StepStarted(1, "dell32", "/tmp/r", step))
    v = m.view(1)
    assert (v.host, v.remote_dir, v.procs, v.phase) == ("dell32", "/tmp/r", (step,), "prepare")
    bench = RemoteProc("bench", 4300, 4300, "bench.out")
    m.apply(RunStarted(1, "dell32", "/tmp/r", NOW, (bench,)))
    assert v.procs == (bench,), "the measured part's processes replace the step's"
