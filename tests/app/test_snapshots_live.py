"""SVG snapshots of Launch and Live (80x24, 120x36) from fixed data; nothing runs.

Launch shows an empty store's defaults with the host facts replaced by a fixed line; Live shows
a fixed :class:`~tui.live_model.LiveModel` (see ``make_live_screenshots``). Update them with
``BENCHDECK_SNAPSHOT_UPDATE=1 pytest tests/app/test_snapshots_live.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Static

from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.themes.loader import DEFAULT_THEME
from benchdeck.tui.app.app import BenchdeckApp
from tests.app.helpers import settle, static_text
from tests.app.make_live_screenshots import (
    DB_NAME,
    FACTS,
    STOP_REASON,
    cluster_events,
    fix_launch,
    show_live,
    wait_for_launch,
    write_inventory,
)
from tests.app.snapshot import assert_snapshot
from tests.app.test_toasts_stacked import screen_lines

SIZES = [(80, 24), (120, 36)]


def _ids(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


@pytest.fixture(autouse=True)
def inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Only the ``local`` host: the user's inventory never shows up in a snapshot. The store is
    in the working directory (the header shows its path relative to it)."""
    monkeypatch.setenv(INVENTORY_ENV, str(write_inventory(tmp_path)))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("size", SIZES, ids=_ids)
async def test_launch(tmp_path: Path, size: tuple[int, int]) -> None:
    app = BenchdeckApp(tmp_path / DB_NAME)
    async with app.run_test(size=size) as pilot:
        await wait_for_launch(pilot)
        assert app.theme == DEFAULT_THEME
        fix_launch(pilot)
        await settle(pilot)
        assert static_text(app.screen.query_one("#launch-facts", Static)) == FACTS
        assert_snapshot(app, f"launch-{_ids(size)}", tmp_path)


def shown_lines(widget: Widget) -> list[str]:
    """The lines of text a widget puts on the screen (cut to its size)."""
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, *widget.outer_size))]


@pytest.mark.parametrize("size", SIZES, ids=_ids)
async def test_live(tmp_path: Path, size: tuple[int, int]) -> None:
    app = BenchdeckApp(tmp_path / DB_NAME)
    async with app.run_test(size=size) as pilot:
        await wait_for_launch(pilot)
        await show_live(pilot)
        head = app.screen.query_one(".live-headline", Static)
        assert static_text(head).startswith("run 3  sqlite-sync  update-index_range=100\nmeasuring 12/30 s")
        # what matters is on the screen in full, at 80 columns too: run, workload, progress,
        # QPS, rQPS and the queue's ETA
        assert shown_lines(head) == [
            " run 3  sqlite-sync  update-index_range=100",
            " measuring 12/30 s  QPS 1,224.9  rQPS 0.51  queue 3/6 ETA 2m20s",  # the log's figure (4 x 35 s)
        ]
        assert_snapshot(app, f"live-{_ids(size)}", tmp_path)


CLUSTER_SIZES = [(80, 24), (100, 30)]


@pytest.mark.parametrize("size", CLUSTER_SIZES, ids=_ids)
async def test_live_cluster(tmp_path: Path, size: tuple[int, int]) -> None:
    """The fixed run on cluster loop3: its headline, the node tabs and the lag chart's legend
    whole on the screen, at 80 columns too (every figure in full)."""
    app = BenchdeckApp(tmp_path / DB_NAME)
    async with app.run_test(size=size) as pilot:
        await wait_for_launch(pilot)
        await show_live(pilot, cluster_events())
        pane = app.screen.query_one("#live-pane")
        assert shown_lines(pane.query_one(".live-headline", Static)) == [
            " run 3  sqlite-sync  update-index_range=100",
            " measuring 12/30 s  QPS 1,224.9  rQPS 0.51  queue 3/6 ETA 2m20s",
            " cluster loop3 (async, 3 nodes)  lag r1 0.4 s, r2 stopped  limit 10 s",
        ]
        screen = [line.rstrip() for line in screen_lines(app)]
        assert screen[6] == " p (primary)  r1  r2", "the node tabs under the headline"
        legend = next(line for line in screen if "━r1" in line)
        assert "━r1  ━r2  ━limit 10 s" in legend, "the lag chart's legend whole"
        assert screen[8].split()[:4] == ["QPS", "replica", "lag", "(s)"], "lag beside QPS"
        assert f"cluster: node r2 stopped at 12 s: {STOP_REASON}" in screen, "the fault's log line in view"
        assert_snapshot(app, f"live-cluster-{_ids(size)}", tmp_path)
