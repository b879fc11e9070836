"""Files the inventory names but the machines lack, reported by ``hosts list`` / ``hosts check``
with file:line, before any run: a key file (this machine), a build's ``basedir``,
``config_file`` and ``configs`` (the host: a real sshd on loopback, and the local host)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.test_hosts import Env
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration


def line_of(config: Path, text: str) -> int:
    for n, line in enumerate(config.read_text().splitlines(), 1):
        if text in line:
            return n
    raise AssertionError(text)


@pytest.fixture
def env(tmp_path: Path, sshd_server: SshdServer) -> Env:
    e = Env(tmp_path, sshd_server)
    shutil.copy(sshd_server.known_hosts, e.known_hosts)
    (tmp_path / "my.cnf").write_text("[mysqld]\n")
    e.write_config(
        extra=f"""basedir = "{tmp_path}/no-such-basedir"
config_file = "{tmp_path}/my.cnf"
configs = {{ z12 = "{tmp_path}/no-such.cnf" }}

[[hosts.local.builds]]
name = "pg174_o2nofp"
basedir = "{tmp_path}/pg-missing"
"""
    )
    return e


def test_check_names_each_missing_file_with_its_line(env: Env) -> None:
    r = env.run("hosts", "check")
    assert r.returncode == 1, r.stderr
    cfg = env.config
    expected = {
        f"benchdeck: {cfg}:{line_of(cfg, 'no-such-basedir')}: hosts.box.builds[0].basedir: "
        f"{env.tmp}/no-such-basedir does not exist on host box",
        f"benchdeck: {cfg}:{line_of(cfg, 'no-such.cnf')}: hosts.box.builds[0].configs.z12: "
        f"{env.tmp}/no-such.cnf does not exist on host box",
        f"benchdeck: {cfg}:{line_of(cfg, 'pg-missing')}: hosts.local.builds[0].basedir: "
        f"{env.tmp}/pg-missing does not exist on this machine",
    }
    assert set(r.stderr.splitlines()) == expected
    assert set(env.stored()) == {"local", "box"}, "the hosts answered: their facts are stored"


def test_list_warns_of_a_missing_key_file_and_local_paths(env: Env) -> None:
    text = env.config.read_text().replace(str(env.sshd.client_key), str(env.tmp / "gone_key"))
    env.config.write_text(text)
    r = env.run("hosts", "list")
    assert r.returncode == 0, r.stderr
    cfg = env.config
    assert set(r.stderr.splitlines()) == {
        f"benchdeck: warning: {cfg}:{line_of(cfg, 'gone_key')}: hosts.box.key: "
        f"{env.tmp}/gone_key does not exist on this machine",
        f"benchdeck: warning: {cfg}:{line_of(cfg, 'pg-missing')}: hosts.local.builds[0].basedir: "
        f"{env.tmp}/pg-missing does not exist on this machine",
    }
