"""``benchdeck run --cluster``: the option's plumbing and its one-line errors (the run itself is
tested in tests/engine/cluster/test_cluster_run.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click
import pytest

from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.hosts.inventory_file import parse_inventory
from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage import queue as q
from benchdeck.store.storage.db import Store
from benchdeck.tui.cli.run_options import cluster_host
from benchdeck.tui.services.runs import queued_request
from tests.fixtures.cli_helpers import bd, inventory_env, local_host


@pytest.mark.parametrize("command", ["run", "queue"])
def test_an_unknown_cluster_is_one_line_naming_the_known(tmp_path: Path, command: str) -> None:
    env = inventory_env(tmp_path, local_host("here", tmp_path / "w"))
    what = ("--build", "sqlite", "--workload", "point-query_range=100")
    res = bd(env, command, "--cluster", "loop9", *what)
    assert res.returncode == 2
    assert "unknown cluster loop9 (clusters: none in the inventory)" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1  # one line, no traceback
    res = bd(env, command, *what)
    assert res.returncode == 2
    assert res.stderr.strip() == "benchdeck: Missing option '--host' (or --cluster)."


def test_the_cluster_names_the_host_its_primary_is_on(tmp_path: Path) -> None:
    inv = parse_inventory(local_host("a", tmp_path) + local_host("b", tmp_path), tmp_path / "benchdeck.toml")
    nodes = (ClusterNode("p", "b", "primary"), ClusterNode("r1", "a"))
    inv.clusters["loop2"] = ClusterSpec("loop2", "async", nodes)
    assert cluster_host(inv, None, "loop2") == "b"
    assert cluster_host(inv, "b", "loop2") == "b"
    assert cluster_host(inv, "a", None) == "a"
    with pytest.raises(click.BadParameter, match="primary is on host b, not a"):
        cluster_host(inv, "a", "loop2")


def test_a_queue_s_cluster_comes_back_in_each_item_s_request(tmp_path: Path) -> None:
    # what queue stores for a cluster (its options plus the cluster) comes back as the run's request
    store = Store.open(tmp_path / "q.duckdb")
    opts = RunOptions(duration_s=5)
    with store.transaction() as cur:
        qid = q.create_queue(
            cur, ["b"], ["sqlite"], ["point-query_range=100"], replace(opts, cluster="loop2")
        )
        (item,) = q.items(cur, qid)
    req = queued_request(item)
    assert (req.cluster, req.options) == ("loop2", replace(opts, cluster="loop2"))
