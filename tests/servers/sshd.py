"""A private OpenSSH server on 127.0.0.1 with generated host and client keys."""

from __future__ import annotations

import contextlib
import getpass
import os
import shutil
import signal
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.servers import (
    ServerStartError,
    descendants,
    die_with_parent,
    free_port,
    kill_and_wait,
    log_tail,
    process_name,
    require,
    run_checked,
    wait_until,
)

SSHD = "/usr/sbin/sshd"
CONFIG = """\
ListenAddress 127.0.0.1
Port {port}
HostKey {dir}/host_ed25519
PidFile {dir}/sshd.pid
AuthorizedKeysFile {dir}/client_ed25519.pub
StrictModes no
UsePAM no
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UseDNS no
PrintMotd no
MaxSessions 64
MaxStartups 64
Subsystem sftp internal-sftp
LogLevel VERBOSE
"""


@dataclass
class SshdServer:
    """A running sshd; connect as ``user`` to ``host``:``port`` with ``client_key``."""

    host: str
    port: int
    user: str
    client_key: Path
    known_hosts: Path  # holds the real host key for [127.0.0.1]:port
    host_key_pub: Path
    base_dir: Path
    log: Path
    pid: int
    _proc: subprocess.Popen[bytes] = field(repr=False)

    def session_pids(self) -> list[int]:
        """The per-connection sshd processes (everything named sshd below the listener)."""
        return [p for p in descendants(self.pid) if process_name(p) == "sshd"]

    def kill_sessions(self) -> list[int]:
        """SIGKILL every per-connection sshd process: clients see their connection drop.

        Commands the sessions started (and detached processes) are not touched.
        """
        pids = self.session_pids()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                kill_and_wait(pid, timeout=2)
        return pids

    def stop(self) -> None:
        """Kill the listener and its sessions, remove the temp dir. Safe to call twice."""
        sessions = self.session_pids() if self._proc.poll() is None else []
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        for pid in sessions:
            kill_and_wait(pid, timeout=2)
        shutil.rmtree(self.base_dir, ignore_errors=True)


def _banner_ready(port: int, proc: subprocess.Popen[bytes], log: Path) -> bool:
    if proc.poll() is not None:
        raise ServerStartError(f"sshd exited with {proc.returncode}{log_tail(log)}")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            return s.recv(256).startswith(b"SSH-")
    except OSError:
        return False


def _keygen(path: Path) -> None:
    run_checked(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)],
        "ssh-keygen",
    )


def start_sshd(*, timeout: float = 15.0, attempts: int = 3, extra_config: str = "") -> SshdServer:
    """Start sshd on a free loopback port (retrying if another process grabs the port);
    ``extra_config`` lines are appended to its sshd_config."""
    sshd = require(SSHD, "openssh-server")
    require("ssh-keygen", "openssh-client")
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="benchdeck-sshd-"))  # 0700
    try:
        _keygen(base / "host_ed25519")
        _keygen(base / "client_ed25519")
        for attempt in range(1, attempts + 1):
            try:
                return _launch(sshd, base, timeout, extra_config)
            except ServerStartError:
                if attempt == attempts:
                    raise
    except BaseException:
        shutil.rmtree(base, ignore_errors=True)
        raise
    raise AssertionError("unreachable")


def _launch(sshd: str, base: Path, timeout: float, extra_config: str = "") -> SshdServer:
    port = free_port()
    cfg = base / "sshd_config"
    cfg.write_text(CONFIG.format(port=port, dir=base) + extra_config)
    log = base / "sshd.log"
    log.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [*die_with_parent(), sshd, "-D", "-f", str(cfg), "-E", str(log)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_until(lambda: _banner_ready(port, proc, log), timeout=timeout, what="sshd", log=log)
    except BaseException:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        raise
    key_type, key_b64 = (base / "host_ed25519.pub").read_text().split()[:2]
    known_hosts = base / "known_hosts"
    known_hosts.write_text(f"[127.0.0.1]:{port} {key_type} {key_b64}\n")
    return SshdServer(
        host="127.0.0.1",
        port=port,
        user=getpass.getuser(),
        client_key=base / "client_ed25519",
        known_hosts=known_hosts,
        host_key_pub=base / "host_ed25519.pub",
        base_dir=base,
        log=log,
        pid=proc.pid,
        _proc=proc,
    )
