"""Plain renderings of change points: text, Markdown, CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from benchdeck.engine.changepoints import Options
from benchdeck.engine.config_names import config_label
from benchdeck.store.analysis.changes import (
    METRICS,
    Change,
    LeftOut,
    MetricMove,
    Point,
    Series,
    SeriesChanges,
)
from benchdeck.store.reports.ratios import fmt_ratio

FORMATS = ("text", "md", "csv", "json")


@dataclass(frozen=True, slots=True)
class Request:
    """What was asked, for the heading: host, axis and thresholds; and the builds left out of
    every series (said under the heading, so "35 of 38 series" never hides a build)."""

    host: str
    over: str
    options: Options
    left_out: tuple[LeftOut, ...] = ()


def fmt_pvalue(p: float) -> str:
    if math.isnan(p):
        return "nan"
    return "0" if p == 0 else f"{p:.1e}" if p < 0.001 else f"{p:.4f}"


def fmt_change(c: Change) -> str:
    return f"{c.test.change * 100:+.1f}%"


def fmt_moves(moves: Sequence[MetricMove]) -> str:
    return "  ".join(f"{m.metric} x{fmt_ratio(m.ratio)}" for m in moves)


def between(c: Change) -> str:
    return f"{c.before.label} -> {c.after.label}"


def series_title(s: Series) -> str:
    dop = f", dop {s.dop}" if s.dop is not None else ""
    return f"config {config_label(s.config)}{dop}, {s.line}"


def heading(req: Request) -> str:
    o = req.options
    return (
        f"Change points on {req.host} over {req.over}: e-divisive means + t-test, "
        f"p <= {o.max_pvalue:g}, magnitude > {o.min_magnitude:.0%}"
    )


def render(results: Sequence[SeriesChanges], req: Request, fmt: str) -> str:
    if fmt == "text":
        return "\n".join(_text(results, req)) + "\n"
    if fmt == "md":
        return "\n".join(_md(results, req)) + "\n"
    if fmt == "csv":
        return _csv(results)
    if fmt == "json":
        return json.dumps(to_json(results, req), indent=2) + "\n"
    raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")


def _by_line(results: Sequence[SeriesChanges]) -> dict[tuple[str, int | None, str], list[SeriesChanges]]:
    out: dict[tuple[str, int | None, str], list[SeriesChanges]] = {}
    for r in results:
        out.setdefault((r.series.config, r.series.dop, r.series.line), []).append(r)
    return out


def by_group(members: Sequence[SeriesChanges]) -> list[SeriesChanges]:
    """Workloads grouped, groups in the order they first appear, workload order kept inside."""
    first: dict[str, int] = {}
    for i, r in enumerate(members):
        first.setdefault(r.series.group, i)
    return sorted(members, key=lambda r: first[r.series.group])


def _points_text(members: Sequence[SeriesChanges]) -> str:
    """The first series' points and what each workload's series holds: ``8.0.43 8.0.44 8.4.6
    (3 versions; 42 workload series, 1-2 runs a version)`` (it read "(3 points, 3 runs)", taken for
    the whole line's count)."""
    s = members[0].series
    unit = "version" if s.over == "version" else "run"
    n = len(s.labels)
    head = f"{' '.join(s.labels)} ({n} {unit}{'' if n == 1 else 's'}; {len(members)} workload series"
    if s.over == "time":
        return head + ")"
    runs = [k for m in members for k in m.series.runs]
    per = f"{min(runs)}" if min(runs) == max(runs) else f"{min(runs)}-{max(runs)}"
    return f"{head}, {per} run{'' if per == '1' else 's'} a version)"


def summary_line(results: Sequence[SeriesChanges]) -> str:
    changed = sum(1 for r in results if r.changes)
    return f"{changed} of {len(results)} series have change points"


def left_out_lines(req: Request) -> list[str]:
    """``left out: my8406v2_rel_o2nofp (mysql v2 rel_o2nofp: 1 version, 3 needed; ...)``."""
    return [f"left out: {lo.reason()}" for lo in req.left_out]


def left_out_note(left_out: Sequence[LeftOut]) -> str:
    """The app's short form: `` · left out: my8406v2_rel_o2nofp (mysql v2 rel_o2nofp: 1 version)``."""
    if not left_out:
        return ""

    def one(lo: LeftOut) -> str:
        cfg = "" if lo.config is None else f", config {config_label(lo.config)}"
        return f"{lo.build} ({lo.line}{cfg}: {lo.points} {lo.unit}{'' if lo.points == 1 else 's'})"

    shown = ", ".join(one(lo) for lo in left_out[:3])
    more = f" and {len(left_out) - 3} more" if len(left_out) > 3 else ""
    ways = "`benchdeck changes --include BUILD` puts a forked build in its line"
    if any(lo.elsewhere is not None for lo in left_out):
        ways += ", `--across-configs` joins a line's configs"
    return f" · left out: {shown}{more}; {ways}"


def left_out_count(left_out: Sequence[LeftOut]) -> str:
    """The narrow app's form: `` · 3 builds left out (`benchdeck changes` names them)``."""
    if not left_out:
        return ""
    n = len(left_out)
    return f" · {n} build{'' if n == 1 else 's'} left out (`benchdeck changes` names them)"


def dops_note(results: Sequence[SeriesChanges]) -> str | None:
    """Said when the series span several concurrencies: a change is never called across them."""
    dops = sorted({r.series.dop for r in results if r.series.dop is not None})
    if len(dops) < 2:
        return None
    return f"dops {', '.join(map(str, dops))}: each dop is a series of its own (never compared across dops)"


def _text(results: Sequence[SeriesChanges], req: Request) -> Iterator[str]:
    yield heading(req)
    yield from left_out_lines(req)
    if note := dops_note(results):
        yield note
    if not results:
        yield "no series with 3 or more points"
        return
    for (_cfg, _dop, _line), members in _by_line(results).items():
        yield ""
        yield f"{series_title(members[0].series)}: {_points_text(members)}"
        rows = [(r.series, c) for r in by_group(members) for c in r.changes]
        if not rows:
            yield "  no change points"
            continue
        width = max(len(s.workload) for s, _ in rows)
        group = None
        for s, c in rows:
            if s.group != group:
                group = s.group
                yield f"  {group}"
            p = fmt_pvalue(c.test.pvalue)
            line = f"    {s.workload:<{width}}  {between(c):<22} {fmt_change(c):>8}  p {p:<8}"
            yield f"{line}  {fmt_moves(c.moved)}".rstrip()
    yield ""
    yield summary_line(results)


def _md(results: Sequence[SeriesChanges], req: Request) -> Iterator[str]:
    yield f"**{heading(req)}**"
    if req.left_out:
        yield ""
        yield from (f"- {line}" for line in left_out_lines(req))
    if note := dops_note(results):
        yield ""
        yield f"_{note}_"
    for (_cfg, _dop, _line), members in _by_line(results).items():
        yield ""
        yield f"{series_title(members[0].series)}: {_points_text(members)}"
        yield ""
        yield "| group | workload | between | change | p-value | per-op moved |"
        yield "|---|---|---|---:|---:|---|"
        for r in by_group(members):
            for c in r.changes:
                yield (
                    f"| {r.series.group} | {r.series.workload} | {between(c)} | {fmt_change(c)} "
                    f"| {fmt_pvalue(c.test.pvalue)} | {fmt_moves(c.moved)} |"
                )
    yield ""
    yield summary_line(results)


CSV_HEADER = (
    "host", "config", "dop", "line", "group", "workload", "before", "after", "before_build",
    "after_build", "qps_before", "qps_after", "change", "magnitude", "pvalue", "n_before", "n_after",
    *(f"{m} ratio" for m, _ in METRICS), "moved",
)  # fmt: skip


def _csv(results: Sequence[SeriesChanges]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for r in results:
        s = r.series
        for c in r.changes:
            ratios = {m.metric: m.ratio for m in c.metrics}
            w.writerow(
                [
                    s.host, s.config, "" if s.dop is None else s.dop, s.line, s.group, s.workload,
                    c.before.label, c.after.label, c.before.build, c.after.build,
                    f"{c.test.mean_before:.6g}", f"{c.test.mean_after:.6g}", f"{c.test.change:.6f}",
                    f"{c.test.magnitude:.6f}", f"{c.test.pvalue:.6g}", c.test.n_before, c.test.n_after,
                    *(_num(ratios.get(m)) for m, _ in METRICS),
                    ";".join(m.metric for m in c.moved),
                ]
            )  # fmt: skip
    return buf.getvalue()


def _num(v: float | None) -> str:
    return "" if v is None else f"{v:.6g}"


def _jnum(v: float | None) -> float | str | None:
    if v is None:
        return None
    return str(v) if math.isnan(v) or math.isinf(v) else v


def to_json(results: Sequence[SeriesChanges], req: Request) -> dict[str, Any]:
    o = req.options
    return {
        "host": req.host,
        "over": req.over,
        "max_pvalue": o.max_pvalue,
        "min_magnitude": o.min_magnitude,
        "left_out": [
            {
                "build": lo.build,
                "line": lo.line,
                "config": lo.config,
                "points": lo.points,
                "include_line": lo.upstream,
            }
            for lo in req.left_out
        ],
        "series": [
            {
                "workload": r.series.workload,
                "group": r.series.group,
                "config": r.series.config,
                "dop": r.series.dop,
                "line": r.series.line,
                "points": [_point_json(p) for p in r.series.points],
                "changes": [
                    {
                        "index": c.index,
                        "before": c.before.label,
                        "after": c.after.label,
                        "qps_before": c.test.mean_before,
                        "qps_after": c.test.mean_after,
                        "change": c.test.change,
                        "magnitude": c.test.magnitude,
                        "pvalue": _jnum(c.test.pvalue),
                        "n_before": c.test.n_before,
                        "n_after": c.test.n_after,
                        "metrics": [_move_json(m) for m in c.metrics],
                    }
                    for c in r.changes
                ],
            }
            for r in results
        ],
    }


def _point_json(p: Point) -> dict[str, Any]:
    hw = {k: _jnum(v) for k, v in p.hw.items()}
    return {"label": p.label, "build": p.build, "runs": p.runs, "qps": p.qps, "hw": hw}


def _move_json(m: MetricMove) -> dict[str, Any]:
    return {"metric": m.metric, "ratio": _jnum(m.ratio), "pvalue": _jnum(m.pvalue), "moved": m.moved}
