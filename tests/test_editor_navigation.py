"""A checkout that editors navigate: in a fresh copy of the repository, jedi (the engine behind
most Python editors' go-to-definition) resolves ``benchdeck.*`` names to the files beside
pyproject.toml, with nothing installed from that copy (no import hook to follow)."""

from __future__ import annotations

import shutil
from pathlib import Path

import jedi
import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(
    "__pycache__", ".git", ".mypy_cache", ".ruff_cache", ".pytest_cache", "*.egg-info"
)


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("checkout") / "benchdeck-src"
    shutil.copytree(ROOT, dst, symlinks=True, ignore=SKIP)
    return dst


def goto(copy: Path, source: str) -> list[Path]:
    """Where go-to-definition on the last name of ``source`` lands, as real paths."""
    script = jedi.Script(source, path=copy / "scratch.py", project=jedi.Project(copy, smart_sys_path=True))
    lines = source.splitlines()
    names = script.goto(len(lines), len(lines[-1]) - 1, follow_imports=True)
    return [Path(n.module_path).resolve() for n in names if n.module_path]


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("from benchdeck.store.db import Store\nStore.open", "store/db.py"),
        ("import benchdeck.engine.changepoints as cp\ncp.ttest", "engine/changepoints.py"),
        ("from benchdeck.tui.cli.main import main\nmain", "tui/cli/main.py"),
        ("from benchdeck.themes.loader import THEMES_DIR\nTHEMES_DIR", "themes/loader.py"),
    ],
)
def test_jedi_follows_benchdeck_names_to_the_files(copy: Path, source: str, target: str) -> None:
    found = goto(copy, source)
    assert (copy / target).resolve() in found, found
