"""Managed servers against the real MariaDB and PostgreSQL, locally and over a real sshd."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchdeck.engine.servers import ManagedServer, ServerError, ServerSpec, make_server
from benchdeck.engine.servers.mysql import MySQLServer
from benchdeck.engine.servers.postgres import PostgresServer
from benchdeck.engine.transport import HostSpec, LocalTransport, SSHTransport, Transport, make_transport
from tests.fixtures.servers import free_port, kill_and_wait, pid_alive
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration

PREFIX = "benchdeck-managed-"
DBMSES = ["mariadb", "postgres"]
NASTY_PASSWORD = "p'a\\ss\"; -- x"
Factory = Callable[..., ManagedServer]


def leftover_servers() -> list[str]:
    """Server processes (from this module's temp dirs) still running on this machine."""
    out = subprocess.run(["pgrep", "-af", PREFIX], capture_output=True, text=True, check=False).stdout
    return [ln for ln in out.splitlines() if "mariadbd" in ln or "postgres" in ln]


@pytest.fixture(scope="module", autouse=True)
def no_leftovers() -> Iterator[None]:
    yield
    assert leftover_servers() == []


def pids_of(spec: ServerSpec) -> list[int]:
    """Every pid our files record for ``spec`` (for the last-resort cleanup)."""
    parent = Path(spec.parent)
    files = [parent / "benchdeck-run" / n for n in ("server.pid", "server.pgid", "mysqld.pid")]
    files.append(Path(spec.datadir) / "postmaster.pid")
    pids = []
    for f in files:
        with contextlib.suppress(OSError, ValueError, IndexError):
            pids.append(int(f.read_text().split()[0]))
    return [p for p in pids if p > 1]


@pytest.fixture
async def servers() -> AsyncIterator[Factory]:
    """``servers(transport, dbms, **spec)``: a ManagedServer in a fresh temp dir on a free port.

    Teardown stops every one of them (a fresh object on this machine reads the pid files,
    so it works whatever state the test left), kills what is left, and removes the dirs."""
    made: list[ManagedServer] = []

    def make(transport: Transport, dbms: str, **kw: Any) -> ManagedServer:
        base = tempfile.mkdtemp(prefix=PREFIX)
        os.chmod(base, 0o755)  # so postgres can traverse it
        spec = ServerSpec(dbms=dbms, datadir=f"{base}/data", port=free_port(), **kw)  # type: ignore[arg-type]
        server = make_server(transport, spec)
        made.append(server)
        return server

    yield make
    for server in made:
        spec = server.spec
        with contextlib.suppress(Exception):
            await asyncio.wait_for(make_server(LocalTransport(), spec).stop(), 60)
        for pid in pids_of(spec):
            if pid_alive(pid):
                kill_and_wait(pid, timeout=2)
        shutil.rmtree(spec.parent, ignore_errors=True)


@pytest.fixture(params=["local", "ssh"])
async def transport(request: pytest.FixtureRequest) -> AsyncIterator[Transport]:
    t: LocalTransport | SSHTransport = LocalTransport()
    if request.param == "ssh":
        t = make_transport(request.getfixturevalue("ssh_host_spec"))
    async with t:
        yield t


async def timed(label: str, timings: dict[str, float], step: Any) -> Any:
    start = time.monotonic()
    result = await step
    timings[label] = round(time.monotonic() - start, 3)
    return result


async def select_one(transport: Transport, server: ManagedServer) -> str:
    result = await transport.run(server.client_argv(), stdin="select 1 + 1 as two;\n", timeout=30)
    assert result.ok, result.stderr
    return result.stdout


@pytest.mark.parametrize("dbms", DBMSES)
async def test_lifecycle(transport: Transport, servers: Factory, dbms: str) -> None:
    server = servers(transport, dbms, password=NASTY_PASSWORD)
    assert not await server.exists()
    assert not await server.is_running()
    timings: dict[str, float] = {}
    await timed("create", timings, server.create())
    assert await server.exists()
    await timed("start", timings, server.start())
    await timed("ready", timings, server.wait_ready(timeout=60))
    assert await server.is_running()
    await timed("setup", timings, server.setup_database())
    await server.setup_database()  # idempotent
    assert "2" in (await select_one(transport, server)).split()
    await timed("stop", timings, server.stop())
    assert not await server.is_running()
    await server.stop()  # no-op when stopped
    print(f"\nTIMINGS {dbms} over {transport.spec.name}: {timings}")


@pytest.mark.parametrize("dbms", DBMSES)
async def test_sysbench_args_and_client_name_the_server(servers: Factory, dbms: str) -> None:
    server = servers(LocalTransport(), dbms, user="bench", password="pw", database="bdb")
    args, port = server.sysbench_args(), server.spec.port
    driver = "mysql" if dbms == "mariadb" else "pgsql"
    assert args == [
        f"--db-driver={driver}",
        f"--{driver}-host=127.0.0.1",
        f"--{driver}-port={port}",
        f"--{driver}-user=bench",
        f"--{driver}-password=pw",
        f"--{driver}-db=bdb",
    ]
    assert str(port) in " ".join(server.client_argv())


@pytest.mark.parametrize("dbms", DBMSES)
async def test_create_refuses_to_clobber(servers: Factory, dbms: str) -> None:
    server = servers(LocalTransport(), dbms)
    await server.create()
    assert await server.exists()
    before = sorted(p.name for p in Path(server.spec.datadir).iterdir())
    with pytest.raises(ServerError, match="already initialised"):
        await server.create()
    assert sorted(p.name for p in Path(server.spec.datadir).iterdir()) == before

    other = servers(LocalTransport(), dbms)
    Path(other.spec.datadir).mkdir()
    (Path(other.spec.datadir) / "precious.txt").write_text("keep me")
    with pytest.raises(ServerError, match="not empty"):
        await other.create()
    assert (Path(other.spec.datadir) / "precious.txt").read_text() == "keep me"


@pytest.mark.parametrize("dbms", DBMSES)
async def test_start_needs_a_datadir(servers: Factory, dbms: str) -> None:
    server = servers(LocalTransport(), dbms)
    with pytest.raises(ServerError, match="not initialised"):
        await server.start()


@pytest.mark.parametrize("dbms", DBMSES)
async def test_server_survives_the_ssh_connection_dropping(
    ssh_host_spec: HostSpec, sshd_server: SshdServer, servers: Factory, dbms: str
) -> None:
    async with SSHTransport(ssh_host_spec) as transport:
        server = servers(transport, dbms)
        await server.create()
        await server.start()
        await server.wait_ready()
        await server.setup_database()
        assert sshd_server.kill_sessions()
        await asyncio.sleep(0.2)
        assert await server.is_running()  # the transport reconnects on its own
        assert transport.connections_made >= 2
        await server.wait_ready(timeout=10)
        assert "2" in (await select_one(transport, server)).split()
        await server.stop()
        assert not await server.is_running()


BAD_OPTIONS = {
    "mariadb": [("innodb_buffer_pool_size", "notanumber"), ("no_such_option", "1")],
    "postgres": [("shared_buffers", "notanumber"), ("no_such_option", "1")],
}


@pytest.mark.parametrize(("dbms", "option"), [(d, o) for d in DBMSES for o in BAD_OPTIONS[d]])
async def test_bad_config_fails_fast_with_the_log_tail(
    transport: Transport, servers: Factory, dbms: str, option: tuple[str, str]
) -> None:
    server = servers(transport, dbms, extra=(option,))
    await server.create()

    async def start_and_wait() -> None:
        await server.start()  # MariaDB's start returns at once; pg_ctl -W too
        await server.wait_ready(timeout=60)

    start = time.monotonic()
    with pytest.raises(ServerError) as info:
        await start_and_wait()
    assert time.monotonic() - start < 20  # noticed the death, did not sit out the timeout
    err = info.value
    print(f"\nMESSAGE {dbms} over {transport.spec.name}: {err.message}")
    assert "\n" not in err.message
    names = {option[0], option[0].replace("_", "-")}
    assert any(n in err.message for n in names), err.message
    assert err.log_tail
    assert err.log_tail in str(err)
    assert any(n in err.log_tail for n in names)
    assert not await server.is_running()


@pytest.mark.parametrize("dbms", DBMSES)
async def test_config_file_is_included_and_extra_wins(servers: Factory, dbms: str) -> None:
    conf_dir = Path(tempfile.mkdtemp(prefix=PREFIX))  # not under pytest's 0700 tmp: postgres reads it
    conf_dir.chmod(0o755)
    conf = conf_dir / "user.conf"
    conf.write_text("[mysqld]\nmax_connections = 77\nmax_allowed_packet = 33M\n" if dbms == "mariadb" else
                    "max_connections = 77\nwork_mem = '7MB'\n")  # fmt: skip
    conf.chmod(0o644)
    local = LocalTransport()
    server = servers(local, dbms, config_file=str(conf), extra=(("max_connections", "88"),))
    try:
        await check_config(local, server)
    finally:
        shutil.rmtree(conf_dir, ignore_errors=True)


async def check_config(local: Transport, server: ManagedServer) -> None:
    dbms = server.spec.dbms
    await server.create()
    await server.start()
    await server.wait_ready()
    await server.setup_database()
    if dbms == "mariadb":
        sql = "select @@max_connections, @@max_allowed_packet;\n"
        expect = ["88", str(33 * 1024 * 1024)]
    else:
        sql = "show max_connections;\nshow work_mem;\n"
        expect = ["88", "7MB"]
    result = await local.run([*server.client_argv(), "-At" if dbms == "postgres" else "-N"], stdin=sql)
    assert result.ok, result.stderr
    assert result.stdout.split() == expect
    await server.stop()


def test_spec_rejects_bad_names_before_running_anything() -> None:
    with pytest.raises(ServerError, match="invalid database name"):
        ServerSpec(dbms="mariadb", datadir="/tmp/x/data", port=3307, database="sbtest; drop database mysql")
    with pytest.raises(ServerError, match="invalid user name"):
        ServerSpec(dbms="postgres", datadir="/tmp/x/data", port=5433, user='a"b')
    with pytest.raises(ServerError, match="datadir"):
        ServerSpec(dbms="postgres", datadir='/tmp/x/$(reboot)"', port=5433)
    with pytest.raises(ServerError, match="absolute"):
        ServerSpec(dbms="mariadb", datadir="data", port=3307)
    with pytest.raises(ServerError, match="socket path too long"):
        ServerSpec(dbms="mariadb", datadir="/" + "d" * 120 + "/data", port=3307)
    with pytest.raises(ServerError, match="option"):
        ServerSpec(dbms="mariadb", datadir="/tmp/x/data", port=3307, extra=(("a\nb", "1"),))


@pytest.mark.parametrize("cls", [MySQLServer, PostgresServer])
async def test_setup_database_validates_names_itself(cls: type[ManagedServer]) -> None:
    spec = ServerSpec(dbms="mariadb" if cls is MySQLServer else "postgres", datadir="/nonexistent/d", port=1)
    object.__setattr__(spec, "database", "sbtest; drop database mysql")  # bypass the spec's check
    server = cls(LocalTransport(), spec)
    with pytest.raises(ServerError, match="invalid database name"):
        await server.setup_database()
    assert server.tools == {}  # it did not even look for the client


async def test_locate_under_a_basedir() -> None:
    bindir = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))[-1].parent
    spec = ServerSpec(dbms="postgres", datadir="/nonexistent/d", port=1, basedir=str(bindir.parent))
    tools = await make_server(LocalTransport(), spec).locate()
    assert tools == {name: str(bindir / name) for name in ("pg_ctl", "initdb", "pg_isready", "psql")}
    spec = ServerSpec(dbms="mariadb", datadir="/nonexistent/d", port=1, basedir="/nonexistent")
    with pytest.raises(ServerError, match="no mariadbd / mysqld under /nonexistent"):
        await make_server(LocalTransport(), spec).locate()


async def test_wait_ready_gives_up_at_the_deadline() -> None:
    spec = ServerSpec(dbms="postgres", datadir="/nonexistent/d", port=free_port())
    start = time.monotonic()
    with pytest.raises(ServerError, match=r"not ready after 0\.5 s \(its log is empty\)"):
        await make_server(LocalTransport(), spec).wait_ready(timeout=0.5)
    assert time.monotonic() - start < 5
