"""A ``device`` that does not exist on the host: the run warns at preflight (naming the block
devices there), and ``hosts check`` lists the devices and says so too."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import bd, ssh_env
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.sshd import SshdServer
from tests.runlife.conftest import MARIADB, WORKLOAD

pytestmark = pytest.mark.integration  # real sshd and MariaDB


def block_devices() -> list[str]:
    return sorted(d for d in os.listdir("/sys/block") if not d.startswith(("loop", "ram")))


def test_missing_device_warns_at_preflight_and_in_hosts_check(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer
) -> None:
    host_keys = 'device = "nosuch9n1"\nthreads = 1\ntables = 1\ntable_size = 1000'
    env = ssh_env(
        tmp_path, sshd_server, mariadb_server, MARIADB, database=mariadb_server.database, host_keys=host_keys
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
