"""``benchdeck runs`` / ``builds`` on a real store, and the newcomer's CLI path: ``--inventory``,
the ``--db``-after-the-command hint, one list of suites, examples in ``--help``."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from tests.app.storedata import BASE, HOST, NEW, OTHER_HOST, Demo, build_demo
from tests.fixtures.cli_helpers import bd


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return build_demo(tmp_path_factory.mktemp("demo") / "demo.duckdb")


@pytest.fixture
def env(demo: Demo, tmp_path: Path) -> dict[str, str]:
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(
        '[hosts.here]\ntransport = "local"\n\n[suites.mine]\nworkloads = ["point-query_range=100"]\n'
    )
    return dict(os.environ) | {"BENCHDECK_DB": str(demo.path), "BENCHDECK_CONFIG": str(cfg)}


def test_runs_filters_and_formats(env: dict[str, str], demo: Demo) -> None:
    every = bd(env, "runs", "--format", "json")
    assert every.returncode == 0, every.stderr
    runs = json.loads(every.stdout)
    assert len(runs) == 35
    assert every.stderr.strip() == "35 runs"
    assert [r["run"] for r in runs] == sorted((r["run"] for r in runs), reverse=True)

    failed = json.loads(bd(env, "runs", "--status", "failed", "--format", "json").stdout)
    assert [(r["run"], r["status"], r["reason"]) for r in failed] == [
        (demo.failed, "failed", "sysbench exited with status 1")
    ]
    r = bd(env, "runs", "--host", OTHER_HOST, "--build", NEW, "--workload", "INSERT*", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [(x["host"], x["build"], x["workload"]) for x in rows] == [(OTHER_HOST, NEW, "insert_range=100")]
    nope = bd(env, "runs", "--config", "nope", "--format", "text")  # a typo: refused, not "0 runs"
    assert (nope.returncode, nope.stdout) == (2, "")
    assert "unknown config 'nope' in the store (known: z11a_c32r128)" in nope.stderr
    limited = bd(env, "runs", "--limit", "2", "--format", "md")
    assert limited.stdout.startswith("2 of 35 runs\n\n| run | host | build |")
    assert limited.stderr.strip() == "2 of 35 runs"
    text = bd(env, "runs", "--tag", "none-such", "--format", "text")
    assert text.stdout.split("\t")[:3] == ["run", "host", "build"]


def test_builds_lists_hosts_and_counts(env: dict[str, str]) -> None:
    r = bd(env, "builds", "--format", "json")
    assert r.returncode == 0, r.stderr
    builds = {b["build"]: b for b in json.loads(r.stdout)}
    assert next(iter(builds)) == BASE, "oldest version first"
    assert builds[BASE]["hosts"] == f"{OTHER_HOST}, {HOST}"
    assert builds[NEW]["runs"] == builds[NEW]["finished"] + 1, "the failed run counts as a run"
    only = json.loads(bd(env, "builds", "--host", OTHER_HOST, "--format", "json").stdout)
    assert {b["build"] for b in only} == {BASE, NEW}


def test_db_after_the_command_says_it_goes_first(env: dict[str, str], tmp_path: Path) -> None:
    r = bd(env, "import", "mytools", str(tmp_path), "--host", "h", "--db", "x.duckdb")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert "--db is an option of benchdeck itself: put it first" in r.stderr
    assert "benchdeck --db VALUE import mytools" in r.stderr


def test_inventory_option_and_one_list_of_suites(env: dict[str, str], tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text('[hosts.elsewhere]\ntransport = "local"\n')
    listed = bd(env, "--inventory", str(other), "hosts", "list")
    assert listed.returncode == 0, listed.stderr
    assert "elsewhere" in listed.stdout
    assert "here" not in listed.stdout.split()
    queue_help, compare_help = bd(env, "queue", "--help").stdout, bd(env, "compare", "--help").stdout
    for name in ("classic", "modern", "insertbench", "pgbench", "dbbench", "builtin"):
        assert name in queue_help, name
        assert name in compare_help, name
    mine = bd(
        env, "compare", "--host", HOST, "--base", BASE, "--with", NEW, "--suite", "mine", "--format", "json"
    )
    assert mine.returncode == 0, mine.stderr
    assert [r["workload"] for r in json.loads(mine.stdout)["rqps"]] == ["point-query_range=100"]
    bad = bd(env, "compare", "--host", HOST, "--base", BASE, "--with", NEW, "--suite", "nope")
    assert (bad.returncode, bad.stderr.count("\n")) == (2, 1)
    assert "unknown suite 'nope'" in bad.stderr


def test_help_has_examples_and_no_markup(env: dict[str, str]) -> None:
    for cmd in ([], ["import"], ["compare"], ["run"], ["queue"], ["runs"], ["builds"]):
        out = bd(env, *cmd, "--help").stdout
        assert "Examples:" in out, cmd
        assert "``" not in out, cmd
    run_help = bd(env, "run", "--help").stdout
    assert "(local by default)" not in run_help


def test_missing_runs_and_directories_are_named_and_store_nothing(
    env: dict[str, str], demo: Demo, tmp_path: Path
) -> None:
    """Issue 25 item 16: ``diff 40 9999`` blamed run 40's record, ``cancel 99`` called a run that
    does not exist "not running", ``import mytools /no/such/dir`` created an empty store."""
    r = bd(env, "diff", str(demo.base_update_index), "9999")
    assert (r.returncode, r.stderr) == (1, "benchdeck: run 9999: no such run\n")
    r = bd(env, "cancel", "9999")
    assert (r.returncode, r.stderr) == (1, "benchdeck: there is no run 9999\n")
    r = bd(env, "cancel", str(demo.base_update_index))
    assert r.stderr.startswith(f"benchdeck: run {demo.base_update_index} is not running (it is ")
    fresh = tmp_path / "fresh.duckdb"
    r = bd(
        env | {"BENCHDECK_DB": str(fresh)}, "import", "mytools", str(tmp_path / "no-such-dir"), "--host", "h"
    )
    assert r.returncode == 2
    (line,) = r.stderr.splitlines()
    assert "no-such-dir" in line
    assert "does not exist" in line
    assert not fresh.exists(), "no empty store made for a typo"
