"""The lag probe on a real MariaDB replica over the test sshd: its lag beside the server's own view."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

from benchdeck.engine.cluster.lag_parse import LagParser
from benchdeck.engine.cluster.lag_probe import probe_argv, probe_kind
from benchdeck.engine.transport import SSHTransport
from tests.engine.cluster.helpers import ProbeFile, table_locked, tcp_client
from tests.fixtures.servers import die_with_parent, run_checked, wait_until
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.replication import MariaDBReplication, mariadb_query


class Pair:
    """The shared fixture's primary and replica, with what these tests do to them."""

    def __init__(self, repl: MariaDBReplication):
        self.repl, self.primary, self.replica = repl, repl.primary, repl.replicas[0]

    def sql(self, server: MariaDBServer, query: str) -> str:
        return mariadb_query(server, query).strip()

    def stop_replica_server(self) -> None:
        r = self.replica
        run_checked(
            ["mariadb-admin", "--no-defaults", f"--socket={r.socket}", "-uroot", "shutdown"], "shutdown"
        )
        r._proc.wait(30)

    def start_replica_server(self) -> None:
        """mariadbd again on its datadir; replication restarts by itself (no skip-slave-start)."""
        r = self.replica
        r._proc = subprocess.Popen(
            [*die_with_parent(), "mariadbd", f"--defaults-file={r.defaults_file}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=r.base_dir,
        )
        r.pid = r._proc.pid
        ping = ["mariadb-admin", "--no-defaults", f"--socket={r.socket}", "-uroot", "ping"]
        wait_until(
            lambda: subprocess.run(ping, capture_output=True).returncode == 0, timeout=60, what="replica"
        )


async def start_probe(ssh: SSHTransport, pair: Pair, tmp_path: Path) -> tuple[ProbeFile, int]:
    argv = probe_argv(probe_kind("mariadb", "async"), tcp_client(pair.replica), count=120)
    t0 = time.time()
    dp = await ssh.start_detached(argv, run_dir=str(tmp_path), stdout_name="r1.lag.out")
    return ProbeFile(tmp_path / "r1.lag.out", LagParser("replica", ["r1"], t0)), dp.pgid


class Watch:
    """SHOW REPLICA STATUS as the test itself sees it, four times a second, with the epoch."""

    def __init__(self, pair: Pair):
        self.pair, self.seen = pair, []  # type: ignore[var-annotated]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        q = "SHOW REPLICA STATUS"
        while not self._stop.is_set():
            t = time.time()
            res = subprocess.run(self.pair.replica.client_argv("-E", "-e", q), capture_output=True, text=True)
            sbm = next(
                (ln.split(":")[1].strip() for ln in res.stdout.splitlines() if "Seconds_Behind" in ln), "NULL"
            )
            self.seen.append((t, None if sbm == "NULL" else int(sbm)))
            self._stop.wait(0.25)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def near(self, epoch: float) -> list[int | None]:
        return [v for t, v in self.seen if epoch - 0.3 <= t <= epoch + 1.2]


def writes(pair: Pair, n: int) -> subprocess.Popen[str]:
    """``n`` small inserts on the primary, 0.1 s apart, through one client."""
    script = "CREATE TABLE IF NOT EXISTS sbtest.lagt (id INT AUTO_INCREMENT PRIMARY KEY, v INT);\n"
    script += "INSERT INTO sbtest.lagt (v) VALUES (1); DO SLEEP(0.1);\n" * n
    p = subprocess.Popen(pair.primary.client_argv(), stdin=subprocess.PIPE, text=True)
    assert p.stdin is not None
    p.stdin.write(script)
    p.stdin.close()
    return p


async def test_lag_rises_and_falls_as_show_replica_status_says(
    ssh: SSHTransport, mariadb_replication: MariaDBReplication, tmp_path: Path
) -> None:
    pair = Pair(mariadb_replication)
    pair.sql(
        pair.primary, "CREATE TABLE IF NOT EXISTS sbtest.lagt (id INT AUTO_INCREMENT PRIMARY KEY, v INT)"
    )
    pair.repl.sync()
    probe, pgid = await start_probe(ssh, pair, tmp_path)
    watch = Watch(pair)
    load = writes(pair, 400)
    try:
        with table_locked(pair.replica, "sbtest.lagt"):
            probe.until(lambda s: (s.lag_s or 0) >= 4, "the probe's lag at 4 s")
        probe.until(lambda s: s.lag_s == 0 and s.t > probe.parser.samples[-1].t - 0.5, "lag back to 0")
        pair.sql(pair.replica, "STOP REPLICA SQL_THREAD")
        probe.until(lambda s: s.state == "stopped", "a stopped sample")
        pair.sql(pair.replica, "START REPLICA SQL_THREAD")
        probe.until(
            lambda s: s.state == "ok" and any(x.state == "stopped" for x in probe.parser.samples[:-1]), "back"
        )
    finally:
        load.kill()
        load.wait()
        watch.stop()
        await ssh.kill_group(pgid)
    samples = probe.poll()
    assert not probe.parser.skipped
    # each second's lag is what SHOW REPLICA STATUS said around that second (it moves 1 s a second)
    checked = 0
    for s in samples:
        near = [v for v in watch.near(s.t + probe.parser.t0) if v is not None]
        if s.lag_s is not None and near:
            assert min(abs(s.lag_s - v) for v in near) <= 1, (s, near)
            checked += 1
    assert checked >= 5
    lags = [s.lag_s for s in samples if s.lag_s is not None]
    top = lags.index(max(lags))
    assert max(lags) >= 4
    assert 0 in lags[top:]
    stopped = [s for s in samples if s.state == "stopped"]
    assert stopped
    assert all(s.lag_s is None for s in stopped)
    assert any((s.behind_trx or 0) > 0 for s in stopped)  # received, not applied
    kinds = [(f.kind, f.node) for f in probe.parser.faults]
    assert kinds == [("stopped", "r1"), ("back", "r1")]
    assert "SQL thread No" in probe.parser.faults[0].reason
    assert probe.parser.faults[0].t == stopped[0].t


async def test_a_replica_that_goes_away_is_gone_then_back(
    ssh: SSHTransport, mariadb_replication: MariaDBReplication, tmp_path: Path
) -> None:
    pair = Pair(mariadb_replication)
    probe, pgid = await start_probe(ssh, pair, tmp_path)
    try:
        probe.until(lambda s: s.state == "ok", "a first sample")
        pair.stop_replica_server()
        try:
            probe.until(lambda s: s.state == "gone", "a gone sample")
        finally:
            pair.start_replica_server()
        probe.until(
            lambda s: (
                s.state == "ok" and probe.parser.faults[-1:] != [] and probe.parser.faults[-1].kind == "back"
            ),
            "back",
        )
    finally:
        await ssh.kill_group(pgid)
    faults = probe.parser.faults
    assert [f.kind for f in faults] == ["gone", "back"]
    assert "connect" in faults[0].reason.lower()  # the client's own words
    gone = [s for s in probe.parser.samples if s.state == "gone"]
    assert gone[0].t == faults[0].t
    assert all(s.lag_s is None for s in gone)
    pair.repl.sync()
