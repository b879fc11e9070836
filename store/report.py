"""Plain renderings of a :class:`Comparison`: the posts' text layout, Markdown, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from typing import Any

from store.compare import HW_KEYS, Comparison, HwBlock, RqpsRow

FORMATS = ("text", "md", "csv", "json")
NOISE_MARK = "~"


def fmt_ratio(v: float | None) -> str:
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf"
    if math.isnan(v):
        return "nan"
    return f"{v:.2f}"


def fmt_hw(key: str, v: float | None) -> str:
    """Absolute per-op values as the posts print them (zero as ``0``)."""
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf"
    if v == 0:
        return "0"
    if key == "o/s":
        return f"{v:.0f}"
    if key == "cpu/o":
        return f"{v:.6f}"
    if key in ("r/o", "rKB/o", "wKB/o"):  # the author's o.met prints these without trailing zeros
        return f"{v:.3f}".rstrip("0").rstrip(".")
    return f"{v:.3f}"


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


def render(cmp: Comparison, fmt: str) -> str:
    if fmt == "text":
        return render_text(cmp)
    if fmt == "md":
        return render_md(cmp)
    if fmt == "csv":
        return render_csv(cmp)
    if fmt == "json":
        return json.dumps(to_json(cmp), indent=2, allow_nan=False, default=str) + "\n"
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
        yield ""
        yield f"{NOISE_MARK} = difference within the spread of repeated runs (noise)"
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


def _hw_text(block: HwBlock) -> Iterator[str]:
    yield _block_title(block)
    yield "--- absolute"
    yield "\t".join([*HW_KEYS, "dbms"])
    for r in block.rows:
        yield "\t".join([*(fmt_hw(k, r.values[k]) for k in HW_KEYS), r.build])
    yield "--- relative to first result"
    base = block.rows[0].values
    for r in block.rows[1:]:
        yield "\t".join([*(fmt_rel(k, r.values, base) for k in HW_KEYS), r.build])


def render_md(cmp: Comparison) -> str:
    multi = len(cmp.dops) > 1
    out = [f"Relative QPS on **{cmp.host}**, base `{cmp.base}`", ""]
    out += [f"- col-{i} : `{c}`" for i, c in enumerate(cmp.columns, 1)]
    out += [
        "",
        "| "
        + " | ".join([*(f"col-{i}" for i in range(1, len(cmp.columns) + 1)), "workload", "group"])
        + " |",
    ]
    out.append("|" + "---:|" * len(cmp.columns) + "---|---|")
    for row in cmp.rqps:
        cells = [_cell(row, i) for i in range(len(cmp.columns))]
        out.append("| " + " | ".join([*cells, _label(row, multi), row.group]) + " |")
    out += [
        "",
        "| column | group | min | max | avg | median | gmean |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for g in cmp.groups:
        label = f"{g.group}@dop{g.dop}" if multi else g.group
        stats = (g.min, g.max, g.avg, g.median, g.gmean)
        out.append("| " + " | ".join([g.column, label, *(fmt_ratio(v) for v in stats)]) + " |")
    for block in cmp.hw:
        out += ["", f"**{_block_title(block)}**", ""]
        out.append("| " + " | ".join(["build", *HW_KEYS, *(f"rel {k}" for k in HW_KEYS)]) + " |")
        out.append("|---|" + "---:|" * (2 * len(HW_KEYS)))
        base = block.rows[0].values
        for r in block.rows:
            abs_cells = [fmt_hw(k, r.values[k]) for k in HW_KEYS]
            rel_cells = [fmt_rel(k, r.values, base) for k in HW_KEYS]
            out.append("| " + " | ".join([r.build, *abs_cells, *rel_cells]) + " |")
    return "\n".join(out) + "\n"


def render_csv(cmp: Comparison) -> str:
    """Three CSV tables separated by a blank line: rQPS, group stats, per-op metrics."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["workload", "group", "dop", *cmp.columns])
    for row in cmp.rqps:
        w.writerow([row.workload, row.group, row.dop, *(_num(v) for v in row.values)])
    buf.write("\n")
    w.writerow(["column", "group", "dop", "n", "min", "max", "avg", "median", "gmean"])
    for g in cmp.groups:
        w.writerow(
            [
                g.column,
                g.group,
                g.dop,
                g.n,
                *(_num(v) for v in (g.min, g.max, g.avg, g.median, g.gmean)),
            ]
        )
    buf.write("\n")
    w.writerow(["workload", "dop", "build", *HW_KEYS, *(f"rel {k}" for k in HW_KEYS)])
    for block in cmp.hw:
        for r in block.rows:
            w.writerow(
                [
                    block.workload,
                    block.dop,
                    r.build,
                    *(_num(r.values[k]) for k in HW_KEYS),
                    *(_num(r.rel[k]) for k in HW_KEYS),
                ]
            )
    return buf.getvalue()


def _num(v: float | None) -> str:
    if v is None:
        return ""
    if math.isinf(v):
        return "inf"
    return repr(round(v, 6))


def _json_num(v: float | None) -> float | str | None:
    if v is None or math.isnan(v):
        return None
    if math.isinf(v):
        return "inf"
    return v


def to_json(cmp: Comparison) -> dict[str, Any]:
    """The documented JSON shape (plus ``dop``, ``noise``, ``repeats`` and ``gmean``)."""
    return {
        "host": cmp.host,
        "base": cmp.base,
        "config": cmp.config,
        "columns": list(cmp.columns),
        "rqps": [
            {
                "workload": r.workload,
                "group": r.group,
                "dop": r.dop,
                "values": [_json_num(v) for v in r.values],
                "noise": list(r.within_noise),
                "repeats": list(r.repeats),
            }
            for r in cmp.rqps
        ],
        "groups": [
            {
                "group": g.group,
                "column": g.column,
                "dop": g.dop,
                "n": g.n,
                "min": g.min,
                "max": g.max,
                "avg": g.avg,
                "median": g.median,
                "gmean": _json_num(g.gmean),
            }
            for g in cmp.groups
        ],
        "hw": [
            {
                "workload": b.workload,
                "dop": b.dop,
                "rows": [
                    {
                        "build": r.build,
                        **{k: _json_num(r.values[k]) for k in HW_KEYS},
                        "rel": {k: _json_rel(k, r.values, b.rows[0].values) for k in HW_KEYS},
                    }
                    for r in b.rows
                ],
            }
            for b in cmp.hw
        ],
    }


def _json_rel(key: str, vals: dict[str, float | None], base: dict[str, float | None]) -> float | str | None:
    v, b = vals.get(key), base.get(key)
    if v is None or b is None:
        return None
    if b == 0:
        return 1.0 if v == 0 else "inf"
    return v / b
