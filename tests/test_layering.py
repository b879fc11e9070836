"""The core runs without the UI: engine and store import neither textual nor rich.

Packages are named by their import names (``tui.__name__``), so the rules hold in any namespace."""

import subprocess
import sys

import pytest

from benchdeck import engine, store, tui

CORE_MODULES = [
    "benchdeck.engine",
    "benchdeck.engine.builds",
    "benchdeck.engine.catalogue",
    "benchdeck.engine.metrics",
    "benchdeck.engine.records",
    "benchdeck.engine.parsers",
    "benchdeck.engine.events",
    "benchdeck.engine.transport",
    "benchdeck.engine.transport.ssh",
    "benchdeck.engine.transport.local",
    "benchdeck.engine.transport.hostkeys",
    "benchdeck.engine.hosts.inventory",
    "benchdeck.engine.hosts.facts",
    "benchdeck.engine.servers",
    "benchdeck.engine.running.runner",
    "benchdeck.engine.running.follow",
    "benchdeck.engine.families.sysbench.command",
    "benchdeck.store",
    "benchdeck.store.db",
    "benchdeck.store.compare",
    "benchdeck.store.report",
    "benchdeck.store.importers",
    "benchdeck.store.ingest",
    "benchdeck.store.queries",
    "benchdeck.store.live",
]


# Prints which of argv[2:] are in sys.modules after importing argv[1] (a package is in
# sys.modules as soon as any of its modules is imported).
PROBE = (
    "import importlib, sys; importlib.import_module(sys.argv[1]); "
    "print(' '.join(m for m in sys.argv[2:] if m in sys.modules))"
)
WALK = (
    "import importlib, pkgutil, sys; top = importlib.import_module(sys.argv[1]); "
    "[importlib.import_module(m.name) for m in pkgutil.walk_packages(top.__path__, top.__name__ + '.') "
    " if not m.name.rsplit('.', 1)[-1].startswith('_')]; "
    "print(' '.join(m for m in sys.argv[2:] if m in sys.modules))"
)


def loaded_after(code: str, module: str, watched: tuple[str, ...]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code, module, *watched], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_imports_no_ui(module: str) -> None:
    bad = loaded_after(PROBE, module, ("textual", "rich", tui.__name__))
    assert bad == "", f"{module} pulled in UI modules: {bad}"


def test_engine_does_not_import_store() -> None:
    assert loaded_after(WALK, engine.__name__, (store.__name__, tui.__name__)) == ""


def test_the_probes_see_an_import() -> None:
    """The checks above can fail: importing the app does load tui, store and textual."""
    assert loaded_after(
        PROBE, tui.__name__ + ".app.app", ("textual", store.__name__, tui.__name__)
    ).split() == [
        "textual",
        store.__name__,
        tui.__name__,
    ]
