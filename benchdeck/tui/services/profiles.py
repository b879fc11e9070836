"""Profiles for the CLI and the app (no Textual): load one or two sides from the store and
render the top-functions table in text, md, csv or json.

A side is one run, or a column: the finished runs of one build running one workload on a host
that have a stored profile, merged (each window weighted by its own queries). A side with a
window of unknown length (an imported profile without ``--seconds``) is in shares of its samples:
ratios only, said in every output (and the other side of a comparison is turned into shares).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from benchdeck.engine.profiling.cpu import (
    FunctionCost,
    FunctionDiff,
    ProfileError,
    SideProfile,
    as_shares,
    diff_functions,
    top_functions,
)
from benchdeck.store.storage.profiles import column_runs, load_side, run_label

if TYPE_CHECKING:
    from benchdeck.store.analysis.compare import Comparison

TABLE_FORMATS = ("text", "md", "csv", "json")
RATIOS_NOTE = (
    "how long perf recorded is unknown: shares of the samples (%) only, no figure per query "
    "(import with --seconds for one)"
)


@dataclass(frozen=True, slots=True)
class ProfileRequest:
    """Runs (one or two) or a host, base build, optional column build and workload."""

    runs: tuple[int, ...] = ()
    host: str | None = None
    base: str | None = None
    column: str | None = None
    workload: str | None = None
    config: str | None = None
    base_config: str | None = None  # the base's, when not ``config``
    dop: int | None = None  # only runs at this concurrency
    source: str = "auto"  # a run's captured or imported profile (store/storage/profiles.py)
    cluster: str | None = None  # the column's runs on this cluster (None: its runs alone)
    base_cluster: str | None = None  # the base's


@dataclass(frozen=True, slots=True)
class Profiles:
    base: SideProfile
    column: SideProfile | None


def load_profiles(cur: duckdb.DuckDBPyConnection, req: ProfileRequest) -> Profiles:
    """The side(s) ``req`` names; ProfileError (one line) when one has no stored profile."""
    if req.runs:
        sides = [load_side(cur, run_label(cur, r), [r], req.source) for r in req.runs]
        return _aligned(sides[0], sides[1] if len(sides) > 1 else None)
    if not (req.host and req.base and req.workload):
        raise ProfileError("give one or two run ids, or --host, --base and --workload")

    def side(build: str, config: str | None, cluster: str | None) -> SideProfile:
        runs = column_runs(cur, req.host or "", build, req.workload or "", config, req.dop, cluster)
        if not runs.run_ids:
            where = f"on {req.host}" + (f" on the cluster {cluster}" if cluster else "")
            raise ProfileError(f"no finished run of {build} running {req.workload} {where} has a profile")
        ids = ",".join(str(r) for r in runs.run_ids)
        return load_side(cur, f"{build} {req.workload} (runs {ids})", runs.run_ids, req.source)

    base = side(req.base, req.base_config if req.base_config is not None else req.config, req.base_cluster)
    return _aligned(base, side(req.column, req.config, req.cluster) if req.column else None)


def _aligned(base: SideProfile, column: SideProfile | None) -> Profiles:
    """Both sides per query, or both in shares when one has to be."""
    if column is not None and not (base.per_query and column.per_query):
        return Profiles(as_shares(base), as_shares(column))
    return Profiles(base, column)


def column_request(cmp: Comparison, column: int, workload: str | None) -> ProfileRequest:
    """Base vs column ``column`` of a comparison, for ``workload`` (as Triage finds the runs)."""
    base, col = cmp.spec(cmp.base), cmp.spec(cmp.columns[column])
    return ProfileRequest(
        host=cmp.host,
        base=base.build,
        column=col.build,
        workload=workload,
        config=col.config,
        base_config=base.config,
        cluster=col.cluster,
        base_cluster=base.cluster,
    )


def per_q(unit: str) -> str:
    """The unit's label: ``us/q``, ``cycles/q``, or ``%`` (shares: ratios only)."""
    return {"us": "us/q", "cycles": "cycles/q"}.get(unit, "%")


def side_line(s: SideProfile) -> str:
    """``N samples, Q queries, X us/q profiled``, or the samples and why there is no per-query figure."""
    if not s.per_query:
        return f"{s.samples:,} samples; {RATIOS_NOTE}"
    figure = f"{_num(s.cpu_per_query)} {per_q(s.unit)}"
    return f"{s.samples:,} samples, {s.queries:,.0f} queries, {figure} profiled"


def _num(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.3f}"


def _ratio(r: float | None, col: float) -> str:
    """``new`` for a function the base did not spend time in, ``-`` when neither did."""
    if r is None:
        return "new" if col > 0 else "-"
    return f"{r:.2f}"


def _sides_lines(p: Profiles) -> list[str]:
    out = []
    for name, s in (("base", p.base), ("col-1", p.column)):
        if s is None:
            continue
        out.append(f"{name}: {s.label}: {side_line(s)}")
    return out


def table_rows(p: Profiles, limit: int, by: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the table (a diff with a column, else the base's top functions)."""
    if p.column is None:
        unit = per_q(p.base.unit)
        head = ["function", f"self {unit}", f"total {unit}", "self samples", "total samples"]
        tops: list[FunctionCost] = top_functions(p.base, limit, by)
        return head, [
            [c.function, _num(c.self_us), _num(c.total_us), str(c.self_samples), str(c.total_samples)]
            for c in tops
        ]
    unit = per_q(p.base.unit)
    other = "total" if by == "self" else "self"
    head = [
        "function",
        f"base {by}",
        f"col-1 {by}",
        f"diff {unit}",
        "ratio",
        f"base {other}",
        f"col-1 {other}",
    ]
    diffs: list[FunctionDiff] = diff_functions(p.base, p.column, limit, by)
    return head, [
        [
            d.function,
            _num(d.base_self_us if by == "self" else d.base_total_us),
            _num(d.col_self_us if by == "self" else d.col_total_us),
            f"{d.diff(by):+.3f}" if abs(d.diff(by)) < 1000 else f"{d.diff(by):+,.0f}",
            _ratio(d.ratio(by), d.col_self_us if by == "self" else d.col_total_us),
            _num(d.base_total_us if by == "self" else d.base_self_us),
            _num(d.col_total_us if by == "self" else d.col_self_us),
        ]
        for d in diffs
    ]


def _csv(p: Profiles, limit: int, by: str) -> str:
    """Numbers only in the number columns (no ``+``, no thousands commas, no ``new``): a
    function the base did not spend time in has an empty ratio and ``new`` in ``status``
    (``none``: neither side did)."""
    head, rows = table_rows(p, limit, by)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if p.column is None:
        w.writerow(head)
        w.writerows([[c.replace(",", "") if i else c for i, c in enumerate(r)] for r in rows])
        return buf.getvalue()
    w.writerow([*head, "status"])
    for d in diff_functions(p.base, p.column, limit, by):
        mine = (d.base_self_us, d.col_self_us) if by == "self" else (d.base_total_us, d.col_total_us)
        rest = (d.base_total_us, d.col_total_us) if by == "self" else (d.base_self_us, d.col_self_us)
        ratio = d.ratio(by)
        status = "" if ratio is not None else "new" if mine[1] > 0 else "none"
        nums = [*mine, d.diff(by)]
        w.writerow(
            [d.function, *(f"{v:.3f}" for v in nums), "" if ratio is None else f"{ratio:.4f}"]
            + [f"{v:.3f}" for v in rest]
            + [status]
        )
    return buf.getvalue()


def render_table(p: Profiles, fmt: str, limit: int = 20, by: str = "self") -> str:
    """The top functions in ``fmt`` (text, md, csv, json)."""
    head, rows = table_rows(p, limit, by)
    if fmt == "json":
        return json.dumps(_json(p, limit, by), indent=2) + "\n"
    if fmt == "csv":
        return _csv(p, limit, by)
    lines = _sides_lines(p)
    if fmt == "md":
        lines = [f"- {ln}" for ln in lines] + [""]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    widths = [
        max(len(head[i]), *(len(r[i]) for r in rows)) if rows else len(head[i]) for i in range(len(head))
    ]
    fn_w = min(widths[0], 60)

    def line(cells: Sequence[str]) -> str:
        name = cells[0] if len(cells[0]) <= fn_w else cells[0][: fn_w - 2] + ".."
        return "  ".join(
            [name.ljust(fn_w), *(c.rjust(widths[i + 1]) for i, c in enumerate(cells[1:]))]
        ).rstrip()

    lines += ["", line(head)] + [line(r) for r in rows]
    return "\n".join(lines) + "\n"


def _side_json(s: SideProfile) -> dict[str, object]:
    return {
        "label": s.label,
        "unit": per_q(s.unit),
        "samples": s.samples,
        "queries": s.queries if s.per_query else None,
        "cpu_per_query": s.cpu_per_query if s.per_query else None,
        "note": "" if s.per_query else RATIOS_NOTE,
        "runs": sorted({w.run_id for w in s.windows}),
    }


def _json(p: Profiles, limit: int, by: str) -> dict[str, object]:
    out: dict[str, object] = {"base": _side_json(p.base), "by": by}
    if p.column is None:
        out["functions"] = [
            {"function": c.function, "self": c.self_us, "total": c.total_us, "self_samples": c.self_samples,
             "total_samples": c.total_samples}
            for c in top_functions(p.base, limit, by)
        ]  # fmt: skip
        return out
    out["column"] = _side_json(p.column)
    out["functions"] = [
        {"function": d.function, "base_self": d.base_self_us, "col_self": d.col_self_us,
         "base_total": d.base_total_us, "col_total": d.col_total_us, "diff": d.diff(by), "ratio": d.ratio(by)}
        for d in diff_functions(p.base, p.column, limit, by)
    ]  # fmt: skip
    return out


def folded_text(p: Profiles) -> str:
    """Folded stacks: ``stack samples`` for one side; for two, ``stack base col`` (what
    FlameGraph's difffolded.pl writes and flamegraph.pl draws as a differential graph)."""
    if p.column is None:
        return "".join(f"{s} {n}\n" for s, n, _ in p.base.stacks)
    base = {s: n for s, n, _ in p.base.stacks}
    col = {s: n for s, n, _ in p.column.stacks}
    return "".join(f"{s} {base.get(s, 0)} {col.get(s, 0)}\n" for s in sorted(set(base) | set(col)))


def svg_text(p: Profiles) -> str:
    """A flame graph of the base (one side), or the column's coloured by how each frame's CPU per
    query changed from the base."""
    from benchdeck.engine.profiling.svg import flame_svg
    from benchdeck.engine.profiling.tree import attach_other, build_tree

    unit = per_q(p.base.unit)
    note = "" if p.base.per_query else f" ({RATIOS_NOTE})"
    if p.column is None:
        return flame_svg(build_tree(p.base.stacks), p.base.label + note, unit=unit)
    tree = build_tree(p.column.stacks)
    attach_other(tree, build_tree(p.base.stacks))
    title = f"{p.column.label} vs {p.base.label}: red grew, blue shrank ({unit}){note}"
    return flame_svg(tree, title, differential=True, unit=unit)


GROWN = 3  # functions named per regression


def grown_text(cur: duckdb.DuckDBPyConnection, req: ProfileRequest, n: int = GROWN) -> str:
    """``row_upd_sec_index_entry +3.1 us/q  btr_cur_search +0.8 us/q``: the functions whose self
    CPU per query grew most from base to column; empty when a side has no profile or nothing
    grew. For Triage and Changes."""
    from benchdeck.engine.profiling.cpu import grew_most

    try:
        p = load_profiles(cur, req)
    except ProfileError:
        return ""
    if p.column is None:
        return ""
    unit = per_q(p.base.unit)
    return "  ".join(f"{d.function} {_signed(d.diff())} {unit}" for d in grew_most(p.base, p.column, n))


def _signed(v: float) -> str:
    return f"{v:+,.0f}" if abs(v) >= 100 else f"{v:+.1f}" if abs(v) >= 0.1 else f"{v:+.3f}"
