"""A run over SSH with real sshd, MariaDB, sysbench, vmstat and iostat: stored exactly once.

Every test here starts real processes; nothing is faked.
"""

from __future__ import annotations

import re
import secrets
import tempfile
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.events import BenchBatch, LogLine, RunEvent, RunFailed, RunFinished, RunStarted
from benchdeck.engine.families.sysbench.command import SysbenchCommand
from benchdeck.engine.parsers.vmstat import parse_vmstat
from benchdeck.engine.running.runner import Runner, RunPlan
from benchdeck.engine.transport import HostSpec, SSHTransport
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.live import marks, unfinished
from benchdeck.store.storage.runs import NewRun, create_run
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration  # real sshd, MariaDB, vmstat, iostat

WORKLOAD = "point-query_range=100"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "live.duckdb")


def make_plan(store: Store, db: MariaDBServer, duration: int, **kw: object) -> RunPlan:
    with store.transaction() as cur:
        rid = create_run(
            cur,
            NewRun("sshd-host", parse_build_name("ma101119_rel"), WORKLOAD, "run", threads=2, device="vda"),
        )
    cmd = SysbenchCommand(WORKLOAD, tuple(db.sysbench_args()), threads=2, tables=1, table_size=10000)
    fields: dict[str, object] = {
        "run_id": rid,
        "host": "sshd-host",
        "workload": WORKLOAD,
        "remote_dir": tempfile.mkdtemp(prefix=f"bd-run{rid}-"),
        "bench_argv": tuple(cmd.run_argv(duration)),
        "duration_s": duration,
        "prepare_argv": tuple(cmd.prepare_argv()),
        "tables_exist_argv": tuple(
            db.client_argv(
                "-N",
                "-e",
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_schema='sbtest' AND table_name='sbtest1'",
            )
        ),
        "table_size": 10000,
        "ncpu": 2,
    }
    fields.update(kw)
    return RunPlan(**fields)  # type: ignore[arg-type]


def final_qps(remote_dir: str) -> float:
    text = Path(remote_dir, "bench.out").read_text()
    m = re.search(r"queries:\s+\d+\s+\(([\d.]+) per sec\.\)", text)
    assert m, text[-2000:]
    return float(m.group(1))


def interval_lines(remote_dir: str) -> list[float]:
    text = Path(remote_dir, "bench.out").read_text()
    return [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", text, re.M)]


async def consume(
    runner: Runner,
    sink: EventSink,
    plan: RunPlan,
    stop_after_batches: int | None = None,
    on_batch: object = None,
) -> list[RunEvent]:
    seen: list[RunEvent] = []
    batches = 0
    sink.plans[plan.run_id] = plan
    async for ev in runner.events():
        seen.append(ev)
        sink.handle(ev)
        if isinstance(ev, BenchBatch):
            batches += 1
            if on_batch is not None and batches == 3:
                on_batch()  # type: ignore[operator]
            if stop_after_batches is not None and batches >= stop_after_batches:
                break
    sink.flush()
    return seen


def stored_bench_t(store: Store, run_id: int) -> list[float]:
    return [
        r[0]
        for r in store.con.execute(
            "SELECT t FROM bench_samples WHERE run_id = ? ORDER BY t", [run_id]
        ).fetchall()
    ]


async def test_ten_second_point_select_over_ssh(
    store: Store, ssh: SSHTransport, mariadb_server: MariaDBServer
) -> None:
    plan = make_plan(store, mariadb_server, 10)
    events = await consume(Runner(ssh, plan), EventSink(store), plan)
    assert any(isinstance(e, RunStarted) for e in events)
    fin = [e for e in events if isinstance(e, RunFinished)]
    assert fin, [e for e in events if isinstance(e, RunFailed | LogLine)]
    row = store.con.execute(
        "SELECT r.status, s.qps, s.bench_samples, s.vm_samples, s.io_samples, s.cpu_o, s.cs_o "
        "FROM runs r JOIN run_summary s USING (run_id) WHERE run_id = ?",
        [plan.run_id],
    ).fetchone()
    assert row is not None
    status, qps, nb, nv, ni, cpu_o, cs_o = row
    assert status == "finished"
    assert qps == final_qps(plan.remote_dir), "stored QPS is sysbench's own final per-second figure"
    assert 8 <= nb <= 10
    # vmstat and iostat sample the whole run, whose span outlasts the 10 s measured when the
    # machine is loaded (13-15 samples seen at load 22-27): every sample in the file stored
    vmstat = parse_vmstat(Path(plan.remote_dir, "vmstat.out").read_text().splitlines())
    assert nv == len(vmstat.samples) >= 9
    assert 9 <= ni <= nv + 1
    assert cpu_o is not None
    assert cpu_o > 0
    assert cs_o > 0
    assert stored_bench_t(store, plan.run_id) == interval_lines(plan.remote_dir)


async def test_dropped_ssh_connection_loses_and_repeats_nothing(
    store: Store, ssh: SSHTransport, mariadb_server: MariaDBServer, sshd_server: SshdServer
) -> None:
    plan = make_plan(store, mariadb_server, 7)
    killed: list[int] = []
    events = await consume(
        Runner(ssh, plan), EventSink(store), plan, on_batch=lambda: killed.extend(sshd_server.kill_sessions())
    )
    assert killed, "an sshd session process was killed mid-run"
    assert ssh.connections_made >= 2, "the transport reconnected"
    assert any(isinstance(e, RunFinished) for e in events)
    lines = interval_lines(plan.remote_dir)
    assert len(lines) >= 5
    assert stored_bench_t(store, plan.run_id) == lines, "every interval line stored exactly once"


async def test_a_new_benchdeck_reattaches_and_backfills(
    store: Store, ssh_host_spec: HostSpec, mariadb_server: MariaDBServer
) -> None:
    plan = make_plan(store, mariadb_server, 8)
    first = SSHTransport(ssh_host_spec)
    await first.connect()
    await consume(Runner(first, plan), EventSink(store), plan, stop_after_batches=3)
    await first.close()  # benchdeck "dies": the remote run goes on
    before = stored_bench_t(store, plan.run_id)
    assert len(before) == 3

    (live,) = unfinished(store.cursor())
    assert live.run_id == plan.run_id
    assert {p.name for p in live.procs} == {"bench", "vmstat", "iostat"}
    second = SSHTransport(ssh_host_spec)
    await second.connect()
    try:
        runner = Runner(second, live.plan, marks(store.cursor(), plan.run_id))
        sink = EventSink(store)
        async for ev in runner.events(live.procs):
            sink.handle(ev)
        sink.flush()
    finally:
        await second.close()
    assert stored_bench_t(store, plan.run_id) == interval_lines(plan.remote_dir)
    assert store.scalar("SELECT status FROM runs WHERE run_id = ?", [plan.run_id]) == "finished"
    assert store.scalar("SELECT qps FROM run_summary WHERE run_id = ?", [plan.run_id]) == final_qps(
        plan.remote_dir
    )
    assert unfinished(store.cursor()) == []


async def test_hostile_parameter_values_arrive_as_data(
    store: Store, ssh: SSHTransport, mariadb_server: MariaDBServer
) -> None:
    marker = Path(f"/tmp/pwned_{secrets.token_hex(4)}")
    hostile = f'x; touch {marker}; echo \'"`$(id)`"\nnext'
    cmd = SysbenchCommand(WORKLOAD, tuple(mariadb_server.sysbench_args()), extra={"mysql-db": hostile})
    plan = make_plan(store, mariadb_server, 3, bench_argv=tuple(cmd.run_argv(3)), prepare_argv=None)
    events = await consume(Runner(ssh, plan), EventSink(store), plan)
    failed = [e for e in events if isinstance(e, RunFailed)]
    assert failed, "sysbench cannot use that database name, so the run fails"
    assert not marker.exists(), "the value was never interpreted by a shell"
    out = Path(plan.remote_dir, "bench.out").read_text()
    assert "x; touch" in out, "sysbench received the value verbatim"
    assert store.scalar("SELECT status FROM runs WHERE run_id = ?", [plan.run_id]) == "failed"
