"""The capture as an unprivileged SSH user (``bdperf``, created here when missing), over the
test sshd: at ``kernel.perf_event_paranoid=2`` the preflight stops the run with one line saying
the fix (``--profile-optional``: the run goes on without the capture); with the sysctl set by
the test (restored after) the user's own benchmark is captured, kernel included."""

from __future__ import annotations

import pwd
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from benchdeck.engine.events import LogLine, RunFailed, RunFinished
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.transport import HostSpec, SSHTransport
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from tests.engine.test_capture_runs import builtin_plan, consume
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration

USER = "bdperf"
PARANOID = Path("/proc/sys/kernel/perf_event_paranoid")


@pytest.fixture
def user_spec(sshd_server: SshdServer, ssh_host_spec: HostSpec) -> Iterator[HostSpec]:
    """``bdperf`` logs in to the test sshd with the suite's client key (sshd reads the key file
    as the user: its directory is made traversable, the public key readable, for the test)."""
    try:
        pwd.getpwnam(USER)
    except KeyError:
        # password "*": no password login, but not a locked account ("!"), which sshd refuses
        subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", "-p", "*", USER], check=True)
    base, pub = sshd_server.base_dir, sshd_server.base_dir / "client_ed25519.pub"
    modes = (base.stat().st_mode & 0o7777, pub.stat().st_mode & 0o7777)
    base.chmod(0o711)
    pub.chmod(0o644)
    try:
        fields = {f: getattr(ssh_host_spec, f) for f in ssh_host_spec.__dataclass_fields__}
        yield HostSpec(**{**fields, "user": USER})  # type: ignore[arg-type]
    finally:
        base.chmod(modes[0])
        pub.chmod(modes[1])


@pytest.fixture
def paranoid() -> Iterator[None]:
    """The kernel's sysctl as the test sets it, put back afterwards."""
    before = PARANOID.read_text().strip()
    try:
        yield
    finally:
        PARANOID.write_text(before)


@pytest.fixture
async def user_ssh(user_spec: HostSpec) -> AsyncIterator[SSHTransport]:
    t = SSHTransport(user_spec)
    await t.connect()
    yield t
    await t.close()


async def test_paranoid_2_stops_the_run_with_one_line_for_another_users_server(
    tmp_path: Path, user_ssh: SSHTransport, mariadb_server: MariaDBServer, paranoid: None
) -> None:
    PARANOID.write_text("2")
    store = Store.open(tmp_path / "u.duckdb")
    plan = builtin_plan(store, 2, USER, targets=(f"pid:{mariadb_server.pid}",))
    events = await consume(Runner(user_ssh, plan), EventSink(store), plan)
    (failed,) = [e for e in events if isinstance(e, RunFailed)]
    assert "\n" not in failed.error
    assert f"perf cannot watch pid {mariadb_server.pid} as {USER}" in failed.error
    assert "kernel.perf_event_paranoid=2" in failed.error
    assert "sysctl -w kernel.perf_event_paranoid=-1" in failed.error
    assert "setcap cap_perfmon" in failed.error


async def test_paranoid_2_user_space_only_is_refused_unless_optional(
    tmp_path: Path, user_ssh: SSHTransport, paranoid: None
) -> None:
    PARANOID.write_text("2")
    store = Store.open(tmp_path / "u.duckdb")
    plan = builtin_plan(store, 2, USER)
    events = await consume(Runner(user_ssh, plan), EventSink(store), plan)
    (failed,) = [e for e in events if isinstance(e, RunFailed)]
    assert f"kernel.perf_event_paranoid=2 lets {USER} count user space only" in failed.error
    assert "--profile-optional" in failed.error

    plan = builtin_plan(store, 2, USER)
    assert plan.capture is not None
    plan = replace(plan, capture=replace(plan.capture, options=replace(plan.capture.options, optional=True)))
    events = await consume(Runner(user_ssh, plan), EventSink(store), plan)
    assert any(isinstance(e, RunFinished) for e in events)
    said = [e.text for e in events if isinstance(e, LogLine)]
    assert any("running without --profile counters,cpu" in t for t in said), said
    assert store.scalar("SELECT count(*) FROM counter_windows WHERE run_id = ?", [plan.run_id]) == 0


async def test_with_the_sysctl_the_users_benchmark_is_captured(
    tmp_path: Path, user_ssh: SSHTransport, paranoid: None
) -> None:
    PARANOID.write_text("-1")
    store = Store.open(tmp_path / "u.duckdb")
    # 6 s: room for both kinds' 1 s windows in turn and the cpu window's fold on a loaded machine
    plan = builtin_plan(store, 6, USER)
    events = await consume(Runner(user_ssh, plan), EventSink(store), plan)
    assert any(isinstance(e, RunFinished) for e in events), [e for e in events if isinstance(e, RunFailed)]
    rows = store.con.execute(
        "SELECT event, min(value) FROM counter_values WHERE run_id = ? AND status = 'counted' GROUP BY event",
        [plan.run_id],
    ).fetchall()
    got = dict(rows)
    assert got["task-clock"] > 0, "kernel and user time, not task-clock:u"
    assert store.scalar("SELECT sum(samples) FROM profile_windows WHERE run_id = ?", [plan.run_id]) > 0
