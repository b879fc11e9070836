"""The Galera probe on a real two-node cluster over the test sshd: a node whose applier waits
(a table locked on it) sends flow control, and the cluster's paused time is what the server counts."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from benchdeck.engine.cluster.lag_parse import LagParser
from benchdeck.engine.cluster.lag_probe import probe_argv, probe_kind
from benchdeck.engine.transport import SSHTransport
from tests.engine.cluster.conftest import GaleraPair
from tests.engine.cluster.helpers import ProbeFile, table_locked, tcp_client
from tests.fixtures.servers import run_checked, wait_until
from tests.fixtures.servers.mariadb import MariaDBServer


def status(server: MariaDBServer, name: str) -> int:
    out = run_checked(server.client_argv("-N", "-e", f"SHOW STATUS LIKE '{name}'"), name).stdout
    return int(out.split()[1])


async def test_flow_control_paused_time_is_the_server_s_own_count(
    ssh: SSHTransport, galera_pair: GaleraPair, tmp_path: Path
) -> None:
    first, second = galera_pair.first, galera_pair.second
    run_checked(
        first.client_argv("-e", "CREATE TABLE IF NOT EXISTS sbtest.fc (id INT AUTO_INCREMENT PRIMARY KEY)"),
        "t",
    )
    wait_until(lambda: status(second, "wsrep_local_recv_queue") == 0, timeout=30, what="node 2 applied")
    client = tcp_client(second)
    paused_before = status(second, "wsrep_flow_control_paused_ns")
    t0 = time.time()
    dp = await ssh.start_detached(
        probe_argv(probe_kind("mariadb", "galera"), client, 60),
        run_dir=str(tmp_path),
        stdout_name="g2.lag.out",
    )
    probe = ProbeFile(tmp_path / "g2.lag.out", LagParser("galera", ["g2"], t0))
    samples, parser = probe.poll, probe.parser
    try:
        wait_until(lambda: len(samples()) >= 2, timeout=30, what="two samples")
        with table_locked(second, "sbtest.fc"):
            writes = "INSERT INTO sbtest.fc VALUES ();\n" * 100
            load = subprocess.Popen(first.client_argv(), stdin=subprocess.PIPE, text=True)  # noqa: ASYNC220
            assert load.stdin is not None
            load.stdin.write(writes)
            load.stdin.close()
            wait_until(
                lambda: sum((s.paused_s or 0) >= 0.5 for s in samples()) >= 3, timeout=30, what="paused s"
            )
        load.wait(30)
        resumed = len(samples())
        wait_until(lambda: any(s.paused_s == 0 for s in samples()[resumed:]), timeout=30, what="unpaused")
    finally:
        await ssh.kill_group(dp.pgid)
    paused_after = status(second, "wsrep_flow_control_paused_ns")
    got = samples()
    assert not parser.skipped
    assert not parser.faults
    assert {s.state for s in got} == {"ok"}
    # the seconds' paused shares add up to what the server counted over the whole test
    counted = (paused_after - paused_before) / 1e9
    assert counted >= 2.5
    assert abs(sum(s.paused_s or 0 for s in got) - counted) < 0.2, (counted, [s.paused_s for s in got])
    assert all((s.paused_s or 0) <= 1.5 for s in got)  # a share of about one second, never more
    assert max(s.behind_trx or 0 for s in got) > 0  # writes queued on the locked node
    assert got[-1].behind_trx == 0
