"""The ``benchdeck`` entry (tui/entry.py): a plain app start reaches the app without click and
with the cycle collector off; everything else is the command line's, as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchdeck.tui.entry import NotPlain, plain_app_db
from tests.fixtures.cli_helpers import ROOT


@pytest.mark.parametrize(
    ("argv", "env", "db"),
    [
        ([], {}, None),
        ([], {"BENCHDECK_DB": "from-env.duckdb"}, Path("from-env.duckdb")),
        ([], {"BENCHDECK_DB": ""}, None),
        (["--db", "s.duckdb"], {"BENCHDECK_DB": "other"}, Path("s.duckdb")),
        (["--db=s.duckdb"], {}, Path("s.duckdb")),
        (["--db", "ducklake:postgres:dbname=x"], {}, Path("ducklake:postgres:dbname=x")),
    ],
)
def test_a_plain_start_names_the_store_as_the_cli_does(
    argv: list[str], env: dict[str, str], db: Path | None
) -> None:
    assert plain_app_db(argv, env) == db


@pytest.mark.parametrize(
    "argv",
    [
        ["runs"],
        ["--db", "s.duckdb", "runs"],
        ["--db"],
        ["--db="],
        ["--db", "--help"],
        ["--help"],
        ["--version"],
        ["--inventory", "i.toml"],
        ["--db", "."],  # a directory: the CLI's one line says so
    ],
)
def test_anything_else_is_the_command_lines(argv: list[str]) -> None:
    with pytest.raises(NotPlain):
        plain_app_db(argv, {})


def test_a_directory_in_the_environment_is_the_command_lines(tmp_path: Path) -> None:
    with pytest.raises(NotPlain):
        plain_app_db([], {"BENCHDECK_DB": str(tmp_path)})


# The entry as `python -m benchdeck --db FILE` runs it, with the app's run replaced by a probe
# (the app itself is tested elsewhere; here: what the entry did before handing over).
PROBE = """
import gc, sys
import benchdeck.tui.app.app as app
def probe(db, opening, gc_paused):
    print("DB", db, "PAUSED", gc_paused, "GC", gc.isenabled(), "STORE", opening.store.db)
    print("CLICK", "click" in sys.modules, "CLI", "benchdeck.tui.cli.main" in sys.modules)
app.run_app = probe
sys.argv = ["benchdeck", *sys.argv[1:]]
from benchdeck.tui.entry import main
main()
"""


def test_the_app_starts_without_click_and_with_the_collector_off(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    r = subprocess.run(
        [sys.executable, "-c", PROBE, "--db", str(db)], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert f"DB {db} PAUSED True GC False STORE {db}" in r.stdout
    assert "CLICK False CLI False" in r.stdout


def test_a_directory_for_the_store_is_one_line_from_the_cli(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "benchdeck", "--db", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert r.returncode == 2
    assert r.stderr.strip() == f"benchdeck: Invalid value for '--db': File '{tmp_path}' is a directory."
