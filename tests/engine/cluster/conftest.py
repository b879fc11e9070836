"""A MariaDB primary and an asynchronous replica on loopback, for the lag and cluster-run tests.

A small stand-in until h41-setup's shared fixture (tests/fixtures/servers/replication.py) is
merged: two servers from the shared MariaDB fixture, the first with a binary log, the second
replicating from it by GTID.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.fixtures.servers import die_with_parent, run_checked, wait_until
from tests.fixtures.servers import mariadb as mariadb_fixture
from tests.fixtures.servers.mariadb import MariaDBServer, start_mariadb


@dataclass
class MariaDBPair:
    primary: MariaDBServer
    replica: MariaDBServer

    def sql(self, server: MariaDBServer, query: str) -> str:
        """``query``'s output (batch, no column names) as root over the socket."""
        res = subprocess.run(server.client_argv("-B", "-N", "-e", query), capture_output=True, text=True)
        if res.returncode != 0:
            raise AssertionError(f"{query}: {res.stderr.strip()}")
        return res.stdout.strip()

    def caught_up(self) -> bool:
        return self.sql(self.replica, "SELECT @@gtid_slave_pos") == self.sql(
            self.primary, "SELECT @@gtid_binlog_pos"
        )

    def stop_replica_server(self) -> None:
        r = self.replica
        run_checked(
            ["mariadb-admin", "--no-defaults", f"--socket={r.socket}", "-uroot", "shutdown"], "shutdown"
        )
        r._proc.wait(30)

    def start_replica_server(self) -> None:
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


def _start(server_id: int) -> MariaDBServer:
    extra = f"server-id = {server_id}\nlog-bin = mysql-bin\nbinlog_format = ROW\nlog-slave-updates"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mariadb_fixture, "CONFIG", mariadb_fixture.CONFIG.replace("skip-log-bin", extra))
        return start_mariadb()


@pytest.fixture(scope="session")
def mariadb_pair() -> Iterator[MariaDBPair]:
    """A primary and a replica replicating from it (``repl`` user, GTID ``slave_pos``)."""
    primary = _start(1)
    replica = _start(2)
    pair = MariaDBPair(primary, replica)
    try:
        pair.sql(
            primary,
            "CREATE USER repl@'127.0.0.1' IDENTIFIED BY 'repl';"
            " GRANT REPLICATION SLAVE ON *.* TO repl@'127.0.0.1'",
        )
        pos = pair.sql(primary, "SELECT @@gtid_binlog_pos")
        pair.sql(
            replica,
            f"SET GLOBAL gtid_slave_pos = '{pos}'; CHANGE MASTER TO MASTER_HOST='127.0.0.1',"
            f" MASTER_PORT={primary.port}, MASTER_USER='repl', MASTER_PASSWORD='repl',"
            " MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1; START REPLICA",
        )
        wait_until(pair.caught_up, timeout=30, what="replication")
        yield pair
    finally:
        replica.stop()
        primary.stop()
