"""A node whose lag probe falls silent (its processes frozen with SIGSTOP, as a frozen or cut-off
host leaves them) is gone until its lines come again: a real replica over the test sshd."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from benchdeck.engine.cluster.records import NodeFault
from benchdeck.engine.cluster.sampling import ClusterSampler, plan_sampling
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.events import ClusterBatch, LogLine, RunEvent
from benchdeck.engine.transport import SSHTransport, Transport
from tests.fixtures.servers.replication import MariaDBReplication


async def until(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:  # noqa: ASYNC109
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"no {what} after {timeout:g} s"
        await asyncio.sleep(0.1)


async def test_a_silent_probe_makes_its_node_gone_then_back(
    ssh: SSHTransport, mariadb_replication: MariaDBReplication, tmp_path: Path
) -> None:
    r = mariadb_replication.replicas[0]
    client = ["mariadb", "--no-defaults", "-h", r.host, "-P", str(r.port), f"-u{r.user}", f"-p{r.password}"]
    cluster = ClusterSpec("loop2", "async", (ClusterNode("p", "sshd", "primary"), ClusterNode("r1", "sshd")))
    sampling = plan_sampling(cluster, "mariadb", {"r1": client}, {"sshd": str(tmp_path)}, 60, monitors=False)
    seen: list[RunEvent] = []

    async def connect(host: str) -> Transport:
        return ssh

    sampler = ClusterSampler(sampling, connect, 7, seen.append)
    await sampler.start()
    t0 = time.time()
    sampler.follow(t0)
    (pgid,) = sampler.process_groups

    def faults() -> list[NodeFault]:
        return [f for e in seen if isinstance(e, ClusterBatch) for f in e.faults]

    try:
        await until(lambda: any(isinstance(e, ClusterBatch) and e.lag for e in seen), "lag sample")
        await ssh.kill_group(pgid, "STOP")
        stopped = time.time()
        try:
            await until(lambda: len(faults()) == 1, "gone fault", timeout=20)
        finally:
            await ssh.kill_group(pgid, "CONT")
        await until(lambda: len(faults()) == 2, "back fault", timeout=20)
    finally:
        await sampler.stop()
    (gone, back) = faults()
    assert (gone.node, gone.kind, back.kind) == ("r1", "gone", "back")
    assert "no lag probe line from sshd" in gone.reason
    # the node went silent about when the probe was frozen (its last line, at most ~1 s before)
    assert stopped - t0 - 2.5 <= gone.t <= stopped - t0 + 0.5, (gone.t, stopped - t0)
    said = [e.text for e in seen if isinstance(e, LogLine)]
    assert any("r1 gone" in t and "goes on" in t for t in said), said
    assert any("1 node(s) had faults" in t for t in said), said
    lag = [s for e in seen if isinstance(e, ClusterBatch) for s in e.lag]
    assert lag[-1].state == "ok"
