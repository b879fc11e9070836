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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import duckdb

from engine.changepoints import Options, TTest, detect, split_test

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
    points: tuple[Point, ...]
    values: tuple[float, ...]
    """QPS of every run (observation), in point order."""
    groups: tuple[int, ...]
    """The point of each observation."""
    hw: dict[str, tuple[float, ...]]
    """Each per-op metric per observation (NaN where the run has none)."""


@dataclass(frozen=True, slots=True)
class MetricMove:
    metric: str
    ratio: float
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


_SQL = """
SELECT w.name, r.threads, r.config, b.name, b.dbms, b.version, b.version_key, b.fork, b.variant,
       r.run_id, coalesce(r.started_at, r.finished_at, r.created_at),
       s.qps, s.cpu_o, s.cs_o, s.rkb_o, s.wkb_o
FROM runs r
JOIN hosts h ON h.host_id = r.host_id
JOIN builds b ON b.build_id = r.build_id
JOIN workloads w ON w.workload_id = r.workload_id
JOIN run_summary s ON s.run_id = r.run_id
WHERE h.name = $host
  AND r.status = 'finished'
  AND s.qps IS NOT NULL AND isfinite(s.qps)
  AND ($config IS NULL OR r.config = $config)
  AND ($dbms IS NULL OR b.dbms = $dbms)
  AND ($workload IS NULL OR w.name = $workload)
  AND ($dop IS NULL OR r.threads = $dop)
  AND ($build IS NULL OR b.name = $build)
"""


def load_series(
    cur: duckdb.DuckDBPyConnection,
    *,
    host: str,
    group_of: Callable[[str], str],
    sort_key: Callable[[str], tuple[int, str]],
    over: Over = "version",
    config: str | None = None,
    dbms: str | None = None,
    workload: str | None = None,
    dop: int | None = None,
    build: str | None = None,
) -> list[Series]:
    """Every series of ``host`` with at least :data:`MIN_POINTS` points, in workload order."""
    if over not in OVER:
        raise ChangesError(f"--over must be one of {', '.join(OVER)}, not {over!r}")
    if cur.execute("SELECT count(*) FROM hosts WHERE name = ?", [host]).fetchone() == (0,):
        raise ChangesError(f"no host {host!r} in the store")
    params = {"host": host, "config": config, "dbms": dbms, "workload": workload, "dop": dop, "build": build}
    rows = cur.execute(_SQL, params).fetchall()
    buckets: dict[tuple[object, ...], list[tuple[object, ...]]] = {}
    for row in rows:
        name, threads, cfg, bname, bdbms, _ver, _vkey, fork, variant = row[:9]
        line = bname if over == "time" else " ".join(p for p in (bdbms, fork, variant) if p)
        buckets.setdefault((name, threads, cfg, line), []).append(row)
    out = []
    for (name, threads, cfg, line), members in buckets.items():
        series = _series(host, str(name), group_of(str(name)), threads, str(cfg), str(line), over, members)
        if series is not None and len(series.points) >= MIN_POINTS:
            out.append(series)
    out.sort(key=lambda s: (sort_key(s.workload), s.dop or 0, s.config, s.line))
    return out


def _series(
    host: str,
    workload: str,
    group: str,
    dop: object,
    config: str,
    line: str,
    over: Over,
    rows: Sequence[tuple[object, ...]],
) -> Series | None:
    if over == "version":
        ordered = sorted(rows, key=lambda r: (str(r[6]), _time_key(r), int(str(r[9]))))
        key_of: Callable[[tuple[object, ...]], object] = lambda r: r[3]  # noqa: E731 - the build
    else:
        ordered = sorted(rows, key=lambda r: (_time_key(r), int(str(r[9]))))
        key_of = lambda r: r[9]  # noqa: E731 - each run its own point
    values: list[float] = []
    groups: list[int] = []
    hw: dict[str, list[float]] = {m: [] for m, _ in METRICS}
    points: list[Point] = []
    members: list[tuple[object, ...]] = []

    def close() -> None:
        if members:
            points.append(_point(members, over))

    prev: object = object()
    for row in ordered:
        k = key_of(row)
        if k != prev and members:
            close()
            members = []
        prev = k
        members.append(row)
        values.append(float(str(row[11])))
        groups.append(len(points))
        for (metric, _col), v in zip(METRICS, row[12:16], strict=True):
            hw[metric].append(_num(v))
    close()
    if not points:
        return None
    return Series(
        host=host,
        workload=workload,
        group=group,
        dop=dop if isinstance(dop, int) else None,
        config=config,
        line=line,
        over=over,
        points=tuple(points),
        values=tuple(values),
        groups=tuple(groups),
        hw={m: tuple(v) for m, v in hw.items()},
    )


def _time_key(row: tuple[object, ...]) -> datetime:
    at = row[10]
    return at if isinstance(at, datetime) else datetime.min


def _num(v: object) -> float:
    return float(v) if isinstance(v, int | float) and math.isfinite(v) else math.nan


def _point(rows: Sequence[tuple[object, ...]], over: Over) -> Point:
    first = rows[0]
    if over == "version":
        label = str(first[5])
    else:
        at = first[10]
        label = at.strftime("%Y-%m-%d %H:%M") if isinstance(at, datetime) else f"#{first[9]}"
    qps = [float(str(r[11])) for r in rows]
    hw: dict[str, float | None] = {}
    for i, (metric, _col) in enumerate(METRICS):
        vals = [x for r in rows if not math.isnan(x := _num(r[12 + i]))]
        hw[metric] = sum(vals) / len(vals) if vals else None
    return Point(label=label, build=str(first[3]), runs=len(rows), qps=sum(qps) / len(qps), hw=hw)


def analyse(series: Iterable[Series], options: Options | None = None) -> list[SeriesChanges]:
    """Change points of each series, each with the per-op metrics tested at the same split."""
    opts = options or Options()
    out = []
    for s in series:
        cps = detect(s.values, s.groups, opts)
        bounds = [0, *(cp.index for cp in cps), len(s.points)]
        changes = []
        for k, cp in enumerate(cps):
            lo, hi = bounds[k], bounds[k + 2]
            moves = []
            for metric, _col in METRICS:
                t = split_test(s.hw[metric], s.groups, (lo, cp.index, hi))
                if t is None or not (t.mean_before or t.mean_after):
                    continue
                moved = not math.isnan(t.pvalue) and t.pvalue <= METRIC_PVALUE
                moves.append(
                    MetricMove(metric, t.ratio, t.pvalue, moved and t.magnitude > opts.min_magnitude)
                )
            changes.append(
                Change(cp.index, s.points[cp.index - 1], s.points[cp.index], cp.test, tuple(moves))
            )
        out.append(SeriesChanges(s, tuple(changes)))
    return out
