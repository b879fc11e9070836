"""The benches' history as data: each bench appends its figures to ``bench/results/<bench>.jsonl``.

One JSON object a line, one line per figure: when (``date``, UTC), on what code (``commit``,
``+dirty`` when the tree has changes), under what load (the 1-minute load average at the end),
the figure and its unit, the baseline measured beside it and their ratio, the target and
whether it was met, and the bench's arguments. ``BENCHDECK_BENCH_RESULTS=DIR`` writes elsewhere
(``-`` writes nothing). docs/performance.md says how each figure is measured and read.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Figure:
    """One measured figure; ``baseline`` is the same measure of the reference run beside it."""

    name: str
    value: float
    unit: str
    baseline: float | None = None
    baseline_name: str = ""
    target: str = ""
    met: bool | None = None


def _git(tree: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(tree), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def _commit(tree: Path) -> str:
    """The checked-out commit of ``tree`` (``+dirty`` with local changes), or ``unknown``."""
    try:
        head = _git(tree, "rev-parse", "--short", "HEAD")
        dirty = _git(tree, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+dirty" if dirty else "")


def _args(args: object) -> dict[str, object]:
    raw = vars(args) if hasattr(args, "__dict__") else dict(args)  # type: ignore[call-overload]
    return {k: v if isinstance(v, (int, float, str, bool, type(None))) else str(v) for k, v in raw.items()}


def entry(figure: Figure, *, commit: str, load: float, args: Mapping[str, object]) -> dict[str, object]:
    """The record of one figure, as a line of the history holds it."""
    ratio = figure.value / figure.baseline if figure.baseline else None
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "load": round(load, 2),
        "figure": figure.name,
        "value": round(figure.value, 3),
        "unit": figure.unit,
        "baseline": None if figure.baseline is None else round(figure.baseline, 3),
        "baseline_name": figure.baseline_name,
        "ratio": None if ratio is None else round(ratio, 4),
        "target": figure.target,
        "met": figure.met,
        "args": dict(args),
    }


def record(bench: str, figures: Sequence[Figure], args: object = None) -> Path | None:
    """Append ``figures`` to ``<results>/<bench>.jsonl``; the file written, or None when turned off.

    ``args``: the bench's argparse namespace (or a mapping), kept so a figure can be reproduced.
    """
    where = os.environ.get("BENCHDECK_BENCH_RESULTS", "")
    if where == "-" or not figures:
        return None
    folder = Path(where) if where else RESULTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{bench}.jsonl"
    commit = _commit(Path(__file__).resolve().parent.parent)
    load = os.getloadavg()[0]
    kept = _args(args) if args is not None else {}
    with path.open("a", encoding="utf-8") as out:
        for fig in figures:
            out.write(json.dumps(entry(fig, commit=commit, load=load, args=kept)) + "\n")
    print(f"recorded {len(figures)} figure(s) in {path}", file=sys.stderr)
    return path
