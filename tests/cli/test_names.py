"""Names users type: the unnamed config is ``default`` everywhere, and a typo is refused with the
closest name (exit non-zero), never "0 runs" and exit 0. The real CLI on a store made here."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from tests.fixtures.cli_helpers import bd, db_rows, inventory_env

RUNS = (
    ("sqlite", "", "point-query_range=100", 100.0),
    ("sqlite", "", "read-only_range=10", 200.0),
    ("sqlite", "", "read-only_range=100", 300.0),
    ("sqlite", "serial", "point-query_range=100", 50.0),
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A store with sqlite's runs under its unnamed config and one under ``serial`` (as after
    ``run --config serial``), and an inventory of the local host only."""
    e = inventory_env(tmp_path, f'[hosts.local]\ntransport = "local"\nworkdir = "{tmp_path / "work"}"\n')
    with Store.open(Path(e["BENCHDECK_DB"])) as store:
        for build, config, workload, qps in RUNS:
            with store.transaction() as cur:
                b = parse_build_name(build, dbms="sqlite", version="3.45.1")
                rid = create_run(cur, NewRun("local", b, workload, "t", threads=1, config=config))
                save_summary(cur, rid, RunSummary(qps=qps))
                set_status(cur, rid, "finished")
    return e


def test_compare_names_the_unnamed_config_default(env: dict[str, str]) -> None:
    """It read "has runs with configs , serial"; ``sqlite:default`` and ``--config default`` name it."""
    r = bd(env, "compare", "--host", "local", "--base", "sqlite", "--with", "sqlite:serial")
    assert r.returncode == 1
    assert (
        "build 'sqlite' has runs with configs default, serial: pick one with --config or sqlite:CONFIG"
        in (r.stderr)
    )
    for base in (
        ["--base", "sqlite:default"],
        ["--base", "sqlite", "--config", "default"],
        ["--base", "sqlite:"],
    ):
        r = bd(env, "compare", "--host", "local", *base, "--with", "sqlite:serial", "--format", "text")
        assert r.returncode == 0, (base, r.stderr)
        assert r.stdout.startswith("Relative to: sqlite.default\ncol-1 : sqlite.serial\n"), r.stdout[:200]
        assert "0.50\tpoint-query_range=100" in r.stdout
    r = bd(env, "compare", "--host", "local", "--base", "sqlite:defalt", "--with", "sqlite:serial")
    assert "it has runs as sqlite:default (3 runs), sqlite:serial (1 runs)" in r.stderr


def test_runs_lists_default_and_refuses_typos(env: dict[str, str]) -> None:
    r = bd(env, "runs", "--config", "default", "--format", "text")
    assert r.returncode == 0, r.stderr
    rows = [line.split("\t") for line in r.stdout.splitlines()[1:]]
    assert [(row[3], row[4]) for row in rows] == [
        ("default", "read-only_range=100"),
        ("default", "read-only_range=10"),
        ("default", "point-query_range=100"),
    ]
    r = bd(env, "runs", "--host", "lcoal")
    assert (r.returncode, r.stdout) == (2, "")
    assert "unknown host 'lcoal' in the store (known: local); did you mean 'local'?" in r.stderr
    r = bd(env, "runs", "--build", "sqlit")
    assert r.returncode == 2
    assert "did you mean 'sqlite'?" in r.stderr


def test_runs_workload_is_exact_unless_a_glob(env: dict[str, str]) -> None:
    """``read-only_range=10`` also listed range=100 (a substring match)."""

    def workloads(*args: str) -> list[str]:
        r = bd(env, "runs", *args, "--format", "csv")
        assert r.returncode == 0, r.stderr
        return sorted(line.split(",")[4] for line in r.stdout.splitlines()[1:])

    assert workloads("--workload", "read-only_range=10") == ["read-only_range=10"]
    assert workloads("--workload", "read-only*") == ["read-only_range=10", "read-only_range=100"]
    assert workloads("--workload", "*range=100") == ["point-query_range=100"] * 2 + ["read-only_range=100"]
    r = bd(env, "runs", "--workload", "read-only_rang=10")
    assert r.returncode == 2
    assert "did you mean 'read-only_range=10'?" in r.stderr


def test_scaling_and_queue_suggest_the_close_name(env: dict[str, str]) -> None:
    r = bd(env, "scaling", "--host", "local", "--build", "sqlit")
    assert r.returncode != 0
    assert (
        "unknown build 'sqlit' with finished runs on host local (known: sqlite); did you mean 'sqlite'?"
        in (r.stderr)
    )
    r = bd(env, "scaling", "--host", "lcoal", "--build", "sqlite")
    assert r.returncode != 0
    assert "did you mean 'local'?" in r.stderr
    r = bd(env, "scaling", "--host", "local", "--build", "sqlite", "--config", "default", "--format", "text")
    assert r.returncode == 0, r.stderr
    assert "sqlite  default    1" in r.stdout, r.stdout
    r = bd(env, "queue", "--host", "local", "--build", "sqlite", "--suite", "clasic")
    assert r.returncode == 2
    assert "did you mean 'classic'?" in r.stderr


def test_changes_names_the_default_config(env: dict[str, str]) -> None:
    r = bd(env, "changes", "--host", "local", "--config", "default")
    assert r.returncode == 0, r.stderr
    r = bd(env, "changes", "--host", "local", "--config", "defalt")
    assert r.returncode == 2
    assert "(known: default, serial); did you mean 'default'?" in r.stderr


def test_run_and_queue_take_default_for_the_unnamed_config(env: dict[str, str]) -> None:
    """``--config default`` was "unknown config 'default' of build(s) sqlite (known: serial)"."""
    r = bd(env, "run", "--host", "local", "--build", "sqlite", "--config", "default",
           "--workload", "point-query_range=100", "--time", "1")  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = bd(env, "queue", "--host", "local", "--build", "sqlite", "--config", "default", "--config", "serial",
           "--workload", "point-query_range=100", "--time", "1")  # fmt: skip
    assert r.returncode == 0, r.stderr
    newest = db_rows(env, "SELECT config FROM runs WHERE run_id > ? ORDER BY run_id", [len(RUNS)])
    assert newest == [("",), ("",), ("serial",)]
