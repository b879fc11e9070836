"""Stacked error toasts each show whole (issue 38 item 14: one was cut off under another; at 60
columns the toast rack's scrollbar gutter cut the right edge of every toast)."""

from __future__ import annotations

import io
from itertools import pairwise

import pytest
from rich.console import Console
from textual.widgets._toast import Toast

from benchdeck.tui.app.app import BenchdeckApp
from tests.app.helpers import settle
from tests.app.storedata import Demo

ERRORS = (
    (
        "Runs",
        "store /home/user/bench/store.duckdb is in use by process 4242 (another benchdeck?); "
        "close it or wait: the write of 12 runs was refused",
    ),
    (
        "Launch",
        "cannot build: ma100244_rel_withdbg: cmake exited with status 2 "
        "(see /home/user/bench/builds/ma100244_rel_withdbg/build.log)",
    ),
    ("Profile", "perf record exited with status 255: no permission to read /proc/kallsyms"),
)


def screen_lines(app: BenchdeckApp) -> list[str]:
    """The screen as text, a line per row (as export_screenshot draws it)."""
    console = Console(width=app.size.width, height=app.size.height, file=io.StringIO(), record=True)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text(styles=False).splitlines()


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (100, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_errors_at_once_each_show_whole(demo: Demo, size: tuple[int, int]) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=size, notifications=True) as pilot:
        await settle(pilot)
        for title, message in ERRORS:
            app.notify(message, title=title, severity="error")
        await settle(pilot)
        toasts = list(app.screen.query(Toast))
        assert len(toasts) == len(ERRORS)
        lines = screen_lines(app)
        for toast, (title, message) in zip(toasts, ERRORS, strict=True):
            r = toast.region
            assert app.screen.region.contains_region(r), (r, app.screen.region)
            shown = " ".join(line[r.x + 1 : r.right] for line in lines[r.y : r.bottom])  # past the border
            assert shown.split() == f"{title} {message}".split(), shown
        for upper, lower in pairwise(toasts):
            assert not upper.region.overlaps(lower.region), "one toast under another"
