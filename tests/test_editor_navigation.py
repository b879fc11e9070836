"""A checkout that editors navigate: in a fresh copy of the repository, jedi (the engine behind
most Python editors' go-to-definition) resolves ``benchdeck.*`` names to the files where they live
(benchdeck/...), with nothing installed from that copy (no import hook to follow), and finds a
class's uses across the tree from the file the tree opens: one path per file."""

from __future__ import annotations

import shutil
import subprocess
import sys
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
        ("from benchdeck.store.storage.db import Store\nStore.open", "benchdeck/store/storage/db.py"),
        ("import benchdeck.engine.changepoints as cp\ncp.ttest", "benchdeck/engine/changepoints.py"),
        ("from benchdeck.tui.cli.main import main\nmain", "benchdeck/tui/cli/main.py"),
        ("from benchdeck.themes.loader import THEMES_DIR\nTHEMES_DIR", "benchdeck/themes/loader.py"),
    ],
)
def test_jedi_follows_benchdeck_names_to_the_files(copy: Path, source: str, target: str) -> None:
    found = goto(copy, source)
    assert copy / target in found, found


# Run as an editor runs it: in a process of its own, from the checkout (inside pytest's process jedi's
# reference search stops at the file itself).
REFERENCES = """
import sys
from pathlib import Path
import jedi
copy, rel, name = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
path = copy / rel
source = path.read_text(encoding="utf-8")
heads = ("class " + name + "(", "class " + name + ":")
line = next(i for i, text in enumerate(source.splitlines(), 1) if text.startswith(heads))
script = jedi.Script(source, path=path, project=jedi.Project(copy, smart_sys_path=True))
for r in script.get_references(line, len("class ")):
    if r.module_path:
        print(r.module_path)
"""


def references(copy: Path, rel: str, name: str) -> list[Path]:
    """The files of every reference to ``class name`` found from ``rel``, the path the tree opens."""
    out = subprocess.run(
        [sys.executable, "-c", REFERENCES, str(copy), rel, name],
        capture_output=True,
        text=True,
        cwd=copy,
        timeout=300,
        check=True,
    )
    return [Path(line) for line in out.stdout.splitlines()]


@pytest.mark.parametrize(
    ("rel", "name"),
    [("benchdeck/store/storage/db.py", "Store"), ("benchdeck/store/storage/errors.py", "StoreError")],
)
def test_references_from_the_tree_reach_the_whole_tree(copy: Path, rel: str, name: str) -> None:
    """The file a user opens in the tree is the file every import resolves to, so find-references
    from it sees the uses in other packages (it saw only its own file when the package was a folder
    of links to the top-level folders)."""
    files = {p.relative_to(copy).parts[:2] for p in references(copy, rel, name)}
    assert ("benchdeck", "tui") in files, files
    assert len(files) >= 2, files


@pytest.mark.parametrize("link", ["engine", "store", "tui", "themes"])
def test_the_top_level_folders_are_links_to_the_package(link: str) -> None:
    """engine/, store/, tui/ and themes/ beside pyproject.toml (the design card's layout) lead to
    the files in benchdeck/, and pyright and the editor's tree leave them out (one path per file)."""
    import tomllib

    assert (ROOT / link).is_symlink()
    assert (ROOT / link).resolve() == ROOT / "benchdeck" / link
    pyright = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pyright"]
    assert link in pyright["exclude"]
