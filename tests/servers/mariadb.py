"""A private MariaDB server on 127.0.0.1 with database ``sbtest`` and user ``bench``."""

from __future__ import annotations

import secrets
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.servers import (
    ServerStartError,
    die_with_parent,
    free_port,
    kill_and_wait,
    require,
    run_checked,
    wait_until,
)

PACKAGE = "mariadb-server"
CONFIG = """\
[mysqld]
user = root
datadir = {dir}/data
socket = {dir}/mysqld.sock
pid-file = {dir}/mysqld.pid
log-error = {dir}/mysqld.err
port = {port}
bind-address = 127.0.0.1
skip-name-resolve
skip-log-bin
innodb_buffer_pool_size = 128M
innodb_log_file_size = 48M
innodb_flush_log_at_trx_commit = 2
max_connections = 200

[client]
socket = {dir}/mysqld.sock
"""


@dataclass
class MariaDBServer:
    """A running mariadbd. ``root`` (no password) over the socket; ``bench`` over TCP."""

    host: str
    port: int
    socket: Path
    user: str
    password: str
    database: str
    base_dir: Path
    defaults_file: Path
    log: Path
    pid: int
    _proc: subprocess.Popen[bytes] = field(repr=False)

    def client_argv(self, *args: str) -> list[str]:
        """``mariadb`` as root over the socket, e.g. ``client_argv("-e", "select 1")``."""
        return ["mariadb", "--no-defaults", f"--socket={self.socket}", "-uroot", *args]

    def sysbench_args(self) -> list[str]:
        return [
            "--db-driver=mysql",
            f"--mysql-host={self.host}",
            f"--mysql-port={self.port}",
            f"--mysql-user={self.user}",
            f"--mysql-password={self.password}",
            f"--mysql-db={self.database}",
        ]

    def stop(self) -> None:
        """``mariadb-admin shutdown``, then SIGTERM/SIGKILL by pid; removes the temp dir."""
        if self._proc.poll() is None:
            subprocess.run(
                ["mariadb-admin", "--no-defaults", f"--socket={self.socket}", "-uroot", "shutdown"],
                capture_output=True,
                check=False,
                timeout=30,
            )
            try:
                self._proc.wait(30)
            except subprocess.TimeoutExpired:
                kill_and_wait(self.pid)
                self._proc.wait(5)
        shutil.rmtree(self.base_dir, ignore_errors=True)


def start_mariadb(*, timeout: float = 60.0) -> MariaDBServer:
    """Initialise a datadir, start mariadbd, create ``sbtest`` and ``bench``."""
    mariadbd = require("mariadbd", PACKAGE)
    install_db = require("mariadb-install-db", PACKAGE)
    admin = require("mariadb-admin", "mariadb-client")
    require("mariadb", "mariadb-client")
    base = Path(tempfile.mkdtemp(prefix="benchdeck-mariadb-"))
    proc: subprocess.Popen[bytes] | None = None
    try:
        port = free_port()
        cfg = base / "my.cnf"
        cfg.write_text(CONFIG.format(dir=base, port=port))
        sock, log = base / "mysqld.sock", base / "mysqld.err"
        run_checked(
            [
                install_db,
                f"--defaults-file={cfg}",
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                f"--datadir={base / 'data'}",
            ],
            "mariadb-install-db",
            cwd=base,
        )
        proc = subprocess.Popen(
            [*die_with_parent(), mariadbd, f"--defaults-file={cfg}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=base,
        )
        started = proc

        def ready() -> bool:
            if started.poll() is not None:
                raise ServerStartError(f"mariadbd exited with {started.returncode}")
            ping = [admin, "--no-defaults", f"--socket={sock}", "-uroot", "ping"]
            return subprocess.run(ping, capture_output=True, check=False).returncode == 0

        wait_until(ready, timeout=timeout, what="mariadbd", log=log)
        password = "bench-" + secrets.token_hex(8)
        sql = "CREATE DATABASE sbtest;" + "".join(
            f"CREATE USER 'bench'@'{h}' IDENTIFIED BY '{password}';"
            f"GRANT ALL PRIVILEGES ON *.* TO 'bench'@'{h}';"
            for h in ("%", "127.0.0.1", "localhost")
        )
        server = MariaDBServer(
            host="127.0.0.1",
            port=port,
            socket=sock,
            user="bench",
            password=password,
            database="sbtest",
            base_dir=base,
            defaults_file=cfg,
            log=log,
            pid=proc.pid,
            _proc=proc,
        )
        run_checked(server.client_argv("-e", sql), "creating sbtest/bench")
        return server
    except BaseException:
        if proc is not None and proc.poll() is None:
            kill_and_wait(proc.pid)
            proc.wait(5)
        shutil.rmtree(base, ignore_errors=True)
        raise
