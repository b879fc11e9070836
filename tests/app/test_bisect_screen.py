"""The Bisect screen on a session beside a real store (written as ``benchdeck bisect`` writes it,
tests/app/test_bisect_view.py's lab): the commit line with every run a dot, the culprit at
the end, and a session cut short shown as running. An SVG snapshot at 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.bisect import BisectScreen
from tests.app.helpers import on_screen, settle, static_text
from tests.app.snapshot import assert_snapshot
from tests.app.test_bisect_view import PLANTED, N, bisected


async def test_bisect_screen_shows_the_commit_line_and_the_culprit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the header shows the store's path: relative, the same every time
    store, _state, result = await bisected(tmp_path)
    store.close()
    app = BenchdeckApp(Path("bd.duckdb"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(BisectScreen())
        await settle(pilot)
        screen = on_screen(app, BisectScreen)
        title = static_text(screen.query_one("#bisect-title", Static))
        assert "bisect point-query_range=100 on box" in title
        assert f"step {len(result.tested) + 1}, done" in title
        lines = static_text(screen.query_one("#bisect-line", Static)).splitlines()
        assert len(lines) == N + 1
        assert lines[PLANTED].split()[:3] == [str(PLANTED), "4" * 8, "bad"]
        slow, fast = lines[PLANTED], lines[0]
        assert slow.index("●") < slow.index("|") - 20  # its runs at half the good endpoint's QPS
        assert abs(fast.index("●") - slow.index("|")) <= 2  # the good endpoint's, at 1.0
        assert static_text(screen.query_one("#bisect-end", Static)).startswith(f"culprit: {'4' * 8}")
        assert_snapshot(app, "bisect-80x24", tmp_path)


async def test_bisect_screen_without_sessions_says_how_to_start_one(tmp_path: Path) -> None:
    from benchdeck.store.storage.db import Store

    Store.open(tmp_path / "bd.duckdb").close()
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.push_screen(BisectScreen())
        await settle(pilot)
        title = static_text(on_screen(app, BisectScreen).query_one("#bisect-title", Static))
        assert title.startswith("No bisect beside this store")
