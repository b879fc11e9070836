"""``benchdeck hosts``: the real command line in a subprocess, a real sshd, a real store.

The group is added to the root ``cli`` in the subprocess if ``tui.cli`` does not register it
yet, so these tests run the same way before and after it does.
"""

from __future__ import annotations

import json
import os
import platform
import pty
import shutil
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest

from benchdeck.store.storage.db import Store
from tests.fixtures.servers import free_port
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
CLI = [
    sys.executable,
    "-c",
    "from benchdeck.tui.cli.main import cli, main\n"
    "from benchdeck.tui.cli.hosts import hosts_group\n"
    "if 'hosts' not in cli.commands: cli.add_command(hosts_group)\n"
    "main()",
]


class Env:
    """A config file, a store and a known_hosts file of the test's own."""

    def __init__(self, tmp: Path, sshd: SshdServer) -> None:
        self.tmp, self.sshd = tmp, sshd
        self.config, self.db, self.known_hosts = (
            tmp / "benchdeck.toml",
            tmp / "store.duckdb",
            tmp / "known_hosts",
        )

    def write_config(self, box_port: int | None = None, extra: str = "") -> None:
        self.config.write_text(
            f"""
[hosts.local]
transport = "local"

[hosts.box]
hostname = "{self.sshd.host}"
port = {box_port or self.sshd.port}
user = "{self.sshd.user}"
key = "{self.sshd.client_key}"
known_hosts = "known_hosts"
device = "vda"

[[hosts.box.builds]]
name = "ma101119_rel"
socket = "/tmp/none.sock"
{extra}"""
        )

    def run(self, *args: str, stdin: int = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
        env |= {"BENCHDECK_CONFIG": str(self.config), "BENCHDECK_DB": str(self.db)}
        env |= {"XDG_CONFIG_HOME": str(self.tmp / "xdg"), "XDG_DATA_HOME": str(self.tmp / "xdg")}
        return subprocess.run(
            [*CLI, *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            stdin=stdin,
            timeout=120,
            check=False,
        )

    def stored(self) -> dict[str, tuple[int | None, dict[str, object]]]:
        with Store.open(self.db) as store:
            rows = (
                store.cursor()
                .execute("SELECT name, ncpu, facts FROM hosts WHERE facts IS NOT NULL")
                .fetchall()
            )
        return {name: (ncpu, json.loads(facts)) for name, ncpu, facts in rows}


@pytest.fixture
def env(tmp_path: Path, sshd_server: SshdServer) -> Env:
    e = Env(tmp_path, sshd_server)
    e.write_config()
    return e


def lines(text: str) -> list[str]:
    return text.splitlines()


def test_list(env: Env) -> None:
    r = env.run("hosts", "list")
    assert r.returncode == 0, r.stderr
    header, local, box = lines(r.stdout)
    assert header.split() == ["NAME", "ADDRESS", "TRANSPORT", "BUILDS"]
    # the built-in builds Launch offers there (issue 25 item 16: was "-")
    assert local.split() == [
        "local",
        "localhost",
        "local",
        "sqlite",
        "(built-in),",
        "sqlite-sync",
        "(built-in)",
    ]
    assert box.split() == ["box", f"{env.sshd.user}@127.0.0.1:{env.sshd.port}", "ssh", "ma101119_rel"]


def test_unknown_key_then_trust_then_check(env: Env) -> None:
    env.known_hosts.write_text("")
    r = env.run("hosts", "check", "box")
    assert r.returncode == 1
    assert r.stdout == ""
    (line,) = lines(r.stderr)
    assert line.startswith("benchdeck: box: unknown host key for 'box'")
    assert "SHA256:" in line
    assert "benchdeck hosts trust box" in line
    assert not env.db.exists() or env.stored() == {}

    # never silently: no terminal and no --yes -> usage error, nothing written
    r = env.run("hosts", "trust", "box")
    assert r.returncode == 2
    assert "--yes" in r.stderr
    assert env.known_hosts.read_text() == ""

    r = env.run("hosts", "trust", "box", "--yes")
    assert r.returncode == 0, r.stderr
    key_type, key_b64 = env.sshd.host_key_pub.read_text().split()[:2]
    fingerprint = asyncssh.import_public_key(f"{key_type} {key_b64}").get_fingerprint("sha256")
    assert f"offers {key_type} key {fingerprint}" in r.stdout
    assert env.known_hosts.read_text() == f"[127.0.0.1]:{env.sshd.port} {key_type} {key_b64}\n"

    r = env.run("hosts", "check", "box")
    assert r.returncode == 0, r.stderr
    assert "box" in env.stored()
    again = env.run("hosts", "trust", "box", "--yes")
    assert again.returncode == 0
    assert "already trusted" in again.stdout
    assert env.known_hosts.read_text().count("\n") == 1


@pytest.mark.parametrize(("answer", "code"), [("n", 1), ("y", 0)])
def test_trust_asks_on_a_terminal(env: Env, answer: str, code: int) -> None:
    env.known_hosts.write_text("")
    master, slave = pty.openpty()
    try:
        os.write(master, f"{answer}\n".encode())
        r = env.run("hosts", "trust", "box", stdin=slave)
    finally:
        os.close(master)
        os.close(slave)
    assert r.returncode == code, r.stderr
    assert "Trust it (add to " in r.stdout
    assert (env.known_hosts.read_text() != "") == (answer == "y")


def test_check_all_stores_facts(env: Env) -> None:
    shutil.copy(env.sshd.known_hosts, env.known_hosts)
    r = env.run("hosts", "check")
    assert r.returncode == 0, r.stderr
    out = lines(r.stdout)
    assert [ln.split(":")[0] for ln in out if not ln.startswith(" ")] == ["local", "box"]
    summary = [ln for ln in out if not ln.startswith(" ")][-1]
    assert summary.startswith("box: ")
    assert any(ln.startswith("  box: devices: ") for ln in out)
    assert f"kernel {platform.release()}" in summary
    assert " GiB RAM" in summary
    stored = env.stored()
    assert set(stored) == {"local", "box"}
    for ncpu, facts in stored.values():
        assert ncpu == os.cpu_count()
        assert facts["ncpu"] == os.cpu_count()
        assert facts["kernel"] == platform.release()
        assert isinstance(facts["tools"], dict)
        assert facts["tools"]["sysbench"]


def test_check_names_the_hosts_python_and_its_drivers(env: Env) -> None:
    """The interpreter the shipped clients run with on a remote host: the inventory's, checked
    (it looked for python3 whatever the host named); one that does not run fails the check."""
    shutil.copy(env.sshd.known_hosts, env.known_hosts)
    text = env.config.read_text().replace('device = "vda"', f'device = "vda"\npython = "{sys.executable}"')
    env.config.write_text(text)
    r = env.run("hosts", "check", "box")
    assert r.returncode == 0, r.stderr
    v = ".".join(map(str, sys.version_info[:3]))
    assert f"  box: python {sys.executable} ({v}): PyMySQL yes, psycopg yes" in lines(r.stdout)

    bare = env.tmp / "bare"  # a venv without the drivers: each missing one named with its fix
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    env.config.write_text(text.replace(f'python = "{sys.executable}"', f'python = "{bare}/bin/python"'))
    r = env.run("hosts", "check", "box")
    assert r.returncode == 0, r.stderr
    out = lines(r.stdout)
    assert f"  box: python {bare}/bin/python ({v}): PyMySQL no, psycopg no" in out
    assert (
        f"  box: psycopg is missing for PostgreSQL TPC-C and Insert Benchmark runs: {bare}/bin/python -m pip "
        "install 'psycopg[binary]', or name another interpreter (hosts.box.python)"
    ) in out

    env.config.write_text(text.replace(f'python = "{sys.executable}"', 'python = "/nonexistent/python3"'))
    r = env.run("hosts", "check", "box")
    assert r.returncode == 1
    (line,) = [ln for ln in lines(r.stderr) if "python" in ln]
    assert line.startswith("benchdeck: box: python /nonexistent/python3 does not run there (")
    assert line.endswith("install it or name another interpreter (hosts.box.python)")


def test_one_unreachable_host_fails_alone(env: Env) -> None:
    shutil.copy(env.sshd.known_hosts, env.known_hosts)
    env.write_config(box_port=free_port())
    r = env.run("hosts", "check")
    assert r.returncode == 1
    (line,) = lines(r.stderr)
    assert line.startswith("benchdeck: box: cannot reach 'box'")
    assert lines(r.stdout)[0].startswith("local: ")
    assert set(env.stored()) == {"local"}


def test_changed_key_is_refused(env: Env) -> None:
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().split()
    env.known_hosts.write_text(f"[127.0.0.1]:{env.sshd.port} {other[0]} {other[1]}\n")
    before = env.known_hosts.read_text()
    r = env.run("hosts", "trust", "box", "--yes")
    assert r.returncode == 1
    (line,) = lines(r.stderr)
    assert "HOST KEY CHANGED for 'box'" in line
    assert env.known_hosts.read_text() == before


@pytest.mark.parametrize(
    ("args", "extra", "code", "message"),
    [
        (("hosts", "check", "nope"), "", 2, "benchdeck: unknown host nope (known: box, local)"),
        (("hosts", "trust", "local"), "", 2, "benchdeck: host local uses the local transport"),
        (
            ("hosts", "list"),
            "threads = 'x'",
            1,
            "benchdeck: {config}:16: hosts.box.builds[0].threads: unknown key",
        ),
    ],
)
def test_errors_are_one_line(env: Env, args: tuple[str, ...], extra: str, code: int, message: str) -> None:
    env.write_config(extra=extra)
    r = env.run(*args)
    assert r.returncode == code
    (line,) = lines(r.stderr)
    assert line.startswith(message.format(config=env.config)), line
