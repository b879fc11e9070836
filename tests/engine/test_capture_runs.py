"""``--profile counters,cpu`` captured by the real perf on this machine, over the test sshd as
root, against the real MariaDB, PostgreSQL (postmaster and backends) and the built-in SQLite
workload; faults: a dropped link, a killed then reattached benchdeck, perf killed on the host.

This VM counts software events only: hardware events read ``<not supported>`` and must be
stored as missing (NULL + status), never 0."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.events import BenchBatch, CaptureBatch, LogLine, RunEvent, RunFailed, RunFinished
from benchdeck.engine.families.builtin.catalogue import builtin_argv
from benchdeck.engine.families.builtin.plan import CLIENT_DIR, client_files
from benchdeck.engine.families.sysbench.command import SysbenchCommand
from benchdeck.engine.profiling.capture import CaptureOptions, capture_plan
from benchdeck.engine.running.runner import Runner, RunPlan
from benchdeck.engine.transport import HostSpec, SSHTransport
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.live import marks, unfinished
from benchdeck.store.storage.runs import NewRun, create_run
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import PostgresServer
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration

WORKLOAD = "point-query_range=100"
OPTS = CaptureOptions(("counters", "cpu"), window_s=1.0, period_s=1.0, frequency_hz=99)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "capture.duckdb")


def new_run(store: Store, build: str) -> int:
    with store.transaction() as cur:
        return create_run(cur, NewRun("sshd-host", parse_build_name(build), WORKLOAD, "run", threads=2))


def with_capture(
    plan: RunPlan, targets: tuple[str, ...], children: bool = False, opts: CaptureOptions = OPTS
) -> RunPlan:
    capture, files = capture_plan(opts, targets, children, plan.remote_dir, local=False)
    return replace(plan, capture=capture, files=(*plan.files, *files))


def builtin_plan(
    store: Store, duration: int, owner: str | None = None, targets: tuple[str, ...] = ("bench",)
) -> RunPlan:
    """The built-in SQLite workload shipped to the run directory, run with the host's python3
    (the directory belongs to ``owner``, the SSH user, when given)."""
    rid = new_run(store, "ma101119_rel")
    d = tempfile.mkdtemp(prefix=f"bd-cap{rid}-")
    if owner is not None:
        shutil.chown(d, owner)
    db = f"{d}/b.sqlite"

    def argv(command: str) -> tuple[str, ...]:
        a = builtin_argv(
            WORKLOAD, db_path=db, time_s=duration, threads=2, tables=1, table_size=2000, command=command
        )
        return ("python3", *a[1:])

    plan = RunPlan(
        run_id=rid,
        host="sshd-host",
        workload=WORKLOAD,
        remote_dir=d,
        bench_argv=argv("run"),
        duration_s=duration,
        prepare_argv=argv("prepare"),
        table_size=2000,
        ncpu=2,
        env=(("PYTHONPATH", f"{d}/{CLIENT_DIR}"),),
        files=client_files(),
    )
    return with_capture(plan, targets)


def sysbench_plan(store: Store, args: list[str], exists_argv: list[str], duration: int) -> RunPlan:
    rid = new_run(store, "ma101119_rel")
    cmd = SysbenchCommand(WORKLOAD, tuple(args), threads=2, tables=1, table_size=10000)
    return RunPlan(
        run_id=rid,
        host="sshd-host",
        workload=WORKLOAD,
        remote_dir=tempfile.mkdtemp(prefix=f"bd-cap{rid}-"),
        bench_argv=tuple(cmd.run_argv(duration)),
        duration_s=duration,
        prepare_argv=tuple(cmd.prepare_argv()),
        tables_exist_argv=tuple(exists_argv),
        table_size=10000,
        ncpu=2,
    )


def mariadb_plan(store: Store, db: MariaDBServer, duration: int) -> RunPlan:
    exists = db.client_argv(
        "-N",
        "-e",
        "SELECT count(*) FROM information_schema.tables WHERE table_schema='sbtest' AND table_name='sbtest1'",
    )
    plan = sysbench_plan(store, db.sysbench_args(), exists, duration)
    return with_capture(plan, (f"port:{db.port}",))


def postgres_plan(store: Store, pg: PostgresServer, duration: int) -> RunPlan:
    args = [
        "--db-driver=pgsql",
        f"--pgsql-host={pg.host}",
        f"--pgsql-port={pg.port}",
        f"--pgsql-user={pg.bench_user}",
        f"--pgsql-db={pg.database}",
    ]
    exists = pg.psql_argv("-tAc", "SELECT count(*) FROM pg_tables WHERE tablename = 'sbtest1'")
    plan = sysbench_plan(store, args, exists, duration)
    return with_capture(plan, (f"datadir:{pg.data_dir}",), children=True)


async def consume(runner: Runner, sink: EventSink, plan: RunPlan) -> list[RunEvent]:
    seen: list[RunEvent] = []
    sink.plans[plan.run_id] = plan
    async for ev in runner.events():
        seen.append(ev)
        sink.handle(ev)
    sink.flush()
    return seen


def finished(events: list[RunEvent]) -> None:
    assert any(isinstance(e, RunFinished) for e in events), [e for e in events if isinstance(e, RunFailed)]


def file_windows(plan: RunPlan, kind: str) -> list[int]:
    """The window numbers the host's capture loop wrote (complete blocks only)."""
    text = Path(plan.remote_dir, f"{kind}.out").read_text()
    return [int(n) for n in re.findall(r"^# end (\d+)$", text, re.M)]


def stored(store: Store, table: str, run_id: int) -> list[int]:
    rows = store.con.execute(f"SELECT window_no FROM {table} WHERE run_id = ? ORDER BY window_no", [run_id])
    return [r[0] for r in rows.fetchall()]


def check_counters(store: Store, plan: RunPlan) -> None:
    rid = plan.run_id
    assert stored(store, "counter_windows", rid) == file_windows(plan, "counters") != []
    tc = store.con.execute(
        "SELECT min(value), count(*) FROM counter_values WHERE run_id = ? AND event = 'task-clock'", [rid]
    ).fetchone()
    assert tc is not None
    assert tc[0] > 0
    assert tc[1] == len(file_windows(plan, "counters"))
    hw = store.con.execute(
        "SELECT DISTINCT value, status FROM counter_values WHERE run_id = ? AND event = 'instructions'", [rid]
    ).fetchall()
    assert hw == [(None, "not supported")], "a VM's hardware counter is missing, never 0"


async def test_builtin_sqlite_as_root_counters_and_folded_stacks(store: Store, ssh: SSHTransport) -> None:
    plan = builtin_plan(store, 4)
    events = await consume(Runner(ssh, plan), EventSink(store), plan)
    finished(events)
    check_counters(store, plan)
    assert stored(store, "profile_windows", plan.run_id) == file_windows(plan, "cpu") != []
    top = store.con.execute(
        "SELECT stack FROM profile_stacks WHERE run_id = ? ORDER BY samples DESC LIMIT 5", [plan.run_id]
    ).fetchall()
    assert top
    assert all(s.startswith("python3;") for (s,) in top), top
    target = store.scalar("SELECT any_value(target) FROM counter_windows WHERE run_id = ?", [plan.run_id])
    assert re.fullmatch(r"pids \d+(,\d+)*", target)
    assert store.scalar("SELECT count(*) FROM capture_gaps WHERE run_id = ?", [plan.run_id]) == 0


async def test_mariadb_server_found_by_its_port(
    store: Store, ssh: SSHTransport, mariadb_server: MariaDBServer
) -> None:
    plan = mariadb_plan(store, mariadb_server, 4)
    events = await consume(Runner(ssh, plan), EventSink(store), plan)
    finished(events)
    check_counters(store, plan)
    targets = {
        r[0]
        for r in store.con.execute(
            "SELECT target FROM counter_windows WHERE run_id = ?", [plan.run_id]
        ).fetchall()
    }
    assert targets == {f"pids {mariadb_server.pid}"}
    said = [e.text for e in events if isinstance(e, LogLine)]
    assert any("mariadbd is stripped: stacks name only its exported functions" in t for t in said), said
    assert store.scalar("SELECT sum(samples) FROM profile_windows WHERE run_id = ?", [plan.run_id]) > 0


async def test_postgres_postmaster_and_its_backends(
    store: Store, ssh: SSHTransport, postgres_server: PostgresServer
) -> None:
    plan = postgres_plan(store, postgres_server, 4)
    events = await consume(Runner(ssh, plan), EventSink(store), plan)
    finished(events)
    check_counters(store, plan)
    targets = [
        r[0]
        for r in store.con.execute(
            "SELECT target FROM counter_windows WHERE run_id = ?", [plan.run_id]
        ).fetchall()
    ]
    pids = [set(t.removeprefix("pids ").split(",")) for t in targets]
    assert all(str(postgres_server.pid) in p for p in pids)
    assert all(len(p) >= 4 for p in pids), "the postmaster, its helpers and the 2 sysbench backends"


async def test_dropped_link_and_killed_benchdeck_lose_and_repeat_no_window(
    store: Store, ssh_host_spec: HostSpec, sshd_server: SshdServer
) -> None:
    plan = builtin_plan(store, 7)
    first = SSHTransport(ssh_host_spec)
    await first.connect()
    runner = Runner(first, plan)
    sink = EventSink(store)
    sink.plans[plan.run_id] = plan
    windows = 0
    async for ev in runner.events():
        sink.handle(ev)
        if isinstance(ev, BenchBatch) and len(ev.rows) and ev.rows[0].t == 2:
            assert sshd_server.kill_sessions(), "the link dropped mid-window"
        if isinstance(ev, CaptureBatch):
            windows += len(ev.counters)
            if windows >= 3:
                break  # benchdeck "dies": the remote run and its capture go on
    sink.flush()
    await first.close()
    assert first.connections_made >= 2, "the transport reconnected after the drop"
    (live,) = unfinished(store.cursor())
    assert {p.name for p in live.procs} >= {"bench", "counters", "cpu"}
    assert live.plan.capture == plan.capture, "the capture plan survives in the store"
    second = SSHTransport(ssh_host_spec)
    await second.connect()
    try:
        again = Runner(second, live.plan, marks(store.cursor(), plan.run_id))
        sink2 = EventSink(store)
        async for ev in again.events(live.procs):
            sink2.handle(ev)
        sink2.flush()
    finally:
        await second.close()
    assert store.scalar("SELECT status FROM runs WHERE run_id = ?", [plan.run_id]) == "finished"
    for kind, table in (("counters", "counter_windows"), ("cpu", "profile_windows")):
        assert stored(store, table, plan.run_id) == file_windows(plan, kind), f"{kind}: each window once"
    assert len(file_windows(plan, "counters")) >= 5


async def test_perf_killed_on_the_host_is_a_recorded_gap(store: Store, ssh: SSHTransport) -> None:
    plan = builtin_plan(store, 5)
    killed: list[int] = []

    async def kill_perf_once() -> None:
        """SIGKILL the counters loop's perf stat as soon as one runs (the host's own kill)."""
        out = Path(plan.remote_dir, "counters.out")
        while not killed:
            for pid in _perf_stats_in(plan.remote_dir):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            await asyncio.sleep(0.05)  # polling /proc: nothing to wait on
        assert out.exists()

    killer = asyncio.create_task(kill_perf_once())
    events = await consume(Runner(ssh, plan), EventSink(store), plan)
    await asyncio.wait_for(killer, 5)
    finished(events)
    gaps = store.con.execute(
        "SELECT kind, reason FROM capture_gaps WHERE run_id = ?", [plan.run_id]
    ).fetchall()
    assert ("counters", "perf killed by signal 9") in gaps
    assert len(stored(store, "counter_windows", plan.run_id)) >= 2, "the windows after the gap are taken"


def _perf_stats_in(run_dir: str) -> list[int]:
    """Pids of ``perf stat`` processes writing into the run's directory."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{d}/cmdline").read_bytes().split(b"\0")
            if cmd[:2] == [b"perf", b"stat"] and any(a.startswith(f"{run_dir}/".encode()) for a in cmd):
                found.append(int(d))
        except OSError:
            continue
    return found
