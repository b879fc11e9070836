"""Transport tests against a real sshd on loopback (and this machine): no mocks."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import asyncssh
import pytest

from benchdeck.engine.transport import (
    AuthFailed,
    CommandTimeout,
    ConnectionLost,
    DetachedProcess,
    HostKeyError,
    HostSpec,
    HostUnreachable,
    LocalTransport,
    SSHTransport,
    TransportError,
    hostkeys,
)
from benchdeck.engine.transport.base import ShellTransport
from tests.fixtures.servers import free_port
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import PostgresServer
from tests.fixtures.servers.sshd import SshdServer

pytest_plugins = ["tests.fixtures.servers.conftest_plugin"]
pytestmark = pytest.mark.integration

LOOP5 = "for i in 1 2 3 4 5; do echo line$i; sleep 0.2; done"


@pytest.fixture(params=["ssh", "ssh-shell", "local"])
async def transport(request: pytest.FixtureRequest) -> AsyncIterator[ShellTransport]:
    """SSH (file polling over SFTP), SSH with the shell helpers instead, and this machine."""
    t: ShellTransport = LocalTransport()
    if request.param != "local":
        spec = request.getfixturevalue("ssh_host_spec")
        t = SSHTransport(spec, use_sftp=request.param == "ssh")
    async with t:
        yield t


async def eventually(check: Callable[[], Awaitable[bool]], within: float = 10.0) -> None:
    """Await ``check()`` until truthy; fail at the deadline (short awaits, no fixed sleep)."""

    async def poll() -> None:
        while not await check():  # noqa: ASYNC110 - polling a remote/other process
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), within)


async def no_process_matches(pattern: str) -> bool:
    """True once ``pgrep -f pattern`` finds nothing on this machine."""
    proc = await asyncio.create_subprocess_exec("pgrep", "-f", pattern, stdout=asyncio.subprocess.DEVNULL)
    return await proc.wait() == 1


async def follow(
    t: ShellTransport,
    proc: DetachedProcess,
    *,
    on_data: Callable[[bytes], Awaitable[None]] | None = None,
    within: float = 15.0,
) -> bytes:
    """Read ``proc``'s stdout by offset until its rc file exists; returns everything read."""
    chunks: list[bytes] = []

    async def loop() -> None:
        offset = 0
        while True:
            done = await t.file_size(proc.rc_path) is not None
            size = await t.file_size(proc.stdout_path) or 0
            while size > offset:
                data = await t.read_from(proc.stdout_path, offset, max_bytes=4)
                chunks.append(data)
                offset += len(data)
                if on_data is not None:
                    await on_data(b"".join(chunks))
            if done:
                return
            await asyncio.sleep(0.02)

    await asyncio.wait_for(loop(), within)
    return b"".join(chunks)


async def test_run_returns_output_and_status(transport: ShellTransport) -> None:
    r = await transport.run(["sh", "-c", "echo out; echo err >&2; exit 7"])
    assert (r.exit_status, r.stdout, r.stderr) == (7, "out\n", "err\n")
    assert (await transport.run(["cat"], stdin="to stdin\n")).stdout == "to stdin\n"
    assert (await transport.run(["true"])).ok


async def test_argv_values_arrive_verbatim(transport: ShellTransport) -> None:
    pwned = Path(f"/tmp/pwned_{secrets.token_hex(6)}")
    values = [
        f"x; touch {pwned}",
        f"$(touch {pwned})",
        f"`touch {pwned}`",
        "$(id)",
        "'single'",
        '"double"',
        "new\nline",
        "back`tick",
        "$HOME",
        "*",
        "  spaces  ",
        "",
        "-n",
        "a\\b",
        f"&& touch {pwned} #",
        "|| true",
    ]
    r = await transport.run(["printf", "%s\\n", *values])
    assert r.exit_status == 0
    assert r.stdout == "".join(v + "\n" for v in values)
    assert not await asyncio.to_thread(pwned.exists)


async def test_run_timeout_kills_the_command(transport: ShellTransport) -> None:
    marker = f"{300 + secrets.randbelow(10**6) / 10**6:.6f}"
    # 0.05 s: over SSH the wrapper's pid line may not even have arrived yet
    with pytest.raises(CommandTimeout, match=r"within 0\.05 s"):
        await transport.run(["sleep", marker], timeout=0.05)
    await eventually(lambda: no_process_matches(f"sleep {marker}"))


async def test_detached_output_read_by_offset(transport: ShellTransport, tmp_path: Path) -> None:
    run_dir = str(tmp_path / "run dir $(touch pwned)")
    proc = await transport.start_detached(
        ["sh", "-c", LOOP5 + '; echo "$GREETING"; echo oops >&2'],
        run_dir=run_dir,
        stdout_name="bench.out",
        stderr_name="bench.err",
        env={"GREETING": "hi; $(id) `id`"},
    )
    assert proc.pgid != proc.pid
    assert proc.run_dir == run_dir
    out = await follow(transport, proc)
    assert out.decode().splitlines() == [f"line{i}" for i in range(1, 6)] + ["hi; $(id) `id`"]
    assert await transport.read_from(proc.rc_path, 0) == b"0\n"
    assert await transport.read_from(proc.pid_path, 0) == f"{proc.pid}\n".encode()
    assert await transport.read_from(proc.pgid_path, 0) == f"{proc.pgid}\n".encode()
    assert proc.stderr_path is not None
    assert await transport.read_from(proc.stderr_path, 0) == b"oops\n"
    assert await transport.read_from(proc.stdout_path, 3, max_bytes=5) == b"e1\nli"
    assert not await transport.is_alive(proc.pid)
    assert not await asyncio.to_thread((tmp_path / "pwned").exists)


async def test_missing_files(transport: ShellTransport, tmp_path: Path) -> None:
    assert await transport.file_size(str(tmp_path / "nope")) is None
    with pytest.raises(FileNotFoundError):
        await transport.read_from(str(tmp_path / "nope"), 0)


async def test_kill_group_stops_the_whole_group(transport: ShellTransport, tmp_path: Path) -> None:
    proc = await transport.start_detached(
        ["sh", "-c", "sleep 60 & sleep 61; wait"], run_dir=str(tmp_path), stdout_name="k.out"
    )
    assert await transport.is_alive(proc.pid)
    assert await transport.kill_group(proc.pgid)

    async def all_gone() -> bool:  # the group is its own session; zombies wait for init
        states = (await transport.run(["ps", "-o", "stat=", "-s", str(proc.pgid)])).stdout
        return all(s.startswith("Z") for s in states.split()) and not await transport.is_alive(proc.pid)

    await eventually(all_gone)
    rc = await transport.file_size(proc.rc_path)
    if rc is not None:
        assert (await transport.read_from(proc.rc_path, 0)).strip() != b"0"


async def test_stream_lines_and_early_stop(transport: ShellTransport) -> None:
    assert [line async for line in transport.stream(["seq", "1", "4"])] == ["1", "2", "3", "4"]
    marker = secrets.token_hex(6)
    loop = f"while :; do echo tick; sleep 0.05; done # {marker}"
    async with contextlib.aclosing(transport.stream(["sh", "-c", loop])) as lines:
        async for line in lines:
            assert line == "tick"
            break
    await eventually(lambda: no_process_matches(marker))


async def test_reconnects_after_sshd_session_killed(
    sshd_server: SshdServer, ssh_host_spec: HostSpec, tmp_path: Path
) -> None:
    async with SSHTransport(ssh_host_spec) as t:
        proc = await t.start_detached(["sh", "-c", LOOP5], run_dir=str(tmp_path), stdout_name="o")
        killed: list[int] = []

        async def kill_once(seen: bytes) -> None:
            if not killed and b"line1\n" in seen:
                killed.extend(sshd_server.kill_sessions())

        out = await follow(t, proc, on_data=kill_once)
        assert killed, "no sshd session process was found to kill"
        assert out.decode().splitlines() == [f"line{i}" for i in range(1, 6)]
        assert await t.read_from(proc.rc_path, 0) == b"0\n"
        assert t.connections_made >= 2


async def test_command_in_flight_when_link_drops(
    sshd_server: SshdServer, ssh_host_spec: HostSpec, tmp_path: Path
) -> None:
    started = tmp_path / "started"
    async with SSHTransport(ssh_host_spec) as t:
        task = asyncio.create_task(t.run(["sh", "-c", 'touch "$1"; sleep 3', "sh", str(started)]))

        async def running() -> bool:
            return started.exists()

        await eventually(running)
        sshd_server.kill_sessions()
        with pytest.raises(ConnectionLost):
            await task
        assert (await t.run(["echo", "back"])).stdout == "back\n"


def spec_with(spec: HostSpec, **changes: object) -> HostSpec:
    fields = {f: getattr(spec, f) for f in spec.__dataclass_fields__}
    return HostSpec(**{**fields, **changes})  # type: ignore[arg-type]


async def test_unknown_host_key_refused_until_trusted(
    sshd_server: SshdServer, ssh_host_spec: HostSpec, tmp_path: Path
) -> None:
    known = tmp_path / "known_hosts"
    known.write_text("")
    spec = spec_with(ssh_host_spec, known_hosts=str(known))
    with pytest.raises(HostKeyError) as info:
        await SSHTransport(spec).connect()
    msg = str(info.value)
    assert "127.0.0.1" in msg
    assert f"port {sshd_server.port}" in msg
    assert "SHA256:" in msg
    assert "benchdeck hosts trust test-sshd" in msg
    assert not info.value.changed
    key_type, fingerprint, line = await hostkeys.fetch_host_key_async("127.0.0.1", spec.port)
    assert (key_type, fingerprint) == (info.value.key_type, info.value.fingerprint)
    assert line == " ".join(sshd_server.host_key_pub.read_text().split()[:2])
    entry = hostkeys.trust(str(known), "127.0.0.1", spec.port, line)
    assert entry.startswith(f"[127.0.0.1]:{spec.port} ssh-ed25519 ")
    assert hostkeys.trust(str(known), "127.0.0.1", spec.port, line) == entry  # no duplicate
    assert known.read_text() == entry + "\n"
    async with SSHTransport(spec) as t:
        assert (await t.run(["echo", "ok"])).stdout == "ok\n"


@pytest.mark.parametrize("alg", ["ssh-ed25519", "ssh-rsa"])
async def test_changed_host_key_refused(ssh_host_spec: HostSpec, tmp_path: Path, alg: str) -> None:
    known = tmp_path / "known_hosts"
    other = asyncssh.generate_private_key(alg).export_public_key().decode()
    hostkeys.trust(str(known), "127.0.0.1", ssh_host_spec.port, other)
    spec = spec_with(ssh_host_spec, known_hosts=str(known))
    with pytest.raises(HostKeyError, match="CHANGED") as info:
        await SSHTransport(spec).connect()
    assert info.value.changed
    assert "SHA256:" in str(info.value)
    assert hostkeys.forget(str(known), "127.0.0.1", ssh_host_spec.port) == 1
    assert known.read_text() == ""


def test_fetch_host_key_blocking(sshd_server: SshdServer) -> None:
    key_type, fingerprint, _ = hostkeys.fetch_host_key("127.0.0.1", sshd_server.port)
    assert key_type == "ssh-ed25519"
    assert fingerprint.startswith("SHA256:")


async def test_connection_errors_are_one_liners(ssh_host_spec: HostSpec) -> None:
    with pytest.raises(AuthFailed, match="authentication failed for 'test-sshd'"):
        await SSHTransport(spec_with(ssh_host_spec, user="nobody")).connect()
    with pytest.raises(HostUnreachable, match="Connection refused"):
        await SSHTransport(spec_with(ssh_host_spec, port=free_port())).connect()
    with pytest.raises(TransportError, match="/nonexistent/key"):
        await SSHTransport(spec_with(ssh_host_spec, key_files=("/nonexistent/key",))).connect()


async def test_local_transport_missing_program() -> None:
    with pytest.raises(TransportError, match="cannot run"):
        await LocalTransport().run(["/nonexistent/benchdeck-program"])


def test_mariadb_server_answers(mariadb_server: MariaDBServer) -> None:
    r = subprocess.run(mariadb_server.client_argv("-N", "-e", "select 1"), capture_output=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == b"1"
    bench = subprocess.run(
        [
            "mariadb",
            "--no-defaults",
            "-h",
            mariadb_server.host,
            "-P",
            str(mariadb_server.port),
            "-u",
            mariadb_server.user,
            f"-p{mariadb_server.password}",
            mariadb_server.database,
            "-N",
            "-e",
            "select current_user()",
        ],
        capture_output=True,
    )
    assert bench.returncode == 0, bench.stderr
    assert bench.stdout.startswith(b"bench@")


def test_postgres_server_answers(postgres_server: PostgresServer) -> None:
    r = subprocess.run(
        [
            "psql",
            "-X",
            "-h",
            "127.0.0.1",
            "-p",
            str(postgres_server.port),
            "-U",
            "postgres",
            "-d",
            "sbtest",
            "-Atc",
            "select 1",
        ],
        capture_output=True,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == b"1"
