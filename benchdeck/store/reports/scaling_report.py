"""``benchdeck scaling`` as text, md, csv and json (rich: tui/reports/render_rich.py's kin in
the CLI module). One row per workload, build, config and dop everywhere, the csv tidy for
DuckDB's ``read_csv``: ``workload, group, build, config, dop, qps, scaleup, efficiency, runs,
cpu_o, cs_o``."""

from __future__ import annotations

import csv
import io
import json
import math

from benchdeck.engine.config_names import config_label
from benchdeck.store.analysis.scaling import ScalePoint, Scaling

SCALING_FORMATS = ("text", "md", "csv", "json")
CSV_HEADER = (
    "workload",
    "group",
    "build",
    "config",
    "dop",
    "qps",
    "scaleup",
    "efficiency",
    "runs",
    "cpu_o",
    "cs_o",
)
HEADINGS = ("workload", "group", "build", "config", "dop", "QPS", "scale-up", "eff", "cpu/o", "cs/o", "runs")


def title(s: Scaling) -> str:
    return (
        f"Scale-up on {s.host}: QPS at each dop / QPS at the series' lowest dop; eff = scale-up / dop ratio"
    )


def notes(s: Scaling) -> list[str]:
    """What the reader must know: builds whose series joins configs (one per dop)."""
    return [f"{b}: one config per dop, taken as one series (each row names its config)" for b in s.merged]


def cells(p: ScalePoint) -> tuple[str, ...]:
    """A point as printed: QPS to 2 places, ratios to 2, per-op as the posts print them."""
    return (
        p.workload,
        p.group,
        p.build,
        config_label(p.config),
        str(p.dop),
        f"{p.qps:.2f}",
        f"{p.scaleup:.2f}",
        f"{p.efficiency:.2f}",
        _num(p.cpu_o, 6),
        _num(p.cs_o, 3),
        str(p.runs),
    )


def _num(v: float | None, places: int) -> str:
    return "-" if v is None or not math.isfinite(v) else f"{v:.{places}f}"


def render_scaling(s: Scaling, fmt: str) -> str:
    if fmt == "csv":
        return _csv(s)
    if fmt == "json":
        return _json(s)
    rows = [cells(p) for p in s.points]
    if fmt == "md":
        esc = [tuple(c.replace("|", "\\|") for c in r) for r in rows]
        lines = [f"**{title(s)}**", "", *(f"_{n}_" for n in notes(s))]
        lines += ["", "| " + " | ".join(HEADINGS) + " |", "|" + "---|" * len(HEADINGS)]
        lines += ["| " + " | ".join(r) + " |" for r in esc]
        return "\n".join(lines) + "\n"
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(HEADINGS)]
    left = {0, 1, 2, 3}

    def line(r: tuple[str, ...]) -> str:
        return "  ".join(
            c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )

    out = [title(s), *notes(s), "", line(HEADINGS).rstrip()]
    out += [line(r).rstrip() for r in rows]
    return "\n".join(out) + "\n"


def _csv(s: Scaling) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for p in s.points:
        ratios = (repr(p.qps), repr(p.scaleup), repr(p.efficiency))
        per_op = ("" if p.cpu_o is None else repr(p.cpu_o), "" if p.cs_o is None else repr(p.cs_o))
        w.writerow((p.workload, p.group, p.build, p.config, p.dop, *ratios, p.runs, *per_op))
    return buf.getvalue()


def _json(s: Scaling) -> str:
    def finite(v: float | None) -> float | None:
        return v if v is not None and math.isfinite(v) else None

    doc = {
        "host": s.host,
        "builds": list(s.builds),
        "dops": list(s.dops),
        "merged_configs": list(s.merged),
        "points": [
            {
                "workload": p.workload,
                "group": p.group,
                "build": p.build,
                "config": p.config,
                "dop": p.dop,
                "qps": finite(p.qps),
                "scaleup": finite(p.scaleup),
                "efficiency": finite(p.efficiency),
                "runs": p.runs,
                "cpu_o": finite(p.cpu_o),
                "cs_o": finite(p.cs_o),
            }
            for p in s.points
        ],
    }
    return json.dumps(doc, indent=2) + "\n"
