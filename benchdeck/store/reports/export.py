"""Machine formats of a :class:`Comparison`: tidy CSV tables and versioned JSON.

CSV is one long table per file (``rqps``, ``groups``, ``perop`` or ``counters``), loadable as is by DuckDB's
``read_csv`` and Python's ``csv``: a missing or undefined number is an empty field. JSON follows
docs/compare.schema.json: no strings in numeric fields (a missing, infinite or undefined number
is ``null``), absolute QPS and run ids beside the ratios.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from typing import Any

from benchdeck.store.analysis.compare import HW_KEYS, Cell, Comparison, HwRow, RqpsRow

CSV_TABLES = ("rqps", "groups", "perop", "counters", "nodes")
JSON_VERSION = 2
"""Version of the JSON output (docs/compare.schema.json); bumped when its shape changes."""

RQPS_HEADER = (
    "workload",
    "group",
    "dop",
    "build",
    "config",
    "qps",
    "base_qps",
    "rqps",
    "ci_low",
    "ci_high",
    "within_noise",
    "runs",
)
GROUPS_HEADER = ("column", "build", "config", "group", "dop", "n", "min", "max", "avg", "median", "gmean")
HW_NAMES = {"cpu/o": "cpu_o", "cs/o": "cs_o", "r/o": "r_o", "rKB/o": "rkb_o", "wKB/o": "wkb_o", "o/s": "o_s"}
PEROP_HEADER = (
    "workload",
    "dop",
    "column",
    "build",
    "config",
    *HW_NAMES.values(),
    *(f"rel_{n}" for n in HW_NAMES.values()),
)


def _num(v: float | int | None) -> str:
    """A CSV number: empty for missing/NaN, ``inf``/``-inf`` for infinities, else its repr."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def _flag(v: bool | None) -> str:
    return "" if v is None else ("true" if v else "false")


def render_csv(cmp: Comparison, table: str = "rqps") -> str:
    """One tidy table (``rqps``: one row per workload, dop and compared column)."""
    rows: Iterator[list[str]]
    if table == "rqps":
        rows = _rqps_rows(cmp)
        header: tuple[str, ...] = RQPS_HEADER
    elif table == "groups":
        rows, header = _group_rows(cmp), GROUPS_HEADER
    elif table == "perop":
        rows, header = _perop_rows(cmp), PEROP_HEADER
    elif table == "counters":
        from benchdeck.store.reports import counters_report

        rows, header = counters_report.csv_rows(cmp, _num, _spec, _col_name), counters_report.CSV_HEADER
    elif table == "nodes":
        from benchdeck.store.reports import cluster_report

        rows, header = cluster_report.csv_rows(cmp, _num, _col_name), cluster_report.CSV_HEADER
    else:
        raise ValueError(f"unknown table {table!r} (expected one of {', '.join(CSV_TABLES)})")
    if cmp.on_clusters and table in ("rqps", "groups", "perop"):  # which cluster each row's column is on
        rows, header = _with_cluster(cmp, table, rows), (*header, "cluster")
    if cmp.on_clusters and table == "rqps":
        rows, header = _with_gain(cmp, rows), (*header, "rqps_on_cluster")
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _with_cluster(cmp: Comparison, table: str, rows: Iterator[list[str]]) -> Iterator[list[str]]:
    """``rows`` with the cluster of each row's column last ('' for a column alone)."""
    if table == "rqps":
        labels = (c for _ in cmp.rqps for c in cmp.columns)
    elif table == "groups":
        labels = (g.column for g in cmp.groups)
    else:
        labels = (r.label or r.build for b in cmp.hw for r in b.rows)
    for row, label in zip(rows, labels, strict=True):
        yield [*row, cmp.spec(label).cluster or ""]


def _with_gain(cmp: Comparison, rows: Iterator[list[str]]) -> Iterator[list[str]]:
    """rqps ``rows`` with each column's QPS relative to the base's build on its cluster."""
    keys = ((r.workload, r.dop, i) for r in cmp.rqps for i in range(len(cmp.columns)))
    for row, (wl, dop, i) in zip(rows, keys, strict=True):
        yield [*row, _num(cmp.on_cluster_rqps(wl, dop, i))]


def _rqps_rows(cmp: Comparison) -> Iterator[list[str]]:
    for row in cmp.rqps:
        base = cmp.cells[(row.workload, row.dop, cmp.base)]
        for i, label in enumerate(cmp.columns):
            spec = cmp.column_specs[i] if cmp.column_specs else None
            cell = cmp.cells.get((row.workload, row.dop, label))
            ci = row.ci[i] if row.ci else None
            yield [
                row.workload,
                row.group,
                _num(row.dop),
                spec.build if spec else label,
                (spec.config or "") if spec else "",
                _num(cell.qps if cell else None),
                _num(base.qps),
                _num(row.values[i]),
                _num(ci.low if ci else None),
                _num(ci.high if ci else None),
                _flag(row.within_noise[i]),
                _num(row.repeats[i]),
            ]


def _spec(cmp: Comparison, label: str) -> tuple[str, str]:
    if not cmp.column_specs:
        return label, cmp.config or ""
    s = cmp.spec(label)
    return s.build, s.config or ""


def _col_name(cmp: Comparison, label: str) -> str:
    return "base" if label == cmp.base else f"col-{cmp.columns.index(label) + 1}"


def _group_rows(cmp: Comparison) -> Iterator[list[str]]:
    for g in cmp.groups:
        build, config = _spec(cmp, g.column)
        stats = (g.min, g.max, g.avg, g.median, g.gmean)
        yield [_col_name(cmp, g.column), build, config, g.group, _num(g.dop), _num(g.n), *map(_num, stats)]


def _perop_rows(cmp: Comparison) -> Iterator[list[str]]:
    for block in cmp.hw:
        for r in block.rows:
            label = r.label or r.build
            yield [
                block.workload,
                _num(block.dop),
                _col_name(cmp, label),
                r.build,
                r.config,
                *(_num(r.values[k]) for k in HW_KEYS),
                *(_num(r.rel[k]) for k in HW_KEYS),
            ]


# --- JSON ---


def _jnum(v: float | int | None) -> float | int | None:
    """A JSON number, or null for missing, infinite and NaN values."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return v


def _column_json(cmp: Comparison, label: str) -> dict[str, Any]:
    build, config = _spec(cmp, label)
    col: dict[str, Any] = {"column": _col_name(cmp, label), "label": label, "build": build, "config": config}
    if cmp.on_clusters:  # (a comparison without cluster columns: as before issue 41)
        col["cluster"] = cmp.spec(label).cluster
    return col


def _cell_json(cmp: Comparison, row: RqpsRow, i: int, cell: Cell | None) -> dict[str, Any]:
    ci = row.ci[i] if row.ci else None
    gain = (
        {"rqps_on_cluster": _jnum(cmp.on_cluster_rqps(row.workload, row.dop, i))} if cmp.on_clusters else {}
    )
    return {
        **_column_json(cmp, cmp.columns[i]),
        "qps": _jnum(cell.qps if cell else None),
        "rqps": _jnum(row.values[i]),
        "ci_low": _jnum(ci.low if ci else None),
        "ci_high": _jnum(ci.high if ci else None),
        "ci_method": ci.method if ci else None,
        "within_noise": row.within_noise[i],
        "runs": row.repeats[i],
        "run_ids": list(cell.run_ids) if cell else [],
        **gain,
    }


def to_json(cmp: Comparison, table: str | None = None) -> dict[str, Any]:
    """The shape docs/compare.schema.json documents (``version`` :data:`JSON_VERSION`);
    ``table`` ``counters``: only the columns and the counters. ``counters`` is there only when
    some compared run has counters (the output of a store without any is as it was)."""
    head = {
        "version": JSON_VERSION,
        "host": cmp.host,
        "config": cmp.config,
    }
    counters: dict[str, Any] = {}
    if cmp.counters or table == "counters":
        from benchdeck.store.reports.counters_report import json_rows

        counters["counters"] = json_rows(cmp, _jnum, _column_json)
    if table == "counters":
        cols = {"base": _column_json(cmp, cmp.base), "columns": [_column_json(cmp, c) for c in cmp.columns]}
        return {**head, **cols, **counters}
    return {**_full_json(cmp), **counters}


def _full_json(cmp: Comparison) -> dict[str, Any]:
    from benchdeck.store.analysis.noise import (
        LEVEL,  # numpy: not at import, for the commands that never need it
    )

    return {
        "version": JSON_VERSION,
        "host": cmp.host,
        "config": cmp.config,
        "confidence_level": LEVEL,
        "base": _column_json(cmp, cmp.base),
        "columns": [_column_json(cmp, c) for c in cmp.columns],
        "rqps": [_rqps_json(cmp, r) for r in cmp.rqps],
        "groups": [
            {
                **_column_json(cmp, g.column),
                "group": g.group,
                "dop": g.dop,
                "n": g.n,
                "min": _jnum(g.min),
                "max": _jnum(g.max),
                "avg": _jnum(g.avg),
                "median": _jnum(g.median),
                "gmean": _jnum(g.gmean),
            }
            for g in cmp.groups
        ],
        "hw": [
            {
                "workload": b.workload,
                "dop": b.dop,
                "rows": [_hw_row_json(cmp, r) for r in b.rows],
            }
            for b in cmp.hw
        ],
    }


def _hw_row_json(cmp: Comparison, r: HwRow) -> dict[str, Any]:
    row = {
        **_column_json(cmp, r.label or r.build),
        **{k: _jnum(r.values[k]) for k in HW_KEYS},
        "rel": {k: _jnum(r.rel[k]) for k in HW_KEYS},
    }
    if r.cluster is not None:
        from benchdeck.store.reports.cluster_report import json_figures

        row["cluster_figures"] = json_figures(r.cluster, _jnum)
    return row


def _rqps_json(cmp: Comparison, row: RqpsRow) -> dict[str, Any]:
    base = cmp.cells[(row.workload, row.dop, cmp.base)]
    cells = [cmp.cells.get((row.workload, row.dop, c)) for c in cmp.columns]
    return {
        "workload": row.workload,
        "group": row.group,
        "dop": row.dop,
        "values": [_jnum(v) for v in row.values],
        "noise": list(row.within_noise),
        "repeats": list(row.repeats),
        "base_qps": _jnum(base.qps),
        "base_run_ids": list(base.run_ids),
        "cells": [_cell_json(cmp, row, i, c) for i, c in enumerate(cells)],
    }
