"""A bisect's report as text, Markdown or JSON: the culprit and its parent, the ratio at every
tested commit with its interval and runs, what it cost, and (with ``--profile cpu``) the profile
difference culprit vs parent as ``benchdeck profile`` prints it."""

from __future__ import annotations

import json
from typing import Any

from benchdeck.engine.bisect.decide import Ratio
from benchdeck.engine.bisect.history import Commit
from benchdeck.tui.services.bisect import Report
from benchdeck.tui.services.eta import format_s

FORMATS = ("text", "md", "json")


def _ratio(r: Ratio | None) -> str:
    return f"x{r.value:.3f} [{r.low:.3f}, {r.high:.3f}]" if r else "-"


def _commit(c: Commit) -> str:
    return f'{c.short} "{c.subject}" by {c.author}, {c.date}'


def headline(rep: Report) -> str:
    """One line: the culprit, its range, or why there is none."""
    res = rep.result
    if res.culprit is None:
        return res.message
    first, last = res.culprit
    if first == last:
        return f"culprit: {_commit(rep.commits[last])}"
    shas = ", ".join(rep.commits[i].short for i in range(first, last + 1))
    why = "the commits beside it did not build or stayed unclear"
    return f"culprit: one of {last - first + 1} commits {shas} ({why})"


def _rows(rep: Report) -> list[list[str]]:
    rows = []
    for t in sorted(rep.result.tested, key=lambda t: t.position):
        c = rep.commits[t.position]
        rows.append([str(t.position), c.short, t.mark, _ratio(t.to_good), str(t.runs), c.subject[:50]])
    return rows


def _spent(rep: Report) -> str:
    res = rep.result
    return (
        f"spent: {res.builds} builds ({rep.builds_new} compiled now, the rest reused or skipped), "
        f"{res.runs} runs ({rep.runs_new} now), {format_s(rep.elapsed_s)}"
        + (" (resumed)" if rep.resumed else "")
    )


def render(rep: Report, fmt: str, profile: str | None = None) -> str:
    if fmt == "json":
        return json.dumps(as_json(rep, profile), indent=2) + "\n"
    q = rep.request
    head = [
        f"bisect {q.workload} on {q.host}, recipe {q.recipe} ({q.variant}): {rep.result.n} commits "
        f"{rep.commits[0].short} (good) .. {rep.commits[-1].short} (bad)",
        headline(rep),
    ]
    if (pair := rep.culprit) is not None:
        head.append(f"parent:  {_commit(pair[1])}")
    n_good, n_bad = len(rep.qps.get(0, ())), len(rep.qps.get(rep.result.n, ()))
    head.append(f"endpoints: bad/good {_ratio(rep.result.endpoints)} ({n_good} good runs, {n_bad} bad runs)")
    cols = ["pos", "commit", "verdict", "ratio to good [95% interval]", "runs", "subject"]
    rows = _rows(rep)
    if fmt == "md":
        lines = [f"- {ln}" for ln in head] + [""]
        lines += ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines += ["", f"- {_spent(rep)}"]
    else:
        widths = [max(len(cols[i]), *(len(r[i]) for r in rows)) for i in range(len(cols))] if rows else []
        lines = [*head]
        if rows:
            lines += ["", "  ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)).rstrip()]
            lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
        lines += ["", _spent(rep)]
    if profile:
        title = "CPU per query, culprit vs parent:"
        lines += ["", f"## {title}" if fmt == "md" else title, profile.rstrip()]
    return "\n".join(lines) + "\n"


def _commit_json(c: Commit) -> dict[str, str]:
    return {"sha": c.sha, "subject": c.subject, "author": c.author, "date": c.date}


def _ratio_json(r: Ratio | None) -> dict[str, float] | None:
    return {"ratio": r.value, "low": r.low, "high": r.high} if r else None


def as_json(rep: Report, profile: str | None = None) -> dict[str, Any]:
    q, res = rep.request, rep.result
    pair = rep.culprit
    first, last = res.culprit or (0, -1)
    return {
        "host": q.host,
        "recipe": q.recipe,
        "variant": q.variant,
        "workload": q.workload,
        "threshold": q.threshold,
        "good": _commit_json(rep.commits[0]),
        "bad": _commit_json(rep.commits[-1]),
        "commits": res.n,
        "outcome": res.kind,
        "message": headline(rep),
        "culprit": _commit_json(pair[0]) if pair else None,
        "parent": _commit_json(pair[1]) if pair else None,
        "culprit_range": [_commit_json(rep.commits[i]) for i in range(first, last + 1)],
        "endpoints": _ratio_json(res.endpoints),
        "tested": [
            {
                **_commit_json(rep.commits[t.position]),
                "position": t.position,
                "build": rep.build_names[t.position],
                "verdict": t.mark,
                "to_good": _ratio_json(t.to_good),
                "runs": t.runs,
                "run_ids": list(rep.runs.get(t.position, ())),
            }
            for t in res.tested
        ],
        "builds": res.builds,
        "builds_compiled": rep.builds_new,
        "runs": res.runs,
        "runs_new": rep.runs_new,
        "elapsed_s": round(rep.elapsed_s, 1),
        "resumed": rep.resumed,
        "profile": json.loads(profile) if profile else None,
    }
