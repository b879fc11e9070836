"""Shaping a comparison's cells into rows: rQPS per workload, group summaries (min, max, avg,
median, geometric mean) and per-op metric blocks with their ratios to the base."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from benchdeck.engine.relative import relative
from benchdeck.store.analysis.columns import Column
from benchdeck.store.analysis.compare_model import HW_COLS, HW_KEYS, Cell, GroupStat, HwBlock, HwRow, RqpsRow

if TYPE_CHECKING:
    from benchdeck.store.analysis.noise import RatioCI


def rqps_row(
    cells: dict[tuple[str, int | None, str], Cell],
    wl: str,
    dop: int | None,
    base: str,
    with_builds: Sequence[str],
    group_of: Callable[[str], str],
    intervals: dict[tuple[str, int | None, str], RatioCI | None],
) -> RqpsRow:
    b = cells[(wl, dop, base)]
    values: list[float | None] = []
    noise: list[bool | None] = []
    repeats: list[int] = []
    cis: list[RatioCI | None] = []
    for name in with_builds:
        c = cells.get((wl, dop, name))
        ci = intervals.get((wl, dop, name))
        values.append(relative(c.qps, b.qps) if c is not None else None)
        repeats.append(c.n if c is not None else 0)
        cis.append(ci)
        noise.append(None if ci is None else ci.contains(1.0))
    return RqpsRow(wl, group_of(wl), dop, tuple(values), tuple(noise), tuple(repeats), tuple(cis))


def group_stats(rqps: Sequence[RqpsRow], with_builds: Sequence[str]) -> list[GroupStat]:
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
                    avg=_fmean(vals),
                    median=median(vals),
                    gmean=_gmean(vals),
                )
            )
    return out


def hw_blocks(
    cells: dict[tuple[str, int | None, str], Cell],
    keys: Sequence[tuple[str, int | None]],
    specs: Sequence[Column],
    labels: Sequence[str],
) -> list[HwBlock]:
    blocks: list[HwBlock] = []
    columns = list(zip(specs, labels, strict=True))
    for wl, d in keys:
        present = [(s, label, c) for s, label in columns if (c := cells.get((wl, d, label))) is not None]
        if not any(_has_hw(c) or c.cluster is not None for _, _, c in present):
            continue
        base_vals: dict[str, float | None] | None = None  # the first row's (the base's, when it has the cell)
        rows = []
        for spec, label, c in present:
            vals = _hw_values(c)
            if base_vals is None:
                base_vals = vals
            rel = {k: relative(vals[k], base_vals[k]) for k in HW_KEYS}
            rows.append(
                HwRow(
                    build=spec.build,
                    values=vals,
                    rel=rel,
                    config=spec.config or "",
                    label=label,
                    cluster=c.cluster,
                )
            )
        blocks.append(HwBlock(workload=wl, dop=d, rows=tuple(rows)))
    return blocks


def _has_hw(c: Cell) -> bool:
    return any(v is not None for v in c.hw.values())


def _hw_values(c: Cell) -> dict[str, float | None]:
    vals: dict[str, float | None] = {
        key: (float(v) if (v := c.hw[col]) is not None else None)
        for key, col in zip(HW_KEYS, HW_COLS, strict=False)
    }
    # imported per-op metrics are per the o/s their source printed (mytools: rows/ms for scans)
    ops = c.hw.get("per_op_ops")
    vals["o/s"] = float(ops) if ops is not None else c.qps
    return vals


# statistics' fmean, median and geometric_mean as Python 3.11 computes them (the same fsum, the
# same middle pair, exp of the mean log: the same bits), without importing statistics, which
# loads decimal and fractions at every compare's start.
def _fmean(vals: list[float]) -> float:
    return math.fsum(vals) / len(vals)


def _gmean(vals: list[float]) -> float:
    return math.exp(_fmean([math.log(v) for v in vals])) if all(v > 0 for v in vals) else math.nan


def median(vals: list[float]) -> float:
    data = sorted(vals)
    n = len(data)
    return data[n // 2] if n % 2 else (data[n // 2 - 1] + data[n // 2]) / 2
