"""Transport faults found when tried as a user, against the real sshd: a DNS failure, a
passphrase-protected key held by ssh-agent, ``ssh = "alias"`` hosts (errors name the resolved
address; a pinned key-type mismatch is a host key error), ``hosts forget``."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from benchdeck.engine.transport import (
    AuthFailed,
    HostKeyError,
    HostSpec,
    HostUnreachable,
    SSHTransport,
    hostkeys,
)
from tests.fixtures.cli_helpers import ROOT, bd
from tests.fixtures.servers import free_port, kill_and_wait, wait_until
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration  # real sshd


def spec_with(spec: HostSpec, **changes: object) -> HostSpec:
    fields = {f: getattr(spec, f) for f in spec.__dataclass_fields__}
    return HostSpec(**{**fields, **changes})  # type: ignore[arg-type]


async def test_dns_failure_is_one_clear_line_naming_the_host(ssh_host_spec: HostSpec) -> None:
    with pytest.raises(HostUnreachable) as info:
        await SSHTransport(spec_with(ssh_host_spec, hostname="nosuch-host.invalid")).connect()
    assert str(info.value) == (
        "cannot reach 'test-sshd' (root@nosuch-host.invalid port "
        f"{ssh_host_spec.port}): cannot resolve host name 'nosuch-host.invalid' (Name or service not known)"
    ).replace("root@", f"{ssh_host_spec.user}@")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own (its ~/.ssh/config is what asyncssh and OpenSSH read)."""
    (tmp_path / "home" / ".ssh").mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def alias_spec(sshd: SshdServer, known: Path) -> HostSpec:
    return HostSpec(name="aliased", hostname="bench-alias", known_hosts=str(known), use_ssh_config=True)


def write_alias(home: Path, sshd: SshdServer, port: int) -> None:
    (home / ".ssh" / "config").write_text(
        f"Host bench-alias\n  HostName 127.0.0.1\n  Port {port}\n  User {sshd.user}\n"
        f"  IdentityFile {sshd.client_key}\n"
    )


async def test_alias_errors_name_the_resolved_address(home: Path, sshd_server: SshdServer) -> None:
    port = free_port()
    write_alias(home, sshd_server, port)
    with pytest.raises(HostUnreachable) as info:
        await SSHTransport(alias_spec(sshd_server, sshd_server.known_hosts)).connect()
    assert str(info.value) == (
        f"cannot reach 'aliased' (bench-alias = {sshd_server.user}@127.0.0.1 port {port}): Connection refused"
    )


async def test_alias_with_a_pinned_key_of_another_type_is_a_host_key_error(
    home: Path, sshd_server: SshdServer, tmp_path: Path
) -> None:
    write_alias(home, sshd_server, sshd_server.port)
    known = tmp_path / "known_hosts"
    other = asyncssh.generate_private_key("ecdsa-sha2-nistp256").export_public_key().decode()
    hostkeys.trust(str(known), "127.0.0.1", sshd_server.port, other)
    with pytest.raises(HostKeyError, match="HOST KEY CHANGED for 'aliased'") as info:
        await SSHTransport(alias_spec(sshd_server, known)).connect()
    assert info.value.key_type == "ssh-ed25519"
    assert f"127.0.0.1 port {sshd_server.port}" in str(info.value)


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real ssh-agent on a private socket (SSH_AUTH_SOCK points at it)."""
    sock = tmp_path / "agent.sock"
    proc = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL)
    try:
        wait_until(sock.exists, timeout=10, what="ssh-agent's socket")
        monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))
        yield sock
    finally:
        kill_and_wait(proc.pid)
        proc.wait()


@pytest.fixture
def locked_key(tmp_path: Path, sshd_server: SshdServer) -> Iterator[Path]:
    """A passphrase-protected key that the sshd accepts (for the time of the test)."""
    key = tmp_path / "locked_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "s3cret", "-f", str(key)], check=True)
    authorized = sshd_server.base_dir / "client_ed25519.pub"
    before = authorized.read_text()
    authorized.write_text(before + key.with_suffix(".pub").read_text())
    try:
        yield key
    finally:
        authorized.write_text(before)


@pytest.fixture
def key_in_agent(locked_key: Path, agent: Path, tmp_path: Path) -> Path:
    """``locked_key`` added to the agent (ssh-add reads the passphrase from SSH_ASKPASS)."""
    askpass = tmp_path / "askpass.sh"
    askpass.write_text("#!/bin/sh\necho s3cret\n")
    askpass.chmod(0o700)
    env = dict(os.environ, SSH_ASKPASS=str(askpass), SSH_ASKPASS_REQUIRE="force", DISPLAY=":0")
    subprocess.run(
        ["ssh-add", str(locked_key)], env=env, check=True, stdin=subprocess.DEVNULL, capture_output=True
    )
    return locked_key


async def test_passphrase_key_held_by_the_agent_logs_in(ssh_host_spec: HostSpec, key_in_agent: Path) -> None:
    spec = spec_with(ssh_host_spec, key_files=(str(key_in_agent),))
    async with SSHTransport(spec) as t:
        assert (await t.run(["echo", "signed by the agent"])).stdout == "signed by the agent\n"


async def test_passphrase_key_without_an_agent_says_so(
    ssh_host_spec: HostSpec, locked_key: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    with pytest.raises(AuthFailed, match="is passphrase-protected and no ssh-agent is running"):
        await SSHTransport(spec_with(ssh_host_spec, key_files=(str(locked_key),))).connect()


def test_hosts_forget_removes_the_key(sshd_server: SshdServer, tmp_path: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_text(sshd_server.known_hosts.read_text())
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(
        f'[hosts.box]\nhostname = "127.0.0.1"\nport = {sshd_server.port}\nuser = "{sshd_server.user}"\n'
        f'key = "{sshd_server.client_key}"\nknown_hosts = "{known}"\n'
    )
    env = dict(
        os.environ, BENCHDECK_CONFIG=str(cfg), BENCHDECK_DB=str(tmp_path / "bd.duckdb"), PYTHONPATH=str(ROOT)
    )
    r = bd(env, "hosts", "forget", "box")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"box: removed 1 key(s) of [127.0.0.1]:{sshd_server.port} from {known}"
    assert known.read_text() == ""
    again = bd(env, "hosts", "forget", "box")
    assert again.stdout.strip() == f"box: no key of [127.0.0.1]:{sshd_server.port} in {known}"
    check = bd(env, "hosts", "check", "box")
    assert check.returncode == 1
    assert "unknown host key for 'box'" in check.stderr
