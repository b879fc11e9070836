"""What the Live screen shows of a run on a cluster: each node's vmstat and iostat, each
replica's lag over the run's ``t``, the faults (pure: no Textual, no I/O)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from benchdeck.engine.cluster.records import NodeFault
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.events import ClusterBatch
from benchdeck.engine.records import IostatSample, VmstatSample

VM_KEYS = ("us", "sy", "id", "wa", "cs", "r")
IO_KEYS = ("r_s", "w_s", "rkb_s", "wkb_s")
NOTE_WIDTH = 78  # the headline's cluster line within 80 columns (its padding is 1 a side)


@dataclass
class Series:
    """vmstat and iostat columns of one server, one value per sample, as they arrive."""

    vm: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in VM_KEYS})
    io: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in IO_KEYS})

    def take_vm(self, rows: Sequence[VmstatSample]) -> None:
        for v in rows:
            for k in VM_KEYS:
                self.vm[k].append(float(getattr(v, k)))

    def take_io(self, rows: Sequence[IostatSample]) -> None:
        for s in rows:
            for k in IO_KEYS:
                self.io[k].append(float(getattr(s, k)))


def fault_text(f: NodeFault) -> str:
    """``node r2 stopped at 42 s: Error 'x' on query`` (``back`` when it came back)."""
    return f"node {f.node} {f.kind} at {f.t:.0f} s: {f.reason}"


@dataclass
class ClusterView:
    """A run's cluster as sampled so far: series per node, lag per replica, faults in order."""

    spec: ClusterSpec
    nodes: dict[str, Series] = field(default_factory=dict)
    lag_t: dict[str, list[float]] = field(default_factory=dict)
    lag_s: dict[str, list[float | None]] = field(default_factory=dict)
    paused_s: dict[str, list[float | None]] = field(default_factory=dict)
    """Flow-control paused seconds per replica at the same ``t`` (Galera, Group Replication)."""
    pausing: list[str] = field(default_factory=list)
    """The replicas that reported paused time: their line shows on the lag chart."""
    state: dict[str, str] = field(default_factory=dict)
    """Each replica's state as its last lag sample said it (``ok``, ``stopped``, ``gone``)."""
    faults: list[NodeFault] = field(default_factory=list)

    def __post_init__(self) -> None:
        for n in self.spec.nodes:
            self.nodes.setdefault(n.name, Series())
        for r in self.spec.replicas:
            self.lag_t.setdefault(r.name, [])
            self.lag_s.setdefault(r.name, [])
            self.paused_s.setdefault(r.name, [])

    def take(self, batch: ClusterBatch) -> list[str]:
        """Take in a batch; returns the log lines it makes (one per fault)."""
        for lag in batch.lag:
            self.lag_t.setdefault(lag.node, []).append(lag.t)
            self.lag_s.setdefault(lag.node, []).append(lag.lag_s if lag.state == "ok" else None)
            self.paused_s.setdefault(lag.node, []).append(lag.paused_s)
            if lag.paused_s is not None and lag.node not in self.pausing:
                self.pausing.append(lag.node)
            self.state[lag.node] = lag.state
        for vm in batch.vm:
            self.nodes.setdefault(vm.node, Series()).take_vm((vm.sample,))
        for io in batch.io:
            self.nodes.setdefault(io.node, Series()).take_io((io.sample,))
        self.faults += batch.faults
        return [f"cluster: {fault_text(f)}" for f in batch.faults]

    @property
    def title(self) -> str:
        """``cluster loop3 (async, 3 nodes)``."""
        return f"cluster {self.spec.name} ({self.spec.kind}, {len(self.spec.nodes)} nodes)"

    def last_lag(self, node: str) -> str:
        """``0.4 s``, ``stopped`` / ``gone``, or ``-`` before its first sample."""
        state = self.state.get(node, "ok")
        if state != "ok":
            return state
        got = next((s for s in reversed(self.lag_s.get(node, [])) if s is not None), None)
        return f"{got:.1f} s" if got is not None else "-"

    def headline(self) -> str:
        """The headline's cluster line, within 80 columns: each replica's last lag and the
        limit; the largest lag alone when they do not all fit."""
        limit = f"limit {self.spec.lag_limit_s:g} s"
        each = ", ".join(f"{r.name} {self.last_lag(r.name)}" for r in self.spec.replicas)
        line = f"{self.title}  lag {each}  {limit}"
        if len(line) <= NOTE_WIDTH:
            return line
        worst = max(self.spec.replicas, key=lambda r: self._worst_key(r.name))
        return f"{self.title}  lag max {self.last_lag(worst.name)} ({worst.name})  {limit}"

    def _worst_key(self, node: str) -> float:
        if self.state.get(node, "ok") != "ok":
            return float("inf")
        return next((s for s in reversed(self.lag_s.get(node, [])) if s is not None), -1.0)
