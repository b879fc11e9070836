"""Error toasts are titled by the screen, as the user knows it (issue 38 item 14: they read
"_start" and "load", the failed worker's method)."""

from __future__ import annotations

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.base import toast_title
from benchdeck.tui.app.screens.run_diff import RunDiffScreen
from tests.app.helpers import settle
from tests.app.storedata import Demo


def test_titles_are_the_screens_names() -> None:
    assert toast_title(RunDiffScreen.__new__(RunDiffScreen)) == "Run diff"
    assert toast_title(BenchdeckApp.__new__(BenchdeckApp)) == "benchdeck"


async def test_a_failed_worker_is_titled_by_its_screen(demo: Demo) -> None:
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)

        def load() -> None:
            raise OSError(28, "No space left on device", "/tmp/x")

        app.screen.run_worker(load, name="load", thread=True, exit_on_error=False)
        await settle(pilot)
        await pilot.pause()
        toasts = [(n.title, n.message) for n in app._notifications]
        assert ("Runs", "/tmp/x: No space left on device") in toasts, toasts
