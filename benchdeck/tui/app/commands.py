"""The command palette: every action of the current screen and of the app, and the themes.

Commands come from the BINDINGS of the screen the palette was opened on and of the app (those
with an ``id`` and a description), so each key binding is also a command, hidden ones included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from benchdeck.themes.loader import RQPS_VARIABLES


class BenchdeckCommands(Provider):
    """Actions from BINDINGS plus ``Theme: <name>`` for the themes with rQPS colours."""

    def commands(self) -> Iterator[tuple[str, str, Callable[[], Any]]]:
        """(name, help, callback) for every enabled action of the screen and the app."""
        screen, app = self.screen, self.app
        seen: set[tuple[int, str]] = set()
        for active in screen.active_bindings.values():
            node, binding = active.node, active.binding
            if node is not screen and node is not app:
                continue  # a focused widget's own keys (cursor moves ...) are not commands
            if not (binding.id and binding.description and active.enabled):
                continue
            if (id(node), binding.action) in seen:
                continue
            seen.add((id(node), binding.action))
            where = "" if node is app else f"{type(node).__name__.removesuffix('Screen')}: "
            help_text = (binding.tooltip or binding.description) + f"  [key {app.get_key_display(binding)}]"
            yield where + binding.description, help_text, partial(app.run_action, binding.action, node)
        yield from _build_commands(app)
        yield (
            "Bisect: sessions",
            "The bisects beside the store: commits, runs, culprit",
            partial(_bisect, app),
        )
        for name, theme in sorted(app.available_themes.items()):
            if any(v in theme.variables for v in RQPS_VARIABLES) and name != app.theme:
                yield (
                    f"Theme: {name}",
                    "Switch to this theme (remembered)",
                    partial(setattr, app, "theme", name),
                )

    async def discover(self) -> Hits:
        for name, help_text, callback in self.commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, callback in self.commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, text=name, help=help_text)


def _build_commands(app: Any) -> Iterator[tuple[str, str, Callable[[], Any]]]:
    """``Build: RECIPE VARIANT on HOST`` for the recipes of the inventory Launch last read."""
    from benchdeck.engine.building.recipes import VARIANTS

    hub = getattr(app, "_hub", None)
    inv = getattr(hub, "last_inventory", None)
    if inv is None:
        return
    for rname, recipe in inv.recipes.items():
        for host in inv.hosts:
            for variant in (*VARIANTS, *(v for v in recipe.variants if v not in VARIANTS)):
                yield (
                    f"Build: {rname} {variant} on {host}",
                    f"Compile {recipe.build_name(variant)} on {host}, followed on Live",
                    partial(_start_build, app, host, rname, variant),
                )


def _bisect(app: Any) -> None:
    from benchdeck.tui.app.screens.bisect import BisectScreen

    app.push_screen(BisectScreen())


def _start_build(app: Any, host: str, recipe: str, variant: str) -> None:
    if app.store.read_only:  # refused before anything compiles, with the reason
        app.notify(f"cannot build: {app.store.why_not_writable()}", severity="error", timeout=15)
        return
    app.hub.start_build(host, recipe, variant)
    app.switch_mode("live")
