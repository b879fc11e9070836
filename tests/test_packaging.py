"""One import namespace: engine/, store/, tui/ and themes/ stay at the repository root and install as
benchdeck.engine, benchdeck.store, …; nothing generic lands at the top of site-packages, and no
file is imported under two names (``engine.x`` beside ``benchdeck.engine.x``)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMESPACE = "benchdeck"
OLD = ("engine", "store", "tui", "themes")  # the directories, and the names they must not install as
SHIPPED = {".py", ".tcss", ".toml", ".lua", ".sql"}


def repo_files() -> list[str]:
    """What the wheel must carry: every source and data file of the four packages in benchdeck/."""
    return sorted(
        str(p.relative_to(ROOT / NAMESPACE))
        for top in OLD
        for p in (ROOT / NAMESPACE / top).rglob("*")
        if p.is_file() and p.suffix in SHIPPED and "__pycache__" not in p.parts
    )


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel ``pip install .`` installs, built offline from a copy of the sources (a stale
    build/ directory in the checkout cannot leak old files into it)."""
    src = tmp_path_factory.mktemp("src")
    shutil.copytree(
        ROOT / NAMESPACE, src / NAMESPACE, symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    (whl,) = out.glob("*.whl")
    return whl


def test_the_wheel_installs_one_top_level_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {NAMESPACE}
    missing = [f for f in repo_files() if f"{NAMESPACE}/{f}" not in names]
    assert missing == [], f"not in the wheel (a package missing from pyproject's list?): {missing}"
    (entry_points,) = (n for n in names if n.endswith(".dist-info/entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert f"benchdeck = {NAMESPACE}.tui.entry:main" in text


def test_an_installed_copy_runs_and_has_no_old_names(wheel: Path, tmp_path: Path) -> None:
    """Installed into an empty directory and run from elsewhere: every command module loads (the
    lazy command table names them in strings), the themes' files are found, and ``engine``,
    ``store``, ``tui`` and ``themes`` are not importable."""
    target = tmp_path / "site"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    packages = sorted(
        p.name for p in target.iterdir() if p.name != "bin" and not p.name.endswith(".dist-info")
    )
    assert packages == [NAMESPACE]
    code = (
        "import importlib.util, sys\n"
        f"from {NAMESPACE}.tui.cli.main import cli, main\n"
        f"from {NAMESPACE}.themes import loader\n"
        "import click\n"
        "ctx = click.Context(cli)\n"
        "for name in cli.list_commands(ctx):\n"
        "    assert cli.get_command(ctx, name) is not None, name\n"
        f"print('FROM', sys.modules['{NAMESPACE}.tui.cli.main'].__file__)\n"
        "print('OLD', [n for n in sys.argv[1:] if importlib.util.find_spec(n) is not None])\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(target)}
    r = subprocess.run(
        [sys.executable, "-c", code, *OLD], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert f"FROM {target}" in r.stdout
    assert "OLD []" in r.stdout, r.stdout
    assert "LOADED []" in r.stdout, r.stdout
    help_out = subprocess.run(
        [sys.executable, "-m", NAMESPACE, "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert help_out.returncode == 0, help_out.stderr
    assert "compare" in help_out.stdout


def test_every_module_loads_under_its_namespace_name_only() -> None:
    """From the repository root (where the directory engine/ is importable as a top-level name),
    importing every module of benchdeck leaves no old name in sys.modules (names in strings: the
    test below)."""
    code = (
        "import importlib, pkgutil, sys\n"
        "for top in sys.argv[1:]:\n"
        f"    pkg = importlib.import_module('{NAMESPACE}.' + top)\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if not m.name.rsplit('.', 1)[-1].startswith('_'):\n"
        "            importlib.import_module(m.name)\n"
        "print('MODULES', sum(1 for m in sys.modules if m.startswith('benchdeck.')))\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, *OLD], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert r.returncode == 0, r.stderr
    assert (
        int(r.stdout.split("MODULES")[1].split()[0])
        >= len([f for f in repo_files() if f.endswith(".py")]) // 2
    )
    assert "LOADED []" in r.stdout, r.stdout


def old_name(text: str) -> str | None:
    """``text`` if it is a module of the repository by its old top-level name, or such a module and
    an attribute ("store.db.Store", "tui.cli:main")."""
    if not re.fullmatch(r"\w+(\.\w+)+(:\w+)?", text):
        return None
    head = text.split(":")[0].split(".")
    if head[0] not in OLD:
        return None
    path = ROOT.joinpath(*head)
    if path.with_suffix(".py").is_file() or (path / "__init__.py").is_file():
        return text
    module = ROOT.joinpath(*head[:-1])
    source = module.with_suffix(".py") if module.with_suffix(".py").is_file() else module / "__init__.py"
    return text if source.is_file() and head[-1] in top_level_names(source) else None


def top_level_names(source: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


_OLD_NAME = rf"(?:{'|'.join(OLD)})(?:\.\w+)*"
# The forms the namespace script rewrites in strings: `from X import`, `import X`, `-m X`.
CODE_IN_STRING = re.compile(
    rf"(?<![\w.])from\s+({_OLD_NAME})\s+import\b"
    rf"|(?<![\w.])import\s+({_OLD_NAME})(?=\s*(?:$|;|,|\n|\bas\b|[\"'`)]))"
    rf"|(?<![\w.-])-m\s+({_OLD_NAME})\b",
    re.M,
)


def test_no_code_uses_the_old_names() -> None:
    """Code merged after the move that still imports a module by its old name (store.db for
    benchdeck.store.storage.db), or names one so in a string (the lazy tables, ``python -c`` commands),
    fails here, naming the line. Prose is not checked: only whole names and import statements."""
    bad: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if rel.parts[:2] == ("tests", "data") or set(rel.parts) & {".git", "build", ".venv", "__pycache__"}:
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names = [n for n in [old_name(node.value)] if n]
                names += [n for groups in CODE_IN_STRING.findall(node.value) for n in groups if n]
            for name in names:
                if name.split(".")[0] in OLD and "namespace: keep" not in lines[node.lineno - 1]:
                    bad.append(f"{rel}:{node.lineno}: {name}")
    assert bad == [], "old module names (run the namespace script or write benchdeck.…):\n" + "\n".join(bad)
