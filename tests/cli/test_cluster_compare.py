"""The seed's question as one table (issue 41): ``compare`` of pgo_use vs base on the cluster loop3
beside the same pair on the primary alone; a cluster's lag and per-node per-op figures in every
format; ``runs`` names the cluster and flags a run whose replica fell behind past the limit."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import jsonschema
import pytest

from tests.fixtures.cli_helpers import ROOT, bd
from tests.fixtures.cluster_store import BASE, PGO, fill

SCHEMA = json.loads((ROOT / "docs" / "compare.schema.json").read_text())
ONE_TABLE = (
    "--host",
    "local",
    "--base",
    BASE,
    "--with",
    PGO,
    "--with",
    f"{BASE}@loop3",
    "--with",
    f"{PGO}@loop3",
)


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    tmp = tmp_path_factory.mktemp("cluster")
    fill(tmp / "s.duckdb")
    return {**os.environ, "BENCHDECK_DB": str(tmp / "s.duckdb"), "HOME": str(tmp), "COLUMNS": "200"}


def _compare(env: dict[str, str], *fmt: str) -> str:
    r = bd(env, "compare", *ONE_TABLE, *fmt)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_pgo_alone_and_on_the_cluster_are_one_table(env: dict[str, str]) -> None:
    text = _compare(env, "--format", "text")
    head = text.split("\n\n")[:2]
    assert head[0].splitlines() == [
        f"Relative to: {BASE}",
        f"col-1 : {PGO}",
        f"col-2 : {BASE}@loop3",
        f"col-3 : {PGO}@loop3",
    ]
    # PGO's gain alone (1.30), the cluster's cost (0.80) and PGO on the cluster (0.88 = 1.10 x 0.80)
    assert head[1].splitlines() == ["col-1\tcol-2\tcol-3", "1.30\t0.80\t0.88\tupdate-index_range=100"]
    # the seed's question: PGO's gain alone (1.30) and on the cluster (0.88 / 0.80 = 1.10)
    gain = text[text.index("On each cluster") :].split("\n\n")[0].splitlines()
    assert gain == [
        "On each cluster, relative to the base build there:",
        f"col-3 : {PGO}@loop3 / {BASE}@loop3",
        "col-3",
        "1.10\tupdate-index_range=100",
    ]
    nodes = text[text.index("--- cluster nodes") :].splitlines()
    assert nodes[1] == "lag max\tlag p95\tcpu/o\tcs/o\tr/o\trKB/o\twKB/o\tnode\trole\tdbms"
    assert nodes[2:10] == [
        f"-\t-\t0.075000\t5.000\t-\t-\t-\tp\tprimary\t{BASE}@loop3",
        f"3.8\t3.6\t-\t-\t-\t-\t-\tr1\treplica\t{BASE}@loop3",
        f"0.0\t0.0\t0.025000\t5.000\t0.006\t0.025\t0.5\tr2\treplica\t{BASE}@loop3",
        f"3.8\t3.6\t0.100000\t10.000\t0.006\t0.025\t0.5\tall\tall\t{BASE}@loop3",
        f"-\t-\t0.068182\t4.545\t-\t-\t-\tp\tprimary\t{PGO}@loop3",
        f"15.2\t14.4\t-\t-\t-\t-\t-\tr1\treplica\t{PGO}@loop3",
        f"0.0\t0.0\t0.022727\t4.545\t0.006\t0.023\t0.455\tr2\treplica\t{PGO}@loop3",
        f"15.2\t14.4\t0.090909\t9.091\t0.006\t0.023\t0.455\tall\tall\t{PGO}@loop3",
    ]
    assert nodes[10] == (
        f"! {PGO}@loop3: a replica fell behind past 10 s in 1 of 1 runs; 1 node fault(s) (stopped or gone)"
    )


def test_the_cluster_in_csv_json_md_and_rich(env: dict[str, str]) -> None:
    rqps = list(csv.DictReader(io.StringIO(_compare(env, "--format", "csv"))))
    assert [(r["build"], r["cluster"], r["rqps"], r["rqps_on_cluster"]) for r in rqps] == [
        (PGO, "", "1.3", ""),
        (BASE, "loop3", "0.8", ""),
        (PGO, "loop3", "0.88", "1.1"),
    ]
    nodes = list(csv.DictReader(io.StringIO(_compare(env, "--format", "csv", "--table", "nodes"))))
    pgo_all = next(r for r in nodes if r["build"] == PGO and r["node"] == "all")
    assert (pgo_all["column"], pgo_all["lag_max_s"], pgo_all["over_limit_runs"], pgo_all["faults"]) == (
        "col-3",
        "15.2",
        "1",
        "1",
    )
    assert float(pgo_all["cpu_o"]) == pytest.approx(80 / 880)
    perop = list(csv.DictReader(io.StringIO(_compare(env, "--format", "csv", "--table", "perop"))))
    assert [r["cluster"] for r in perop] == ["", "", "loop3", "loop3"]
    doc = json.loads(_compare(env, "--format", "json"))
    jsonschema.validate(doc, SCHEMA)
    assert [c["cluster"] for c in doc["columns"]] == [None, "loop3", "loop3"]
    assert [c["rqps_on_cluster"] for c in doc["rqps"][0]["cells"]] == [None, None, pytest.approx(1.1)]
    rows = doc["hw"][0]["rows"]
    assert "cluster_figures" not in rows[0]
    fig = rows[3]["cluster_figures"]
    assert (fig["lag_max_s"], fig["over_limit_runs"], [n["node"] for n in fig["nodes"]]) == (
        15.2,
        1,
        ["p", "r1", "r2", "all"],
    )
    md = _compare(env, "--format", "md")
    assert f"| 15.2 | 14.4 | 0.090909 | 9.091 | 0.006 | 0.023 | 0.455 | all | all | {PGO}@loop3 |" in md
    assert "| 1.10 | update-index_range=100 |" in md
    rich = _compare(env, "--format", "rich")
    assert "On each cluster, relative to the base build there" in rich
    assert "cluster nodes" in rich
    assert f"! {PGO}@loop3: a replica fell behind past 10 s" in rich


def test_single_server_compare_of_the_same_store_has_no_cluster_fields(env: dict[str, str]) -> None:
    r = bd(env, "compare", "--host", "local", "--base", BASE, "--with", PGO, "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0].endswith(",runs")
    assert r.stdout.splitlines()[1].split(",")[7] == "1.3", "the runs on the cluster are not mixed in"
    doc = json.loads(
        bd(env, "compare", "--host", "local", "--base", BASE, "--with", PGO, "--format", "json").stdout
    )
    assert "cluster" not in doc["columns"][0]


def test_an_unknown_cluster_or_a_build_never_run_on_it_is_a_one_line_error(env: dict[str, str]) -> None:
    bad = bd(env, "compare", "--host", "local", "--base", BASE, "--with", f"{PGO}@loop9", "--format", "text")
    assert bad.returncode == 2
    why = "the dop after @ must be a positive integer, or a cluster the store has runs on (loop3)"
    assert bad.stderr.strip().splitlines()[-1].endswith(f"'{PGO}@loop9': {why}")
    none = bd(
        env,
        "compare",
        "--host",
        "local",
        "--base",
        BASE,
        "--with",
        f"{PGO}@loop3@64",
        "--dop",
        "8",
        "--format",
        "text",
    )
    assert none.returncode == 1
    assert "has no finished runs on host 'local' on cluster 'loop3' with dop 64" in none.stderr
    assert "Traceback" not in bad.stderr + none.stderr


def test_runs_names_the_cluster_and_flags_the_run_over_its_limit(env: dict[str, str]) -> None:
    r = bd(env, "runs", "--format", "csv")
    assert r.returncode == 0, r.stderr
    rows = {(x["build"], x["cluster"]): x for x in csv.DictReader(io.StringIO(r.stdout))}
    assert rows[(PGO, "loop3")]["lag max s"] == "15.2"
    assert rows[(PGO, "loop3")]["flag"] == "lag > 10 s; 1 fault(s)"
    assert rows[(BASE, "loop3")]["flag"] == ""
    assert rows[(BASE, "")]["lag max s"] == ""


def test_runs_of_a_store_without_clusters_print_as_before(tmp_path: Path) -> None:
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}
    from benchdeck.engine.builds import parse_build_name
    from benchdeck.store.storage.db import Store
    from benchdeck.store.storage.runs import NewRun, create_run

    with Store.open(tmp_path / "s.duckdb") as store, store.transaction() as cur:
        create_run(cur, NewRun("local", parse_build_name(BASE), "insert_range=100", "run"))
    r = bd(env, "runs", "--format", "csv")
    assert r.stdout.splitlines()[0] == "run,host,build,config,workload,dop,status,qps,date,tags,reason"


def test_scaling_counts_a_builds_runs_alone(tmp_path: Path) -> None:
    """A build's scale-up is measured alone: its runs on a cluster (QPS 800 beside 1000) are not
    taken into its median (they were: 900 from 2 runs)."""
    from benchdeck.store.analysis.scaling import scaling
    from benchdeck.store.storage.db import Store

    fill(tmp_path / "s.duckdb")
    with Store.open_for_reading(tmp_path / "s.duckdb") as store:
        s = scaling(store.cursor(), host="local", builds=[BASE], group_of=str, sort_key=lambda b: (0, b))
    (point,) = s.points
    assert (point.build, point.dop, point.qps, point.runs) == (BASE, 8, 1000.0, 1)


def test_a_profile_side_is_the_builds_runs_alone_or_on_the_cluster_never_both(tmp_path: Path) -> None:
    """``profile --base B --with B@loop3``: each side its own runs (the cluster was ignored: both
    sides merged the runs alone and on the cluster)."""
    from benchdeck.store.storage.db import Store
    from benchdeck.store.storage.profiles import column_runs
    from tests.fixtures.cluster_store import WORKLOAD

    ids = fill(tmp_path / "s.duckdb")
    with Store.open(tmp_path / "s.duckdb") as store, store.transaction() as cur:
        for rid in ids.values():  # a stored CPU profile window for every run
            cur.execute(
                "INSERT INTO profile_windows VALUES (?, 0, 0, 10, 'cpu-clock', 99, 990, '', 'captured')",
                [rid],
            )
        alone = column_runs(cur, "local", BASE, WORKLOAD)
        on_loop3 = column_runs(cur, "local", BASE, WORKLOAD, cluster="loop3")
        elsewhere = column_runs(cur, "local", BASE, WORKLOAD, cluster="other")
    assert alone.run_ids == (ids[(BASE, False)],)
    assert on_loop3.run_ids == (ids[(BASE, True)],)
    assert elsewhere.run_ids == ()


def test_change_points_follow_a_builds_runs_alone(tmp_path: Path) -> None:
    """A build's series over time holds its runs alone: its run on loop3 (800 QPS beside 1000) is
    no point of it (it was: a drop that is the cluster, not the build)."""
    from benchdeck.engine.builds import parse_build_name
    from benchdeck.store.analysis.change_series import load_series
    from benchdeck.store.storage.db import Store
    from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
    from tests.fixtures.cluster_store import WORKLOAD

    fill(tmp_path / "s.duckdb")
    with Store.open(tmp_path / "s.duckdb") as store, store.transaction() as cur:
        for _ in range(2):
            rid = create_run(cur, NewRun("local", parse_build_name(BASE), WORKLOAD, "run", threads=8))
            save_summary(cur, rid, RunSummary(qps=1000.0))
            set_status(cur, rid, "finished")
        (series,) = load_series(
            cur, host="local", group_of=str, sort_key=lambda b: (0, b), over="time", build=BASE
        )
    assert series.values == (1000.0, 1000.0, 1000.0)
