"""Launch offers the inventory's clusters: picking one runs the matrix on its primary's host and
queues the runs with the cluster named (RunOptions.cluster, RunRequest.cluster for each run)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Select, SelectionList

from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.hosts import inventory_file
from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage import queue as q
from benchdeck.store.storage.db import Store
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.launch import LaunchScreen
from benchdeck.tui.app.screens.launch_choices import NO_CLUSTER
from benchdeck.tui.services.runs import queued_request
from tests.app.helpers import on_screen, settle
from tests.app.make_live_screenshots import DB_NAME, fix_launch
from tests.app.snapshot import assert_snapshot
from tests.app.test_launch_live import SIZE, matrix, open_launch, wait_for
from tests.app.test_toasts_stacked import screen_lines

LOOP3 = ClusterSpec(
    "loop3",
    "async",
    (
        ClusterNode("p", "local2", "primary"),
        ClusterNode("r1", "local", port=3407),
        ClusterNode("r2", "local", port=3408),
    ),
)


def two_local_hosts(tmp_path: Path) -> Path:
    cfg = tmp_path / "benchdeck.toml"
    work = tmp_path / "work"
    cfg.write_text(
        f'[hosts.local]\ntransport = "local"\nworkdir = "{work}"\n'
        f'[hosts.local2]\ntransport = "local"\nworkdir = "{work}2"\n'
    )
    return cfg


LOOP3_TOML = """
[clusters.loop3]
kind = "async"
[[clusters.loop3.nodes]]
name = "p"
host = "local2"
role = "primary"
[[clusters.loop3.nodes]]
name = "r1"
host = "local"
port = 3407
[[clusters.loop3.nodes]]
name = "r2"
host = "local"
port = 3408
"""


@pytest.fixture
def clusters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, ClusterSpec]:
    """The inventory's file with cluster loop3 in it, read as the app reads it."""
    cfg = two_local_hosts(tmp_path)
    cfg.write_text(cfg.read_text() + LOOP3_TOML)
    monkeypatch.setenv(INVENTORY_ENV, str(cfg))
    found = inventory_file.load_inventory(cfg).clusters
    assert found == {"loop3": LOOP3}
    return found


class Started:
    """What Launch handed the hub to queue (the queue itself would start real runs)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    async def __call__(self, *args: Any) -> int:
        self.calls.append(args)
        return 1


async def test_no_clusters_no_picker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(INVENTORY_ENV, str(two_local_hosts(tmp_path)))
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        launch = await open_launch(pilot)
        await settle(pilot)
        assert not launch.query("#launch-cluster")
        assert launch.cluster() is None
        assert matrix(app).startswith("6 runs = 1 host(s) x 2 build(s)")


async def test_a_cluster_runs_on_its_primary_and_the_queue_names_it(
    tmp_path: Path, clusters: dict[str, ClusterSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        launch = await open_launch(pilot)
        await wait_for(pilot, lambda: bool(launch.query("#launch-cluster")), "the Cluster picker")
        picker = launch.query_one("#launch-cluster", Select)
        offered = [str(prompt) for prompt, _ in picker._options]
        assert offered == [NO_CLUSTER, "loop3"]
        hosts = launch.query_one("#launch-hosts", SelectionList)
        assert list(hosts.selected) == ["local"]

        picker.value = "loop3"
        mine = "6 runs = cluster loop3 (async, 3 nodes) on local2 x 2 build(s) x 3 workload(s)"
        await wait_for(pilot, lambda: matrix(app).startswith(mine), "the cluster's matrix")
        assert list(hosts.selected) == ["local2"]  # the primary's host, alone
        assert hosts.disabled

        picker.value = ""  # no cluster: the hosts list is the user's again
        await wait_for(pilot, lambda: not hosts.disabled, "the hosts list back")
        assert launch.cluster() is None
        assert matrix(app).startswith("6 runs = 1 host(s)")

        picker.value = "loop3"
        await wait_for(pilot, lambda: matrix(app).startswith(mine), "the cluster's matrix again")
        started = Started()
        monkeypatch.setattr(app.hub, "start_queue", started)
        await pilot.press("s")
        await wait_for(pilot, lambda: started.calls, "the queue to start")
        hosts_, builds, workloads, opts, *_ = started.calls[0]
        assert hosts_ == ["local2"]
        assert builds == ["sqlite", "sqlite-sync"]
        assert len(workloads) == 3
        assert isinstance(opts, RunOptions)
        assert opts.cluster == "loop3"


def test_a_queued_run_keeps_its_cluster(tmp_path: Path) -> None:
    """The queue's options (JSON in the store) carry the cluster to each run's request."""
    with Store.open(tmp_path / "q.duckdb") as store, store.transaction() as cur:
        qid = q.create_queue(cur, ["local2"], ["b1"], ["w1"], RunOptions(threads=4, cluster="loop3"))
        alone = q.create_queue(cur, ["local"], ["b1"], ["w1"], RunOptions(threads=4))
        on_cluster, one_server = q.items(cur, qid)[0], q.items(cur, alone)[0]
    req = queued_request(on_cluster)
    assert (req.host, req.cluster, req.options.cluster, req.options.threads) == (
        "local2",
        "loop3",
        "loop3",
        4,
    )
    assert queued_request(one_server).cluster is None


async def test_a_cluster_whose_primary_host_is_unknown_is_refused_with_the_reason(
    tmp_path: Path, clusters: dict[str, ClusterSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inventory's check refuses such a cluster as the file is read: Launch says where, in one
    line, and offers no cluster it cannot run."""
    cfg = tmp_path / "benchdeck.toml"
    far = LOOP3_TOML.replace("loop3", "far").replace('host = "local2"', 'host = "db9"')
    cfg.write_text(cfg.read_text() + far)
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        why = "clusters.far.nodes[0].host: unknown host db9 (hosts: local, local2)"
        shown = [str(n.message) for n in app._notifications]
        await wait_for(pilot, lambda: any(why in str(n.message) for n in app._notifications), "the refusal")
        await settle(pilot)
        shown = [str(n.message) for n in app._notifications if why in str(n.message)]
        assert shown[0].startswith(f"{cfg}:")
        launch = on_screen(app, LaunchScreen)
        assert not launch.query("#launch-cluster")
        assert launch.cluster() is None


@pytest.mark.parametrize("size", [(80, 24), (100, 30)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_launch_with_a_cluster_snapshot(
    tmp_path: Path, clusters: dict[str, ClusterSpec], size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """loop3 picked: the picker and the matrix line whole on the screen, at 80 columns too."""
    monkeypatch.chdir(tmp_path)  # the header shows the store relative to it
    app = BenchdeckApp(tmp_path / DB_NAME)
    async with app.run_test(size=size) as pilot:
        launch = await open_launch(pilot)
        await wait_for(pilot, lambda: bool(launch.query("#launch-cluster")), "the Cluster picker")
        launch.query_one("#launch-cluster", Select).value = "loop3"
        await wait_for(pilot, lambda: "cluster loop3" in matrix(app), "the cluster's matrix")
        await settle(pilot)
        fix_launch(pilot)
        await settle(pilot)
        screen = [line.rstrip() for line in screen_lines(app)]
        assert screen[2].split()[-1] == "Cluster"
        assert screen[4].split("▊")[-1].split() == ["loop3", "▼", "▎"]
        bottom = " ".join(line.strip() for line in screen[-3:-1]).replace("Start", "").split()
        assert " ".join(bottom) == (
            "6 runs = cluster loop3 (async, 3 nodes) on local2 x 2 build(s) x 3 workload(s); about 0m36s"
        )
        assert_snapshot(app, f"launch-cluster-{size[0]}x{size[1]}", tmp_path)
