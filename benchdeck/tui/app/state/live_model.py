"""What the Live screen shows, built from engine events (pure: no Textual, no I/O)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchdeck.engine.building.runner import BuildEvent, BuildFailed, BuildFinished
from benchdeck.engine.events import (
    BenchBatch,
    CaptureBatch,
    ClusterBatch,
    ClusterPlanned,
    IostatBatch,
    LogLine,
    NodeProc,
    Phase,
    Planned,
    RemoteProc,
    Replayed,
    RunCancelled,
    RunEvent,
    RunFailed,
    RunFinished,
    RunStarted,
    StepStarted,
    VmstatBatch,
)
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample
from benchdeck.tui.app.state.live_cluster import IO_KEYS, VM_KEYS, ClusterView, Series
from benchdeck.tui.services.eta import Eta, QueuePhase

LOG_LINES = 200


@dataclass
class RunView:
    """One run as it happens: its series, phase, log and, when known, the base's QPS."""

    run_id: int
    host: str = ""
    workload: str = ""
    build: str = ""
    phase: str = "queued"
    duration_s: int | None = None
    open_ended: bool = False  # runs until its work is done: duration_s is a cap, not its length
    remote_dir: str = ""
    procs: tuple[RemoteProc, ...] = ()
    nodes: tuple[NodeProc, ...] = ()  # a cluster run's node sources (cancel stops them too)
    t: list[float] = field(default_factory=list)
    qps: list[float | None] = field(default_factory=list)
    p95: list[float | None] = field(default_factory=list)
    vm: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in VM_KEYS})
    io: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in IO_KEYS})
    log: deque[str] = field(default_factory=lambda: deque(maxlen=LOG_LINES))
    log_total: int = 0  # lines ever logged, so a view knows how many are new
    base_qps: float | None = None
    final_qps: float | None = None
    error: str | None = None
    perf: dict[str, int] = field(default_factory=dict)
    """The perf windows taken so far (``--profile``): per kind (counters, cpu) and ``gaps``;
    empty when the run captures nothing."""
    cluster: ClusterView | None = None
    """A run on a cluster: its nodes' series, its replicas' lag (None: one server)."""

    @property
    def done(self) -> bool:
        return self.phase in ("finished", "failed", "cancelled")

    @property
    def last_qps(self) -> float | None:
        return next((q for q in reversed(self.qps) if q is not None), None)

    @property
    def rqps(self) -> float | None:
        """Live QPS relative to the base build's QPS for the same workload and host."""
        q = self.final_qps if self.final_qps is not None else self.last_qps
        return q / self.base_qps if q is not None and self.base_qps else None

    def _log(self, line: str) -> None:
        self.log.append(line)
        self.log_total += 1

    def _bench(self, rows: Sequence[BenchInterval]) -> None:
        for r in rows:
            self.t.append(r.t)
            self.qps.append(r.qps if r.qps is not None else r.tps)
            self.p95.append(r.latency_ms)

    def _vm(self, rows: Sequence[VmstatSample]) -> None:
        Series(self.vm, self.io).take_vm(rows)

    def _io(self, rows: Sequence[IostatSample]) -> None:
        Series(self.vm, self.io).take_io(rows)

    def apply(self, ev: RunEvent | BuildEvent) -> None:
        match ev:
            case Planned(_, plan):
                self.host, self.workload, self.duration_s = plan.host, plan.workload, plan.duration_s
                self.build, self.open_ended = plan.build, plan.open_ended
                if plan.capture is not None:
                    self.perf = {k: 0 for k in (*plan.capture.kinds, "gaps")}
            case CaptureBatch(_, counters, profiles, gaps):
                for key, n in (("counters", len(counters)), ("cpu", len(profiles)), ("gaps", len(gaps))):
                    self.perf[key] = self.perf.get(key, 0) + n
            case ClusterPlanned(_, spec):
                self.cluster = ClusterView(spec)
                self._log(f"{self.cluster.title}: primary {spec.primary.name} on {spec.primary.host}")
            case ClusterBatch() if self.cluster is not None:
                for line in self.cluster.take(ev):
                    self._log(line)
            case Phase(_, name, detail):
                self.phase = name
                self._log(f"{name}: {detail}" if detail else name)
            case StepStarted(_, host, remote_dir, proc):  # cancel stops the step (prepare ...)
                self.host, self.remote_dir, self.procs = host, remote_dir, (proc,)
            case RunStarted(_, host, remote_dir, _, procs, nodes):
                self.phase, self.host, self.remote_dir, self.procs = "measuring", host, remote_dir, procs
                self.nodes = nodes
            case BenchBatch(_, rows):
                self._bench(rows)
            case VmstatBatch(_, rows):
                self._vm(rows)
            case IostatBatch(_, rows):
                self._io(rows)
            case Replayed(_, bench, vm, io):  # a reattached run: what was stored before
                self._bench(bench)
                self._vm(vm)
                self._io(io)
            case LogLine(_, stream, text):
                self._log(f"{stream}: {text}")
            case RunFinished(_, _, qps, _, _):
                self.phase, self.final_qps = "finished", qps
                self._log(f"finished: QPS {qps:,.2f}")
            case RunFailed(_, error, _):
                self.phase, self.error = "failed", error
                self._log(f"failed: {error}")
            case RunCancelled():
                self.phase = "cancelled"
                self._log("cancelled")
            case BuildFinished(_, r, _):
                self.phase = "finished"
                self._log(
                    f"built in {r.duration_s:.1f} s, binary {r.binary_size:,} bytes ({r.compiler_version})"
                )
            case BuildFailed(_, error, _, _, _):
                self.phase, self.error = "failed", error
                self._log(f"failed: {error}")


def perf_line(v: RunView) -> str:
    """``perf: 12 counter windows, 11 cpu windows, 0 gaps`` ("" when the run captures nothing)."""
    names = {"counters": "counter window", "cpu": "cpu window", "gaps": "gap"}
    said = [f"{v.perf[k]} {names[k]}{'' if v.perf[k] == 1 else 's'}" for k in names if k in v.perf]
    return "perf: " + ", ".join(said) if said else ""


class LiveModel:
    """All live runs; the latest run of each host is what its tab shows."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.runs: dict[int, RunView] = {}
        self.queues: dict[str, tuple[Eta, float]] = {}
        """Per host: the ETA its queue's current item started with, and when (``clock``)."""
        self.clock = clock
        self.version = 0  # bumped on every change: views redraw when it moved

    def view(self, run_id: int) -> RunView:
        return self.runs.setdefault(run_id, RunView(run_id))

    def apply(self, ev: RunEvent | BuildEvent) -> RunView:
        v = self.view(ev.run_id)
        v.apply(ev)
        if isinstance(ev, QueuePhase) and ev.eta is not None:
            self.queues[ev.eta.host] = (ev.eta, self.clock())
        self.version += 1
        return v

    def queue_eta(self, host: str) -> tuple[Eta, float] | None:
        """The host's queue position and the seconds it has left now: the figure the log
        printed as the item started, less the time since (one ETA: :mod:`.eta`)."""
        got = self.queues.get(host)
        if got is None:
            return None
        eta, since = got
        return eta, eta.left_s(self.clock() - since)

    def hosts(self) -> list[str]:
        return sorted({v.host for v in self.runs.values() if v.host})

    def current(self, host: str) -> RunView | None:
        """The host's newest run (the one running, or the last that ran)."""
        mine = [v for v in self.runs.values() if v.host == host]
        return max(mine, key=lambda v: v.run_id) if mine else None

    def active(self) -> list[RunView]:
        return [v for v in self.runs.values() if not v.done and v.host]
