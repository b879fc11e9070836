"""The Counters table of a comparison (store/analysis/counters_per_op.py) in every format: a block per
workload and dop in text and Markdown (a row per counter, a value per column, each column's
value relative to the base's), a tidy CSV table and JSON rows.

A counter without a value prints why in text and Markdown, never 0: ``n/s`` not supported (the
CPU or VM has no such counter), ``n/c`` not counted (perf could not schedule it), ``n/a`` a
ratio with a zero denominator; CSV and JSON leave the value empty (``null``) and say it in
``status``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from benchdeck.store.analysis.counters_per_op import NO_RATIO, NOT_COUNTED, NOT_SUPPORTED, CounterRow

if TYPE_CHECKING:
    from benchdeck.store.analysis.compare import Comparison

MISSING = {NOT_SUPPORTED: "n/s", NOT_COUNTED: "n/c", NO_RATIO: "n/a"}
"""What a missing value prints, by why it is missing."""
LEGEND = (
    "per operation (ratios as they are); n/s = not supported (the CPU or VM has no such counter), "
    "n/c = not counted (perf could not schedule it in any window), n/a = no ratio (a zero denominator)"
)
CSV_HEADER = (
    "workload", "dop", "column", "build", "config", "counter", "unit", "value", "rel", "windows", "status",
)  # fmt: skip
NO_COUNTERS = (
    "No perf stat counters for these runs: capture them with run or queue --profile counters (or a "
    'host\'s profile = "counters"), or import them (sb.perf.hw.* files of a mytools tree, '
    "import sysbench --perf-stat FILE)."
)
"""What the Counters tab and ``compare --table counters`` say when no run has counters."""


def fmt_counter(v: float | None, ratio: bool = False, missing: str = NOT_COUNTED) -> str:
    """A per-operation value: ``159,263`` / ``1.00`` / ``0.0123`` / ``1.23e-05``; a ratio with two decimals
    (``0.80`` IPC, ``4.51`` %); when missing, why (:data:`MISSING`: ``n/s``, ``n/c``, ``n/a``)."""
    if v is None:
        return MISSING.get(missing, "n/c")
    if not math.isfinite(v):
        return "inf" if v > 0 else "nan"
    if ratio:
        return f"{v:.2f}"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 1 or v == 0:
        return f"{v:.2f}"
    return f"{v:.3g}"  # three significant digits: 0.000669 msec, 1.23e-05 faults per query


def fmt_counter_rel(v: float | None) -> str:
    if v is None:
        return "-"
    return "inf" if math.isinf(v) else f"{v:.2f}"


def blocks(rows: Sequence[CounterRow]) -> Iterator[tuple[str, int | None, list[CounterRow]]]:
    """Rows grouped by (workload, dop), in order."""
    key: tuple[str, int | None] | None = None
    block: list[CounterRow] = []
    for r in rows:
        if (r.workload, r.dop) != key:
            if key is not None:
                yield key[0], key[1], block
            key, block = (r.workload, r.dop), []
        block.append(r)
    if key is not None:
        yield key[0], key[1], block


def table(cmp: Comparison, block: Sequence[CounterRow]) -> tuple[list[str], list[list[str]]]:
    """One block as a grid: header (counter, base, col-1, rel, ...) and a row per counter."""
    labels = [cmp.base, *cmp.columns]
    header = ["counter", "base"]
    for i in range(len(cmp.columns)):
        header += [f"col-{i + 1}", "rel"]
    by: dict[str, dict[str, CounterRow]] = {}
    for r in block:
        by.setdefault(r.counter, {})[r.column] = r
    grid = []
    for counter, cols in by.items():
        unit = next((r.unit for r in cols.values() if r.unit), "")
        cells = [f"{counter} ({unit})" if unit else counter]
        for j, lab in enumerate(labels):
            got = cols.get(lab)
            cells.append(fmt_counter(got.value, got.is_ratio, got.missing) if got else "-")
            if j:
                cells.append(fmt_counter_rel(got.rel) if got else "-")
        grid.append(cells)
    return header, grid


def _title(workload: str, dop: int | None) -> str:
    return workload if dop is None else f"{workload}.dop{dop}"


def text_lines(cmp: Comparison) -> Iterator[str]:
    def block(title: str, header: list[str], grid: list[list[str]]) -> Iterator[str]:
        yield title
        yield "\t".join(header)
        yield from ("\t".join(row) for row in grid)

    return _lines(cmp, block)


def md_lines(cmp: Comparison, escape: Callable[[str], str]) -> Iterator[str]:
    def block(title: str, header: list[str], grid: list[list[str]]) -> Iterator[str]:
        yield f"**{escape(title)}**"
        yield ""
        yield "| " + " | ".join(header) + " |"
        yield "|---|" + "---:|" * (len(header) - 1)
        yield from ("| " + " | ".join([escape(row[0]), *row[1:]]) + " |" for row in grid)

    return _lines(cmp, block)


def _lines(
    cmp: Comparison, block: Callable[[str, list[str], list[list[str]]], Iterator[str]]
) -> Iterator[str]:
    """The legend, then each (workload, dop) block as ``block`` lays it out."""
    if not cmp.counters:
        return
    yield ""
    yield f"Counters: {LEGEND}"
    for wl, dop, rows in blocks(cmp.counters):
        header, grid = table(cmp, rows)
        yield ""
        yield from block(_title(wl, dop), header, grid)


def csv_rows(cmp: Comparison, num: Any, spec: Any, col_name: Any) -> Iterator[list[str]]:
    for r in cmp.counters:
        build, config = spec(cmp, r.column)
        yield [
            r.workload,
            num(r.dop),
            col_name(cmp, r.column),
            build,
            config,
            r.counter,
            r.unit,
            num(r.value),
            num(r.rel),
            num(r.windows),
            status(r),
        ]


def json_rows(cmp: Comparison, jnum: Any, column_json: Any) -> list[dict[str, Any]]:
    return [
        {
            "workload": r.workload,
            "dop": r.dop,
            **column_json(cmp, r.column),
            "counter": r.counter,
            "unit": r.unit,
            "value": jnum(r.value),
            "rel": jnum(r.rel),
            "windows": r.windows,
            "status": status(r),
        }
        for r in cmp.counters
    ]


def status(r: CounterRow) -> str:
    """``counted``, or why the row has no value (``not supported``, ``not counted``, ``no ratio``)."""
    return "counted" if r.value is not None else r.missing or NOT_COUNTED
