"""The inventory for these tests: host ``sshd`` (real sshd, MariaDB build with configs a and b)
and host ``here`` (local, PostgreSQL build)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli_helpers import ROOT
from tests.servers.mariadb import MariaDBServer
from tests.servers.postgres import PostgresServer
from tests.servers.sshd import SshdServer

MARIADB = "ma101119_rel"
POSTGRES = "pg150_rel"
WORKLOAD = "point-query_range=100"


@pytest.fixture
def env(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer, postgres_server: PostgresServer
) -> dict[str, str]:
    (tmp_path / "a.cnf").write_text("[mysqld]\ninnodb_buffer_pool_size=128M\nmax_connections=100\n")
    (tmp_path / "b.cnf").write_text("[mysqld]\ninnodb_buffer_pool_size=256M\nmax_connections=100\n")
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(
        f"""
[hosts.sshd]
hostname = "127.0.0.1"
port = {sshd_server.port}
user = "{sshd_server.user}"
key = "{sshd_server.client_key}"
known_hosts = "{sshd_server.known_hosts}"
workdir = "{tmp_path / "remote"}"
threads = 1
tables = 1
table_size = 1000

[[hosts.sshd.builds]]
name = "{MARIADB}"
host = "{mariadb_server.host}"
port = {mariadb_server.port}
user = "{mariadb_server.user}"
password = "{mariadb_server.password}"
database = "{mariadb_server.database}"
config = "a"
config_file = "{tmp_path / "a.cnf"}"
configs = {{ b = "{tmp_path / "b.cnf"}" }}

[hosts.here]
transport = "local"
workdir = "{tmp_path / "remote"}"
threads = 1
table_size = 100000

[[hosts.here.builds]]
name = "{POSTGRES}"
host = "{postgres_server.host}"
port = {postgres_server.port}
user = "{postgres_server.bench_user}"
database = "{postgres_server.database}"
"""
    )
    e = dict(os.environ)
    e.update(BENCHDECK_DB=str(tmp_path / "bd.duckdb"), BENCHDECK_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    return e
