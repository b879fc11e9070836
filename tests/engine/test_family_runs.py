"""db_bench and pgbench through the real runner into the store: QPS and samples stored.

Real db_bench (Debian's rocksdb-tools), real pgbench against a test-started PostgreSQL, real
vmstat/iostat, on the local transport.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.events import RunFinished
from benchdeck.engine.families.dbbench.command import DbBenchConfig, db_exists_argv, step_argv
from benchdeck.engine.families.pgbench.command import PgConn, init_argv, run_argv, tables_exist_argv
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.transport import LocalTransport
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.runs import NewRun, create_run
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import PostgresServer

pytestmark = pytest.mark.integration  # real MariaDB and PostgreSQL


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "families.duckdb")


async def run_plan(store: Store, build: str, workload: str, family: str, **kw: object) -> tuple[int, str]:
    with store.transaction() as cur:
        rid = create_run(cur, NewRun("local", parse_build_name(build), workload, "run", family=family))
    remote_dir = tempfile.mkdtemp(prefix=f"bd-{family}-")
    plan = RunPlan(run_id=rid, host="local", workload=workload, remote_dir=remote_dir, family=family, **kw)  # type: ignore[arg-type]
    sink = EventSink(store)
    finished = []
    async for ev in Runner(LocalTransport(), plan).events():
        sink.handle(ev)
        if isinstance(ev, RunFinished):
            finished.append(ev)
    sink.flush()
    assert finished, Path(remote_dir, "bench.out").read_text()[-2000:]
    return rid, Path(remote_dir, "bench.out").read_text()


def stored(store: Store, run_id: int) -> tuple[str, float, int, int]:
    row = store.con.execute(
        "SELECT r.status, s.qps, s.bench_samples, s.vm_samples FROM runs r JOIN run_summary s USING (run_id) "
        "WHERE run_id = ?",
        [run_id],
    ).fetchone()
    assert row is not None
    return row  # type: ignore[return-value]


async def test_db_bench_readwhilewriting(store: Store, tmp_path: Path) -> None:
    cfg = DbBenchConfig(db_dir=str(tmp_path / "rocks"), num_keys=20_000, duration_s=3, threads=1)
    rid, out = await run_plan(
        store,
        "9.7.2",
        "readww.byrx",
        "dbbench",
        bench_argv=tuple(step_argv("readww", cfg)),
        duration_s=3,
        prepare_argv=tuple(step_argv("fillseq", cfg)),
        tables_exist_argv=tuple(db_exists_argv(cfg)),
    )
    m = re.search(r"readwhilewriting\s*:\s*[\d.]+ micros/op (\d+) ops/sec", out)
    assert m, out[-2000:]
    status, qps, nb, nv = stored(store, rid)
    assert status == "finished"
    assert qps == float(m.group(1)), "QPS is db_bench's own ops/sec"
    assert nb >= 2, "live intervals from --stats_interval_seconds"
    assert nv >= 2


async def test_pgbench_select_only(store: Store, postgres_server: PostgresServer) -> None:
    conn = PgConn(
        dbname=postgres_server.database,
        host=postgres_server.host,
        port=postgres_server.port,
        user=postgres_server.user,
    )
    pgbench = str(postgres_server.bin_dir / "pgbench")
    psql = str(postgres_server.bin_dir / "psql")
    rid, out = await run_plan(
        store,
        "pg15_o2nofp",
        "pgbench.select-only",
        "pgbench",
        bench_argv=tuple(run_argv(conn, "select-only", clients=2, duration_s=3, pgbench=pgbench)),
        duration_s=3,
        prepare_argv=tuple(init_argv(conn, 1, pgbench=pgbench)),
        tables_exist_argv=tuple(tables_exist_argv(conn, 1, psql=psql)),
    )
    m = re.search(
        r"tps = ([\d.]+) \((?:without initial connection time|excluding connections establishing)\)", out
    )
    assert m, out[-2000:]
    status, qps, nb, _ = stored(store, rid)
    assert status == "finished"
    assert qps == pytest.approx(float(m.group(1)), rel=1e-9), "QPS is pgbench's own tps"
    assert nb >= 2, "live intervals from --progress=1 (stderr, merged into the run's output)"


async def test_insert_benchmark_steps_store_their_rates(store: Store, mariadb_server: MariaDBServer) -> None:
    import sys

    from benchdeck.engine.families.insertbench.steps import step_argv as ib_argv

    db = mariadb_server
    common = {
        "dbms": "mariadb",
        "host": db.host,
        "port": db.port,
        "user": db.user,
        "password": db.password,
        "database": db.database,
        "python": sys.executable,
    }
    load = tuple(ib_argv("l.i0", overrides={"rows": 3000}, **common))  # type: ignore[arg-type]
    rid, out = await run_plan(store, "ma101119_rel", "l.i0", "insertbench", bench_argv=load, duration_s=5)
    m = re.search(r"^inserts: \d+ \(([\d.]+) per sec\.\)", out, re.M)
    assert m, out[-2000:]
    status, qps, nb, _ = stored(store, rid)
    assert status == "finished"
    assert qps == float(m.group(1)), "a load step's figure is inserts per second"
    assert nb >= 1

    query = tuple(ib_argv("qp100", overrides={"seconds": 2}, **common))  # type: ignore[arg-type]
    rid, out = await run_plan(store, "ma101119_rel", "qp100", "insertbench", bench_argv=query, duration_s=2)
    m = re.search(r"^queries: \d+ \(([\d.]+) per sec\.\)", out, re.M)
    assert m, out[-2000:]
    assert "sla: ok" in out
    status, qps, nb, _ = stored(store, rid)
    assert status == "finished"
    assert qps == float(m.group(1)), "a query step's figure is queries per second"
