"""A private PostgreSQL server on 127.0.0.1 (trust auth) with database ``sbtest``.

``initdb`` refuses to run as root, so the cluster belongs to the ``postgres`` OS user.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.servers import (
    MissingBinary,
    ServerStartError,
    free_port,
    kill_and_wait,
    log_tail,
    require,
    run_checked,
)

PACKAGE = "postgresql"
OS_USER = "postgres"


def bin_dir() -> Path:
    """The newest ``/usr/lib/postgresql/<version>/bin`` that has initdb."""
    root = Path("/usr/lib/postgresql")
    found = sorted(
        (p for p in root.glob("*/bin") if (p / "initdb").exists() and p.parent.name.isdigit()),
        key=lambda p: int(p.parent.name),
    )
    if not found:
        raise MissingBinary(f"no initdb under {root}: install it with `apt-get install -y {PACKAGE}`")
    return found[-1]


def _as_postgres(*argv: str) -> list[str]:
    return ["runuser", "-u", OS_USER, "--", *argv]


SECURE_USER = "secure"  # needs SECURE_PASSWORD over TCP (scram-sha-256); owns SECURE_DB
SECURE_PASSWORD = "pw-7f3a"
SECURE_DB = "sbtest_secure"


@dataclass
class PostgresServer:
    """A running postgres; connect as ``user`` (superuser ``postgres``) or ``bench`` (trusted),
    or as ``SECURE_USER`` with ``SECURE_PASSWORD``."""

    host: str
    port: int
    socket_dir: Path
    user: str
    bench_user: str
    database: str
    base_dir: Path
    data_dir: Path
    log: Path
    pid: int
    bin_dir: Path

    def psql_argv(self, *args: str) -> list[str]:
        """``psql`` over TCP to ``sbtest``, e.g. ``psql_argv("-c", "select 1")``."""
        return [
            str(self.bin_dir / "psql"),
            "-X",
            "-h",
            self.host,
            "-p",
            str(self.port),
            "-U",
            self.user,
            "-d",
            self.database,
            *args,
        ]

    def stop(self) -> None:
        """``pg_ctl stop -m fast``, then kill the postmaster by pid; removes the temp dir."""
        if self.data_dir.exists():
            subprocess.run(
                _as_postgres(
                    str(self.bin_dir / "pg_ctl"),
                    "-D",
                    str(self.data_dir),
                    "-m",
                    "fast",
                    "-w",
                    "-t",
                    "30",
                    "stop",
                ),
                capture_output=True,
                check=False,
                timeout=60,
                cwd=self.base_dir,
            )
        kill_and_wait(self.pid)
        shutil.rmtree(self.base_dir, ignore_errors=True)


def start_postgres(*, timeout: float = 60.0) -> PostgresServer:
    """initdb (as postgres), ``pg_ctl -w start`` on a free port, create ``sbtest``/``bench``."""
    bins = bin_dir()
    for tool in ("initdb", "pg_ctl", "postgres", "psql"):
        require(str(bins / tool), PACKAGE)
    require("runuser", "util-linux")
    try:
        pw = pwd.getpwnam(OS_USER)
    except KeyError:
        raise MissingBinary(f"no {OS_USER} OS user: install it with `apt-get install -y {PACKAGE}`") from None
    base = Path(tempfile.mkdtemp(prefix="benchdeck-postgres-"))
    data, sock, log = base / "data", base / "sock", base / "postgres.log"
    started = False
    try:
        sock.mkdir()
        for path in (base, sock):
            os.chown(path, pw.pw_uid, pw.pw_gid)
        run_checked(
            _as_postgres(
                str(bins / "initdb"),
                "-D",
                str(data),
                "--auth=trust",
                "-U",
                OS_USER,
                "-E",
                "UTF8",
                "--locale=C",
                "--no-sync",
                "--no-instructions",
            ),
            "initdb",
            cwd=base,
        )
        port = free_port()
        opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1"
        started = True
        run_checked(
            _as_postgres(
                str(bins / "pg_ctl"),
                "-D",
                str(data),
                "-o",
                opts,
                "-l",
                str(log),
                "-w",
                "-t",
                str(int(timeout)),
                "start",
            ),
            "pg_ctl start",
            cwd=base,
            timeout=timeout + 10,
        )
        head = (data / "postmaster.pid").read_text().split("\n", 1)[0]
        if not re.fullmatch(r"\d+", head.strip()):
            raise ServerStartError(f"cannot read postmaster.pid{log_tail(log)}")
        server = PostgresServer(
            host="127.0.0.1",
            port=port,
            socket_dir=sock,
            user=OS_USER,
            bench_user="bench",
            database="postgres",
            base_dir=base,
            data_dir=data,
            log=log,
            pid=int(head),
            bin_dir=bins,
        )
        run_checked(server.psql_argv("-c", "CREATE ROLE bench LOGIN SUPERUSER"), "create role")
        run_checked(server.psql_argv("-c", "CREATE DATABASE sbtest OWNER bench"), "createdb")
        # A role that must give its password over TCP (scram), with a database of its own.
        hba = data / "pg_hba.conf"
        hba.write_text(f"host all {SECURE_USER} 127.0.0.1/32 scram-sha-256\n" + hba.read_text())
        run_checked(
            server.psql_argv("-c", f"CREATE ROLE {SECURE_USER} LOGIN SUPERUSER PASSWORD '{SECURE_PASSWORD}'"),
            "create role",
        )
        run_checked(server.psql_argv("-c", f"CREATE DATABASE {SECURE_DB} OWNER {SECURE_USER}"), "createdb")
        run_checked(server.psql_argv("-c", "SELECT pg_reload_conf()"), "reload")
        server.database = "sbtest"
        return server
    except BaseException:
        if started:
            subprocess.run(
                _as_postgres(str(bins / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"),
                capture_output=True,
                check=False,
                timeout=60,
                cwd=base,
            )
        shutil.rmtree(base, ignore_errors=True)
        raise
