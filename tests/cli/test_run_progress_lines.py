"""The progress display of ``run``/``queue``: benchdeck's own lines (warnings, the closing line
of what perf captured) are printed on a terminal's live table too, not only in plain output."""

from __future__ import annotations

import pytest

from benchdeck.engine.events import LogLine
from benchdeck.tui.cli.run_progress import Progress

LINE = "perf: counters 1 window of 4.4 s; cpu no window (the run ended as the window opened)"


@pytest.mark.parametrize("plain", [True, False], ids=["plain", "live"])
def test_benchdecks_own_lines_are_printed(plain: bool, capsys: pytest.CaptureFixture[str]) -> None:
    with Progress(plain) as progress:
        progress(LogLine(3, "benchdeck", LINE))
        progress(LogLine(3, "sqlite", "a line of the benchmark's"))
    words = " ".join(capsys.readouterr().out.split())  # a live console wraps at its width
    assert f"[run 3] benchdeck: {LINE}" in words
