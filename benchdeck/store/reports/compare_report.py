"""Plain renderings of a :class:`Comparison`: the posts' text layout, Markdown, CSV and JSON.

Ratios are printed with :data:`RATIO_DECIMALS` decimals, and every renderer (these, Rich and
the app's widgets) colours the *printed* value (:func:`shown_ratio`), so ``0.9506`` prints
``0.95`` and is red like any other ``0.95``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from benchdeck.store.analysis.compare import HW_KEYS, Comparison, HwBlock, RqpsRow
from benchdeck.store.reports.export import CSV_TABLES, JSON_VERSION, render_csv, to_json
from benchdeck.store.reports.ratios import fmt_hw as fmt_hw
from benchdeck.store.reports.ratios import fmt_ratio

if TYPE_CHECKING:
    from benchdeck.store.analysis.noise import RatioCI

FORMATS = ("text", "md", "csv", "json")
NOISE_MARK = "~"


def fmt_ci(ci: RatioCI | None) -> str:
    """``[0.93, 1.04]``, or ``-`` without an interval."""
    if ci is None:
        return "-"
    return f"[{fmt_ratio(ci.low)}, {fmt_ratio(ci.high)}]"


def interval_source(ci: RatioCI | None, runs: int, base_runs: int) -> str:
    """What an interval was drawn from, or in a few words why there is none (the Noise tab's
    "from" column, beside the interval; a note under the table says the rule)."""
    if ci is not None:
        return ci.method
    if runs < 2 and base_runs < 2:
        return "none: 1 run each"
    return "none: base QPS missing"


def fmt_rel(key: str, row_vals: dict[str, float | None], base_vals: dict[str, float | None]) -> str:
    """A relative cell: ``1`` for 0/0 as in the posts, ``inf`` for x/0."""
    v, b = row_vals.get(key), base_vals.get(key)
    if v == 0 and b == 0:
        return "1"
    if v is None or b is None:
        return "-"
    return fmt_ratio(v / b if b else math.inf)


def _cell(row: RqpsRow, i: int) -> str:
    s = fmt_ratio(row.values[i])
    return s + NOISE_MARK if row.within_noise[i] else s


def _label(row: RqpsRow, multi_dop: bool) -> str:
    return f"{row.workload}@dop{row.dop}" if multi_dop else row.workload


def _block_title(b: HwBlock) -> str:
    return b.workload if b.dop is None else f"{b.workload}.dop{b.dop}"


def render(cmp: Comparison, fmt: str, table: str = "rqps") -> str:
    """``cmp`` in ``fmt``; ``table`` picks the CSV table (one of :data:`CSV_TABLES`)."""
    if fmt == "text":
        return render_text(cmp)
    if fmt == "md":
        return render_md(cmp)
    if fmt == "csv":
        return render_csv(cmp, table)
    if fmt == "json":
        import json  # (only for this format)

        doc = to_json(cmp, table if table == "counters" else None)
        return json.dumps(doc, indent=2, allow_nan=False, default=str) + "\n"
    raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")


def render_text(cmp: Comparison) -> str:
    return "\n".join(_text_lines(cmp)) + "\n"


def _text_lines(cmp: Comparison) -> Iterator[str]:
    multi = len(cmp.dops) > 1
    yield f"Relative to: {cmp.base}"
    for i, col in enumerate(cmp.columns, 1):
        yield f"col-{i} : {col}"
    yield ""
    yield "\t".join(f"col-{i}" for i in range(1, len(cmp.columns) + 1))
    for row in cmp.rqps:
        yield "\t".join([*(_cell(row, i) for i in range(len(cmp.columns))), _label(row, multi)])
    if any(any(r.within_noise) for r in cmp.rqps):
        from benchdeck.store.analysis.noise import LEVEL  # numpy: loaded only where intervals were computed

        yield ""
        yield f"{NOISE_MARK} = within noise: the {LEVEL:.0%} confidence interval of the ratio contains 1"
    if cmp.cluster_bases:
        from benchdeck.store.reports import cluster_report

        yield from cluster_report.gain_text_lines(cmp)
    for i, col in enumerate(cmp.columns):
        yield ""
        yield f"col-{i + 1} : {col}"
        yield "\t".join(["group", "min", "max", "avg", "median", "gmean"])
        for g in cmp.groups:
            if g.column != col:
                continue
            label = f"{g.group}@dop{g.dop}" if multi else g.group
            stats = (g.min, g.max, g.avg, g.median, g.gmean)
            yield "\t".join([label, *(fmt_ratio(v) for v in stats)])
    for block in cmp.hw:
        yield ""
        yield from _hw_text(block)
        if cmp.on_clusters:
            from benchdeck.store.reports import cluster_report

            yield from cluster_report.text_lines(block)
    if cmp.counters:
        from benchdeck.store.reports.counters_report import text_lines

        yield from text_lines(cmp)


def _hw_text(block: HwBlock) -> Iterator[str]:
    yield _block_title(block)
    yield "--- absolute"
    yield "\t".join([*HW_KEYS, "dbms"])
    for r in block.rows:
        values = r.values
        yield "\t".join([*[fmt_hw(k, values[k]) for k in HW_KEYS], r.label or r.build])
    yield "--- relative to first result"
    base = block.rows[0].values
    for r in block.rows[1:]:
        values = r.values
        yield "\t".join([*[fmt_rel(k, values, base) for k in HW_KEYS], r.label or r.build])


def md_escape(text: str) -> str:
    """A name safe inside a Markdown table cell (``|`` would end the cell)."""
    return text.replace("\\", "\\\\").replace("|", "\\|")


def render_md(cmp: Comparison) -> str:
    multi = len(cmp.dops) > 1
    e = md_escape
    out = [f"Relative QPS on **{e(cmp.host)}**, base `{e(cmp.base)}`", ""]
    out += [f"- col-{i} : `{e(c)}`" for i, c in enumerate(cmp.columns, 1)]
    out += [
        "",
        "| "
        + " | ".join([*(f"col-{i}" for i in range(1, len(cmp.columns) + 1)), "workload", "group"])
        + " |",
    ]
    out.append("|" + "---:|" * len(cmp.columns) + "---|---|")
    for row in cmp.rqps:
        cells = [_cell(row, i) for i in range(len(cmp.columns))]
        out.append("| " + " | ".join([*cells, e(_label(row, multi)), e(row.group)]) + " |")
    if cmp.cluster_bases:
        from benchdeck.store.reports import cluster_report

        out += cluster_report.gain_md_lines(cmp, e)
    out += [
        "",
        "| column | group | min | max | avg | median | gmean |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for g in cmp.groups:
        label = f"{g.group}@dop{g.dop}" if multi else g.group
        stats = (g.min, g.max, g.avg, g.median, g.gmean)
        out.append("| " + " | ".join([e(g.column), e(label), *(fmt_ratio(v) for v in stats)]) + " |")
    for block in cmp.hw:
        out += ["", f"**{e(_block_title(block))}**", ""]
        out.append("| " + " | ".join(["build", *HW_KEYS, *(f"rel {k}" for k in HW_KEYS)]) + " |")
        out.append("|---|" + "---:|" * (2 * len(HW_KEYS)))
        base = block.rows[0].values
        for r in block.rows:
            abs_cells = [fmt_hw(k, r.values[k]) for k in HW_KEYS]
            rel_cells = [fmt_rel(k, r.values, base) for k in HW_KEYS]
            out.append("| " + " | ".join([e(r.label or r.build), *abs_cells, *rel_cells]) + " |")
        if cmp.on_clusters:
            from benchdeck.store.reports import cluster_report

            out += cluster_report.md_lines(block, e)
    if cmp.counters:
        from benchdeck.store.reports.counters_report import md_lines

        out += md_lines(cmp, e)
    return "\n".join(out) + "\n"


__all__ = [
    "CSV_TABLES",
    "FORMATS",
    "JSON_VERSION",
    "render",
    "render_csv",
    "render_md",
    "render_text",
    "to_json",
]
