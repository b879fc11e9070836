"""``benchdeck compare`` prints exactly what it printed before its start-up was made faster: the
output of every format, byte for byte, against files written by the code before that work
(tests/data/compare_golden/). Two stores: the hand-written mixed-config mytools tree (imported
by the CLI), and one filled through the store API with repeats (an interval from repeats),
single runs with per-second samples (a bootstrapped interval), per-op metrics and a missing cell;
and a third with runs on a cluster beside the same builds alone (issue 41: its files are new).

Regenerate the files only for a deliberate change of the output:
``BENCHDECK_GOLDEN_WRITE=1 python -m pytest tests/cli/test_compare_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.metrics import PerOp
from benchdeck.engine.records import BenchInterval
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.store.storage.samples import append_bench
from tests.fixtures import cluster_store
from tests.fixtures.cli_helpers import ROOT, bd

GOLDEN = ROOT / "tests" / "data" / "compare_golden"
TREE = ROOT / "tests" / "data" / "mixed_config"
WRITE = bool(os.environ.get("BENCHDECK_GOLDEN_WRITE"))

MIXED = ("--host", "hx", "--base", "pg1611_o2nofp", "--with", "pg177_o2nofp:x10a_c32r128")
MIXED += ("--with", "pg181_o2nofp")
API = ("--host", "h1", "--base", "my8028_rel_o2nofp", "--with", "my8040_rel_o2nofp")
API += ("--with", "my8044_rel_o2nofp")
CLUSTER = ("--host", "local", "--base", cluster_store.BASE, "--with", cluster_store.PGO)
CLUSTER += ("--with", f"{cluster_store.BASE}@loop3", "--with", f"{cluster_store.PGO}@loop3")
CLUSTER_NODES = ("--format", "csv", "--table", "nodes")
"""Issue 41: the cluster's own table (the other stores' outputs are as they were)."""
FORMATS: tuple[tuple[str, ...], ...] = (
    ("--format", "text"),
    ("--format", "md"),
    ("--format", "json"),
    ("--format", "csv"),
    ("--format", "csv", "--table", "groups"),
    ("--format", "csv", "--table", "perop"),
)


def _samples(qps: float, n: int, wobble: float) -> list[BenchInterval]:
    """``n`` per-second samples around ``qps`` (a fixed saw-tooth: the same every time)."""
    return [
        BenchInterval(t=float(t), threads=8, tps=qps / 20, qps=qps * (1 + wobble * ((t * 7) % 5 - 2)))
        for t in range(1, n + 1)
    ]


def _fill_api_store(path: Path) -> None:
    runs: list[tuple[str, str, float, int]] = [
        # (build, workload, qps, per-second samples)
        ("my8028_rel_o2nofp", "point-query_range=100", 1000.0, 30),
        ("my8040_rel_o2nofp", "point-query_range=100", 940.0, 30),
        ("my8044_rel_o2nofp", "point-query_range=100", 1004.0, 30),
        ("my8028_rel_o2nofp", "update-index_range=100", 500.0, 0),
        ("my8028_rel_o2nofp", "update-index_range=100", 520.0, 0),
        ("my8028_rel_o2nofp", "update-index_range=100", 490.0, 0),
        ("my8040_rel_o2nofp", "update-index_range=100", 430.0, 0),
        ("my8040_rel_o2nofp", "update-index_range=100", 445.0, 0),
        ("my8044_rel_o2nofp", "update-index_range=100", 505.0, 0),
        ("my8028_rel_o2nofp", "scan_range=100", 2.5e6, 12),
        ("my8044_rel_o2nofp", "scan_range=100", 2.6e6, 12),
        ("my8028_rel_o2nofp", "read-only_range=10", 8000.0, 5),
        ("my8040_rel_o2nofp", "read-only_range=10", 7000.0, 5),
    ]
    with Store.open(path) as store:
        for i, (build, workload, qps, n) in enumerate(runs):
            with store.transaction() as cur:
                rid = create_run(
                    cur, NewRun("h1", parse_build_name(build), workload, "test", config="c8r32", threads=8)
                )
                per_op = PerOp(ops=qps, cpu_o=40.0 / qps, cs_o=1e5 / qps, r_o=0.0, rkb_o=0.0, wkb_o=i / qps)
                save_summary(cur, rid, RunSummary(qps=qps, per_op=per_op))
                if n:
                    append_bench(cur, rid, _samples(qps, n, 0.002 * (1 + i % 3)))
                set_status(cur, rid, "finished")


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, str], tuple[str, ...]]]:
    tmp = tmp_path_factory.mktemp("golden")
    mixed_env = {**os.environ, "BENCHDECK_DB": str(tmp / "mixed.duckdb"), "HOME": str(tmp)}
    imported = bd(mixed_env, "import", "mytools", str(TREE), "--host", "hx")
    assert imported.returncode == 0, imported.stderr
    _fill_api_store(tmp / "api.duckdb")
    api_env = {**os.environ, "BENCHDECK_DB": str(tmp / "api.duckdb"), "HOME": str(tmp)}
    cluster_store.fill(tmp / "cluster.duckdb")
    cluster_env = {**os.environ, "BENCHDECK_DB": str(tmp / "cluster.duckdb"), "HOME": str(tmp)}
    return {"mixed": (mixed_env, MIXED), "api": (api_env, API), "cluster": (cluster_env, CLUSTER)}


@pytest.mark.parametrize(
    ("store_name", "fmt"),
    [*((s, f) for s in ("mixed", "api", "cluster") for f in FORMATS), ("cluster", CLUSTER_NODES)],
    ids=lambda v: v if isinstance(v, str) else "-".join(a for a in v if not a.startswith("--")),
)
def test_compare_output_is_unchanged(
    stores: dict[str, tuple[dict[str, str], tuple[str, ...]]], store_name: str, fmt: tuple[str, ...]
) -> None:
    env, args = stores[store_name]
    r = bd(env, "compare", *args, *fmt)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    name = f"{store_name}-{'-'.join(a for a in fmt if not a.startswith('--'))}.out"
    if WRITE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        (GOLDEN / name).write_text(r.stdout)
    assert r.stdout == (GOLDEN / name).read_text(), f"compare output differs from {name}"
