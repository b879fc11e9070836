"""What a run records, against the real sshd, MariaDB and PostgreSQL: host facts, the server's
version and variables, the config file's content, the command lines (passwords masked), the raw
outputs (compressed); and ``benchdeck diff`` of two runs."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchdeck.store.storage.raw import decompress
from tests.fixtures.cli_helpers import ROOT, bd, db_rows, remote_output
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import PostgresServer
from tests.runlife.conftest import MARIADB, POSTGRES, WORKLOAD

pytestmark = pytest.mark.integration  # real MariaDB and PostgreSQL


def finished(r: subprocess.CompletedProcess[str]) -> int:
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"^run (\d+) finished qps", r.stdout, re.M)
    assert m, r.stdout
    return int(m.group(1))


@pytest.fixture
def max_connect_errors(mariadb_server: MariaDBServer) -> Iterator[str]:
    """The server's max_connect_errors, restored after the test changed it."""
    out = subprocess.run(
        mariadb_server.client_argv("-N", "-B", "-e", "SELECT @@global.max_connect_errors"),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    before = out.stdout.strip()
    yield before
    subprocess.run(
        mariadb_server.client_argv("-e", f"SET GLOBAL max_connect_errors = {int(before)}"), check=True
    )


def test_mariadb_runs_record_what_they_ran_on_and_diff_shows_the_changes(
    env: dict[str, str], mariadb_server: MariaDBServer, max_connect_errors: str
) -> None:
    run_a = finished(
        bd(env, "run", "--host", "sshd", "--build", MARIADB, "--workload", WORKLOAD, "--time", "2")
    )
    subprocess.run(mariadb_server.client_argv("-e", "SET GLOBAL max_connect_errors = 4321"), check=True)
    args = (
        "run",
        "--host",
        "sshd",
        "--build",
        MARIADB,
        "--config",
        "b",
        "--workload",
        WORKLOAD,
        "--time",
        "2",
    )
    run_b = finished(bd(env, *args))

    ((version, variables, configs, facts, commands, notes),) = db_rows(
        env,
        "SELECT dbms_version, variables, config_files, host_facts, commands, notes FROM run_records "
        "WHERE run_id = ?",
        [run_a],
    )
    assert "MariaDB" in str(version), version
    assert json.loads(str(variables))["max_connect_errors"] == max_connect_errors
    assert "innodb_buffer_pool_size=128M" in next(iter(json.loads(str(configs)).values()))
    assert json.loads(str(facts))["ncpu"] == os.cpu_count()
    assert json.loads(str(notes)) == []
    bench = dict(json.loads(str(commands)))["bench"]
    ((command,),) = db_rows(env, "SELECT command FROM runs WHERE run_id = ?", [run_a])
    assert command == bench
    assert bench.startswith("sysbench ")
    assert "--mysql-password=********" in bench
    assert mariadb_server.password not in bench

    rows = db_rows(
        env, "SELECT name, codec, data FROM raw_files WHERE run_id = ? AND kind = 'output'", [run_a]
    )
    outputs = {str(name): decompress(str(codec), bytes(data)) for name, codec, data in rows}  # type: ignore[arg-type]
    assert outputs["bench.out"].decode() == remote_output(env, run_a)
    vmstat = outputs["vmstat.out"].decode()
    assert "procs" in vmstat
    assert "Terminated" not in vmstat
    skipped = db_rows(env, "SELECT source, text FROM skipped_lines WHERE run_id = ?", [run_a])
    assert skipped == [], "killing the monitors leaves no 'Terminated' line to skip"

    r = bd(env, "diff", str(run_a), str(run_b))
    assert r.returncode == 0, r.stderr
    assert f"  max_connect_errors: {max_connect_errors} -> 4321" in r.stdout, r.stdout
    assert "b.cnf:2: innodb_buffer_pool_size=128M -> innodb_buffer_pool_size=256M" in r.stdout
    dbms = r.stdout.split("[dbms]", 1)[1].split("\n[", 1)[0] if "[dbms]" in r.stdout else ""
    assert "version" not in dbms, "the same server: no version difference"
    assert "server config: a -> b" in dbms  # builds and configs are differences (issue 25 item 9)
    only = bd(env, "diff", str(run_a), str(run_b), "--section", "variables")
    assert "[config]" not in only.stdout
    assert "max_connect_errors" in only.stdout


def test_postgres_runs_record_version_and_settings_and_diff_them(
    env: dict[str, str], postgres_server: PostgresServer
) -> None:
    def psql(sql: str) -> None:
        subprocess.run(postgres_server.psql_argv("-c", sql), check=True, capture_output=True)

    args = ("run", "--host", "here", "--build", POSTGRES, "--workload", "pgbench.select-only", "--time", "1")
    run_a = finished(bd(env, *args))
    psql(f"ALTER DATABASE {postgres_server.database} SET work_mem = '7MB'")
    try:
        run_b = finished(bd(env, *args))
    finally:
        psql(f"ALTER DATABASE {postgres_server.database} RESET work_mem")
    ((version, variables),) = db_rows(
        env, "SELECT dbms_version, variables FROM run_records WHERE run_id = ?", [run_b]
    )
    assert str(version).startswith("PostgreSQL 15"), version
    settings = json.loads(str(variables))
    assert settings["work_mem"] == "7MB"
    assert settings["port"] == str(postgres_server.port)
    r = bd(env, "diff", str(run_a), str(run_b))
    assert r.returncode == 0, r.stderr
    assert "  work_mem: 4MB -> 7MB" in r.stdout, r.stdout


def test_diff_of_a_run_without_a_record_is_one_line(env: dict[str, str]) -> None:
    data = ROOT / "tests" / "data" / "recorded" / "sysbench_oltp_point_select.txt"
    imported = bd(
        env, "import", "sysbench", str(data), "--host", "h", "--build", MARIADB, "--workload", WORKLOAD
    )
    assert imported.returncode == 0, imported.stderr
    r = bd(env, "diff", imported.stdout.strip(), imported.stdout.strip())
    assert r.returncode == 1
    assert r.stderr.strip() == (
        f"benchdeck: run {imported.stdout.strip()}: no run-time record (imported, or run before "
        "benchdeck kept them)"
    ), r.stderr
    r = bd(env, "diff", imported.stdout.strip(), "99")  # a run that does not exist is said first
    assert r.returncode == 1
    assert r.stderr.strip() == "benchdeck: run 99: no such run", r.stderr


@pytest.fixture
def git_basedir(tmp_path: Path) -> tuple[Path, str]:
    """A basedir that is a git work tree holding the server binary (the system's mariadbd,
    linked in), and its commit."""
    base = tmp_path / "ma1011"
    (base / "bin").mkdir(parents=True)
    (base / "bin" / "mariadbd").symlink_to("/usr/sbin/mariadbd")
    git = ["git", "-C", str(base), "-c", "user.name=b", "-c", "user.email=b@b"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "build"]):
        subprocess.run([*git, *args], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    return base, head.stdout.strip()


async def test_binary_version_and_git_commit_of_the_basedir(
    tmp_path: Path, mariadb_server: MariaDBServer, git_basedir: tuple[Path, str]
) -> None:
    from benchdeck.engine.planning.plan import RunPlan
    from benchdeck.engine.running.provenance import DbAccess, capture
    from benchdeck.engine.transport import HostSpec, LocalTransport

    base, head = git_basedir
    t = LocalTransport(HostSpec(name="local", hostname="localhost", transport="local"))
    plan = RunPlan(1, "local", WORKLOAD, str(tmp_path), ("sysbench", "run"), 10)
    record = await capture(t, plan, DbAccess("mysql", tuple(mariadb_server.client_argv()), basedir=str(base)))
    assert record.git_commit == head
    assert record.binary_version is not None
    assert record.binary_version.startswith(f"{base}/bin/mariadbd  Ver 10.11"), record.binary_version
    assert record.notes == ()


def test_a_managed_build_records_its_generated_config_and_server_binary(tmp_path: Path) -> None:
    from tests.cli.test_run import BUILD as MANAGED
    from tests.cli.test_run import managed_env

    env, _, port = managed_env(tmp_path, "", table_size=1000)
    args = (
        "run",
        "--host",
        "here",
        "--build",
        MANAGED,
        "--workload",
        WORKLOAD,
        "--time",
        "1",
        "--stop-server",
    )
    run_id = finished(bd(env, *args))
    ((configs, binary, variables),) = db_rows(
        env, "SELECT config_files, binary_version, variables FROM run_records WHERE run_id = ?", [run_id]
    )
    [(path, text)] = json.loads(str(configs)).items()
    assert path.endswith(f"/servers/{MANAGED}/benchdeck.cnf")
    assert f'port = "{port}"' in text, text
    assert "mariadbd  Ver 10.11" in str(binary)
    assert json.loads(str(variables))["port"] == str(port)
