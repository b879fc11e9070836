"""NUMA placement as a server option of a config (issue 28): ``numactl = { numa = [...] }`` puts
``numactl --cpunodebind=0 --membind=0`` in front of a managed server's start for that config
only, and the run records it (``server-placement`` among its commands). This VM has one NUMA
node (node 0), so the binding changes nothing here; what is tested is the command built, that
the server really runs under it (its CPU affinity list is node 0's), and the record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchdeck.engine.hosts.inventory import ConfigError
from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.planning.build_conn import server_spec
from tests.cli.test_run import BUILD, WORKLOAD, _kill_servers, managed_env
from tests.fixtures.cli_helpers import bd, db_rows

pytestmark = pytest.mark.integration

NUMA = '["--cpunodebind=0", "--membind=0"]'


def _keys(tmp_path: Path) -> str:
    """A managed build with configs ``smp`` (its default) and ``numa``."""
    smp, numa = tmp_path / "smp.cnf", tmp_path / "numa.cnf"
    return f'config = "smp"\nconfig_file = "{smp}"\nconfigs = {{ numa = "{numa}" }}'


def test_the_placement_is_built_per_config(tmp_path: Path) -> None:
    (tmp_path / "smp.cnf").write_text("[mysqld]\n")
    (tmp_path / "numa.cnf").write_text("[mysqld]\n")
    keys = _keys(tmp_path)
    env, _, _ = managed_env(tmp_path, f"{keys}\nnumactl = {{ numa = {NUMA} }}", 1000)
    inv = load_inventory(Path(env["BENCHDECK_CONFIG"]))
    build = inv.hosts["here"].builds[BUILD]
    assert build.placement == ()
    numa = build.with_config("numa")
    assert numa.placement == ("numactl", "--cpunodebind=0", "--membind=0")
    assert server_spec(numa, "/w").placed(["mysqld", "--defaults-file=x"]) == [
        "numactl", "--cpunodebind=0", "--membind=0", "mysqld", "--defaults-file=x"
    ]  # fmt: skip
    every, _, _ = managed_env(tmp_path, f"numactl = {NUMA}", 1000)
    assert (
        load_inventory(Path(every["BENCHDECK_CONFIG"])).hosts["here"].builds[BUILD].placement[0] == "numactl"
    )
    bad, _, _ = managed_env(tmp_path, 'numactl = "--cpunodebind=0"', 1000)
    with pytest.raises(ConfigError, match=r"numactl: expected an array of numactl options \(never a shell"):
        load_inventory(Path(bad["BENCHDECK_CONFIG"]))


def test_a_numa_config_starts_the_server_under_numactl_and_records_it(tmp_path: Path) -> None:
    (tmp_path / "smp.cnf").write_text("[mysqld]\nmax_connections = 77\n")
    (tmp_path / "numa.cnf").write_text("[mysqld]\nmax_connections = 99\n")
    keys = _keys(tmp_path)
    e, work, _ = managed_env(tmp_path, f"{keys}\nnumactl = {{ numa = {NUMA} }}", 2000)
    try:
        r = bd(e, "queue", "--host", "here", "--build", BUILD, "--config", "smp", "--config", "numa",
               "--workload", WORKLOAD, "--time", "1", timeout=300)  # fmt: skip
        assert r.returncode == 0, r.stdout + r.stderr
        rows = db_rows(
            e, "SELECT r.config, c.commands FROM runs r JOIN run_records c USING (run_id) ORDER BY run_id"
        )
        placed = {cfg: dict(json.loads(str(cmds))).get("server-placement") for cfg, cmds in rows}
        assert placed == {"smp": None, "numa": "numactl --cpunodebind=0 --membind=0"}
        (pid_file,) = work.glob("servers/*numa*/benchdeck-run/mysqld.pid")
        status = Path(f"/proc/{pid_file.read_text().strip()}/status").read_text()
        cpus = Path("/sys/devices/system/node/node0/cpulist").read_text().strip()
        assert f"Cpus_allowed_list:\t{cpus}" in status, "the numa config's server runs bound to node 0"
    finally:
        _kill_servers(work)
