"""Loading the series of :mod:`store.changes` from the store: one numeric query, shaped in numpy.

The big query returns ids and numbers only (strings for 50,000 runs cost more than the query);
builds and workloads are read apart, and numpy orders the runs into series and points.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from datetime import UTC, datetime

import duckdb
import numpy as np
from numpy.typing import NDArray

from benchdeck.store.changes import (
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
  AND ($config IS NULL OR r.config = $config)
  AND ($dbms IS NULL OR b.dbms = $dbms)
  AND ($workload IS NULL OR w.name = $workload)
  AND ($dop IS NULL OR r.threads = $dop)
  AND ($build IS NULL OR b.name = $build)
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
        if value not in have:
            raise UnknownFilter(unknown_message(key, value, have, f" in host {host}'s finished runs"))


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
) -> list[Series]:
    """Every series of ``host`` with at least :data:`MIN_POINTS` points, in workload order.

    Over versions a series is (workload, dop, config, dbms + fork + variant) and a point is a
    build, in version order, its runs in time order; over time it is (workload, dop, config,
    build) and each run is a point. Builds in ``include`` join their DBMS's line without their
    fork (``my8406v2_rel_o2nofp`` in ``mysql rel_o2nofp``). ``left_out``, when given, receives
    the builds in no series, with why (so a report can say what it did not analyse).
    """
    if over not in OVER:
        raise ChangesError(f"over must be one of {', '.join(OVER)}, not {over!r}")
    params = {"host": host, "config": config, "dbms": dbms, "workload": workload, "dop": dop, "build": build}
    _check_filters(cur, params, include)
    cols = cur.execute(_RUNS_SQL, params).fetchnumpy()
    if not len(cols["run_id"]):
        return []
    builds = {int(r[0]): r[1:] for r in cur.execute(_BUILDS_SQL).fetchall()}
    workloads = {int(r[0]): str(r[1]) for r in cur.execute(_WORKLOADS_SQL).fetchall()}

    build_ids = np.asarray(cols["build_id"], dtype=np.int64)
    run_ids = np.asarray(cols["run_id"], dtype=np.int64)
    ran_at = np.asarray(cols["ran_at"], dtype=np.float64)
    configs, config_code = np.unique(np.asarray(cols["config"], dtype=object), return_inverse=True)
    # per build: its line (what a version series holds fixed) and its rank in version order
    line_of = {b: _line(row, over, row[0] in include) for b, row in builds.items()}
    line_code = {ln: i for i, ln in enumerate(sorted(set(line_of.values())))}
    by_version = sorted(builds, key=lambda b: (str(builds[b][5]), str(builds[b][0])))
    b_line = _map(build_ids, {b: line_code[ln] for b, ln in line_of.items()})
    b_rank = _map(build_ids, {b: i for i, b in enumerate(by_version)})
    wl = np.asarray(cols["workload_id"], dtype=np.int64)
    dops = np.asarray(cols["dop"], dtype=np.int64)
    point_key = run_ids if over == "time" else b_rank
    inner = ran_at if over == "version" else np.zeros_like(ran_at)
    order = np.lexsort((run_ids, inner, ran_at if over == "time" else b_rank, b_line, config_code, dops, wl))
    keys = np.stack([wl, dops, config_code, b_line])[:, order]
    new_series = np.ones(len(order), dtype=bool)
    new_series[1:] = (keys[:, 1:] != keys[:, :-1]).any(axis=0)
    pk = point_key[order]
    new_point = new_series.copy()
    new_point[1:] |= pk[1:] != pk[:-1]
    sid = np.cumsum(new_series) - 1
    pt = np.cumsum(new_point) - 1
    pt = pt - pt[np.flatnonzero(new_series)][sid]  # point index inside its series

    qps = np.asarray(cols["qps"], dtype=np.float64)[order]
    hw = {m: np.asarray(cols[col], dtype=np.float64)[order] for m, col in METRICS}
    starts = np.flatnonzero(new_series).tolist()
    ends = [*starts[1:], len(order)]
    point_starts = np.flatnonzero(new_point)
    point_ends = np.append(point_starts[1:], len(order))
    p_qps = np.add.reduceat(qps, point_starts) / (point_ends - point_starts)
    p_hw = {m: _nanmean_at(v, point_starts) for m, v in hw.items()}
    # per series, the range of its points in point_starts (both are in run order)
    first_point = np.searchsorted(point_starts, starts).tolist()
    last_point = [*first_point[1:], len(point_starts)]
    ps, pe, means = point_starts.tolist(), point_ends.tolist(), p_qps.tolist()
    hw_means = {m: [None if math.isnan(x) else x for x in v.tolist()] for m, v in p_hw.items()}
    o_builds = build_ids[order].tolist()
    o_runs = run_ids[order].tolist()
    o_at = ran_at[order].tolist()
    out = []
    short: dict[str, int] = {}  # line -> the most points of its series too short to analyse
    for lo, hi, k0, k1 in zip(starts, ends, first_point, last_point, strict=True):
        if k1 - k0 < MIN_POINTS:
            ln = line_of[int(build_ids[int(order[lo])])]
            short[ln] = max(short.get(ln, 0), k1 - k0)
            continue
        i0 = int(order[lo])
        name = workloads[int(wl[i0])]
        ks = range(k0, k1)
        b_rows = [builds[o_builds[ps[k]]] for k in ks]
        if over == "version":
            labels = tuple(str(b[4]) for b in b_rows)
        else:
            labels = tuple(_time_label(o_at[ps[k]], o_runs[ps[k]]) for k in ks)
        d = int(dops[i0])
        out.append(
            Series(
                host=host,
                workload=name,
                group=group_of(name),
                dop=None if d < 0 else d,
                config=str(configs[config_code[i0]]),
                line=line_of[int(build_ids[i0])],
                over=over,
                labels=labels,
                builds=tuple(str(b[0]) for b in b_rows),
                runs=tuple(pe[k] - ps[k] for k in ks),
                qps=tuple(means[k0:k1]),
                point_hw={m: tuple(v[k0:k1]) for m, v in hw_means.items()},
                values=tuple(qps[lo:hi].tolist()),
                groups=tuple(pt[lo:hi].tolist()),
                hw={m: tuple(v[lo:hi].tolist()) for m, v in hw.items()},
            )
        )
    out.sort(key=lambda s: (sort_key(s.workload), s.dop or 0, s.config, s.line))
    if left_out is not None:
        used = {b for s in out for b in s.builds}
        # a set, not np.unique: that imports numpy.ma (~7 ms, python -X importtime) for its mask check
        for b in sorted(set(build_ids.tolist()), key=lambda b: str(builds[b][0])):
            row = builds[b]
            if str(row[0]) in used:
                continue
            fork = over == "version" and bool(row[2]) and row[0] not in include
            upstream = _line(row, over, True) if fork else None
            unit = "version" if over == "version" else "run"
            left_out.append(LeftOut(str(row[0]), line_of[b], short.get(line_of[b], 0), unit, upstream))
    return out


def _line(build: tuple[object, ...], over: Over, without_fork: bool = False) -> str:
    """What a series holds fixed besides workload, dop and config: ``mysql rel_o2nofp`` or a build."""
    name, dbms, fork, variant = (str(x or "") for x in build[:4])
    if without_fork:
        fork = ""
    return name if over == "time" else " ".join(p for p in (dbms, fork, variant) if p)


def _map(ids: NDArray[np.int64], table: dict[int, int]) -> NDArray[np.int64]:
    keys = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
    vals = np.fromiter(table.values(), dtype=np.int64, count=len(table))
    order = np.argsort(keys)
    out: NDArray[np.int64] = vals[order][np.searchsorted(keys[order], ids)]
    return out


def _nanmean_at(v: NDArray[np.float64], starts: NDArray[np.intp]) -> NDArray[np.float64]:
    ok = ~np.isnan(v)
    total = np.add.reduceat(np.where(ok, v, 0.0), starts)
    count = np.add.reduceat(ok.astype(np.float64), starts)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: NDArray[np.float64] = total / count
    return out


def _time_label(epoch: float, run_id: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M") if epoch else f"#{run_id}"
