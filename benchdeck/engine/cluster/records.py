"""What a run on a cluster records per node, besides the primary's benchmark samples.

Time is the run's clock: ``t`` is seconds since the measured phase started, as a benchmark
interval's ``t`` is, so a replica's lag at second 42 sits beside the QPS of second 42.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchdeck.engine.records import IostatSample, VmstatSample


@dataclass(frozen=True, slots=True)
class LagSample:
    """One replica's lag behind the primary at second ``t`` of the run.

    ``None`` where the server does not report the figure (MariaDB has no byte lag, PostgreSQL
    no transaction count). ``paused_s``: flow-control paused time during the last second
    (Galera ``wsrep_flow_control_paused_ns``, Group Replication's throttling), else ``None``.
    ``state``: ``ok``, or ``stopped`` / ``gone`` (a :class:`NodeFault` says why and when).
    """

    node: str
    t: float
    lag_s: float | None
    behind_bytes: int | None = None
    behind_trx: int | None = None
    paused_s: float | None = None
    state: str = "ok"


@dataclass(frozen=True, slots=True)
class NodeFault:
    """A node that stopped replicating or went away (``kind``: ``stopped``, ``gone``), or came
    back (``back``), at second ``t`` of the run, with the server's own reason."""

    node: str
    t: float
    kind: str
    reason: str


@dataclass(frozen=True, slots=True)
class NodeVmstat:
    """A vmstat sample of one node (the primary's also land in the run's own vmstat rows)."""

    node: str
    sample: VmstatSample


@dataclass(frozen=True, slots=True)
class NodeIostat:
    """An iostat device row of one node."""

    node: str
    sample: IostatSample
