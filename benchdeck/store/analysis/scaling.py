"""Scale-up per workload and build: QPS at each concurrency against the lowest (issue 28).

The seed author judges a build by how its throughput grows with clients: QPS at 48 clients /
QPS at 1 per microbenchmark (mytools bench/arc/sep25.hetz.sb.scaleup, ``o.met.pg180.1u.48u``:
point queries 44.46x on 48 cores, update-one 2.80x). Here, per (workload, build, config):
QPS (median of the finished runs) at each dop, scale-up = QPS / QPS at the series' lowest dop,
efficiency = scale-up / (dop / lowest dop), and cpu/o and cs/o per dop (the per-op metrics that
say where the extra work goes).

A series is one build under one config. Without ``config``, a build whose configs never share a
dop is one series (the author's nov25 trees: dop1/ on ``z12a_c8r32`` beside dop40/ on
``z12a_c32r128``, one server config sized per concurrency); each row keeps its own config.
Runs on a cluster (issue 41) are left out: a build's scale-up is the build's alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import duckdb


class ScalingError(Exception):
    """A host or build without runs, in one line."""


@dataclass(frozen=True, slots=True)
class ScalePoint:
    """One (workload, build, config, dop) cell: median QPS of ``runs`` finished runs."""

    workload: str
    group: str
    build: str
    config: str
    dop: int
    qps: float
    scaleup: float
    efficiency: float
    runs: int
    cpu_o: float | None
    cs_o: float | None


@dataclass(frozen=True, slots=True)
class Scaling:
    """Every point of the builds on ``host``, by workload (suite order), build (given order), dop."""

    host: str
    builds: tuple[str, ...]
    dops: tuple[int, ...]
    points: tuple[ScalePoint, ...]
    merged: tuple[str, ...] = ()  # builds whose configs differ by dop, taken as one series

    def workloads(self) -> list[str]:
        return list(dict.fromkeys(p.workload for p in self.points))

    def series(self, workload: str, build: str) -> list[ScalePoint]:
        return [p for p in self.points if p.workload == workload and p.build == build]

    def top_scaleup(self, workload: str, build: str) -> ScalePoint | None:
        """The point at the highest dop of a build's series (where a collapse shows)."""
        pts = self.series(workload, build)
        return max(pts, key=lambda p: p.dop) if pts else None


_SQL = """
SELECT w.name, b.name, r.config, r.threads, median(s.qps), count(*), median(s.cpu_o), median(s.cs_o)
FROM runs r
JOIN hosts h ON h.host_id = r.host_id
JOIN builds b ON b.build_id = r.build_id
JOIN workloads w ON w.workload_id = r.workload_id
JOIN run_summary s ON s.run_id = r.run_id
WHERE h.name = $host AND list_contains(string_split($builds, chr(31)), b.name)
  AND ($config IS NULL OR r.config = $config OR ($config = 'default' AND r.config = ''))
  AND r.status = 'finished' AND s.qps > 0 AND r.threads IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM run_clusters c WHERE c.run_id = r.run_id)
GROUP BY ALL
"""


_BUILDS_OF_HOST_SQL = (
    "SELECT DISTINCT b.name FROM runs r JOIN hosts h ON h.host_id = r.host_id "
    "JOIN builds b ON b.build_id = r.build_id WHERE h.name = $host AND r.status = 'finished' "
    "AND NOT EXISTS (SELECT 1 FROM run_clusters c WHERE c.run_id = r.run_id)"
)


def _no_runs(cur: duckdb.DuckDBPyConnection, host: str, build: str, config: str | None) -> str:
    """Why ``build`` has no point: an unknown host, a build the store does not know (with the
    closest of the host's), or none of its runs on the host (under ``config``)."""
    from benchdeck.engine.planning.unknown import unknown_message

    hosts = [str(r[0]) for r in cur.execute("SELECT name FROM hosts").fetchall()]
    if host not in hosts:
        return unknown_message("host", host, hosts)
    if cur.execute("SELECT 1 FROM builds WHERE name = $b", {"b": build}).fetchone() is None:
        known = [str(r[0]) for r in cur.execute(_BUILDS_OF_HOST_SQL, {"host": host}).fetchall()]
        return unknown_message("build", build, known, f" with finished runs on host {host}")
    where = f" with config {config!r}" if config is not None else ""
    return f"build {build!r} has no finished runs on host {host!r}{where}"


def scaling(
    cur: duckdb.DuckDBPyConnection,
    *,
    host: str,
    builds: Sequence[str],
    group_of: Callable[[str], str],
    sort_key: Callable[[str], tuple[int, str]],
    config: str | None = None,
) -> Scaling:
    """The scale-up of ``builds`` on ``host``; raises :class:`ScalingError` naming what has no runs."""
    rows = cur.execute(_SQL, {"host": host, "builds": "\x1f".join(builds), "config": config}).fetchall()
    with_runs = {r[1] for r in rows}
    for b in builds:
        if b not in with_runs:
            raise ScalingError(_no_runs(cur, host, b, config))
    dops_of: dict[tuple[str, str], set[int]] = {}
    for _, build, cfg, dop, *_ in rows:
        dops_of.setdefault((build, cfg), set()).add(int(dop))
    merged = tuple(b for b in builds if _disjoint([d for (bb, _), d in dops_of.items() if bb == b]))
    cells: dict[tuple[str, str, str], list[tuple[int, str, float, int, float | None, float | None]]] = {}
    for wl, build, cfg, dop, qps, n, cpu_o, cs_o in rows:
        key = (wl, build, "" if build in merged else cfg)
        cells.setdefault(key, []).append((int(dop), cfg, float(qps), int(n), cpu_o, cs_o))
    order = {b: i for i, b in enumerate(builds)}
    points: list[ScalePoint] = []
    for wl, build, _ in sorted(cells, key=lambda k: (sort_key(k[0]), order[k[1]], k[2])):
        series = sorted(cells[(wl, build, _)])
        low_dop, _cfg, low_qps, *_rest = series[0]
        for dop, cfg, qps, n, cpu_o, cs_o in series:
            up = qps / low_qps
            points.append(
                ScalePoint(wl, group_of(wl), build, cfg, dop, qps, up, up / (dop / low_dop), n, cpu_o, cs_o)
            )
    dops = tuple(sorted({p.dop for p in points}))
    return Scaling(
        host, tuple(builds), dops, tuple(points), tuple(b for b in merged if len(_configs(rows, b)) > 1)
    )


def _disjoint(dop_sets: list[set[int]]) -> bool:
    """True when no dop appears under two configs (one config per dop, or a single config)."""
    seen: set[int] = set()
    for s in dop_sets:
        if seen & s:
            return False
        seen |= s
    return True


def _configs(rows: list[tuple[object, ...]], build: str) -> set[object]:
    return {r[2] for r in rows if r[1] == build}


@dataclass(frozen=True, slots=True)
class Collapse:
    """A build whose scale-up at the highest dop both have fell against the base's: faster at
    1, say, and collapsing at 64 (what Triage flags)."""

    workload: str
    build: str
    config: str | None
    dop: int
    scaleup: float
    base_scaleup: float

    @property
    def ratio(self) -> float:
        return self.scaleup / self.base_scaleup

    def text(self) -> str:
        return f"scale-up @{self.dop} {self.scaleup:.2f} vs base {self.base_scaleup:.2f}"


COLLAPSE_RATIO = 0.9  # a scale-up under 90% of the base's at the top dop is flagged


def series_points(s: Scaling, workload: str, build: str, config: str | None) -> list[ScalePoint]:
    """The points of one (build, config) series; a build taken as one series ignores ``config``."""
    pts = s.series(workload, build)
    if config is None or build in s.merged:
        return pts
    return [p for p in pts if p.config == config]


def collapses(
    s: Scaling, base: tuple[str, str | None], column: tuple[str, str | None], ratio: float = COLLAPSE_RATIO
) -> list[Collapse]:
    """Workloads where ``column``'s (build, config) scale-up at the highest dop it shares with
    ``base`` is under ``ratio`` times the base's (needs both at two dops or more)."""
    out = []
    for wl in s.workloads():
        b = {p.dop: p for p in series_points(s, wl, *base)}
        c = {p.dop: p for p in series_points(s, wl, *column)}
        shared = sorted(set(b) & set(c))
        if len(shared) < 2 or min(b) != min(c):  # scale-ups from the same lowest dop only
            continue
        top = shared[-1]
        if c[top].scaleup < ratio * b[top].scaleup:
            out.append(Collapse(wl, column[0], column[1], top, c[top].scaleup, b[top].scaleup))
    return out
