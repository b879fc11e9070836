"""A sysbench write run through the primary of a real MariaDB primary+replica, over the test sshd:
the replica's lag, vmstat and iostat come beside the primary's samples; a replica stopped
mid-run is a fault (and back), and the run goes on."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.cluster.records import LagSample, NodeFault
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.events import (
    BenchBatch,
    ClusterBatch,
    ClusterPlanned,
    LogLine,
    RunEvent,
    RunFinished,
    RunStarted,
)
from benchdeck.engine.hosts.inventory_file import parse_inventory
from benchdeck.engine.planning.plan import RunOptions, RunRequest
from benchdeck.engine.running.session import Session, execute
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.runs import NewRun, create_run
from tests.fixtures.cli_helpers import mariadb_build, postgres_build, sshd_host
from tests.fixtures.servers import run_checked
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.replication import MariaDBReplication, PostgresStreaming, mariadb_query
from tests.fixtures.servers.sshd import SshdServer

BUILD = "ma101119_rel"
PG_BUILD = "pg160_rel"


def session_on(tmp_path: Path, sshd: SshdServer, repl: MariaDBReplication) -> Session:
    """Host ``sshd`` with the primary as an external build; cluster ``loop2``: p and r1."""
    p, r = repl.primary, repl.replicas[0]
    # one benchmark user on every node, as a replicated user would be (the test puts it back)
    bench_password(r, p.password)
    toml = sshd_host("sshd", sshd, tmp_path / "remote", "threads = 2\ntables = 1\ntable_size = 2000")
    inv = parse_inventory(toml + mariadb_build("sshd", BUILD, p), tmp_path / "benchdeck.toml")
    nodes = (ClusterNode("p", "sshd", "primary"), ClusterNode("r1", "sshd", "replica", r.port))
    return Session(dataclasses.replace(inv, clusters={"loop2": ClusterSpec("loop2", "async", nodes)}))


Step = tuple[float, Callable[[], object]]


async def run_with(session: Session, req: RunRequest, *steps: Step) -> tuple[list[RunEvent], list[float]]:
    """Run ``req``; each step's action once sysbench's clock passed its seconds after the step
    before (the first: after the start). Its events, and the ``t`` each step was taken at."""
    seen: list[RunEvent] = []
    taken: list[float] = []
    try:
        async for ev in execute(session, req, 1):
            seen.append(ev)
            if isinstance(ev, BenchBatch) and len(taken) < len(steps):
                after, action = steps[len(taken)]
                if ev.rows[-1].t >= (taken[-1] if taken else 0) + after:
                    action()
                    taken.append(ev.rows[-1].t)
    finally:
        await session.close()
    assert len(taken) == len(steps), (taken, seen[-1])
    return seen, taken


def stored_cluster_rows(
    db: Path, seen: list[RunEvent]
) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """The run's events stored as the run service stores them (run id 1 in a new store): its
    replica_lag and node_faults rows in time order."""
    with Store.open(db) as store:
        with store.transaction() as cur:
            assert create_run(cur, NewRun("sshd", parse_build_name(BUILD), "write-only", "run")) == 1
        sink = EventSink(store, batch_time=0)
        sink.handle_many(seen)
        sink.close()
        cur = store.cursor()
        lag = cur.execute("SELECT node, t, lag_s, behind_trx, state FROM replica_lag ORDER BY t, node")
        lag_rows = lag.fetchall()
        faults = cur.execute("SELECT node, t, kind, reason FROM node_faults ORDER BY t").fetchall()
    return lag_rows, faults


def bench_password(server: MariaDBServer, password: str) -> None:
    """``bench``'s password on ``server`` alone (not written to its binary log)."""
    users = ", ".join(f"'bench'@'{h}' IDENTIFIED BY '{password}'" for h in ("%", "127.0.0.1", "localhost"))
    mariadb_query(server, f"SET sql_log_bin = 0; ALTER USER {users}")


async def test_a_write_run_on_a_cluster_samples_the_replica_and_goes_on_when_it_stops(
    tmp_path: Path, sshd_server: SshdServer, mariadb_replication: MariaDBReplication
) -> None:
    repl = mariadb_replication
    replica = repl.replicas[0]
    session = session_on(tmp_path, sshd_server, repl)
    req = RunRequest("sshd", BUILD, "write-only", RunOptions(duration_s=12), cluster="loop2")
    try:
        seen, (stopped_at, started_at) = await run_with(
            session,
            req,
            (3, lambda: mariadb_query(replica, "STOP REPLICA SQL_THREAD")),
            (3, lambda: mariadb_query(replica, "START REPLICA SQL_THREAD")),
        )
    finally:
        mariadb_query(replica, "START REPLICA SQL_THREAD")  # again, if the run failed between
        bench_password(replica, replica.password)
    assert isinstance(seen[-1], RunFinished), seen[-1]
    kinds = [type(e).__name__ for e in seen]
    assert kinds.index("ClusterPlanned") < kinds.index("RunStarted")
    planned = next(e for e in seen if isinstance(e, ClusterPlanned))
    assert [n.name for n in planned.cluster.nodes] == ["p", "r1"]
    batches = [e for e in seen if isinstance(e, ClusterBatch)]
    lag: list[LagSample] = [s for b in batches for s in b.lag]
    faults: list[NodeFault] = [f for b in batches for f in b.faults]
    vm_nodes = {v.node for b in batches for v in b.vm}
    assert vm_nodes == {"p", "r1"}
    assert {i.node for b in batches for i in b.io} == {"p", "r1"}
    assert {s.node for s in lag} == {"r1"}
    assert len(lag) >= 10
    # the fault sits on the run's clock where the test stopped the SQL thread (sysbench's t)
    assert [(f.node, f.kind) for f in faults] == [("r1", "stopped"), ("r1", "back")]
    assert stopped_at - 0.5 <= faults[0].t <= stopped_at + 2.5, (faults, stopped_at)
    assert started_at - 0.5 <= faults[1].t <= started_at + 2.5, (faults, started_at)
    while_stopped = [s for s in lag if s.state == "stopped"]
    assert while_stopped
    assert max(s.behind_trx or 0 for s in while_stopped) > 0
    said = [e.text for e in seen if isinstance(e, LogLine) and "cluster:" in e.text]
    assert any("r1 stopped" in t and "goes on" in t for t in said), said
    assert any("r1 is back" in t for t in said), said
    # the replica caught up: its last samples are on time, as SHOW REPLICA STATUS says now
    repl.sync()
    assert lag[-1].state == "ok"
    assert lag[-1].lag_s == 0.0
    run_started = next(e for e in seen if isinstance(e, RunStarted))
    assert Path(run_started.remote_dir, "r1.lag.out").exists()
    # stored as sampled: the store's rows are the engine's samples and faults, each once
    rows, stored_faults = stored_cluster_rows(tmp_path / "s.duckdb", seen)
    assert rows == [(s.node, s.t, s.lag_s, s.behind_trx, s.state) for s in lag]
    assert stored_faults == [(f.node, f.t, f.kind, f.reason) for f in faults]


async def test_a_write_run_on_a_postgres_standby_pair_samples_bytes_and_seconds_behind(
    tmp_path: Path, sshd_server: SshdServer, postgres_streaming: PostgresStreaming
) -> None:
    """Replay paused on the standby mid-run: the primary's pg_stat_replication sees it fall
    behind (seconds and bytes), then catch up; a paused replay still streams: no fault."""
    pg = postgres_streaming
    toml = sshd_host("sshd", sshd_server, tmp_path / "remote", "threads = 1\ntables = 1\ntable_size = 2000")
    inv = parse_inventory(toml + postgres_build("sshd", PG_BUILD, pg.primary), tmp_path / "benchdeck.toml")
    nodes = (ClusterNode("p", "sshd", "primary"), ClusterNode("s1", "sshd", "replica", pg.standby.port))
    session = Session(dataclasses.replace(inv, clusters={"pg2": ClusterSpec("pg2", "streaming", nodes)}))
    standby_sql = [*pg.standby.psql_argv(), "-Atc"]
    req = RunRequest("sshd", PG_BUILD, "write-only", RunOptions(duration_s=10), cluster="pg2")
    try:
        seen, (paused_at, resumed_at) = await run_with(
            session,
            req,
            (2, lambda: run_checked([*standby_sql, "SELECT pg_wal_replay_pause()"], "pause")),
            (4, lambda: run_checked([*standby_sql, "SELECT pg_wal_replay_resume()"], "resume")),
        )
    finally:
        run_checked([*standby_sql, "SELECT pg_wal_replay_resume()"], "resume")  # if the run failed between
    assert isinstance(seen[-1], RunFinished), seen[-1]
    batches = [e for e in seen if isinstance(e, ClusterBatch)]
    lag = [s for b in batches for s in b.lag]
    assert {s.node for s in lag} == {"s1"}
    assert not [f for b in batches for f in b.faults]
    during = [s for s in lag if paused_at + 1 <= s.t <= resumed_at]
    assert max(s.lag_s or 0 for s in during) >= 2  # seconds behind, grown while paused
    assert max(s.behind_bytes or 0 for s in during) > 0  # WAL bytes not replayed yet
    after = [s for s in lag if s.t >= resumed_at + 2]
    assert min(s.behind_bytes if s.behind_bytes is not None else 1 for s in after) == 0  # caught up
