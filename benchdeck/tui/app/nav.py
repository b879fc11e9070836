"""The app's top-level screens: one line each in :data:`NAV` (its mode, title, key, factory and what
the footer and the command palette say). Each screen's module is imported when the screen is
first made: the first screen's only (Runs on a store with runs, Launch on one without)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from textual.screen import Screen


def lazy_screen(module: str, name: str) -> Callable[[], Screen[Any]]:
    """A factory that imports the screen's module when the screen is first shown.

    The first screen's module only loads before the first frame: Compare and Live bring
    plotext, Launch the workload catalogue, Runs its table: imports Launch's first frame does
    not need (python -X importtime shows them).
    """

    def make() -> Screen[Any]:
        screen: Screen[Any] = getattr(importlib.import_module(module), name)()
        return screen

    make.__qualname__ = name
    return make


@dataclass(frozen=True, slots=True)
class Nav:
    """A top-level screen: its mode name, title, key and factory."""

    mode: str
    title: str
    key: str
    screen: Callable[[], Screen[Any]]
    description: str


NAV: tuple[Nav, ...] = (
    Nav(
        "runs",
        "Runs",
        "1",
        lazy_screen("benchdeck.tui.app.screens.runs", "RunsScreen"),
        "The run history: filter, tag, delete, set a base",
    ),
    Nav(
        "compare",
        "Compare",
        "2",
        lazy_screen("benchdeck.tui.app.screens.compare", "CompareScreen"),
        "rQPS of builds against a base, per-op metrics",
    ),
    Nav(
        "triage",
        "Triage",
        "3",
        lazy_screen("benchdeck.tui.app.screens.triage", "TriageScreen"),
        "Regressions first, with the metrics that moved",
    ),
    Nav(
        "launch",
        "Launch",
        "4",
        lazy_screen("benchdeck.tui.app.screens.launch", "LaunchScreen"),
        "Pick hosts, builds and workloads; queue the matrix",
    ),
    Nav(
        "live",
        "Live",
        "5",
        lazy_screen("benchdeck.tui.app.screens.live", "LiveScreen"),
        "Watch running benchmarks: QPS, vmstat, iostat, log",
    ),
    Nav(
        "changes",
        "Changes",
        "6",
        lazy_screen("benchdeck.tui.app.screens.changes", "ChangesScreen"),
        "Where did QPS change: change points across versions or over time",
    ),
)
