"""SVG snapshots of each screen at 80x24 and 120x36 (fixed data, fixed theme).

Update them with ``BENCHDECK_SNAPSHOT_UPDATE=1 pytest tests/app/test_snapshots.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.themes.loader import DEFAULT_THEME
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.state.selection import Selection
from tests.app.helpers import settle
from tests.app.snapshot import assert_snapshot
from tests.app.storedata import BASE, HOST, LTO, NEW, Demo

SIZES = [(80, 24), (120, 36)]


def _ids(size: tuple[int, int]) -> str:
    return f"{size[0]}x{size[1]}"


async def _shot(demo: Demo, tmp_path: Path, size: tuple[int, int], name: str, keys: list[str]) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert app.theme == DEFAULT_THEME
        app.selection = Selection(HOST, BASE, (NEW, LTO))
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        assert_snapshot(app, f"{name}-{_ids(size)}", tmp_path)


@pytest.mark.parametrize("size", SIZES, ids=_ids)
async def test_runs(demo: Demo, tmp_path: Path, size: tuple[int, int]) -> None:
    await _shot(demo, tmp_path, size, "runs", [])


async def test_runs_at_100_columns(demo: Demo, tmp_path: Path) -> None:
    """Issue 38 item 14: the date shows whole at 100x30 (it was cut to ``2026-11-29 08``)."""
    await _shot(demo, tmp_path, (100, 30), "runs", [])


@pytest.mark.parametrize("size", SIZES, ids=_ids)
async def test_compare(demo: Demo, tmp_path: Path, size: tuple[int, int]) -> None:
    await _shot(demo, tmp_path, size, "compare", ["2"])


async def test_compare_groups(demo: Demo, tmp_path: Path) -> None:
    await _shot(demo, tmp_path, (120, 36), "compare-groups", ["2", "right_square_bracket"])


async def test_compare_chart(demo: Demo, tmp_path: Path) -> None:
    await _shot(demo, tmp_path, (120, 36), "compare-chart", ["2", *["right_square_bracket"] * 3])


NOISE_TAB = ["2", *["right_square_bracket"] * 4]


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=_ids)
async def test_compare_noise(demo: Demo, tmp_path: Path, size: tuple[int, int]) -> None:
    """Issue 38 item 2: rQPS, the interval and why none show at 80 and 100 columns."""
    await _shot(demo, tmp_path, size, "compare-noise", NOISE_TAB)


async def test_compare_noise_scrolled(demo: Demo, tmp_path: Path) -> None:
    """→ brings the columns past the edge into view, a column at a time, up to the last."""
    await _shot(demo, tmp_path, (80, 24), "compare-noise-scrolled", [*NOISE_TAB, *["right"] * 8])


@pytest.mark.parametrize("size", SIZES, ids=_ids)
async def test_triage(demo: Demo, tmp_path: Path, size: tuple[int, int]) -> None:
    await _shot(demo, tmp_path, size, "triage", ["3"])


@pytest.mark.parametrize("size", SIZES, ids=_ids)
async def test_series(demo: Demo, tmp_path: Path, size: tuple[int, int]) -> None:
    await _shot(demo, tmp_path, size, "series", ["3", "enter"])
