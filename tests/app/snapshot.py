"""A minimal SVG snapshot check for Textual apps (pytest-textual-snapshot is not a dependency).

``assert_snapshot(app, name, tmp_path)`` compares ``app.export_screenshot()`` with
``snapshots/<name>.svg`` after normalising what Textual/Rich make volatile (the
``terminal-<hash>`` prefix of ids and classes). ``BENCHDECK_SNAPSHOT_UPDATE=1`` rewrites the
stored files instead of comparing. On a mismatch the new SVG is written next to the test's tmp
dir and the message shows a diff of the text the screen holds.
"""

from __future__ import annotations

import difflib
import html
import os
import re
from pathlib import Path
from typing import Any

from textual.app import App

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE_ENV = "BENCHDECK_SNAPSHOT_UPDATE"

_VOLATILE = (
    (re.compile(r"terminal-\d+"), "terminal"),  # Rich's unique_id (a hash of the content)
    (re.compile(r"<title>[^<]*</title>"), "<title>benchdeck</title>"),
)
_TEXT = re.compile(r"<text [^>]*>([^<]*)</text>")


def normalise(svg: str) -> str:
    for pattern, repl in _VOLATILE:
        svg = pattern.sub(repl, svg)
    return svg


def screen_text(svg: str) -> list[str]:
    """The text runs of an SVG screenshot, one per line of output (for readable diffs)."""
    return [html.unescape(t).replace("\xa0", " ") for t in _TEXT.findall(svg)]


def assert_snapshot(app: App[Any], name: str, tmp_path: Path) -> None:
    svg = normalise(app.export_screenshot())
    stored = SNAPSHOTS / f"{name}.svg"
    if os.environ.get(UPDATE_ENV) == "1":
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_text(svg, encoding="utf-8")
        return
    if not stored.exists():
        raise AssertionError(f"no snapshot {stored}: run the tests with {UPDATE_ENV}=1 to create it")
    expected = stored.read_text(encoding="utf-8")
    if svg == expected:
        return
    actual = tmp_path / f"{name}.actual.svg"
    actual.write_text(svg, encoding="utf-8")
    diff = list(
        difflib.unified_diff(screen_text(expected), screen_text(svg), "stored", "now", lineterm="", n=1)
    )
    shown = "\n".join(diff[:60]) or "(the text is the same: styles or layout changed)"
    raise AssertionError(f"snapshot {name} differs; new screenshot: {actual}\n{shown}")
