"""The records of a comparison (store/analysis/compare.py): cells, rQPS rows, group summaries, per-op
blocks, and the errors a comparison raises. Kept apart so the renderers and the row shaping
(store/analysis/compare_rows.py) share them without loading the comparison's queries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchdeck.store.analysis.columns import Column

if TYPE_CHECKING:
    from benchdeck.store.analysis.counters_per_op import CounterRow
    from benchdeck.store.analysis.noise import RatioCI

HW_KEYS = ("cpu/o", "cs/o", "r/o", "rKB/o", "wKB/o", "o/s")
HW_COLS = ("cpu_o", "cs_o", "r_o", "rkb_o", "wkb_o", "per_op_ops")
NODE_KEYS = HW_KEYS[:5]
"""A cluster node's per-op metrics: per the primary's o/s (store/storage/cluster_summary.py)."""


class CompareError(Exception):
    """A comparison that cannot be made, with a one-line reason for the user."""

    exit_code = 1


class UnknownName(CompareError):
    """A host or build the store does not have: a usage error (the CLI exits 2)."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class NodeFigures:
    """One node of a cluster column (``node`` ``all``: the cluster's sum, each host once): the
    median over the cell's runs of its max and p95 lag (replicas) and its per-op metrics."""

    node: str
    role: str
    lag_max_s: float | None
    lag_p95_s: float | None
    per_op: dict[str, float | None]
    """:data:`NODE_KEYS` -> the node's figure per the primary's o/s."""


@dataclass(frozen=True, slots=True)
class ClusterFigures:
    """What a cell on a cluster adds: its runs' lag (medians over the runs of the worst
    replica's max and p95), how many of its runs a replica fell behind past the limit in, node
    faults, and each node's figures (the primary first, the cluster's sum ``all`` last)."""

    cluster: str
    lag_limit_s: float
    lag_max_s: float | None
    lag_p95_s: float | None
    over_limit: int
    runs: int
    faults: int
    nodes: tuple[NodeFigures, ...]


@dataclass(frozen=True, slots=True)
class Cell:
    """One column's aggregate for one workload: median QPS over its repeated runs."""

    qps: float
    n: int
    qps_min: float
    qps_max: float
    hw: dict[str, float | None]
    run_ids: tuple[int, ...] = ()
    run_qps: tuple[float, ...] = ()
    """Each run's QPS, in ``run_ids`` order (the repeats a noise interval comes from)."""
    cluster: ClusterFigures | None = None
    """A column on a cluster: its lag and per-node figures (None: runs alone)."""

    @property
    def spread(self) -> float:
        """(max - min) / median over repeats; 0 for a single run."""
        return (self.qps_max - self.qps_min) / self.qps if self.n > 1 and self.qps else 0.0


@dataclass(frozen=True, slots=True)
class RqpsRow:
    """One workload at one dop: each column's QPS relative to the base, and its noise."""

    workload: str
    group: str
    dop: int | None
    values: tuple[float | None, ...]
    within_noise: tuple[bool | None, ...]
    """The column's confidence interval (``ci``) contains 1.0; None when there is no interval
    (a script must not read "significant" where nothing was computed)."""
    repeats: tuple[int, ...]
    ci: tuple[RatioCI | None, ...] = ()
    """Per column: the interval of the ratio, None when there is nothing to draw it from."""


@dataclass(frozen=True, slots=True)
class GroupStat:
    """The summary of one group's rQPS in one column (the posts' per-group table)."""

    group: str
    column: str
    dop: int | None
    n: int
    min: float
    max: float
    avg: float
    median: float
    gmean: float


@dataclass(frozen=True, slots=True)
class HwRow:
    """One column's per-op metrics of a workload, absolute and relative to the base's."""

    build: str
    values: dict[str, float | None]
    rel: dict[str, float | None]
    config: str = ""
    label: str = ""
    """The column's label (the base's or a ``columns`` entry)."""
    cluster: ClusterFigures | None = None
    """A column on a cluster: lag and per-node per-op figures."""


@dataclass(frozen=True, slots=True)
class HwBlock:
    """The per-op metrics of one workload at one dop: a row per column, the base's first."""

    workload: str
    dop: int | None
    rows: tuple[HwRow, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    """rQPS of ``columns`` against ``base``. Columns are (build, config) pairs; ``base`` and
    ``columns`` are their labels: the build name when every column has the same config, else
    ``<build>.<config>`` (the posts' legend). ``cells`` is keyed by (workload, dop, label)."""

    host: str
    base: str
    columns: tuple[str, ...]
    config: str | None
    dops: tuple[int | None, ...]
    rqps: tuple[RqpsRow, ...]
    groups: tuple[GroupStat, ...]
    hw: tuple[HwBlock, ...]
    cells: dict[tuple[str, int | None, str], Cell] = field(repr=False)
    base_column: Column = field(default_factory=lambda: Column(""))
    column_specs: tuple[Column, ...] = ()
    """The resolved (build, config) of each of ``columns`` (config never None)."""
    counters: tuple[CounterRow, ...] = ()
    """perf stat counters per operation and their ratios (store/analysis/counters_per_op.py); empty when
    no compared run has counter windows."""

    @property
    def configs_differ(self) -> bool:
        return len({c.config for c in (self.base_column, *self.column_specs)}) > 1

    cluster_bases: tuple[str | None, ...] = ()
    """Per column on a cluster: the label of the base's build on the same cluster (and dop) when
    it is a column too, else None: the seed's question, a build's gain on the cluster."""

    def on_cluster_rqps(self, workload: str, dop: int | None, i: int) -> float | None:
        """Column ``i``'s QPS relative to the base's build on its cluster (None: no such column)."""
        other = self.cluster_bases[i] if self.cluster_bases else None
        c, b = self.cells.get((workload, dop, self.columns[i])), self.cells.get((workload, dop, other or ""))
        if other is None or c is None or b is None:
            return None
        from benchdeck.engine.relative import relative

        return relative(c.qps, b.qps)

    @property
    def on_clusters(self) -> bool:
        """Some column is on a cluster (the outputs then name each column's cluster)."""
        return any(c.cluster is not None for c in (self.base_column, *self.column_specs))

    def spec(self, label: str) -> Column:
        """The (build, config) of the base or a column, by label."""
        if label == self.base:
            return self.base_column
        return self.column_specs[self.columns.index(label)]
