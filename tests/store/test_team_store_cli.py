"""The team store through the real CLI: a PostgreSQL started by the tests is the catalog, the
data files go under tmp_path.

Two benchdeck processes write into one new lake at once, a ``benchdeck run`` of the built-in
SQLite workload on host ``local`` (streaming its samples every second) and a ``benchdeck import``
of a hand-written mytools tree started while the run measures; then third processes read both
(``compare``, ``runs``, ``changes``, ``export``, ``lake maintain``) and so does the app's way of
opening a store (Store.open_for_reading): every run and sample once, nothing lost. Each catalog
problem is one line and exit 1.
"""

from __future__ import annotations

import csv
import io
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from benchdeck.store.storage.db import Store, StoreError
from benchdeck.store.storage.faults import expected_tables
from benchdeck.store.storage.raw import read_raw
from benchdeck.store.storage.views import VIEWS
from tests.fixtures.cli_helpers import CLI, ROOT, bd
from tests.fixtures.servers.postgres import SECURE_DB, SECURE_USER, PostgresServer
from tests.store import mytools_tree as tree

pytestmark = pytest.mark.integration  # a real PostgreSQL catalog

WORKLOAD = "point-query_range=100"  # also in the imported tree, at the same dop


def _new_db(pg: PostgresServer, tmp_path: Path, tag: str) -> str:
    db = f"{tag}_{tmp_path.name.replace('-', '_').lower()}"[:60]
    subprocess.run(pg.psql_argv("-c", f"CREATE DATABASE {db}"), check=True, capture_output=True)
    return db


@contextmanager
def benchmark_held(run_dir: Path) -> Iterator[None]:
    """The run's benchmark stopped (SIGSTOP on its process group) from its first interval until
    the block ends (SIGCONT); it then ends by its own clock. Real processes, really stopped."""
    out = run_dir / "bench.out"
    deadline = time.monotonic() + 120  # bounds the wait for the event; not what is tested
    while not (out.exists() and "[ 1s ] thds:" in out.read_text()):
        assert time.monotonic() < deadline, "the benchmark never wrote an interval"
        time.sleep(0.05)
    pgid = int((run_dir / "bench.pgid").read_text())
    os.killpg(pgid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.killpg(pgid, signal.SIGCONT)


def _url(pg: PostgresServer, db: str, user: str | None = None, port: int | None = None) -> str:
    return f"ducklake:postgres:dbname={db} host={pg.host} port={port or pg.port} user={user or pg.user}"


def _env(tmp_path: Path, url: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    # No inventory file: the built-in `local` host; run directories under this HOME.
    e.update(BENCHDECK_DB=url, HOME=str(tmp_path), PYTHONPATH=str(ROOT), BENCHDECK_LAKE_STATS="1")
    return e


def test_a_run_and_an_import_write_into_one_lake_at_once(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = _url(postgres_server, _new_db(postgres_server, tmp_path, "team"))
    env = _env(tmp_path, url)
    data = tmp_path / "lake-data"
    root = tree.write_tree(tmp_path / "tree")
    run = subprocess.Popen(
        [*CLI, "--lake-data", str(data), "run", "--host", "local", "--build", "sqlite",
         "--workload", WORKLOAD, "--time", "6", "--threads", str(tree.DOP)],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert run.stdout is not None
    run_dir = None
    for line in run.stdout:  # the run made the lake; it now streams a batch a second
        if m := re.search(r"measuring on local \((.+)\)", line):
            run_dir = Path(m.group(1))
            break
    assert run_dir is not None, "the run never reached its measured step"
    # The import must overlap the run. Left to speed, it raced the 6 s run: at load 25.7 and 29.4
    # the run had ended before the import of 9 runs into the new lake did. The benchmark is held
    # from its first interval until the import is done (benchdeck's run process and the run's
    # monitors go on meanwhile).
    with benchmark_held(run_dir):
        imported = bd(env, "import", "mytools", str(root), "--host", "local")
        assert run.poll() is None, "the import did not overlap the run"
    rest = run.stdout.read()
    assert run.wait(timeout=120) == 0, rest
    assert imported.returncode == 0, imported.stderr
    assert "imported 9 runs" in imported.stdout, imported.stdout
    print("conflict replays:", re.findall(r"team store: .*", imported.stderr + rest))
    m = re.search(r"^run (\d+) finished qps ([\d.]+)", rest, re.M)
    assert m, rest
    run_id, run_qps = int(m.group(1)), float(m.group(2))

    # Third processes read both writers' runs (each a process: an attach costs 1-2 s here).
    # One compare holds both writers' runs: the run's SQLite build as the base, an imported build.
    got = bd(env, "compare", "--host", "local", "--base", "sqlite", "--with", tree.B, "--format", "csv")
    assert got.returncode == 0, got.stderr
    rows = list(csv.DictReader(io.StringIO(got.stdout)))
    cells = [(r["workload"], r["dop"], r["build"], r["runs"], r["qps"]) for r in rows]
    assert cells == [(WORKLOAD, str(tree.DOP), tree.B, "1", "190000.0")], got.stdout
    assert float(rows[0]["base_qps"]) == pytest.approx(run_qps, abs=0.005), "the run's figure is the base"
    got_a = bd(env, "compare", "--host", "local", "--base", tree.A, "--with", tree.B, "--format", "csv")
    assert got_a.returncode == 0, got_a.stderr
    rows_a = list(csv.DictReader(io.StringIO(got_a.stdout)))
    assert {r["workload"] for r in rows_a} == {
        f"{w}_range=100" for w in ("point-query", "scan", "update-index")
    }
    listed = bd(env, "runs")
    assert listed.returncode == 0, listed.stderr
    ids = [int(line.split("\t")[0]) for line in listed.stdout.splitlines()[1:] if line[:1].isdigit()]
    assert len(ids) == len(set(ids)) == 10, listed.stdout
    line = rf"^{run_id}\tlocal\tsqlite\tdefault\t{WORKLOAD}\t{tree.DOP}\tfinished\t"
    assert re.search(line, listed.stdout, re.M), listed.stdout
    changes = bd(env, "changes", "--host", "local")
    assert changes.returncode == 0, changes.stderr
    assert "Change points on local" in changes.stdout

    # export: the store's tables and views, not DuckLake's own catalog listings.
    out = tmp_path / "export"
    exported = bd(env, "export", str(out), "--format", "csv")
    assert exported.returncode == 0, exported.stderr
    files = {p.stem for p in out.glob("*.csv")}
    assert files == set(expected_tables()), files ^ set(expected_tables())
    assert {p.stem for p in (out / "views").iterdir()} == set(VIEWS)
    loaded = duckdb.connect()
    try:
        loaded.execute(f"IMPORT DATABASE '{out}'")
        assert loaded.execute("SELECT count(*) FROM runs").fetchone() == (10,)
    finally:
        loaded.close()
    # Maintenance compacts the lake (the rows inlined in the catalog go to Parquet files).
    kept = bd(env, "lake", "maintain")
    assert kept.returncode == 0, kept.stderr
    assert re.match(r"flushed [1-9]\d* inlined row\(s\) to Parquet", kept.stdout), kept.stdout

    # Every run and sample of both writers once, read as the app reads (Store.open_for_reading).
    with Store.open_for_reading(url) as store, store.reading() as cur:
        assert store.label == Path(url)

        def one(sql: str, params: list[object] | None = None) -> duckdb.DuckDBPyConnection:
            return cur.execute(sql, params or [])

        assert one("SELECT count(*), count(DISTINCT run_id) FROM runs").fetchone() == (10, 10)
        assert one("SELECT status, count(*) FROM runs GROUP BY ALL").fetchall() == [("finished", 10)]
        assert one("SELECT host, count(*) FROM run_results GROUP BY ALL ORDER BY 1").fetchall() == [
            ("local", 10)
        ]
        assert one("SELECT count(*), count(DISTINCT run_id) FROM run_summary").fetchone() == (10, 10)
        for table in ("hosts", "builds", "workloads"):
            n, names = one(f"SELECT count(*), count(DISTINCT name) FROM {table}").fetchone() or (0, 0)
            assert n == names, table
        assert one("SELECT count(*) FROM hosts").fetchone() == (1,), "both writers' host is one row"
        dup = "SELECT count() FROM (FROM raw_files SELECT run_id, kind, name GROUP BY ALL HAVING count() > 1)"
        assert one(dup).fetchone() == (0,)
        bench_out = (run_dir / "bench.out").read_text()
        remote = [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", bench_out, re.M)]
        stored = one("SELECT t FROM bench_samples WHERE run_id = ? ORDER BY t", [run_id]).fetchall()
        assert [r[0] for r in stored] == remote, "every interval of the run stored exactly once"
        assert one("SELECT count(*) > 0 FROM vmstat_samples WHERE run_id = ?", [run_id]).fetchone() == (True,)
        # raw files read back in the order stored (DuckLake's rowid is its row lineage: insertion order)
        assert "bench.out" in [f.name for f in read_raw(cur, run_id)]


@pytest.mark.parametrize("problem", ["down", "auth", "no database", "not a lake", "no data path", "empty"])
def test_catalog_problems_are_one_line(postgres_server: PostgresServer, tmp_path: Path, problem: str) -> None:
    pg = postgres_server
    write = ["import", "mytools", str(tmp_path), "--host", "h"]
    if problem == "down":
        url, command = _url(pg, "x", port=_closed_port()), ["runs"]
    elif problem == "auth":
        url, command = _url(pg, SECURE_DB, user=SECURE_USER) + " password=wrong", ["runs"]
    elif problem == "no database":
        url, command = _url(pg, "nosuchdb"), write
    elif problem == "not a lake":  # a database of something else
        db = _new_db(pg, tmp_path, "other")
        argv = [*pg.psql_argv("-c", "CREATE TABLE sometable (x int)")]
        argv[argv.index(pg.database)] = db
        subprocess.run(argv, check=True, capture_output=True)
        url, command = _url(pg, db), write
    else:
        url, command = _url(pg, _new_db(pg, tmp_path, problem.replace(" ", ""))), write
        if problem == "empty":
            command = ["runs"]
    got = bd(_env(tmp_path, url), *command)
    assert got.returncode == 1, (got.stdout, got.stderr)
    assert got.stderr.count("\n") == 1, got.stderr
    assert "Traceback" not in got.stderr
    want = {
        "down": "cannot reach PostgreSQL at 127.0.0.1",
        "auth": f"refused user '{SECURE_USER}': password authentication failed",
        "no database": "has no database 'nosuchdb'; create it first (createdb nosuchdb)",
        "not a lake": "is not a DuckLake catalog (it holds 1 other table(s))",
        "no data path": "is new: say where its data files go with --lake-data DIR",
        "empty": "is empty (nothing stored there yet)",
    }[problem]
    assert want in got.stderr, got.stderr
    assert "password=***" in got.stderr or "password" not in url
    assert "wrong" not in got.stderr


def _closed_port() -> int:
    from tests.fixtures.servers import free_port

    return free_port()


def test_a_transaction_that_meets_another_writers_commit_is_replayed(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    """Two stores (two writers) on one lake; the second commits into `runs` while the first's
    transaction is open: the first's COMMIT conflicts (DuckLake does not retry an UPDATE) and is
    replayed; a transaction whose read the other writer changed is refused in one line."""
    from benchdeck.engine.builds import parse_build_name
    from benchdeck.store.storage.runs import NewRun, create_run, set_status

    url = _url(postgres_server, _new_db(postgres_server, tmp_path, "replay"))
    os.environ["BENCHDECK_LAKE_DATA"] = str(tmp_path / "data")
    try:
        with Store.open(url) as a, Store.open(url) as b:

            def new_run(store: Store) -> int:
                with store.transaction() as cur:
                    return create_run(cur, NewRun("h", parse_build_name(tree.A), WORKLOAD, "run"))

            first = new_run(a)
            with a.transaction() as cur:
                set_status(cur, first, "finished")
                second = new_run(b)  # another writer's commit into runs, meanwhile
            assert a.team is not None
            assert a.team.replays == 1
            with b.reading() as cur:
                got = cur.execute("SELECT run_id, status FROM runs ORDER BY run_id").fetchall()
            assert got == [(first, "finished"), (second, "running")]

            def count_then_update() -> None:
                with a.transaction() as cur:
                    n = cur.execute("SELECT count(*) FROM runs WHERE status = 'running'").fetchone()
                    cur.execute("UPDATE runs SET error = ? WHERE run_id = ?", [f"{n} running", first])
                    new_run(b)  # changes what the count read

            with pytest.raises(StoreError, match="changed what this write read"):
                count_then_update()
            with a.reading() as cur:
                assert cur.execute("SELECT error FROM runs WHERE run_id = ?", [first]).fetchone() == (None,)
    finally:
        del os.environ["BENCHDECK_LAKE_DATA"]


def test_a_writer_error_on_a_lake_is_a_store_error(postgres_server: PostgresServer, tmp_path: Path) -> None:
    url = _url(postgres_server, _new_db(postgres_server, tmp_path, "err"))
    os.environ["BENCHDECK_LAKE_DATA"] = str(tmp_path / "data")
    try:
        with Store.open(url) as store:
            with pytest.raises(StoreError, match="team store"), store.transaction() as cur:
                cur.execute("INSERT INTO nosuch VALUES (1)")
            with store.transaction() as cur:  # the store is still usable
                assert cur.execute("SELECT count(*) FROM runs").fetchone() == (0,)
    finally:
        del os.environ["BENCHDECK_LAKE_DATA"]


def test_a_queue_and_its_compare_on_a_lake(postgres_server: PostgresServer, tmp_path: Path) -> None:
    """``benchdeck queue`` (two builds, the queue's items and statuses updated in the lake) then
    ``compare`` of its two builds, all on a lake: the same commands as on a file."""
    url = _url(postgres_server, _new_db(postgres_server, tmp_path, "queue"))
    env = _env(tmp_path, url)
    queued = bd(
        env, "--lake-data", str(tmp_path / "lake-data"), "queue", "--host", "local",
        "--build", "sqlite", "--build", "sqlite-sync", "--workload", WORKLOAD, "--time", "2",
    )  # fmt: skip
    assert queued.returncode == 0, queued.stdout + queued.stderr
    finished = re.findall(r"^run (\d+) finished qps ([\d.]+)", queued.stdout, re.M)
    assert len(finished) == 2, queued.stdout
    got = bd(
        env, "compare", "--host", "local", "--base", "sqlite", "--with", "sqlite-sync", "--format", "csv"
    )
    assert got.returncode == 0, got.stderr
    (row,) = csv.DictReader(io.StringIO(got.stdout))
    assert (row["workload"], row["build"], row["runs"]) == (WORKLOAD, "sqlite-sync", "1")
    assert {float(row["base_qps"]), float(row["qps"])} == {float(q) for _, q in finished}
    with Store.open_for_reading(url) as store, store.reading() as cur:
        items = cur.execute("SELECT status, run_id FROM queue_items ORDER BY position").fetchall()
        assert items == [("finished", int(finished[0][0])), ("finished", int(finished[1][0]))]
