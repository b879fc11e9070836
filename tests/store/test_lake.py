"""The team store's parts on a real DuckLake: a PostgreSQL started by the test as its catalog,
data files in a temporary directory, the extensions loaded offline from their PyPI packages.

Two writer processes add runs into one lake at once (the same host, build and workload names,
ids from the catalog's sequences, a status UPDATE per run retried on transaction conflicts);
a third reads both with store.compare and with `benchdeck --db ducklake:... compare`: nothing
lost, nothing duplicated. (The CLI's own writers into a lake: test_team_store_cli.py.)
"""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from benchdeck.engine.catalogue import default_catalogue
from benchdeck.store.analysis.compare import compare
from benchdeck.store.storage import lake
from benchdeck.store.storage.faults import expected_tables
from benchdeck.store.storage.schema import LATEST_VERSION
from tests.fixtures.cli_helpers import ROOT
from tests.fixtures.servers.postgres import PostgresServer

pytestmark = pytest.mark.integration  # a real PostgreSQL catalog

RUNS = 12  # per writer
WORKLOADS = ("point-query_range=100", "update-index_range=100", "scan_range=100")
BUILDS = ("my8028_rel_o2nofp", "my8403_rel_o2nofp")

# One writer: RUNS runs of one build on host 'team', as a run or an import writes them.
WRITER = r"""
import sys
import duckdb
from benchdeck.store.storage import lake
url, build, n = lake.LakeUrl.parse(sys.argv[1]), sys.argv[2], int(sys.argv[3])
workloads = sys.argv[4].split(",")
con, pg = lake.connect(url), lake.pg_connect(url)
retries = 0

def ensure(table, name, seq, sql, *params):
    global retries
    ident, won = lake.claim_name(pg, table, name, seq)
    if won:
        lake.retry_conflicts(lambda: con.execute(sql, [ident, name, *params]))
    return ident

def transaction(body):
    global retries
    def attempt():
        global retries
        con.execute("BEGIN TRANSACTION")
        try:
            body()
            con.execute("COMMIT")
        except duckdb.Error as exc:
            try:
                con.execute("ROLLBACK")  # (a failed COMMIT has ended it already)
            except duckdb.Error:
                pass
            retries += lake.is_conflict(exc)
            raise
    lake.retry_conflicts(attempt)

host = ensure("hosts", "team", "host_id_seq", "INSERT INTO hosts (host_id, name, ncpu) VALUES (?, ?, ?)", 8)
bid = ensure("builds", build, "build_id_seq",
             "INSERT INTO builds (build_id, name, dbms, version, version_key) VALUES (?, ?, 'mysql', ?, ?)",
             build[2:6], build[2:6])
for i in range(n):
    wl = workloads[i % len(workloads)]
    wid = ensure("workloads", wl, "workload_id_seq",
                 "INSERT INTO workloads (workload_id, name) VALUES (?, ?)")
    [rid] = lake.next_ids(pg, "run_id_seq")
    qps = 1000.0 * (1 + BUILDS_INDEX) + i
    def started():
        con.execute(
            "INSERT INTO runs (run_id, host_id, build_id, workload_id, config, threads, status, "
            "source, tags) VALUES (?, ?, ?, ?, 'cfg', 8, 'running', 'run', [])", [rid, host, bid, wid])
        con.execute("INSERT INTO bench_samples (run_id, t, threads, qps) "
                    "SELECT ?, t, 8, ? FROM range(1, 11) r(t)", [rid, qps])
    transaction(started)
    def finished():
        con.execute("INSERT INTO run_summary (run_id, qps, bench_samples) VALUES (?, ?, 10)", [rid, qps])
        con.execute("UPDATE runs SET status = 'finished', finished_at = now() WHERE run_id = ?", [rid])
    transaction(finished)
print(retries, flush=True)
"""


@pytest.fixture
def lake_url(postgres_server: PostgresServer, tmp_path: Path) -> lake.LakeUrl:
    """A new lake: its catalog a new database in the test's PostgreSQL, its data in tmp_path."""
    db = f"lake_{tmp_path.name.replace('-', '_').lower()}"[:60]
    subprocess.run(postgres_server.psql_argv("-c", f"CREATE DATABASE {db}"), check=True, capture_output=True)
    url = lake.LakeUrl(
        f"dbname={db} host={postgres_server.host} port={postgres_server.port} user={postgres_server.user}"
    )
    con = lake.connect(url, tmp_path / "data")
    try:
        lake.create_schema(con)
    finally:
        con.close()
    with lake.pg_connect(url) as pg:
        lake.setup_ids(pg)
    return url


def test_urls() -> None:
    assert lake.LakeUrl.parse("/tmp/x.duckdb") is None
    assert lake.LakeUrl.parse("ducklake:postgres:dbname=lake host=db1") == lake.LakeUrl(
        "dbname=lake host=db1"
    )
    with pytest.raises(lake.LakeError, match="needs a database"):
        lake.LakeUrl.parse("ducklake:postgres:host=db1")


def test_lake_schema_is_the_file_stores_without_what_ducklake_lacks(lake_url: lake.LakeUrl) -> None:
    con = lake.connect(lake_url)
    try:
        lake.create_schema(con)  # a second time: already there, nothing to do
        assert con.execute("SELECT max(version) FROM schema_version").fetchone() == (LATEST_VERSION,)
        got = {
            (t, c)
            for t, c in con.execute(
                "SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = 'lake'"
            ).fetchall()
        }
        want = {(t, c[0]) for t, cols in lake.file_schema().items() for c in cols}
        assert want <= got
        tables = con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'lake'").fetchall()
        assert {t for (t,) in tables} == expected_tables()  # (not DuckDB's listings: duckdb_columns ...)
        assert con.execute("SELECT count(*) FROM run_results").fetchone() == (0,)
    finally:
        con.close()


def test_two_writers_into_one_lake_and_a_third_compares(lake_url: lake.LakeUrl) -> None:
    url = f"ducklake:postgres:{lake_url.conninfo}"
    writers = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"BUILDS_INDEX = {i}\n" + WRITER,
                url,
                build,
                str(RUNS),
                ",".join(WORKLOADS),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, build in enumerate(BUILDS)
    ]
    outs = [w.communicate(timeout=300) for w in writers]
    for w, (_, err) in zip(writers, outs, strict=True):
        assert w.returncode == 0, err
    con = lake.connect(lake_url)
    try:
        one = con.execute
        assert one("SELECT count(*), count(DISTINCT run_id) FROM runs").fetchone() == (2 * RUNS, 2 * RUNS)
        assert one("SELECT count(*) FROM runs WHERE status = 'finished'").fetchone() == (2 * RUNS,)
        assert one("SELECT count(*), count(DISTINCT run_id) FROM run_summary").fetchone() == (
            2 * RUNS,
            2 * RUNS,
        )
        assert one("SELECT count(*) FROM bench_samples").fetchone() == (20 * RUNS,)
        for table, n in (("hosts", 1), ("builds", 2), ("workloads", len(WORKLOADS))):
            assert one(f"SELECT count(*), count(DISTINCT name) FROM {table}").fetchone() == (n, n), table
        assert one("SELECT count(*) FROM run_results WHERE qps IS NOT NULL").fetchone() == (2 * RUNS,)
        cat = default_catalogue()
        c = compare(
            con,
            host="team",
            base=BUILDS[0],
            with_builds=[BUILDS[1]],
            group_of=cat.group_of,
            sort_key=cat.sort_key,
        )
        cells = {k: v for k, v in c.cells.items()}
        assert sum(cell.n for cell in cells.values()) == 2 * RUNS
        assert {wl for wl, _, _ in cells} == set(WORKLOADS)
        assert len(c.rqps) == len(WORKLOADS)
    finally:
        con.close()
    print("conflict retries per writer:", [o.strip() for o, _ in outs])
    # The CLI as a third process: --db names the lake.
    argv = [sys.executable, "-c", "from benchdeck.tui.cli.main import main; main()", "--db", url]
    got = subprocess.run(
        [*argv, "compare", "--host", "team", "--base", BUILDS[0], "--with", BUILDS[1], "--format", "csv"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    rows = list(csv.DictReader(io.StringIO(got.stdout)))
    per = RUNS // len(WORKLOADS)
    assert sorted(r["workload"] for r in rows) == sorted(WORKLOADS)
    for r in rows:  # each build's runs i = k, k+3, ... with QPS 1000 * (1 + build) + i
        k = WORKLOADS.index(r["workload"])
        median = k + 3 * (per - 1) / 2
        assert (r["build"], r["runs"]) == (BUILDS[1], str(per))
        assert (float(r["base_qps"]), float(r["qps"])) == (1000 + median, 2000 + median)
