"""A ``device`` that does not exist on the host: the run warns at preflight (naming the block
devices there), and ``hosts check`` lists the devices and says so too."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.cli_helpers import ROOT, bd
from tests.runlife.conftest import MARIADB, WORKLOAD
from tests.servers.mariadb import MariaDBServer
from tests.servers.sshd import SshdServer


def block_devices() -> list[str]:
    return sorted(d for d in os.listdir("/sys/block") if not d.startswith(("loop", "ram")))


def test_missing_device_warns_at_preflight_and_in_hosts_check(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer
) -> None:
    cfg = tmp_path / "benchdeck.toml"
    cfg.write_text(
        f"""
[hosts.sshd]
hostname = "127.0.0.1"
port = {sshd_server.port}
user = "{sshd_server.user}"
key = "{sshd_server.client_key}"
known_hosts = "{sshd_server.known_hosts}"
workdir = "{tmp_path / "remote"}"
device = "nosuch9n1"
threads = 1
tables = 1
table_size = 1000

[[hosts.sshd.builds]]
name = "{MARIADB}"
host = "{mariadb_server.host}"
port = {mariadb_server.port}
user = "{mariadb_server.user}"
password = "{mariadb_server.password}"
database = "{mariadb_server.database}"
"""
    )
    env = dict(
        os.environ, BENCHDECK_DB=str(tmp_path / "bd.duckdb"), BENCHDECK_CONFIG=str(cfg), PYTHONPATH=str(ROOT)
    )
    devices = ", ".join(block_devices())
    r = bd(env, "run", "--host", "sshd", "--build", MARIADB, "--workload", WORKLOAD, "--time", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    warning = (
        f"benchdeck: warning: device nosuch9n1 does not exist on sshd (block devices: {devices}): "
        "no iostat metrics; fix device in the inventory"
    )
    assert re.search(rf"^\[run 1\] {re.escape(warning)}$", r.stdout, re.M), r.stdout

    check = bd(env, "hosts", "check", "sshd")
    assert check.returncode == 0, check.stderr
    listed = re.search(r"^  sshd: devices: (.*)$", check.stdout, re.M)
    assert listed, check.stdout
    assert sorted(d.split(" (")[0] for d in listed.group(1).split(", ")) == block_devices()
    assert "  sshd: device nosuch9n1 (inventory) does not exist there" in check.stdout
