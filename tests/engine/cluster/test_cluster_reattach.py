"""A benchdeck that stops following a run on a cluster (its task cancelled, its transports
dropped, as when the app quits) leaves the replica's sources running; a new one reattaches with
``RunStarted.nodes`` and reads every lag line the probe wrote, those of the gap too (real
MariaDB primary+replica, over the test sshd)."""

from __future__ import annotations

from pathlib import Path

from benchdeck.engine.cluster.lag_parse import LagParser
from benchdeck.engine.events import BenchBatch, ClusterBatch, Planned, RunEvent, RunFinished, RunStarted
from benchdeck.engine.planning.plan import RunOptions, RunRequest
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.running.session import Session, execute
from tests.engine.cluster.test_cluster_run import BUILD, bench_password, session_on
from tests.fixtures.servers.replication import MariaDBReplication
from tests.fixtures.servers.sshd import SshdServer


async def test_a_cluster_run_let_go_and_reattached_reads_every_lag_line(
    tmp_path: Path, sshd_server: SshdServer, mariadb_replication: MariaDBReplication
) -> None:
    replica = mariadb_replication.replicas[0]
    first = session_on(tmp_path, sshd_server, mariadb_replication)
    req = RunRequest("sshd", BUILD, "write-only", RunOptions(duration_s=8), cluster="loop2")
    seen: list[RunEvent] = []
    try:
        async for ev in execute(first, req, 1):
            seen.append(ev)
            if isinstance(ev, BenchBatch) and ev.rows[-1].t >= 2:
                break  # this benchdeck lets go: the run and its nodes' sources go on
    finally:
        await first.close()
    plan = next(e.plan for e in seen if isinstance(e, Planned))
    started = next(e for e in seen if isinstance(e, RunStarted))
    assert sorted((n.node, n.what) for n in started.nodes) == [
        ("r1", "iostat"),
        ("r1", "lag"),
        ("r1", "vmstat"),
    ]
    let_go_at = max(s.t for e in seen if isinstance(e, ClusterBatch) for s in e.lag)

    second = Session(first.inventory)
    again: list[RunEvent] = []
    try:
        runner = Runner(await second.transport("sshd"), plan, connect=second.transport)
        async for ev in runner.events(started.procs, started.nodes):
            again.append(ev)
    finally:
        await second.close()
        bench_password(replica, replica.password)
    assert isinstance(again[-1], RunFinished), again[-1]
    (lag,) = [n for n in started.nodes if n.what == "lag"]
    text = Path(lag.run_dir, lag.out).read_text()
    parser = LagParser(lag.probe, lag.covers, lag.t0 + lag.skew)
    in_file = [s.t for line in text.splitlines() for s in parser.feed(line)[0]]
    read = [s.t for e in again if isinstance(e, ClusterBatch) for s in e.lag]
    assert read == in_file  # from the file's start (the store drops what it holds)
    assert next(t for t in read if t > let_go_at) < let_go_at + 1.6  # none lost while let go
    assert read[-1] >= 7  # and on to the run's end
    assert {v.node for e in again if isinstance(e, ClusterBatch) for v in e.vm} == {"p", "r1"}
