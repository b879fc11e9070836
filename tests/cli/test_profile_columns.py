"""``benchdeck profile --host`` takes compare's column syntax (``BUILD[:CONFIG][@DOP]``) and refuses
ambiguity as compare does: ``--base sqlite:`` read "no finished run of sqlite: running ...", and
``--base sqlite`` merged every config's runs without a word. The real CLI on a store made here."""

from __future__ import annotations

import os

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.records import BenchInterval
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.profiles import save_profile_windows
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.store.storage.samples import append_bench
from tests.fixtures.cli_helpers import bd
from tests.profiles.data import BASE_STACKS, NEW_STACKS, window

HOST, WORKLOAD = "local", "point-query_range=100"


def profiled_run(store: Store, build: str, config: str, stacks: dict[str, int] | None) -> int:
    """A finished sqlite run of WORKLOAD on HOST at dop 1, with a CPU profile of ``stacks``
    (None: without one)."""
    with store.transaction() as cur:
        b = parse_build_name(build, dbms="sqlite", version="3.45.1")
        rid = create_run(cur, NewRun(HOST, b, WORKLOAD, "t", config=config, threads=1))
        save_summary(cur, rid, RunSummary(qps=1000.0, elapsed_s=30.0))
        append_bench(
            cur, rid, [BenchInterval(t=float(t), threads=1, tps=50.0, qps=1000.0) for t in range(1, 31)]
        )
        if stacks is not None:
            save_profile_windows(cur, rid, [window(0, stacks), window(1, stacks, 17.0)], "perf")
        set_status(cur, rid, "finished")
    return rid


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """sqlite's runs 1, 2 under its unnamed config, run 3 under ``serial``; sqlite-sync's run 4."""
    path = tmp_path_factory.mktemp("profcols") / "p.duckdb"
    with Store.open(path) as store:
        profiled_run(store, "sqlite", "", BASE_STACKS)
        profiled_run(store, "sqlite", "", BASE_STACKS)
        profiled_run(store, "sqlite", "serial", NEW_STACKS)
        profiled_run(store, "sqlite-sync", "", NEW_STACKS)
    return {**os.environ, "BENCHDECK_DB": str(path)}


def first_line(env: dict[str, str], *args: str) -> str:
    r = bd(env, "profile", "--host", HOST, "--workload", WORKLOAD, *args)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()[0]


def test_the_column_forms_compare_asks_for(env: dict[str, str]) -> None:
    for base in ("sqlite:", "sqlite:default"):
        assert first_line(env, "--base", base).startswith(f"base: sqlite {WORKLOAD} (runs 1,2)"), base
    assert first_line(env, "--base", "sqlite", "--config", "default").startswith(
        f"base: sqlite {WORKLOAD} (runs 1,2)"
    )
    assert first_line(env, "--base", "sqlite:serial").startswith(f"base: sqlite {WORKLOAD} (runs 3)")
    r = bd(
        env, "profile", "--host", HOST, "--workload", WORKLOAD, "--base", "sqlite:", "--with", "sqlite:serial"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].startswith(f"col-1: sqlite {WORKLOAD} (runs 3)"), r.stdout[:300]
    r = bd(
        env, "profile", "--host", HOST, "--workload", WORKLOAD, "--base", "sqlite-sync", "--with", "sqlite:"
    )
    assert r.stdout.splitlines()[1].startswith(f"col-1: sqlite {WORKLOAD} (runs 1,2)"), r.stdout[:300]


def test_ambiguity_and_typos_are_refused(env: dict[str, str]) -> None:
    for args, says in [
        (
            ["--host", HOST, "--base", "sqlite"],
            f"build 'sqlite' ran {WORKLOAD} on local with configs default, serial: pick one with --config "
            "or sqlite:CONFIG",
        ),
        (
            ["--host", "lcoal", "--base", "sqlite:"],
            "unknown host 'lcoal' (known: local); did you mean 'local'?",
        ),
        (["--host", HOST, "--base", "sqlit:"], "unknown build 'sqlit' with finished runs on local"),
        (
            ["--host", HOST, "--base", "sqlite:seral"],
            "it has runs as sqlite:default (2 runs), sqlite:serial (1 runs)",
        ),
    ]:
        r = bd(env, "profile", *args, "--workload", WORKLOAD)
        assert r.returncode == 2, (args, r.stdout)
        assert says in r.stderr, (args, r.stderr)
        assert len(r.stderr.splitlines()) == 1, r.stderr
    r = bd(env, "profile", "--host", HOST, "--base", "sqlite:", "--workload", "point-query_range=10")
    assert r.returncode == 2
    assert "did you mean 'point-query_range=100'?" in r.stderr
