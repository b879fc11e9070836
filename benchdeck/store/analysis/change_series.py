"""Loading the series of :mod:`store.changes` from the store: one numeric query, shaped in Python.

The big query returns ids and numbers only (strings for 50,000 runs cost more than the query);
builds and workloads are read apart, and the runs are sorted into series and points in Python:
numpy's import cost more than shaping a host's 1,000-2,000 runs, and a point's mean
is numpy's sum spelled out (:mod:`engine.changepoints_sums`), so the output stays the same bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from datetime import UTC, datetime

import duckdb

from benchdeck.engine.changepoints_sums import np_sum_at
from benchdeck.engine.config_names import config_label
from benchdeck.store.analysis.changes import (
    METRICS,
    MIN_POINTS,
    OVER,
    ChangesError,
    LeftOut,
    Over,
    Series,
    UnknownFilter,
)

_RUNS_SQL = """
SELECT r.workload_id, coalesce(r.threads, -1) AS dop, r.config, r.build_id, r.run_id,
       coalesce(epoch(coalesce(r.started_at, r.finished_at, r.created_at)), 0) AS ran_at,
       s.qps,
       coalesce(s.cpu_o, 'NaN'::DOUBLE) AS cpu_o, coalesce(s.cs_o, 'NaN'::DOUBLE) AS cs_o,
       coalesce(s.rkb_o, 'NaN'::DOUBLE) AS rkb_o, coalesce(s.wkb_o, 'NaN'::DOUBLE) AS wkb_o
FROM runs r
JOIN hosts h ON h.host_id = r.host_id
JOIN builds b ON b.build_id = r.build_id
JOIN workloads w ON w.workload_id = r.workload_id
JOIN run_summary s ON s.run_id = r.run_id
WHERE h.name = $host
  AND r.status = 'finished'
  AND s.qps IS NOT NULL AND isfinite(s.qps)
  AND ($config IS NULL OR r.config = $config OR ($config = 'default' AND r.config = ''))
  AND ($dbms IS NULL OR b.dbms = $dbms)
  AND ($workload IS NULL OR w.name = $workload)
  AND ($dop IS NULL OR r.threads = $dop)
  AND ($build IS NULL OR b.name = $build)
  AND NOT EXISTS (SELECT 1 FROM run_clusters c WHERE c.run_id = r.run_id)
"""
_KNOWN_SQL = """
SELECT list(DISTINCT r.config), list(DISTINCT b.dbms), list(DISTINCT w.name),
       list(DISTINCT r.threads), list(DISTINCT b.name)
FROM runs r
JOIN hosts h ON h.host_id = r.host_id
JOIN builds b ON b.build_id = r.build_id
JOIN workloads w ON w.workload_id = r.workload_id
WHERE h.name = $host AND r.status = 'finished'
"""
_BUILDS_SQL = "SELECT build_id, name, dbms, fork, variant, version, version_key FROM builds"
_WORKLOADS_SQL = "SELECT workload_id, name FROM workloads"


def _check_filters(
    cur: duckdb.DuckDBPyConnection, params: dict[str, str | int | None], include: Collection[str] = ()
) -> None:
    """UnknownFilter for a host, or a filter value the host has no finished runs with (a typo
    printed "no series with 3 or more points" and exited 0)."""
    from benchdeck.engine.planning.unknown import unknown_message

    host = params["host"]
    hosts = [r[0] for r in cur.execute("SELECT name FROM hosts").fetchall()]
    if host not in hosts:
        raise UnknownFilter(unknown_message("host", host, hosts))
    given = [(k, v) for k, v in params.items() if k != "host" and v is not None]
    given += [("build", b) for b in include]
    if not given:
        return
    row = cur.execute(_KNOWN_SQL, {"host": host}).fetchone()
    known = dict(zip(("config", "dbms", "workload", "dop", "build"), row or (), strict=False))
    for key, value in given:
        have = [v for v in known.get(key) or [] if v is not None]
        if key == "config":
            have, value = [config_label(str(v)) for v in have], config_label(str(value))
        if value not in have:
            raise UnknownFilter(unknown_message(key, value, have, f" in host {host}'s finished runs"))
    for b in include:
        (fork,) = cur.execute("SELECT fork FROM builds WHERE name = $b", {"b": b}).fetchone() or ("",)
        if not fork:
            raise UnknownFilter(
                f"--include {b}: it has no fork to set aside (--include puts a forked build such as "
                "my8406v2_rel_o2nofp in its DBMS's line); --across-configs joins a build's runs under "
                "another config to its line"
            )


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
    include: Collection[str] = (),
    left_out: list[LeftOut] | None = None,
    across_configs: bool = False,
) -> list[Series]:
    """Every series of ``host`` with at least :data:`MIN_POINTS` points, in workload order.

    Over versions a series is (workload, dop, config, dbms + fork + variant) and a point is a
    build, in version order, its runs in time order; over time it is (workload, dop, config,
    build) and each run is a point. Builds in ``include`` join their DBMS's line without their
    fork (``my8406v2_rel_o2nofp`` in ``mysql rel_o2nofp``). ``left_out``, when given, receives
    the builds in no series, with why (so a report can say what it did not analyse).
    ``across_configs`` (over versions): one series across configs, each build under its config
    with the most runs (pg12-pg17 on ``x10a`` then pg18 on ``x10b``, as the posts compare them).
    """
    if over not in OVER:
        raise ChangesError(f"over must be one of {', '.join(OVER)}, not {over!r}")
    if across_configs and (over != "version" or config is not None):
        raise UnknownFilter("--across-configs joins configs over versions: not with --over time or --config")
    params = {"host": host, "config": config, "dbms": dbms, "workload": workload, "dop": dop, "build": build}
    _check_filters(cur, params, include)
    rows = cur.execute(_RUNS_SQL, params).fetchall()
    chosen: dict[int, str] = {}  # across configs: each build's config
    if across_configs:
        chosen = _busiest_config(rows)
        rows = [(*r[:2], "", *r[3:]) for r in rows if r[2] == chosen[r[3]]]
    if not rows:
        return []
    builds = {int(r[0]): r[1:] for r in cur.execute(_BUILDS_SQL).fetchall()}
    workloads = {int(r[0]): str(r[1]) for r in cur.execute(_WORKLOADS_SQL).fetchall()}

    # per build: its line (what a version series holds fixed) and its rank in version order
    line_of = {b: _line(row, over, row[0] in include) for b, row in builds.items()}
    line_code = {ln: i for i, ln in enumerate(sorted(set(line_of.values())))}
    by_version = sorted(builds, key=lambda b: (str(builds[b][5]), str(builds[b][0])))
    rank = {b: i for i, b in enumerate(by_version)}
    # columns: workload_id, dop, config, build_id, run_id, ran_at, qps, cpu_o, cs_o, rkb_o, wkb_o;
    # the order of the numpy version's lexsort (stable, as sorted is): series keys, then the point,
    # then (over versions) when each run ran, then the run id
    code = {b: line_code[ln] for b, ln in line_of.items()}
    if over == "time":
        order = sorted(rows, key=lambda r: (r[0], r[1], r[2], code[r[3]], r[5], 0.0, r[4]))
    else:
        order = sorted(rows, key=lambda r: (r[0], r[1], r[2], code[r[3]], rank[r[3]], r[5], r[4]))
    starts: list[int] = []  # first run of each series
    point_starts: list[int] = []  # first run of each point
    first_point: list[int] = []  # per series, its first point in point_starts
    groups: list[int] = []  # point index inside its series, per run
    prev_series: tuple[object, ...] | None = None
    prev_point: object = None
    for i, r in enumerate(order):
        series_key = (r[0], r[1], r[2], code[r[3]])
        point_key = r[4] if over == "time" else rank[r[3]]
        if series_key != prev_series:
            starts.append(i)
            first_point.append(len(point_starts))
            point_starts.append(i)
            prev_series, prev_point = series_key, point_key
        elif point_key != prev_point:
            point_starts.append(i)
            prev_point = point_key
        groups.append(len(point_starts) - 1 - first_point[-1])
    n = len(order)
    ends = [*starts[1:], n]
    point_ends = [*point_starts[1:], n]
    last_point = [*first_point[1:], len(point_starts)]
    qps = [float(r[6]) for r in order]
    hw = {m: [float(r[7 + k]) for r in order] for k, (m, _col) in enumerate(METRICS)}
    # means as the numpy version's np.add.reduceat (its sums, bit for bit) over the runs of a point
    means = [
        qps[a] if b - a == 1 else np_sum_at(qps, a, b) / (b - a)
        for a, b in zip(point_starts, point_ends, strict=True)
    ]
    hw_means = {m: _nanmeans(v, point_starts, point_ends) for m, v in hw.items()}
    out = []
    short: dict[str, tuple[int, str]] = {}  # line -> its longest series too short to analyse
    longest: dict[str, tuple[int, str]] = {}  # line -> its longest series analysed (points, config)
    for lo, hi, k0, k1 in zip(starts, ends, first_point, last_point, strict=True):
        first = order[lo]
        ln, kept = line_of[first[3]], (k1 - k0, str(first[2]))
        if k1 - k0 < MIN_POINTS:
            short[ln] = max(short.get(ln, kept), kept)
            continue
        longest[ln] = max(longest.get(ln, kept), kept)
        name = workloads[first[0]]
        ks = range(k0, k1)
        b_rows = [builds[order[point_starts[k]][3]] for k in ks]
        if over == "version":
            labels = tuple(str(b[4]) for b in b_rows)
        else:
            labels = tuple(_time_label(float(order[i][5]), order[i][4]) for i in point_starts[k0:k1])
        d = int(first[1])
        out.append(
            Series(
                host=host,
                workload=name,
                group=group_of(name),
                dop=None if d < 0 else d,
                config=_configs(chosen, [order[point_starts[k]][3] for k in ks]) if chosen else str(first[2]),
                line=line_of[first[3]],
                over=over,
                labels=labels,
                builds=tuple(str(b[0]) for b in b_rows),
                runs=tuple(point_ends[k] - point_starts[k] for k in ks),
                qps=tuple(means[k0:k1]),
                point_hw={m: tuple(v[k0:k1]) for m, v in hw_means.items()},
                values=tuple(qps[lo:hi]),
                groups=tuple(groups[lo:hi]),
                hw={m: tuple(v[lo:hi]) for m, v in hw.items()},
            )
        )
    out.sort(key=lambda s: (sort_key(s.workload), s.dop or 0, s.config, s.line))
    if left_out is not None:
        used = {b for s in out for b in s.builds}
        for b in sorted({r[3] for r in rows}, key=lambda b: str(builds[b][0])):
            row = builds[b]
            if str(row[0]) in used:
                continue
            fork = over == "version" and bool(row[2]) and row[0] not in include
            upstream = _line(row, over, True) if fork else None
            unit = "version" if over == "version" else "run"
            points, cfg = short.get(line_of[b], (0, None))
            cfg = None if across_configs else cfg
            other = longest.get(line_of[b]) if over == "version" else None
            elsewhere = (other[1], other[0]) if other is not None and other[1] != cfg else None
            left_out.append(LeftOut(str(row[0]), line_of[b], points, unit, upstream, cfg, elsewhere))
    return out


def _busiest_config(rows: list[tuple[object, ...]]) -> dict[int, str]:
    """Per build id, the config with most of its runs (ties: the first by name)."""
    counts: dict[tuple[int, str], int] = {}
    for r in rows:
        key = (int(str(r[3])), str(r[2]))
        counts[key] = counts.get(key, 0) + 1
    best: dict[int, str] = {}
    for (b, cfg), n in sorted(counts.items()):
        if b not in best or n > counts[(b, best[b])]:
            best[b] = cfg
    return best


def _configs(chosen: dict[int, str], builds: list[int]) -> str:
    """A series across configs: its points' configs in order, ``x10a_c32r128+x10b_c32r128``."""
    return "+".join(dict.fromkeys(config_label(chosen[b]) for b in builds))


def _line(build: tuple[object, ...], over: Over, without_fork: bool = False) -> str:
    """What a series holds fixed besides workload, dop and config: ``mysql rel_o2nofp`` or a build."""
    name, dbms, fork, variant = (str(x or "") for x in build[:4])
    if without_fork:
        fork = ""
    return name if over == "time" else " ".join(p for p in (dbms, fork, variant) if p)


def _nanmeans(v: list[float], starts: list[int], ends: list[int]) -> list[float | None]:
    """Per point the mean of its values that are not NaN (None when all are): the numpy
    version's reduceat of the values with NaN as 0.0, over the count, bit for bit (a point of
    one run, the usual case, is that run's value)."""
    isnan = math.isnan
    out: list[float | None] = []
    for a, b in zip(starts, ends, strict=True):
        if b - a == 1:
            x = v[a]
            out.append(None if isnan(x) else x)
            continue
        part = v[a:b]
        count = len(part) - sum(map(isnan, part))
        out.append(np_sum_at([0.0 if isnan(x) else x for x in part], 0, len(part)) / count if count else None)
    return out


def _time_label(epoch: float, run_id: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M") if epoch else f"#{run_id}"
