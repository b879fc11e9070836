"""The Changes chart: every run a dot, short y labels, no legend box over the first mean."""

from __future__ import annotations

import re
from pathlib import Path

from textual.geometry import Region

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.changes import ChangesScreen
from benchdeck.tui.app.widgets.change_chart import KEY, ChangeChart
from tests.app.helpers import on_screen, settle
from tests.changes.post_series import write_store


async def test_dots_short_labels_and_no_legend_box(tmp_path: Path) -> None:
    db = tmp_path / "post.duckdb"
    write_store(db, repeats=1, noise=0.01)  # one run per version: dots were left out then
    app = BenchdeckApp(db)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        chart = on_screen(app, ChangesScreen).query_one("#changes-chart", ChangeChart)
        assert chart.result is not None
        text = [s.text for s in chart.render_lines(Region(0, 0, *chart.size))]
        drawn = "\n".join(text)
        assert drawn.count("•") >= 3, "each run a dot"
        labels = [m.group(1) for line in text if (m := re.match(r"\s*(\S+)\s*┤", line))]
        assert labels, drawn
        assert all(re.fullmatch(r"-?[\d.]+[kM]?", lab) and len(lab) <= 6 for lab in labels), labels
        assert "segment mean\n" not in drawn.replace(" ", ""), "no legend box"
        assert "QPS\n" not in drawn.replace(" ", ""), "no legend box"
        assert KEY[:40] in drawn, "what is drawn is said under the chart"
