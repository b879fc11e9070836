"""Where did it change: QPS series across versions (or over time) and their change points.

A **version series** is, for one host, config, concurrency, DBMS line (dbms + fork + variant,
so ``my8040adv`` is not mixed into upstream) and workload, the finished runs of each version in
version order (:func:`engine.builds.version_sort_key`). Repeated runs of a version stay
observations of one point: their spread is the run-to-run noise the t-test needs. A **time
series** is the runs of one build in the order they ran, each its own point.

Detection is :func:`engine.changepoints.detect`; for each change the per-op metrics (cpu/o,
cs/o, rKB/o, wKB/o) are tested at the same split, between the neighbouring change points.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from benchdeck.engine.changepoints import Options, TTest, detect, split_test, worth_numpy
from benchdeck.engine.config_names import config_label
from benchdeck.store.analysis.movers import mover_ratio

Over = Literal["version", "time"]
OVER: tuple[Over, ...] = ("version", "time")
METRICS: tuple[tuple[str, str], ...] = (
    ("cpu/o", "cpu_o"),
    ("cs/o", "cs_o"),
    ("rKB/o", "rkb_o"),
    ("wKB/o", "wkb_o"),
)
METRIC_PVALUE = 0.01
"""A per-op metric moved at a known change when its own split there has p <= this (one test at
a point already found, not a search) and a magnitude above the detection's minimum."""
MIN_POINTS = 3


class ChangesError(Exception):
    """A request that cannot be answered, with a one-line reason for the user."""

    exit_code = 1


class UnknownFilter(ChangesError):
    """A host, config, DBMS, workload, dop or build the host has no finished runs of: a usage
    error (the CLI exits 2), named with the known values and the closest, as ``run`` does."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class Point:
    """One version (or one run, over time): its label, build, runs and mean values."""

    label: str
    build: str
    runs: int
    qps: float
    hw: dict[str, float | None]


@dataclass(frozen=True, slots=True)
class Series:
    """QPS (and per-op metrics) of one workload along versions or time."""

    host: str
    workload: str
    group: str
    dop: int | None
    config: str
    line: str
    """What is held fixed besides the workload: ``mysql rel_o2nofp`` (over versions) or a build."""
    over: Over
    labels: tuple[str, ...]
    """Each point's label: its version, or (over time) when its run started."""
    builds: tuple[str, ...]
    runs: tuple[int, ...]
    qps: tuple[float, ...]
    """Each point's mean QPS over its runs."""
    point_hw: dict[str, tuple[float | None, ...]]
    """Each per-op metric's mean per point (None where no run has it)."""
    values: tuple[float, ...]
    """QPS of every run (observation), in point order."""
    groups: tuple[int, ...]
    """The point of each observation."""
    hw: dict[str, tuple[float, ...]]
    """Each per-op metric per observation (NaN where the run has none)."""

    def point(self, i: int) -> Point:
        hw = {m: v[i] for m, v in self.point_hw.items()}
        return Point(self.labels[i], self.builds[i], self.runs[i], self.qps[i], hw)

    @property
    def points(self) -> tuple[Point, ...]:
        return tuple(self.point(i) for i in range(len(self.labels)))


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A build with finished runs that is in no series, and why: its line (DBMS, fork, variant;
    over time the build itself) has fewer than :data:`MIN_POINTS` points in every series."""

    build: str
    line: str
    points: int
    """The most points its line has in any series."""
    unit: str = "version"
    """What a point is: a version, or (over time) a run."""
    upstream: str | None = None
    """The line ``--include BUILD`` puts it in (its fork set aside); None without a fork."""
    config: str | None = None
    """The config of its longest series (None: no series of it at all)."""
    elsewhere: tuple[str, int] | None = None
    """Its line's longest series under another config: (config, points), e.g. pg12-pg17 on
    ``x10a`` while pg18 ran on ``x10b`` (``--across-configs`` joins them)."""

    def reason(self) -> str:
        """``pg180_o2nofp (postgres o2nofp, config x10b_c32r128: 2 versions, 3 needed; ...)``."""
        plural = "" if self.points == 1 else "s"
        cfg = "" if self.config is None else f", config {config_label(self.config)}"
        why = f"{self.build} ({self.line}{cfg}: {self.points} {self.unit}{plural}, {MIN_POINTS} needed"
        if self.upstream is not None:
            why += f"; --include {self.build} puts it in {self.upstream}"
        if self.elsewhere is not None:
            other, n = self.elsewhere
            why += f"; its line has {n} versions under config {config_label(other)}"
            why += ": --across-configs joins them"
        return why + ")"


@dataclass(frozen=True, slots=True)
class MetricMove:
    metric: str
    ratio: float
    """after / before, each held at least at the metric's floor (store/analysis/movers.py): finite."""
    pvalue: float
    moved: bool


@dataclass(frozen=True, slots=True)
class Change:
    """A change point: between ``before`` and ``after`` (adjacent points) QPS moved."""

    index: int
    before: Point
    after: Point
    test: TTest
    metrics: tuple[MetricMove, ...]

    @property
    def moved(self) -> tuple[MetricMove, ...]:
        return tuple(m for m in self.metrics if m.moved)


@dataclass(frozen=True, slots=True)
class SeriesChanges:
    series: Series
    changes: tuple[Change, ...]


def analyse(series: Iterable[Series], options: Options | None = None) -> list[SeriesChanges]:
    """Change points of each series, each with the per-op metrics tested at the same split."""
    opts = options or Options()
    series = list(series)
    vectorised = worth_numpy((len(s.values) for s in series), opts.window)
    out = []
    for s in series:
        cps = detect(s.values, s.groups, opts, vectorised=vectorised)
        bounds = [0, *(cp.index for cp in cps), len(s.labels)]
        changes = []
        for k, cp in enumerate(cps):
            lo, hi = bounds[k], bounds[k + 2]
            moves = []
            for metric, _col in METRICS:
                t = split_test(s.hw[metric], s.groups, (lo, cp.index, hi))
                # the floors of store/analysis/movers.py: both means near zero is no move, and never inf
                ratio = None if t is None else mover_ratio(metric, t.mean_after, t.mean_before)
                if t is None or ratio is None:
                    continue
                magnitude = max(abs(ratio - 1.0), abs(1.0 / ratio - 1.0))
                moved = not math.isnan(t.pvalue) and t.pvalue <= METRIC_PVALUE
                moves.append(MetricMove(metric, ratio, t.pvalue, moved and magnitude > opts.min_magnitude))
            changes.append(Change(cp.index, s.point(cp.index - 1), s.point(cp.index), cp.test, tuple(moves)))
        out.append(SeriesChanges(s, tuple(changes)))
    return out
