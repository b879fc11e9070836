"""Launch shows the classic suite's workload names whole at 120 columns (they were cut)."""

from __future__ import annotations

import re
from pathlib import Path

from textual.geometry import Region
from textual.widgets import Select, SelectionList

from benchdeck.engine.catalogue import SUITES
from benchdeck.tui.app.app import BenchdeckApp
from tests.app.helpers import settle
from tests.app.test_launch_live import inventory, open_launch  # noqa: F401  (the fixture: the local host)


async def test_classic_names_whole_at_120_columns(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=(120, 36)) as pilot:
        launch = await open_launch(pilot)
        launch.query_one("#launch-suite", Select).value = "classic"
        await settle(pilot)
        options: SelectionList[str] = launch.query_one("#launch-workloads", SelectionList)
        names = {n for n, _ in SUITES["classic"]}
        assert options.option_count == len(SUITES["classic"])
        lines = [s.text for s in options.render_lines(Region(0, 0, *options.size))]
        shown = [m.group(1) for line in lines if (m := re.search(r"▌ (\S+)", line))]
        assert len(shown) >= 10
        cut = [n for n in shown if n not in names]
        assert not cut, f"names cut: {cut}"
        longest = max(names, key=len)
        options.scroll_to(y=[n for n, _ in SUITES["classic"]].index(longest), animate=False)
        await settle(pilot)
        lines = [s.text for s in options.render_lines(Region(0, 0, *options.size))]
        assert any(longest in line for line in lines), longest
