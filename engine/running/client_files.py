"""A client package's sources as files for a run directory, and where to import it from locally.

The built-in SQLite workload and the Insert Benchmark client run as ``python3 -m <package>.<module>``
on the benchmarked host with only the standard library (plus a DB driver): their sources are copied
into the run directory under their package path, with an empty ``__init__.py`` for each parent.
The paths follow the package's import name, whatever namespace benchdeck is installed under.
"""

from __future__ import annotations

import importlib
from pathlib import Path


def package_files(package: str, modules: tuple[str, ...], into: str) -> tuple[tuple[str, str], ...]:
    """(path under ``into``, source) for ``modules`` of ``package`` (a dotted import name) and an
    empty ``__init__.py`` for each enclosing package, so ``python3 -m package.module`` runs there."""
    parts = package.split(".")
    source_dir = Path(importlib.import_module(package).__file__ or "").resolve().parent
    files = [(f"{into}/{'/'.join(parts[:n])}/__init__.py", "") for n in range(1, len(parts))]
    for name in modules:
        text = (source_dir / f"{name}.py").read_text(encoding="utf-8")
        files.append((f"{into}/{'/'.join(parts)}/{name}.py", text))
    return tuple(files)


def import_root(package: str) -> str | None:
    """The directory to put on ``PYTHONPATH`` so that a local ``python -m package.x`` finds
    ``package``, or None when the interpreter finds it by itself (an installed or editable
    benchdeck: the child runs with the same ``sys.executable``)."""
    top = importlib.import_module(package.split(".")[0])
    for entry in getattr(top, "__path__", []):
        d = Path(entry)
        if d.is_dir() and (d.name == top.__name__):
            return str(d.resolve().parent)
    return None
