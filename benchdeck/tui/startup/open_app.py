"""Opening the app: one function for both entry points (``benchdeck`` alone, and the CLI group
without a command)."""

from __future__ import annotations

from pathlib import Path


def open_app(db: Path | None, *, gc_paused: bool = False) -> None:
    """Open the app on the store ``db`` (the default store when None): the one way in, for
    ``benchdeck`` alone and for the CLI group without a command."""
    from benchdeck.tui.startup.store_handle import Opening

    opening = Opening(db, peek=True)  # the first screen is read while Textual loads
    from benchdeck.tui.app.app import run_app  # imported late: the CLI's commands need no Textual

    run_app(db=db, opening=opening, gc_paused=gc_paused)
