"""``benchdeck cluster list | setup | check`` in a subprocess, on real MariaDB servers: a managed
cluster set up and checked, a stopped replica named with the reason (exit 1, one line); an
existing cluster (the replication fixture's) checked as external servers; mistakes are one line."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import ROOT, bd
from tests.fixtures.servers import free_port
from tests.fixtures.servers.replication import MariaDBReplication, mariadb_query

BUILD = "ma1011_rel"


def env_for(tmp_path: Path, inventory: str) -> dict[str, str]:
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(inventory)
    e = dict(os.environ)
    e.update(BENCHDECK_DB=str(tmp_path / "s.duckdb"), BENCHDECK_INVENTORY=str(cfg), PYTHONPATH=str(ROOT))
    return e


def managed_inventory(work: Path, ports: dict[str, int], kind: str = "async") -> str:
    text = f'[hosts.local]\ntransport = "local"\nworkdir = "{work}"\n'
    text += f'[[hosts.local.builds]]\nname = "{BUILD}"\nmanaged = true\n'
    text += f'[[hosts.local.builds]]\nname = "pg15_rel"\nmanaged = true\n[clusters.loop]\nkind = "{kind}"\n'
    for name, port in ports.items():
        role = "primary" if name == "p" else "replica"
        text += f'[[clusters.loop.nodes]]\nname = "{name}"\nhost = "local"\nrole = "{role}"\nport = {port}\n'
    return text


@pytest.fixture
def work() -> Iterator[Path]:
    """The host's workdir (short: sockets live under it); servers left are killed."""
    path = Path(tempfile.mkdtemp(prefix="bd-clc-"))
    yield path
    for pid_file in path.glob("servers/*/benchdeck-run/mysqld.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


def test_list_and_mistakes_are_one_line(tmp_path: Path) -> None:
    env = env_for(tmp_path, managed_inventory(tmp_path, {"p": 3406, "r1": 3407}))
    r = bd(env, "cluster", "list")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "loop  async  lag limit 10 s  p=local:3406 (primary), r1=local:3407\n"

    r = bd(env, "cluster", "check", "nope", "--build", BUILD)
    assert (r.returncode, r.stderr) == (2, "benchdeck: unknown cluster nope (clusters: loop)\n")
    r = bd(env, "cluster", "check", "loop", "--build", "pg15_rel")
    assert r.returncode == 1
    assert r.stderr == (
        "benchdeck: cluster loop: kind async is not for postgres"
        " (build pg15_rel; postgres clusters: streaming)\n"
    )
    r = bd(env, "cluster", "setup", "loop", "--build", BUILD, "--config", "c9")
    assert (r.returncode, r.stderr) == (
        1,
        f"benchdeck: cluster loop: node p: build {BUILD} has no config 'c9' (configs: '')\n",
    )
    bad = env_for(tmp_path, managed_inventory(tmp_path, {"p": 3406, "r1": 3406}))
    r = bd(bad, "cluster", "list")
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1
    where = f"{tmp_path}/benchdeck.toml:21: clusters.loop.nodes[1].port"
    assert r.stderr == f"benchdeck: {where}: node p on host local has port 3406 too\n"


@pytest.mark.integration
def test_setup_then_check_and_a_stopped_replica_named(tmp_path: Path, work: Path) -> None:
    ports = {"p": free_port(), "r1": free_port()}
    env = env_for(tmp_path, managed_inventory(work, ports))
    r = bd(env, "cluster", "setup", "loop", "--build", BUILD, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"node r1 (local:{ports['r1']}): replicating from p at GTID" in r.stdout, r.stdout
    assert r.stdout.endswith(
        f"node r1 (local:{ports['r1']}): replicating, 0 s behind\ncluster loop: fit to run on\n"
    )

    r = bd(env, "cluster", "check", "loop", "--build", BUILD)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == f"node p (local:{ports['p']}): primary, answering"

    pid_file = next(work.glob("servers/*@loop.r1/benchdeck-run/mysqld.pid"))
    os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)
    r = bd(env, "cluster", "check", "loop", "--build", BUILD)
    assert r.returncode == 1
    assert r.stderr.startswith(f"benchdeck: cluster loop: node r1 (local:{ports['r1']}): ERROR 2002"), (
        r.stderr
    )
    assert r.stderr.count("\n") == 1


@pytest.mark.integration
def test_an_existing_cluster_is_checked_not_set_up(
    tmp_path: Path, mariadb_replication: MariaDBReplication
) -> None:
    p, (r1,) = mariadb_replication.primary, mariadb_replication.replicas
    build = f'name = "{BUILD}"\nuser = "bench"\npassword = "{p.password}"\n'
    text = f'[hosts.local]\ntransport = "local"\n[[hosts.local.builds]]\n{build}\n'
    text += '[clusters.ext]\nkind = "async"\n'
    for name, role, port in (("p", "primary", p.port), ("r1", "replica", r1.port)):
        text += f'[[clusters.ext.nodes]]\nname = "{name}"\nhost = "local"\nrole = "{role}"\nport = {port}\n'
    env = env_for(tmp_path, text)
    r = bd(env, "cluster", "check", "ext", "--build", BUILD)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        f"node p (local:{p.port}): primary, answering\n"
        f"node r1 (local:{r1.port}): replicating, 0 s behind\n"
        "cluster ext: fit to run on\n"
    )
    r = bd(env, "cluster", "setup", "ext", "--build", BUILD)
    assert r.returncode == 1
    assert "its nodes are not managed (build ma1011_rel): benchdeck sets up managed servers only" in r.stderr

    mariadb_query(r1, "STOP REPLICA SQL_THREAD")
    try:
        r = bd(env, "cluster", "check", "ext", "--build", BUILD)
    finally:
        mariadb_replication.start_replica(r1)
    assert (r.returncode, r.stderr) == (
        1,
        f"benchdeck: cluster ext: node r1 (local:{r1.port}):"
        " not replicating (IO thread Yes, SQL thread No)\n",
    )
