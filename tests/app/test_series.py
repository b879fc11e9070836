"""The time series of a run with no per-second samples says so instead of four empty charts."""

from __future__ import annotations

from textual.widgets import Static

from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.series import CHARTS, SeriesScreen
from benchdeck.tui.app.widgets.charts import LineChart
from tests.app.helpers import on_screen, settle, static_text
from tests.app.storedata import Demo


def shown(screen: SeriesScreen) -> list[str]:
    return [str(c.id) for c in screen.query(LineChart) if c.display]


async def test_a_run_without_samples_says_so(demo: Demo) -> None:
    with Store.open(demo.path) as store:
        row = (
            store.cursor()
            .execute(
                "SELECT min(run_id) FROM runs WHERE status = 'finished' "
                "AND run_id NOT IN (SELECT run_id FROM bench_samples)"
            )
            .fetchone()
        )
    assert row is not None
    bare = int(row[0])
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        app.push_screen(SeriesScreen([bare]))
        await settle(pilot)
        screen = on_screen(app, SeriesScreen)
        assert "No per-second samples stored for this run" in static_text(
            screen.query_one("#series-title", Static)
        )
        assert shown(screen) == [], "no empty frames"
        screen.dismiss()
        await settle(pilot)

        app.push_screen(SeriesScreen([demo.base_update_index]))
        await settle(pilot)
        screen = on_screen(app, SeriesScreen)
        assert shown(screen) == [f"series-{c[0]}" for c in CHARTS], "a run with samples: every chart"
        assert "No " not in static_text(screen.query_one("#series-title", Static))
