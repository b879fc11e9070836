"""Live on a cluster: a tab per node, the replicas' lag beside QPS with the limit, faults in the
log and as a toast; fed the engine's typed events (ClusterPlanned, ClusterBatch), nothing runs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Log, Static, Tabs

from benchdeck.engine.cluster.records import LagSample, NodeFault
from benchdeck.engine.events import ClusterBatch
from benchdeck.engine.hosts.inventory import INVENTORY_ENV
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.live import HostPane, HostTabs, LiveScreen, NodeTab, headline
from benchdeck.tui.app.state.live_cluster import ClusterView
from benchdeck.tui.app.state.live_model import LiveModel
from benchdeck.tui.app.widgets.charts import LineChart
from tests.app.helpers import on_screen, settle, static_text
from tests.app.make_live_screenshots import (
    CLUSTER,
    RUN_ID,
    SECONDS,
    STOP_REASON,
    STOPPED_AT,
    cluster_events,
    show_live,
    wait_for_launch,
    write_inventory,
)
from tests.app.test_live import run_events

SIZE = (120, 36)
CLUSTER_LINE = "cluster loop3 (async, 3 nodes)  lag r1 0.4 s, r2 stopped  limit 10 s"
FAULT = f"node r2 stopped at 12 s: {STOP_REASON}"


@pytest.fixture(autouse=True)
def inventory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(INVENTORY_ENV, str(write_inventory(tmp_path)))
    return tmp_path


def fed() -> LiveModel:
    model = LiveModel()
    for ev in cluster_events():
        model.apply(ev)
    return model


def test_the_model_keeps_each_replicas_lag_each_nodes_series_and_the_faults() -> None:
    v = fed().view(RUN_ID)
    c = v.cluster
    assert c is not None
    assert c.spec == CLUSTER
    assert list(c.nodes) == ["p", "r1", "r2"]
    assert c.lag_t["r2"][-1] == STOPPED_AT
    assert c.lag_s["r2"][-2:] == [SECONDS - 1 - 0.5, None]  # stopped: no figure, not a zero
    assert c.state == {"r1": "ok", "r2": "stopped"}
    assert [len(c.nodes[n].vm["us"]) for n in c.nodes] == [SECONDS] * 3
    assert c.nodes["r1"].vm["us"][0] == 15.0
    assert c.nodes["r2"].io["w_s"][0] == 600.0
    assert c.faults == [NodeFault("r2", STOPPED_AT, "stopped", STOP_REASON)]
    assert f"cluster: {FAULT}" in v.log
    assert headline(v, None, 0, 0).split("\n")[2] == CLUSTER_LINE


def test_a_batch_before_the_plan_or_of_a_run_on_one_server_changes_nothing() -> None:
    model = LiveModel()
    for ev in run_events(5, "db1", 100.0, "hello"):
        model.apply(ev)
    v = model.apply(ClusterBatch(5, lag=(LagSample("r1", 1.0, 3.0),)))
    assert v.cluster is None
    assert len(headline(v, None, 0, 0).split("\n")) == 2


def test_flow_control_pauses_are_kept_for_the_replicas_that_report_them() -> None:
    galera = replace(CLUSTER, kind="galera")
    c = ClusterView(galera)
    c.take(ClusterBatch(1, lag=(LagSample("r1", 1.0, None, paused_s=0.25), LagSample("r2", 1.0, None))))
    c.take(ClusterBatch(1, lag=(LagSample("r1", 2.0, None, paused_s=0.0), LagSample("r2", 2.0, None))))
    assert c.pausing == ["r1"]
    assert c.paused_s == {"r1": [0.25, 0.0], "r2": [None, None]}
    assert c.lag_t["r1"] == [1.0, 2.0]
    assert c.headline() == "cluster loop3 (galera, 3 nodes)  lag r1 -, r2 -  limit 10 s"


def test_the_headline_says_the_worst_lag_alone_when_every_replicas_does_not_fit() -> None:
    many = replace(
        CLUSTER, nodes=CLUSTER.nodes + tuple(replace(CLUSTER.nodes[1], name=f"replica{i}") for i in range(9))
    )
    c = ClusterView(many)
    c.take(ClusterBatch(1, lag=tuple(LagSample(n.name, 3.0, float(i)) for i, n in enumerate(many.replicas))))
    assert c.headline() == "cluster loop3 (async, 12 nodes)  lag max 10.0 s (replica8)  limit 10 s"
    assert len(c.headline()) <= 78


async def test_node_tabs_lag_chart_and_the_fault_line_and_toast(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    *events, fault = cluster_events()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_launch(pilot)
        await show_live(pilot, events)
        live = on_screen(app, LiveScreen)
        pane = live.query_one(HostPane)
        tabs = [(t.node, str(t.label)) for t in pane.query(NodeTab)]
        assert tabs == [("p", "p (primary)"), ("r1", "r1"), ("r2", "r2")]
        assert pane.node == "p"
        lag = live.query_one("#live-lag", LineChart)
        assert lag.display
        assert [line.label for line in lag.lines] == ["r1", "r2", "limit 10 s"]
        assert lag.lines[2].ys == (10.0, 10.0)
        assert lag.lines[2].xs == (0.0, STOPPED_AT)  # the limit across the run's t so far
        assert lag.lines[1].ys[-1] is None  # r2 stopped: no point drawn
        cpu = live.query_one("#live-cpu", LineChart)
        assert cpu.chart_title == "p: CPU % (vmstat)"
        assert cpu.lines[0].ys == app.hub.model.view(RUN_ID).vm["us"]

        app.hub._on_event(fault)  # as RunService hands the hub every event of a run
        live.refresh_live()
        await settle(pilot)
        assert list(live.query_one(".live-log", Log).lines)[-1] == f"cluster: {FAULT}"
        toasts = [n for n in app._notifications if n.title == "Cluster"]
        assert [n.message for n in toasts] == [f"run {RUN_ID}: {FAULT}"]
        assert toasts[0].severity == "warning"
        back = NodeFault("r2", 20.0, "back", "Replica_SQL_Running: Yes")
        app.hub._on_event(ClusterBatch(RUN_ID, faults=(back,)))
        await settle(pilot)
        toasts = [n for n in app._notifications if n.title == "Cluster"]
        assert (toasts[-1].message, toasts[-1].severity) == (
            f"run {RUN_ID}: node r2 back at 20 s: Replica_SQL_Running: Yes",
            "information",
        )
        app.hub.model.apply(ClusterBatch(RUN_ID, lag=(LagSample("r1", 13.0, 0.3, paused_s=0.5),)))
        live.refresh_live()
        await settle(pilot)
        assert [line.label for line in lag.lines] == ["r1", "r2", "r1 paused", "limit 10 s"]
        assert lag.lines[2].ys[-1] == 0.5

        nodes = pane.query_one("#live-nodes", Tabs)
        nodes.focus()
        await pilot.press("right", "right")  # r2's tab, from the keyboard
        await settle(pilot)
        assert pane.node == "r2"
        assert cpu.chart_title == "r2: CPU % (vmstat)"
        assert cpu.lines[0].ys[:2] == [30.0, 31.0]
        assert live.query_one("#live-iops", LineChart).lines[1].ys[0] == 600.0


async def test_a_host_running_one_server_shows_no_cluster_parts(tmp_path: Path) -> None:
    app = BenchdeckApp(tmp_path / "bd.duckdb")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_launch(pilot)
        for ev in run_events(11, "db2", 7777.0, "db2 says hello"):
            app.hub.model.apply(ev)
        await show_live(pilot, cluster_events())
        live = on_screen(app, LiveScreen)
        pane = live.query_one(HostPane)
        assert live.active_host() == "db2"  # the first tab: one server
        assert not pane.has_class("-cluster")
        assert not live.query_one("#live-nodes", Tabs).display
        assert not live.query_one("#live-lag", LineChart).display
        assert live.query_one("#live-cpu", LineChart).chart_title == "CPU % (vmstat)"

        live.query_one("#live-tabs", HostTabs).focus()
        await pilot.press("right")  # the cluster's primary host
        await settle(pilot)
        assert pane.has_class("-cluster")
        assert live.query_one("#live-lag", LineChart).display
        assert static_text(pane.query_one(".live-headline", Static)).split("\n")[2] == CLUSTER_LINE
        assert len(pane.query(NodeTab)) == 3


def test_the_primary_shows_the_runs_own_vmstat_until_the_cluster_sends_its_own() -> None:
    model = LiveModel()
    for ev in cluster_events():
        if isinstance(ev, ClusterBatch):  # a sampling that sends the replicas' only
            ev = replace(ev, vm=tuple(n for n in ev.vm if n.node != "p"), io=())
        model.apply(ev)
    v = model.view(RUN_ID)
    assert v.cluster is not None
    pane = HostPane()
    pane.node = "p"
    assert pane.node_series(v).vm is v.vm
    assert pane.node_series(v).io is v.io
    pane.node = "r1"
    assert pane.node_series(v).vm is v.cluster.nodes["r1"].vm
    assert pane.node_series(v).io["r_s"] == []  # no iostat of r1: empty, not the primary's
    pane.node = None  # (one server)
    assert pane.node_series(v).vm is v.vm
