"""Name claims on a team store with a real PostgreSQL catalog: a writer killed (SIGKILL, a real
process) at each step of claiming a host, a build and a workload name, then the next writer, a
real ``benchdeck import mytools``: every imported run is visible, under names with one row each.
And a DuckLake another program made is refused in one line and left untouched.
"""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

import pytest

from benchdeck.store.storage import lake
from benchdeck.store.storage.db import Store
from tests.fixtures.cli_helpers import CLI, ROOT, bd
from tests.fixtures.servers.postgres import PostgresServer
from tests.store import mytools_tree as tree
from tests.store.test_team_store_cli import _env, _new_db, _url

pytestmark = pytest.mark.integration  # a real PostgreSQL catalog

HOST, WORKLOAD = "h", "point-query_range=100"
NAMES = (("hosts", HOST, "host_id_seq", {"ncpu": None}),
         ("builds", tree.A, "build_id_seq", {"dbms": "mysql", "version": "8.0.28", "version_key": "8.0.28"}),
         ("workloads", WORKLOAD, "workload_id_seq", {"family": "sysbench"}))  # fmt: skip

# A writer that claims the three names as LakeSession.ensure_name does, step by step, and is
# killed (SIGKILL, by itself) after the step named by argv[2]; "old": the claims alone,
# committed without rows (what a benchdeck before the claim's transaction left when killed).
CLAIMER = f"""
import os, signal, sys
from benchdeck.store.storage import lake
from benchdeck.store.storage import lake_session
url, step = lake.LakeUrl.parse(sys.argv[1]), sys.argv[2]
s = lake_session.open_session(url, write=True, data_path=None)
pg = s._pg()
if step != "old":
    pg.execute("BEGIN")
for table, name, seq, row in {NAMES!r}:
    ident, won = lake.claim_name(pg, table, name, seq)
    assert won
    if step != "claimed" and step != "old":
        s.add_row(table, ident, name, row)
if step == "committed":
    pg.execute("COMMIT")
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("step", ["claimed", "row added", "committed", "old"])
def test_a_writer_killed_at_each_step_of_a_claim_hides_no_run(
    postgres_server: PostgresServer, tmp_path: Path, step: str
) -> None:
    url = _url(postgres_server, _new_db(postgres_server, tmp_path, "claim"))
    env = _env(tmp_path, url)
    _made(url, tmp_path).close()
    died = subprocess.run([*CLI[:2], CLAIMER, url, step.split()[0]], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert died.returncode == -signal.SIGKILL, died.stderr

    root = tree.write_tree(tmp_path / "tree")
    imported = bd(env, "import", "mytools", str(root), "--host", HOST)
    assert imported.returncode == 0, imported.stderr
    m = re.search(r"imported (\d+) runs", imported.stdout)
    assert m, imported.stdout
    n = int(m.group(1))
    with Store.open_for_reading(url) as store, store.reading() as cur:
        joined = cur.execute(
            "SELECT count(*) FROM runs JOIN hosts USING (host_id) JOIN builds USING (build_id) "
            "JOIN workloads USING (workload_id)"
        ).fetchone()
        per_name = cur.execute(
            "SELECT 'hosts', name, count(*) FROM hosts GROUP BY name UNION ALL "
            "SELECT 'builds', name, count(*) FROM builds GROUP BY name UNION ALL "
            "SELECT 'workloads', name, count(*) FROM workloads GROUP BY name"
        ).fetchall()
        runs = cur.execute("SELECT count(*) FROM runs").fetchone()
    assert runs == (n,), (runs, n)
    assert joined == (n,), (joined, n)
    assert [r for r in per_name if r[2] != 1] == []
    assert {(t, nm) for t, nm, _ in per_name} >= {(t, nm) for t, nm, _, _ in NAMES}
    listed = bd(env, "runs", "--host", HOST)
    assert listed.returncode == 0, listed.stderr
    assert sum(1 for line in listed.stdout.splitlines() if f"\t{HOST}\t" in line) == n, listed.stdout


def _made(url: str, tmp_path: Path) -> Store:
    """A new lake (made by benchdeck: its data under tmp_path)."""
    import os

    os.environ[lake.DATA_ENV] = str(tmp_path / "data")
    try:
        return Store.open(url)
    finally:
        del os.environ[lake.DATA_ENV]


def test_a_lake_another_program_made_is_refused_untouched(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    url = _url(postgres_server, _new_db(postgres_server, tmp_path, "sales"))
    parsed = lake.LakeUrl.parse(url)
    assert parsed is not None
    con = lake.connect(parsed, tmp_path / "theirs")
    con.execute("CREATE TABLE sales (id INTEGER, amount DOUBLE)")
    con.execute("INSERT INTO sales VALUES (1, 9.5)")
    con.close()

    def state() -> tuple[object, ...]:
        with lake.pg_connect(parsed) as pg:
            snap = pg.execute("SELECT max(snapshot_id) FROM ducklake_snapshot").fetchone()
            tables = pg.execute("SELECT table_name FROM ducklake_table ORDER BY 1").fetchall()
        return snap, tables

    before = state()
    env = _env(tmp_path, url)
    root = tree.write_tree(tmp_path / "tree")
    for command in (
        ["--lake-data", str(tmp_path / "ours"), "import", "mytools", str(root), "--host", HOST],
        ["runs"],
    ):
        got = bd(env, *command)
        assert got.returncode == 1, (got.stdout, got.stderr)
        assert got.stderr.count("\n") == 1, got.stderr
        assert "Traceback" not in got.stderr
        assert "is a DuckLake holding tables benchdeck did not make (sales)" in got.stderr, got.stderr
    assert state() == before
    assert not (tmp_path / "ours").exists() or not any((tmp_path / "ours").iterdir())
