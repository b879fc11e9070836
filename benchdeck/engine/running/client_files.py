"""A client package's sources as files for a run directory, and where to import it from locally.

The built-in SQLite workload and the Insert Benchmark client run as ``python3 -m <package>.<module>``
on the benchmarked host with only the standard library (plus a DB driver): their sources are copied
into the run directory under their package path, with an empty ``__init__.py`` for each parent.
The paths follow the package's import name, whatever namespace benchdeck is installed under.
"""

from __future__ import annotations

import importlib
import os
import posixpath
import sys
from collections.abc import Callable
from dataclasses import dataclass
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


@dataclass(frozen=True, slots=True)
class ClientLaunch:
    """How a plan starts a shipped client: the interpreter, its environment, the files to write."""

    python: str
    env: dict[str, str]
    files: tuple[tuple[str, str], ...]


def client_launch(
    transport: str,
    python: str,
    package: str,
    remote_dir: str,
    into: str,
    files: Callable[[], tuple[tuple[str, str], ...]],
) -> ClientLaunch:
    """A local host runs this interpreter importing this benchdeck's ``package``; any other
    runs ``python`` (the host's, ``python3`` unless the inventory names one) on the sources
    ``files()`` writes into ``remote_dir/into`` (nothing of benchdeck to install there)."""
    if transport == "local":
        path = os.pathsep.join(p for p in (import_root(package), os.environ.get("PYTHONPATH")) if p)
        return ClientLaunch(sys.executable, {"PYTHONPATH": path} if path else {}, ())
    return ClientLaunch(python, {"PYTHONPATH": posixpath.join(remote_dir, into)}, files())
