"""pytest fixtures for the real private servers (load with ``pytest_plugins``).

Session-scoped: each server starts once per test session and is stopped at the end.
A missing binary FAILS the test with the Debian package to install (never skips).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import TypeVar

import pytest

from benchdeck.engine.transport import HostSpec, SSHTransport
from tests.servers import MissingBinary, ServerStartError
from tests.servers.mariadb import MariaDBServer, start_mariadb
from tests.servers.postgres import PostgresServer, start_postgres
from tests.servers.sshd import SshdServer, start_sshd

S = TypeVar("S", SshdServer, MariaDBServer, PostgresServer)


def _serve(start: Callable[[], S]) -> Iterator[S]:
    try:
        server = start()
    except (MissingBinary, ServerStartError) as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def sshd_server() -> Iterator[SshdServer]:
    """A private sshd on 127.0.0.1 (pubkey auth as the current user)."""
    yield from _serve(start_sshd)


@pytest.fixture
def ssh_host_spec(sshd_server: SshdServer) -> HostSpec:
    """A HostSpec for ``sshd_server``: its client key and known_hosts, no ~/.ssh/config."""
    return HostSpec(
        name="test-sshd",
        hostname=sshd_server.host,
        port=sshd_server.port,
        user=sshd_server.user,
        key_files=(str(sshd_server.client_key),),
        known_hosts=str(sshd_server.known_hosts),
        use_ssh_config=False,
    )


@pytest.fixture
async def ssh(ssh_host_spec: HostSpec) -> AsyncIterator[SSHTransport]:
    """A connected SSH transport to the test sshd (closed after the test)."""
    t = SSHTransport(ssh_host_spec)
    await t.connect()
    yield t
    await t.close()


@pytest.fixture(scope="session")
def mariadb_server() -> Iterator[MariaDBServer]:
    """A private MariaDB with database ``sbtest`` and user ``bench`` (password in the object)."""
    yield from _serve(start_mariadb)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A private PostgreSQL (trust auth) with database ``sbtest`` owned by role ``bench``."""
    yield from _serve(start_postgres)
