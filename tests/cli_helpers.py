"""Running the real ``benchdeck`` CLI in a subprocess, and reading the store it wrote."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb

from tests.servers.mariadb import MariaDBServer
from tests.servers.postgres import PostgresServer
from tests.servers.sshd import SshdServer

CLI = [sys.executable, "-c", "from benchdeck.tui.cli.main import main; main()"]
ROOT = Path(__file__).resolve().parent.parent


def bd(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``benchdeck ARGS`` with ``env`` (BENCHDECK_DB, BENCHDECK_CONFIG ...), output captured."""
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def start_in_prepare(env: dict[str, str], *args: str) -> tuple[subprocess.Popen[str], int]:
    """Start ``benchdeck ARGS`` (a run); return it and its run id once it printed its prepare phase."""
    proc = subprocess.Popen(
        [*CLI, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := re.match(r"\[run (\d+)\] prepare$", line.strip()):
            return proc, int(m.group(1))
    raise AssertionError("benchdeck never printed the prepare phase")


def db_rows(
    env: dict[str, str], sql: str, params: list[object] | dict[str, object] | None = None
) -> list[tuple[object, ...]]:
    con = duckdb.connect(env["BENCHDECK_DB"], read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def remote_output(env: dict[str, str], run_id: int) -> str:
    """The benchmark's own output file of a run, from its remote (here: local) run directory."""
    ((remote_dir,),) = db_rows(env, "SELECT remote_dir FROM remote_runs WHERE run_id = ?", [run_id])
    return Path(str(remote_dir), "bench.out").read_text()


def sshd_host(name: str, sshd: SshdServer, workdir: Path, keys: str = "") -> str:
    """Inventory TOML of host ``name`` reached over the test sshd; ``keys`` adds TOML lines."""
    return f"""
[hosts.{name}]
hostname = "127.0.0.1"
port = {sshd.port}
user = "{sshd.user}"
key = "{sshd.client_key}"
known_hosts = "{sshd.known_hosts}"
workdir = "{workdir}"
{keys}
"""


def local_host(name: str, workdir: Path, keys: str = "") -> str:
    """Inventory TOML of host ``name`` on this machine (no SSH)."""
    return f'\n[hosts.{name}]\ntransport = "local"\nworkdir = "{workdir}"\n{keys}\n'


def mariadb_build(
    host: str, name: str, db: MariaDBServer, *, database: str | None = None, keys: str = ""
) -> str:
    """Inventory TOML of an external MariaDB build ``name`` of ``host`` (the test server)."""
    return f"""
[[hosts.{host}.builds]]
name = "{name}"
host = "{db.host}"
port = {db.port}
user = "{db.user}"
password = "{db.password}"
database = "{database or db.database}"
{keys}
"""


def postgres_build(
    host: str, name: str, pg: PostgresServer, *, user: str | None = None, database: str | None = None
) -> str:
    """Inventory TOML of an external PostgreSQL build ``name`` of ``host`` (the test server; its
    benchmark user and database unless given)."""
    return f"""
[[hosts.{host}.builds]]
name = "{name}"
host = "{pg.host}"
port = {pg.port}
user = "{user or pg.bench_user}"
database = "{database or pg.database}"
"""


def inventory_env(tmp_path: Path, toml: str, *, store: str = "bd.duckdb") -> dict[str, str]:
    """The environment for ``bd``: the inventory ``toml`` in tmp_path/benchdeck.toml, the store
    tmp_path/``store``."""
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(toml)
    e = dict(os.environ)
    e.update(BENCHDECK_DB=str(tmp_path / store), BENCHDECK_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    return e


def ssh_env(
    tmp_path: Path, sshd: SshdServer, db: MariaDBServer, build: str, *, database: str, host_keys: str = ""
) -> dict[str, str]:
    """The environment for ``bd`` with one host ``sshd`` (the test sshd, workdir under
    ``tmp_path``) and one external MariaDB build ``build`` using ``database``; ``host_keys``
    adds TOML lines to the host (threads, table_size ...)."""
    toml = sshd_host("sshd", sshd, tmp_path / "remote", host_keys)
    return inventory_env(tmp_path, toml + mariadb_build("sshd", build, db, database=database))


def sql(db: MariaDBServer, statement: str) -> str:
    """Run SQL as root on the test MariaDB; its output (tab-separated, no headers)."""
    argv = db.client_argv("-N", "-e", statement)
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout
