"""Write docs/screenshots/launch.svg and live.svg at 100x30 from fixed, made-up data.

Run with ``python -m tests.app.make_live_screenshots`` from the repository root. The setups here
are shared with the snapshot tests (``tests/app/test_snapshots_live.py``): Launch on an empty
store with the host facts replaced by a fixed line, and Live fed a fixed :class:`LiveModel`
(nothing runs).
"""

from __future__ import annotations

import asyncio
import math
import os
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from benchdeck.engine.cluster.records import LagSample, NodeFault, NodeIostat, NodeVmstat
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.events import (
    BenchBatch,
    ClusterBatch,
    ClusterPlanned,
    IostatBatch,
    LogLine,
    Phase,
    Planned,
    RunEvent,
    RunStarted,
    VmstatBatch,
)
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample
from benchdeck.tui.app.state.live_model import LiveModel
from tests.app.helpers import settle

OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
SIZE = (100, 30)
DB_NAME = "bd.duckdb"  # its name shows in the header
FACTS = "local: Intel(R) Xeon(R) CPU E5-2680 v4, 4 cores, SMT off, 16.0 GiB RAM, kernel 6.1.0, Debian 12"

RUN_ID = 3
HOST = "local"
BUILD = "sqlite-sync"
WORKLOAD = "update-index_range=100"
DURATION_S = 30
SECONDS = 12  # samples so far
BASE_QPS = 2400.0


def write_inventory(dir: Path) -> Path:
    """An inventory with only the ``local`` host, its runs under ``dir`` (set $BENCHDECK_CONFIG)."""
    cfg = dir / "benchdeck.toml"
    cfg.write_text(f'[hosts.local]\ntransport = "local"\nworkdir = "{dir / "work"}"\n')
    return cfg


async def wait_for_launch(pilot: Pilot[Any], within: float = 10.0) -> None:
    """An empty store opens on Launch: wait until it is filled in and its facts are loaded."""
    from benchdeck.tui.app.screens.launch import LaunchScreen

    deadline = time.monotonic() + within
    while not (isinstance(pilot.app.screen, LaunchScreen) and pilot.app.screen.query("#launch-matrix")):
        if time.monotonic() > deadline:
            raise AssertionError(f"no Launch screen after {within:.0f} s")
        await pilot.pause(0.05)
    await settle(pilot)  # the facts worker has finished: what it wrote is replaced below


def fix_launch(pilot: Pilot[Any]) -> None:
    """Launch as it is, with this machine's facts replaced by :data:`FACTS` and the run
    directories by the default's (the test's are in its tmp dir)."""
    from benchdeck.tui.app.screens.launch_choices import where_runs_go

    pilot.app.screen.query_one("#launch-facts", Static).update(FACTS)
    pilot.app.screen.query_one("#launch-where", Static).update(where_runs_go(HOST, "~/benchdeck-runs"))


def live_events() -> list[RunEvent]:
    """Run 3 of a queue, 12 s into a 30 s measurement: fixed QPS, latency, vmstat, iostat, log."""
    plan = RunPlan(
        run_id=RUN_ID,
        host=HOST,
        workload=WORKLOAD,
        remote_dir="/srv/benchdeck/runs/run3-abc123",
        bench_argv=("python", "-m", "benchdeck.engine.families.builtin.sqlite_bench"),
        duration_s=DURATION_S,
        build=BUILD,
    )
    bench = tuple(
        BenchInterval(
            t=float(t),
            threads=1,
            tps=round(1250 + 90 * math.sin(t / 2), 1),
            qps=round(1250 + 90 * math.sin(t / 2), 1),
            latency_ms=round(1.1 + 0.2 * math.cos(t / 3), 2),
        )
        for t in range(1, SECONDS + 1)
    )
    vmstat = tuple(
        VmstatSample(
            seq=i,
            r=1 + i % 3,
            b=0,
            swpd=0,
            free=8_000_000,
            buff=100_000,
            cache=4_000_000,
            si=0,
            so=0,
            bi=0,
            bo=4000 + 100 * i,
            in_=3000,
            cs=9000 + 250 * (i % 4),
            us=40 + i % 5,
            sy=12 + i % 3,
            id=40 - i % 5,
            wa=8 - i % 3,
            st=0,
        )
        for i in range(SECONDS)
    )
    iostat = tuple(
        IostatSample(
            seq=i,
            device="nvme0n1",
            r_s=0.0,
            w_s=float(800 + 40 * (i % 4)),
            rkb_s=0.0,
            wkb_s=float(5200 + 300 * (i % 4)),
        )
        for i in range(SECONDS)
    )
    return [
        Planned(RUN_ID, plan),
        Phase(RUN_ID, "preflight"),
        Phase(RUN_ID, "prepare", "1 table, 100000 rows"),
        RunStarted(RUN_ID, HOST, plan.remote_dir, datetime(2024, 11, 1, 12, 0, 0)),
        BenchBatch(RUN_ID, bench),
        VmstatBatch(RUN_ID, vmstat),
        IostatBatch(RUN_ID, iostat),
        LogLine(RUN_ID, "stdout", "[ 10s ] thds: 1 tps: 1204.2 qps: 1204.2 lat (ms,95%): 1.23"),
        LogLine(RUN_ID, "stderr", "sqlite: synchronous=FULL, journal_mode=WAL"),
    ]


CLUSTER = ClusterSpec(
    "loop3",
    "async",
    (
        ClusterNode("p", HOST, "primary"),
        ClusterNode("r1", HOST, port=3407),
        ClusterNode("r2", HOST, port=3408),
    ),
    lag_limit_s=10.0,
)
STOPPED_AT = 12.0  # r2's SQL thread stops: its lag rose past the limit before
STOP_REASON = "Error 'Duplicate entry 42' on query (1062)"


def _node_vm(i: int, busy: int) -> VmstatSample:
    """A replica's vmstat: ``busy`` % user CPU, a few k context switches."""
    return VmstatSample(
        seq=i, r=1 + i % 2, b=0, swpd=0, free=8_000_000, buff=100_000, cache=4_000_000, si=0, so=0,
        bi=0, bo=2000, in_=2000, cs=4000 + 100 * busy, us=busy + i % 3, sy=5, id=90 - busy - i % 3,
        wa=5, st=0,
    )  # fmt: skip


def cluster_events() -> list[RunEvent]:
    """The fixed run on cluster ``loop3``: r1 keeps up, r2 falls behind past the 10 s limit,
    then stops at second 12; each node's vmstat and iostat (the primary's as the run's own)."""
    own = live_events()
    vm = own[5]
    io = own[6]
    assert isinstance(vm, VmstatBatch)
    assert isinstance(io, IostatBatch)
    lag = [
        LagSample(node, float(t), s, None, trx)
        for t in range(1, SECONDS)
        for node, s, trx in (("r1", 0.2 + 0.1 * (t % 3), t % 3), ("r2", float(t) - 0.5, 40 * t))
    ]
    lag.append(LagSample("r1", STOPPED_AT, 0.4, None, 1))
    lag.append(LagSample("r2", STOPPED_AT, None, state="stopped"))
    nodes_vm = [NodeVmstat("p", v) for v in vm.rows]
    replicas = (("r1", 15, 1), ("r2", 30, 2))  # node, user CPU %, iostat's multiple
    nodes_vm += [NodeVmstat(n, _node_vm(i, busy)) for i in range(SECONDS) for n, busy, _ in replicas]
    nodes_io = [NodeIostat("p", s) for s in io.rows]
    nodes_io += [
        NodeIostat(n, IostatSample(i, "nvme0n1", 0.0, k * (300.0 + 10 * i), 0.0, k * (2100.0 + 50 * i)))
        for i in range(SECONDS)
        for n, _, k in replicas
    ]
    fault = NodeFault("r2", STOPPED_AT, "stopped", STOP_REASON)
    return [
        own[0],
        ClusterPlanned(RUN_ID, CLUSTER),
        *own[1:],
        ClusterBatch(RUN_ID, lag=tuple(lag), vm=tuple(nodes_vm), io=tuple(nodes_io)),
        ClusterBatch(RUN_ID, faults=(fault,)),
    ]


def feed_live(model: LiveModel, events: list[RunEvent] | None = None) -> None:
    """Make ``model`` hold the fixed run: its events (``events``: the same run's, another
    way, e.g. :func:`cluster_events`), the base's QPS and the queue's progress."""
    from benchdeck.tui.services.eta import Eta, QueuePhase

    model.clock = lambda: 0.0  # the header's ETA as the log's line gave it (no time passes)
    eta = Eta(HOST, 3, 6, 4 * (DURATION_S + 5.0))
    model.apply(QueuePhase(RUN_ID, "queue", f"3/6 {BUILD} {WORKLOAD} ETA 2m20s", eta))
    for ev in live_events() if events is None else events:
        model.apply(ev)
    model.view(RUN_ID).base_qps = BASE_QPS
    model.version += 1


async def show_live(pilot: Pilot[Any], events: list[RunEvent] | None = None) -> None:
    """Feed the hub's model, switch to Live and redraw it (after :func:`wait_for_launch`)."""
    from benchdeck.tui.app.screens.live import HostTab, LiveScreen

    app = pilot.app
    feed_live(app.hub.model, events)  # type: ignore[attr-defined]
    await pilot.press("5")
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, LiveScreen), f"expected the Live screen, on {type(screen).__name__}"
    deadline = time.monotonic() + 10
    while not screen.query(HostTab):
        if time.monotonic() > deadline:
            raise AssertionError("no tab for the fixed run's host")
        await pilot.pause(0.05)
    screen.refresh_live()
    await settle(pilot)


async def _shots(db: Path) -> list[Path]:
    from benchdeck.tui.app.app import BenchdeckApp

    OUT.mkdir(parents=True, exist_ok=True)
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_launch(pilot)
        fix_launch(pilot)
        await settle(pilot)
        launch = Path(app.save_screenshot("launch.svg", str(OUT)))
        await show_live(pilot)
        live = Path(app.save_screenshot("live.svg", str(OUT)))
    return [launch, live]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["BENCHDECK_CONFIG_DIR"] = str(Path(tmp) / "config")  # the default theme, always
        os.environ["BENCHDECK_CONFIG"] = str(write_inventory(Path(tmp)))  # only the local host
        os.chdir(tmp)  # the header shows the store relative to the working directory
        for path in asyncio.run(_shots(Path(tmp) / DB_NAME)):
            print(path)


if __name__ == "__main__":
    main()
