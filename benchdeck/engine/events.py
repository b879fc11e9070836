"""Typed events a run yields: the one channel from remote process to store and UI.

The caller creates the run in its store first and hands the engine the run id; the engine
never sees the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from benchdeck.engine.cluster.records import LagSample, NodeFault, NodeIostat, NodeVmstat
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.metrics import PerOp
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.profiling.records import CounterWindow, ProfileWindow
from benchdeck.engine.profiling.stream import CaptureGap
from benchdeck.engine.records import (
    BenchInterval,
    IostatSample,
    RunRecord,
    SkippedLine,
    SysbenchSummary,
    VmstatSample,
)


@dataclass(frozen=True, slots=True)
class Planned:
    """The plan of a run, before anything starts remotely (persist it to reattach later)."""

    run_id: int
    plan: RunPlan


@dataclass(frozen=True, slots=True)
class RemoteProc:
    """A detached remote process of a run: what to signal, where its output goes."""

    name: str
    pid: int
    pgid: int
    out: str


@dataclass(frozen=True, slots=True)
class NodeProc:
    """A detached source of a run on a cluster (``what``: vmstat, iostat or lag of ``node``) on
    ``host``, writing ``run_dir/out``: what a later benchdeck needs to follow it again (from
    the file's start: the store drops rows it holds) and to stop it with the run.

    ``t0``: the epoch (this clock) the measured phase started at; ``skew``: the host's clock
    minus this one's; ``covers``/``probe``: a lag probe's nodes and kind; ``primary``: the
    cluster's primary node (its vmstat/iostat rows are the run's own)."""

    node: str
    what: str
    host: str
    run_dir: str
    pid: int
    pgid: int
    out: str
    t0: float
    primary: str
    skew: float = 0.0
    covers: tuple[str, ...] = ()
    probe: str = ""


@dataclass(frozen=True, slots=True)
class RunStarted:
    """The measured phase started; ``procs`` (and a cluster run's ``nodes``) let a later
    benchdeck reattach to it."""

    run_id: int
    host: str
    remote_dir: str
    started_at: datetime
    procs: tuple[RemoteProc, ...] = ()
    nodes: tuple[NodeProc, ...] = ()


@dataclass(frozen=True, slots=True)
class StepStarted:
    """A step before the measured part (cleanup, prepare, warm-up) started detached; ``proc``
    lets a later benchdeck reattach to it (wait for it, then go on to measure)."""

    run_id: int
    host: str
    remote_dir: str
    proc: RemoteProc


@dataclass(frozen=True, slots=True)
class Phase:
    """A step of a run before or after the measured part (preflight, prepare, warm-up ...)."""

    run_id: int
    name: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class BenchBatch:
    """Benchmark interval samples, in order, each delivered exactly once."""

    run_id: int
    rows: tuple[BenchInterval, ...]


@dataclass(frozen=True, slots=True)
class VmstatBatch:
    run_id: int
    rows: tuple[VmstatSample, ...]


@dataclass(frozen=True, slots=True)
class IostatBatch:
    run_id: int
    rows: tuple[IostatSample, ...]


@dataclass(frozen=True, slots=True)
class CaptureBatch:
    """perf windows finished during the measured part (``--profile``), each delivered once:
    ``perf stat`` windows, folded ``perf record`` windows, and windows perf did not take."""

    run_id: int
    counters: tuple[CounterWindow, ...] = ()
    profiles: tuple[ProfileWindow, ...] = ()
    gaps: tuple[CaptureGap, ...] = ()


@dataclass(frozen=True, slots=True)
class Skipped:
    """Lines a parser could not use, kept with their source."""

    run_id: int
    source: str
    rows: tuple[SkippedLine, ...]


@dataclass(frozen=True, slots=True)
class LogLine:
    run_id: int
    stream: str
    text: str


@dataclass(frozen=True, slots=True)
class RunFinished:
    run_id: int
    summary: SysbenchSummary
    qps: float
    per_op: PerOp
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class RunFailed:
    run_id: int
    error: str
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class RunCancelled:
    run_id: int
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the run runs on (host, DBMS version and variables, config files, commands)."""

    run_id: int
    record: RunRecord


@dataclass(frozen=True, slots=True)
class RawOutputs:
    """The run's output files as the tools wrote them, read once the run has ended."""

    run_id: int
    files: tuple[tuple[str, bytes], ...]  # (file name, content)


@dataclass(frozen=True, slots=True)
class Replayed:
    """Samples of a reattached run that the store already holds: for showing, not storing."""

    run_id: int
    bench: tuple[BenchInterval, ...] = ()
    vm: tuple[VmstatSample, ...] = ()
    io: tuple[IostatSample, ...] = ()


@dataclass(frozen=True, slots=True)
class ClusterPlanned:
    """The run drives ``cluster``'s primary (the run's host) and samples every node; yielded
    once, before :class:`RunStarted`, so the store knows the nodes and their roles."""

    run_id: int
    cluster: ClusterSpec


@dataclass(frozen=True, slots=True)
class ClusterBatch:
    """What a run on a cluster sampled of its nodes (``engine.cluster.records``), each row once."""

    run_id: int
    lag: tuple[LagSample, ...] = ()
    vm: tuple[NodeVmstat, ...] = ()
    io: tuple[NodeIostat, ...] = ()
    faults: tuple[NodeFault, ...] = ()


SampleEvent = BenchBatch | VmstatBatch | IostatBatch | Skipped | CaptureBatch | ClusterBatch
EndEvent = RunFinished | RunFailed | RunCancelled
RunEvent = (
    Planned
    | ClusterPlanned
    | RunStarted
    | StepStarted
    | Phase
    | SampleEvent
    | LogLine
    | EndEvent
    | Recorded
    | RawOutputs
    | Replayed
)
