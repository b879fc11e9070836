"""A command loads its own module only: ``compare`` (the most used read command) starts
without asyncssh, the runner, the change-point code or Textual, and loads numpy and scipy only
for cells that get an interval from per-second samples (numpy) or repeats (scipy); its text
output needs no JSON or TOML module, no parser records, no user-dir lookup (the store is named), and
opening a store at the latest schema needs neither the views (migrations) nor snapshot copies
(a store another process holds); ``--help`` still lists every command."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from benchdeck.tui.cli.context import READ_GC_THRESHOLD
from tests.fixtures.cli_helpers import ROOT, bd

TREE = ROOT / "tests" / "data" / "mixed_config"
NOT_FOR_COMPARE = (
    "asyncssh",
    "benchdeck.engine.running.runner",
    "benchdeck.engine.changepoints",
    "textual",
    "scipy",
    "numpy",
    "benchdeck.tui.cli.run",
    "benchdeck.tui.cli.queue",
    "benchdeck.tui.cli.resume",
    "benchdeck.tui.cli.run_progress",
    "json",
    "tomllib",
    "benchdeck.engine.records",
    "platformdirs",
    "benchdeck.store.storage.views",
    "benchdeck.store.storage.snapshot",
    # the one-line unknown-name message is a leaf (engine/planning/unknown.py): checking a
    # name needs none of request_check's inventory, transport and build recipes (~45 ms)
    "benchdeck.engine.dispatch.request_check",
    "benchdeck.engine.hosts.inventory",
    # the catalogue reads the other families' steps only for a name that may be theirs (~3 ms)
    "benchdeck.engine.families.dbbench.command",
    "benchdeck.engine.families.insertbench.steps",
    "benchdeck.store.analysis.counters_per_op",  # a store without counters
    # a str parameter of a DuckDB query makes its client import decimal (~1.5 ms): compare's
    # queries take ints (the names found by a query without parameters)
    "decimal",
    # record classes compare does not use (~0.5 ms each to create): the per-op record, the
    # mytools suffix, the column picker's choices, the catalogue's workload record
    "benchdeck.engine.metrics",
    "benchdeck.engine.mytools_names",
    "benchdeck.store.analysis.column_choices",  # the column picker's
    "benchdeck.engine.catalogue_workload",  # Catalogue.workload()'s
)
PROBE = (
    "import sys\n"
    "from benchdeck.tui.cli.main import main\n"
    "main(sys.argv[1:])\n"
    "print('LOADED', ' '.join(m for m in {mods!r} if m in sys.modules))\n"
)


def test_compare_loads_only_what_it_uses(tmp_path: Path) -> None:
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}
    # one run per cell (no repeats) and no per-second samples: no interval to compute
    imported = bd(env, "import", "mytools", str(TREE), "--host", "hx")
    assert imported.returncode == 0, imported.stderr
    args = [
        "compare",
        "--host",
        "hx",
        "--base",
        "pg1611_o2nofp",
        "--with",
        "pg177_o2nofp:x10a_c32r128",
        "--format",
        "text",
    ]
    code = PROBE.format(mods=NOT_FOR_COMPARE)
    r = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert r.returncode == 0, r.stderr
    assert "Relative to: pg1611_o2nofp" in r.stdout, "the comparison itself is printed"
    loaded = r.stdout.rsplit("LOADED", 1)[1].split()
    assert loaded == [], f"compare imported {loaded}"


def test_changes_checks_its_filters_without_the_run_request_checks(tmp_path: Path) -> None:
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}
    imported = bd(env, "import", "mytools", str(TREE), "--host", "hx")
    assert imported.returncode == 0, imported.stderr
    mods = (
        "benchdeck.engine.dispatch.request_check",
        "benchdeck.engine.hosts.inventory",
        "asyncssh",
        "textual",
    )
    code = PROBE.format(mods=mods).replace(
        "main(sys.argv[1:])", "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass"
    )
    r = subprocess.run(
        [sys.executable, "-c", code, "changes", "--host", "hx", "--dbms", "postgress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert "did you mean 'postgres'?" in r.stderr, r.stderr
    assert r.stdout.rsplit("LOADED", 1)[1].split() == []


def test_help_still_lists_every_command() -> None:
    r = bd(dict(os.environ), "--help")
    assert r.returncode == 0, r.stderr
    commands = r.stdout.split("Commands:", 1)[1].split()
    for name in (
        "cancel",
        "changes",
        "compare",
        "diff",
        "export",
        "hosts",
        "import",
        "queue",
        "resume",
        "run",
    ):
        assert name in commands, name


EXIT_PROBE = (
    "import atexit, gc, os, sys\n"
    "atexit.register(lambda: os.write(1, f'FROZEN {gc.get_freeze_count()}\\n'.encode()))\n"
    "from benchdeck.tui.cli.main import main\n"
    "main()\n"
)


def test_only_a_reading_command_skips_the_teardown(tmp_path: Path) -> None:
    """compare's process ends once its output is flushed, without Python's teardown (no atexit
    handler runs: the probe's neither), its output whole; a failed compare ends as before, but
    without walking every object once more (gc.freeze at exit); a command that writes (import)
    keeps Python's collections and teardown."""
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-c", EXIT_PROBE, *args]
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)

    imported = run("import", "mytools", str(TREE), "--host", "hx")
    assert imported.returncode == 0, imported.stderr
    assert int(imported.stdout.rsplit("FROZEN", 1)[1]) == 0
    compare = ["compare", "--host", "hx", "--base", "pg1611_o2nofp", "--with", "pg181_o2nofp"]
    done = run(*compare, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert "FROZEN" not in done.stdout, "no teardown: the probe's atexit handler did not run"
    assert json.loads(done.stdout)["base"]["build"] == "pg1611_o2nofp", "the output is whole"
    failed = run(*compare[:-1], "pg999_nosuch")
    assert failed.returncode == 2, failed.stderr
    assert "unknown build 'pg999_nosuch'" in failed.stderr
    assert int(failed.stdout.rsplit("FROZEN", 1)[1]) > 0


BLAS_PROBE = (
    "import os, sys\n"
    "from benchdeck.tui.cli.main import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "import numpy\n"
    "print('BLAS', os.environ.get('OPENBLAS_NUM_THREADS'), len(os.listdir('/proc/self/task')))\n"
)


def test_compare_loads_numpy_without_a_blas_thread_pool(tmp_path: Path) -> None:
    """compare's numpy (its bootstrap) does no linear algebra: OpenBLAS's threads (one per core,
    ~40 ms CPU to start) are not started; a value the user set is kept."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    env["HOME"] = str(tmp_path)

    def probe(extra: dict[str, str]) -> list[str]:
        argv = [sys.executable, "-c", BLAS_PROBE, "compare", "--help"]
        r = subprocess.run(argv, env={**env, **extra}, capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        return r.stdout.rsplit("BLAS", 1)[1].split()

    # DuckDB's import starts a thread of its own: the count is the one with the variable set
    one_thread = probe({"OPENBLAS_NUM_THREADS": "1"})[1]
    assert probe({}) == ["1", one_thread], "no OpenBLAS threads but the caller's"
    assert probe({"OPENBLAS_NUM_THREADS": "2"})[0] == "2"


GC_PROBE = (
    "import gc, sys\n"
    "from benchdeck.tui.cli import context\n"
    "def seen(name, real):\n"
    "    def probe(self):\n"
    "        state = gc.isenabled(), gc.get_freeze_count() > 0, gc.get_threshold()[0]\n"
    "        print('GC', name, *state, flush=True)\n"
    "        return real(self)\n"
    "    return probe\n"
    "context.Ctx.open_store = seen('writes', context.Ctx.open_store)\n"
    "context.Ctx.open_store_for_reading = seen('reads', context.Ctx.open_store_for_reading)\n"
    "from benchdeck.tui.cli.main import main\n"
    "main()\n"
)


def test_a_reading_command_loads_with_the_collector_paused_then_frozen(tmp_path: Path) -> None:
    """compare's modules (DuckDB's with them) load without Python's collections, and what they
    made is frozen before the command runs, with the collector on again, collecting less often;
    a command that writes (import) loads and collects as before: nothing frozen."""
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}

    def state(*args: str) -> list[str]:
        argv = [sys.executable, "-c", GC_PROBE, *args]
        r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        return r.stdout.split("GC ", 1)[1].split()[:4]

    default = str(gc.get_threshold()[0])
    assert state("import", "mytools", str(TREE), "--host", "hx") == ["writes", "True", "False", default]
    compare = ["compare", "--host", "hx", "--base", "pg1611_o2nofp", "--with", "pg181_o2nofp"]
    assert state(*compare) == ["reads", "True", "True", str(READ_GC_THRESHOLD)]


PANDAS_PROBE = (
    "import sys\n"
    "class Count:\n"
    "    n = 0\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        Count.n += name == 'pandas'\n"
    "sys.meta_path.insert(0, Count())\n"
    "from benchdeck.tui.cli.main import main\n"
    "main(sys.argv[1:])\n"
    "print('PANDAS', Count.n)\n"
)


def test_compare_gives_duckdb_no_parameter_to_probe(tmp_path: Path) -> None:
    """DuckDB's client tries to import pandas for every query parameter (twice: a failed import
    each time when it is absent) and a str parameter makes it import decimal: compare's queries
    write the store's own ids into their SQL instead (the 16-column archive compare had 18)."""
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}
    imported = bd(env, "import", "mytools", str(TREE), "--host", "hx")
    assert imported.returncode == 0, imported.stderr
    args = ["compare", "--host", "hx", "--base", "pg1611_o2nofp", "--with", "pg177_o2nofp:x10a_c32r128"]
    argv = [sys.executable, "-c", PANDAS_PROBE, *args]
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "Relative to: pg1611_o2nofp" in r.stdout
    assert r.stdout.rsplit("PANDAS", 1)[1].split() == ["0"]
