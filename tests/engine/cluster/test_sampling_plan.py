"""What a run on a cluster starts where: per replica its monitors and probe, PostgreSQL's probe
on the primary, every command bounded by the run's length."""

from __future__ import annotations

import pytest

from benchdeck.engine.cluster.sampling import plan_sampling
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec

NODES = (ClusterNode("p", "h1", "primary"), ClusterNode("r1", "h2"), ClusterNode("r2", "h1", port=3407))
DIRS = {"h1": "/w1/runs/run3-x", "h2": "/w2/runs/run3-x"}


def test_each_replica_gets_monitors_and_a_probe_on_its_own_host() -> None:
    clients = {n.name: [f"mariadb-{n.name}"] for n in NODES}
    plan = plan_sampling(ClusterSpec("c", "async", NODES), "mariadb", clients, DIRS, duration_s=30)
    where = [(s.node, s.what, s.host) for s in plan.sources]
    assert where == [("r1", "vmstat", "h2"), ("r1", "iostat", "h2"), ("r1", "lag", "h2"),
                     ("r2", "vmstat", "h1"), ("r2", "iostat", "h1"), ("r2", "lag", "h1")]  # fmt: skip
    assert {s.run_dir for s in plan.sources if s.host == "h2"} == {"/w2/runs/run3-x"}
    r2_lag = plan.sources[5]
    assert "mariadb-r2" in r2_lag.argv
    assert "45" in r2_lag.argv
    assert r2_lag.out_name == "r2.lag.out"
    assert r2_lag.covers == ("r2",)


def test_postgres_standbys_are_probed_from_the_primary() -> None:
    clients = {n.name: [f"psql-{n.name}"] for n in NODES}
    plan = plan_sampling(ClusterSpec("c", "streaming", NODES), "postgres", clients, DIRS, 30, monitors=False)
    (probe,) = plan.sources
    assert (probe.node, probe.host, probe.covers, probe.probe) == ("p", "h1", ("r1", "r2"), "streaming")
    assert "psql-p" in probe.argv


def test_a_node_name_that_is_no_plain_file_name_is_refused() -> None:
    nodes = (ClusterNode("p", "h1", "primary"), ClusterNode("../r1", "h2"))
    with pytest.raises(ValueError, match=r"node name '\.\./r1' is not a plain name"):
        plan_sampling(ClusterSpec("c", "async", nodes), "mariadb", {}, DIRS, 30)
    with pytest.raises(ValueError, match="no lag probe for a galera cluster of postgres"):
        plan_sampling(ClusterSpec("c", "galera", NODES), "postgres", {}, DIRS, 30)
