"""The inventory for these tests: host ``sshd`` (real sshd, MariaDB build with configs a and b)
and host ``here`` (local, PostgreSQL build)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import inventory_env, local_host, mariadb_build, postgres_build, sshd_host
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import PostgresServer
from tests.fixtures.servers.sshd import SshdServer

MARIADB = "ma101119_rel"
POSTGRES = "pg150_rel"
WORKLOAD = "point-query_range=100"


@pytest.fixture
def env(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer, postgres_server: PostgresServer
) -> dict[str, str]:
    (tmp_path / "a.cnf").write_text("[mysqld]\ninnodb_buffer_pool_size=128M\nmax_connections=100\n")
    (tmp_path / "b.cnf").write_text("[mysqld]\ninnodb_buffer_pool_size=256M\nmax_connections=100\n")
    a, b = tmp_path / "a.cnf", tmp_path / "b.cnf"
    configs = f'config = "a"\nconfig_file = "{a}"\nconfigs = {{ b = "{b}" }}'
    toml = (
        sshd_host("sshd", sshd_server, tmp_path / "remote", "threads = 1\ntables = 1\ntable_size = 1000")
        + mariadb_build("sshd", MARIADB, mariadb_server, keys=configs)
        + local_host("here", tmp_path / "remote", "threads = 1\ntable_size = 100000")
        + postgres_build("here", POSTGRES, postgres_server)
    )
    return inventory_env(tmp_path, toml)
