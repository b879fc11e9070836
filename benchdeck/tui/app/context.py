"""What the app offers its screens: the store, the comparison selection, the remembered settings,
the live hub and the signals screens follow. Screens depend on this protocol, not on the app's
module, so the app imports its screens without an import circle (tui/app/app.py checks that
BenchdeckApp provides it)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from textual.dom import DOMNode
    from textual.signal import Signal

    from benchdeck.tui.app.state.live_hub import LiveHub
    from benchdeck.tui.app.state.selection import Selection
    from benchdeck.tui.app.state.settings import UiSettings
    from benchdeck.tui.startup.runs_page import RunsPage
    from benchdeck.tui.startup.store_handle import StoreHandle


class AppServices(Protocol):
    """The app as its screens use it (beside Textual's own ``App`` API)."""

    store: StoreHandle
    saved: UiSettings
    runs_changed_signal: Signal[None]
    """Published when a run started from the app has ended and is stored."""
    store_opened_signal: Signal[None]
    """Published once the store has opened (or failed to)."""
    first_frame_out: bool

    @property
    def selection(self) -> Selection: ...

    @selection.setter
    def selection(self, sel: Selection) -> None: ...

    @property
    def hub(self) -> LiveHub: ...

    @property
    def first_runs_kept(self) -> bool: ...

    def take_first_runs(self) -> RunsPage | None: ...

    def take_store_update(self) -> tuple[bool, RunsPage | None]: ...

    def save_settings(self, settings: UiSettings) -> object: ...


def services(node: DOMNode) -> AppServices:
    """The benchdeck app that ``node`` belongs to, as its services."""
    return cast("AppServices", node.app)
