"""The core runs without the UI: engine and store import neither textual nor rich."""

import subprocess
import sys

import pytest

CORE_MODULES = [
    "engine",
    "engine.builds",
    "engine.catalogue",
    "engine.metrics",
    "engine.records",
    "engine.parsers",
    "engine.events",
    "engine.transport",
    "engine.transport.ssh",
    "engine.transport.local",
    "engine.transport.hostkeys",
    "engine.inventory",
    "engine.hostfacts",
    "engine.servers",
    "engine.runner",
    "engine.follow",
    "engine.sysbench_cmd",
    "store",
    "store.db",
    "store.compare",
    "store.report",
    "store.importers",
    "store.ingest",
    "store.queries",
    "store.live",
]


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_imports_no_ui(module: str) -> None:
    code = (
        f"import sys, importlib; importlib.import_module({module!r}); "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'tui')); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} pulled in UI modules: {out.stdout.strip()}"


def test_engine_does_not_import_store() -> None:
    code = (
        "import sys, pkgutil, importlib, engine; "
        "[importlib.import_module('engine.' + m.name) for m in pkgutil.walk_packages(engine.__path__) "
        " if not m.name.startswith('_')]; "
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('store', 'tui'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
