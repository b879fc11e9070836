"""Comparison of builds on one host: rQPS per workload, group summaries, per-op metrics.

DuckDB aggregates the runs (median over repeats, spread); this module shapes the result into
typed records that the renderers (text, md, csv, json, rich) print.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

import duckdb

from engine.metrics import relative

HW_KEYS = ("cpu/o", "cs/o", "r/o", "rKB/o", "wKB/o", "o/s")
_HW_COLS = ("cpu_o", "cs_o", "r_o", "rkb_o", "wkb_o", "per_op_ops")


class CompareError(Exception):
    """A comparison that cannot be made, with a one-line reason for the user."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One build's aggregate for one workload: median QPS over its repeated runs."""

    qps: float
    n: int
    qps_min: float
    qps_max: float
    hw: dict[str, float | None]

    @property
    def spread(self) -> float:
        """(max - min) / median over repeats; 0 for a single run."""
        return (self.qps_max - self.qps_min) / self.qps if self.n > 1 and self.qps else 0.0


@dataclass(frozen=True, slots=True)
class RqpsRow:
    workload: str
    group: str
    dop: int | None
    values: tuple[float | None, ...]
    within_noise: tuple[bool, ...]
    repeats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GroupStat:
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
    build: str
    values: dict[str, float | None]
    rel: dict[str, float | None]


@dataclass(frozen=True, slots=True)
class HwBlock:
    workload: str
    dop: int | None
    rows: tuple[HwRow, ...]


@dataclass(frozen=True, slots=True)
class Comparison:
    host: str
    base: str
    columns: tuple[str, ...]
    config: str | None
    dops: tuple[int | None, ...]
    rqps: tuple[RqpsRow, ...]
    groups: tuple[GroupStat, ...]
    hw: tuple[HwBlock, ...]
    cells: dict[tuple[str, int | None, str], Cell] = field(repr=False)


_AGG_SQL = """
SELECT w.name, r.threads, b.name,
       median(s.qps), count(*), min(s.qps), max(s.qps),
       median(s.cpu_o), median(s.cs_o), median(s.r_o), median(s.rkb_o), median(s.wkb_o),
       median(s.per_op_ops), list(DISTINCT r.config)
FROM runs r
JOIN hosts h ON h.host_id = r.host_id
JOIN builds b ON b.build_id = r.build_id
JOIN workloads w ON w.workload_id = r.workload_id
JOIN run_summary s ON s.run_id = r.run_id
WHERE h.name = $host
  AND list_contains($builds, b.name)
  AND r.status = 'finished'
  AND s.qps IS NOT NULL
  AND ($config IS NULL OR r.config = $config)
  AND ($dop IS NULL OR r.threads = $dop)
GROUP BY w.name, r.threads, b.name
"""


def compare(
    cur: duckdb.DuckDBPyConnection,
    *,
    host: str,
    base: str,
    with_builds: Sequence[str],
    group_of: Callable[[str], str],
    sort_key: Callable[[str], tuple[int, str]],
    config: str | None = None,
    dop: int | None = None,
    only: Collection[str] | None = None,
) -> Comparison:
    """Compare ``with_builds`` against ``base`` on ``host``; raises :class:`CompareError`.

    ``only`` limits the rows to those workloads (e.g. one suite's steps).
    """
    _check_names(cur, host, [base, *with_builds])
    builds = [base, *with_builds]
    rows = cur.execute(_AGG_SQL, {"host": host, "builds": builds, "config": config, "dop": dop}).fetchall()
    cells: dict[tuple[str, int | None, str], Cell] = {}
    configs: dict[str, set[str]] = {}
    for wl, threads, build, qps, n, qmin, qmax, *hw, cfgs in rows:
        cells[(wl, threads, build)] = Cell(
            qps=float(qps),
            n=int(n),
            qps_min=float(qmin),
            qps_max=float(qmax),
            hw=dict(zip(_HW_COLS, hw, strict=True)),
        )
        configs.setdefault(build, set()).update(cfgs)
    _check_configs(configs, config)
    if not any(b == base and (only is None or wl in only) for (wl, _, b) in cells):
        raise CompareError(
            f"base build {base!r} has no finished runs on host {host!r}" + _filters(config, dop)
        )
    keys = sorted(
        {(wl, d) for (wl, d, b) in cells if b == base and (only is None or wl in only)},
        key=lambda k: (sort_key(k[0]), k[1] if k[1] is not None else -1),
    )
    rqps = tuple(_rqps_row(cells, wl, d, base, with_builds, group_of) for wl, d in keys)
    return Comparison(
        host=host,
        base=base,
        columns=tuple(with_builds),
        config=config,
        dops=tuple(sorted({d for _, d in keys}, key=lambda d: d if d is not None else -1)),
        rqps=rqps,
        groups=tuple(_group_stats(rqps, with_builds)),
        hw=tuple(_hw_blocks(cells, keys, base, with_builds)),
        cells=cells,
    )


def _filters(config: str | None, dop: int | None) -> str:
    parts = [f"config {config!r}" if config else "", f"dop {dop}" if dop is not None else ""]
    shown = " and ".join(p for p in parts if p)
    return f" with {shown}" if shown else ""


def _check_names(cur: duckdb.DuckDBPyConnection, host: str, builds: list[str]) -> None:
    if not cur.execute("SELECT 1 FROM hosts WHERE name = ?", [host]).fetchone():
        raise CompareError(f"unknown host {host!r}")
    known = {
        r[0] for r in cur.execute("SELECT name FROM builds WHERE list_contains(?, name)", [builds]).fetchall()
    }
    missing = [b for b in builds if b not in known]
    if missing:
        raise CompareError(f"unknown build {missing[0]!r}")
    dupes = {b for b in builds if builds.count(b) > 1}
    if dupes:
        raise CompareError(f"build {sorted(dupes)[0]!r} is named more than once")


def _check_configs(configs: dict[str, set[str]], config: str | None) -> None:
    if config is not None:
        return
    for build, cfgs in configs.items():
        if len(cfgs) > 1:
            raise CompareError(
                f"build {build!r} has runs with configs {', '.join(sorted(cfgs))}: pick one with --config"
            )


def _rqps_row(
    cells: dict[tuple[str, int | None, str], Cell],
    wl: str,
    dop: int | None,
    base: str,
    with_builds: Sequence[str],
    group_of: Callable[[str], str],
) -> RqpsRow:
    b = cells[(wl, dop, base)]
    values: list[float | None] = []
    noise: list[bool] = []
    repeats: list[int] = []
    for name in with_builds:
        c = cells.get((wl, dop, name))
        if c is None:
            values.append(None)
            noise.append(False)
            repeats.append(0)
            continue
        r = relative(c.qps, b.qps)
        values.append(r)
        repeats.append(c.n)
        tolerance = max(b.spread, c.spread)
        noise.append(r is not None and (b.n > 1 or c.n > 1) and abs(r - 1.0) <= tolerance)
    return RqpsRow(wl, group_of(wl), dop, tuple(values), tuple(noise), tuple(repeats))


def _group_stats(rqps: Sequence[RqpsRow], with_builds: Sequence[str]) -> list[GroupStat]:
    out: list[GroupStat] = []
    order: list[tuple[int | None, str]] = []
    for row in rqps:
        if (row.dop, row.group) not in order:
            order.append((row.dop, row.group))
    for i, col in enumerate(with_builds):
        for d, grp in order:
            vals = [
                v
                for r in rqps
                if r.group == grp and r.dop == d and (v := r.values[i]) is not None and math.isfinite(v)
            ]
            if not vals:
                continue
            out.append(
                GroupStat(
                    group=grp,
                    column=col,
                    dop=d,
                    n=len(vals),
                    min=min(vals),
                    max=max(vals),
                    avg=statistics.fmean(vals),
                    median=statistics.median(vals),
                    gmean=statistics.geometric_mean(vals) if all(v > 0 for v in vals) else math.nan,
                )
            )
    return out


def _hw_blocks(
    cells: dict[tuple[str, int | None, str], Cell],
    keys: Sequence[tuple[str, int | None]],
    base: str,
    with_builds: Sequence[str],
) -> list[HwBlock]:
    blocks: list[HwBlock] = []
    for wl, d in keys:
        present = [(name, cells[(wl, d, name)]) for name in [base, *with_builds] if (wl, d, name) in cells]
        if not any(_has_hw(c) for _, c in present):
            continue
        base_vals = _hw_values(present[0][1])
        rows = []
        for name, c in present:
            vals = _hw_values(c)
            rel = {k: relative(vals[k], base_vals[k]) for k in HW_KEYS}
            rows.append(HwRow(build=name, values=vals, rel=rel))
        blocks.append(HwBlock(workload=wl, dop=d, rows=tuple(rows)))
    return blocks


def _has_hw(c: Cell) -> bool:
    return any(v is not None for v in c.hw.values())


def _hw_values(c: Cell) -> dict[str, float | None]:
    vals: dict[str, float | None] = {
        key: (float(v) if (v := c.hw[col]) is not None else None)
        for key, col in zip(HW_KEYS, _HW_COLS, strict=False)
    }
    # imported per-op metrics are per the o/s their source printed (mytools: rows/ms for scans)
    ops = c.hw.get("per_op_ops")
    vals["o/s"] = float(ops) if ops is not None else c.qps
    return vals
