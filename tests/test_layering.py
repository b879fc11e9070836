"""The core runs without the UI: engine and store import neither textual nor rich.

Packages are named by their import names (``tui.__name__``), so the rules hold in any namespace."""

import ast
import subprocess
import sys
from pathlib import Path

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
    "benchdeck.store.storage.db",
    "benchdeck.store.analysis.compare",
    "benchdeck.store.reports.compare_report",
    "benchdeck.store.importers",
    "benchdeck.store.storage.ingest",
    "benchdeck.store.storage.run_lists",
    "benchdeck.store.storage.live",
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


# ---- the import graph: every import statement, wherever it stands --------------------------------

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "store", "tui", "themes")
# Circles another branch is breaking; each entry is removed when it lands.
KNOWN_CIRCLES: set[frozenset[str]] = set()


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT / "benchdeck").with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(("benchdeck", *parts))


def import_graph() -> dict[str, set[str]]:
    """Module -> the benchdeck modules it imports: at module level, inside functions and under
    TYPE_CHECKING alike (a circle held together by a late import is still a circle). ``from P
    import m`` counts as importing ``P.m`` when that is a module, else ``P``; importing ``P.m``
    does not count as importing ``P`` (the package's ``__init__``)."""
    files = {_module_name(p): p for top in PACKAGES for p in (ROOT / "benchdeck" / top).rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in files else base for a in node.names]
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_import_graph_has_no_circles() -> None:
    found = [c for c in circles(import_graph()) if frozenset(c) not in KNOWN_CIRCLES]
    assert found == [], "import circles (break them at their cause: a type in a leaf module):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


def test_the_circle_finder_finds_a_circle() -> None:
    """The check above can fail: a late import back is a circle too."""
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_every_store_module_is_free_of_the_ui() -> None:
    """Each module of store/ (walked, not a hand list) loads neither textual, rich nor tui."""
    assert loaded_after(WALK, store.__name__, ("textual", "rich", tui.__name__)) == ""


# ---- floors: which group of modules may import which ------------------------------------------------

STORE = "benchdeck.store."
# (importer prefix, imported prefixes it must not reach, why)
FLOORS = [
    (STORE + "storage.", (STORE + "analysis.", STORE + "reports."), "storage is the floor of store/"),
    (STORE + "importers.", (STORE + "analysis.", STORE + "reports."), "an import writes, analyses nothing"),
    (STORE + "analysis.", (STORE + "reports.",), "analysis computes, reports render it"),
    (
        "benchdeck.tui.services.",
        ("benchdeck.tui.app.", "benchdeck.tui.cli.", "benchdeck.tui.startup.", "benchdeck.tui.reports."),
        "the services the CLI and the app share stand below both",
    ),
    ("benchdeck.tui.startup.", ("benchdeck.tui.cli.",), "the app's start-up needs no command"),
    ("benchdeck.tui.reports.", ("benchdeck.tui.app.", "benchdeck.tui.cli."), "reports serve both clients"),
    ("benchdeck.engine.planning.", ("benchdeck.engine.families.",), "families fill planning's types"),
    ("benchdeck.engine.families.", ("benchdeck.engine.dispatch.",), "the dispatch stands above the families"),
    ("benchdeck.engine.running.", ("benchdeck.engine.families.",), "runs reach a family through the table"),
]


def floor_breaches(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{m} -> {t} ({why})"
        for importer, banned, why in FLOORS
        for m, targets in graph.items()
        if m.startswith(importer)
        for t in sorted(targets)
        if t.startswith(banned)
    ]


def test_every_group_imports_only_the_floors_below_it() -> None:
    assert floor_breaches(import_graph()) == []


def test_a_floor_breach_is_seen() -> None:
    """The check above can fail: storage importing a comparison is a breach."""
    graph = {STORE + "storage.db": {STORE + "analysis.compare"}}
    assert floor_breaches(graph) == [
        f"{STORE}storage.db -> {STORE}analysis.compare (storage is the floor of store/)"
    ]


FAMILY_TABLE = "benchdeck.engine.dispatch.table"


def family_imports_in_dispatch(graph: dict[str, set[str]]) -> list[str]:
    """Edges from engine/dispatch to a family module other than the table's."""
    return [
        f"{m} -> {t}"
        for m, targets in sorted(graph.items())
        if m.startswith("benchdeck.engine.dispatch.") and m != FAMILY_TABLE
        for t in sorted(targets)
        if t.startswith("benchdeck.engine.families.")
    ]


def test_the_dispatch_reaches_families_through_one_table() -> None:
    """The planner and the request checks name no family module: a family is a row of the table."""
    graph = import_graph()
    assert family_imports_in_dispatch(graph) == []
    assert any(t.startswith("benchdeck.engine.families.") for t in graph[FAMILY_TABLE])


def test_a_family_named_outside_the_table_is_seen() -> None:
    graph = {"benchdeck.engine.dispatch.planner": {"benchdeck.engine.families.tpcc.plan"}}
    assert family_imports_in_dispatch(graph) == [
        "benchdeck.engine.dispatch.planner -> benchdeck.engine.families.tpcc.plan"
    ]


# The shared services import no UI library at all: module names they must not load.
UI_LIBRARIES = ("textual", "rich", "click")


@pytest.mark.parametrize(
    "module",
    sorted(
        f"benchdeck.tui.services.{p.stem}"
        for p in (ROOT / "benchdeck" / "tui" / "services").glob("*.py")
        if p.stem != "__init__"
    ),
)
def test_shared_services_import_no_ui_library(module: str) -> None:
    assert loaded_after(PROBE, module, UI_LIBRARIES) == ""


# ---- arrows no tool sees: modules named in strings --------------------------------------------------


def named_modules() -> list[tuple[str, str]]:
    """Every string literal in benchdeck/ that names a benchdeck module (the lazy command table,
    the screens, the parsers, error checks by name), with the file that holds it."""
    found = []
    for path in sorted((ROOT / "benchdeck").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.split(".")[:2] in (["benchdeck", p] for p in PACKAGES)
                and all(part.isidentifier() for part in node.value.split("."))
            ):
                found.append((node.value, str(path.relative_to(ROOT))))
    return found


def test_every_module_named_in_a_string_imports() -> None:
    import importlib

    named = named_modules()
    assert len({n for n, _ in named}) >= 30, "the lazy tables were not found"
    bad = []
    for name, where in named:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            bad.append(f"{where}: {name!r}: {exc}")
    assert bad == []
