"""The sysbench microbenchmark suite against real MariaDB and PostgreSQL with real sysbench.

Every workload of the classic 42 and the newer set runs (a few events each) against MariaDB,
each of benchdeck's Lua scripts also against PostgreSQL; the statements our scripts issue are
EXPLAINed with the servers' own clients. Our scripts run from a temp dir holding exactly what
``SysbenchCommand.files()`` returns, as on a remote host. Nothing is faked.
"""

from __future__ import annotations

import collections
import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchdeck.engine.catalogue import CLASSIC_42, MODERN_33
from benchdeck.engine.families.sysbench.command import (
    COMMON_SCRIPT,
    SysbenchCommand,
    lua_source,
    mysql_db_args,
    pgsql_db_args,
    post_write_sql,
    step_for,
)
from benchdeck.engine.parsers import parse_sysbench_output
from benchdeck.engine.records import SysbenchSummary
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.postgres import PostgresServer

pytestmark = pytest.mark.integration

READ_ROWS, WRITE_ROWS, EVENTS = 20_000, 2_000, 10
ALL = list(dict(CLASSIC_42) | dict(MODERN_33))
VARIANTS = ["point-query.warm_range=100", "points-covered-si.warm_range=100", "scan.warmpre_range=100"]
COVERAGE = {  # workload -> (index EXPLAIN must show, index-only?)
    "random-points_range=100": ("PRIMARY", False),
    "hot-points_range=100": ("PRIMARY", False),
    "points-covered-pk_range=100": ("PRIMARY", True),
    "points-covered-si_range=100": ("k_1", True),
    "points-notcovered-pk_range=100": ("PRIMARY", False),
    "points-notcovered-si_range=100": ("k_1", False),
    "range-covered-pk_range=100": ("PRIMARY", True),
    "range-covered-si_range=100": ("k_1", True),
    "range-notcovered-pk_range=100": ("PRIMARY", False),
    "range-notcovered-si_range=100": ("k_1", False),
    "read-only-count_range=1000": ("PRIMARY", False),
    "update-inlist_range=100": ("PRIMARY", False),
    "update-zipf_range=100": ("PRIMARY", False),
}
PG_RUNS = [*COVERAGE, "scan_range=100", "point-query_range=100", "read-only_range=100"]
PG_RUNS += ["insert_range=100", "update-one_range=100", "delete_range=100", "read-write_range=10"]


@dataclass
class Target:
    """One server with a read database (our prepare) and a write database."""

    db_args: Callable[[str], tuple[str, ...]]
    sql: Callable[[str, str], str]  # (database, statements) -> stdout
    lua_dir: Path

    def command(self, name: str, db: str, rows: int, ps: bool = True) -> SysbenchCommand:
        args = self.db_args(db)
        return SysbenchCommand(
            name, args, table_size=rows, prepared_statements=ps, script_dir=str(self.lua_dir)
        )

    def sysbench(self, cmd: SysbenchCommand, argv: list[str]) -> str:
        for fname, text in cmd.files().items():  # what the runner uploads
            (self.lua_dir / fname).write_text(text)
        env = {**os.environ, **cmd.env()}
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, check=False)
        assert proc.returncode == 0, f"{argv}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        return proc.stdout

    def run(self, name: str, *, ps: bool = True) -> SysbenchSummary:
        db, rows = ("bd_write", WRITE_ROWS) if step_for(name).writes else ("bd_read", READ_ROWS)
        cmd = self.command(name, db, rows, ps)
        out = self.sysbench(cmd, cmd.run_argv(duration_s=60, events=EVENTS))
        return parse_sysbench_output(out.splitlines()).summary

    def statement(self, name: str) -> str:
        """The statement our script issues, with literal values (its ``sql`` command)."""
        cmd = self.command(name, "bd_read", READ_ROWS)
        out = self.sysbench(cmd, cmd.sql_argv())
        found = re.search(r"^BD-SQL\t(.+)$", out, re.M)
        assert found, out
        return found.group(1)


def _prepare(t: Target, name: str, db: str, rows: int) -> None:
    cmd = t.command(name, db, rows)
    t.sysbench(cmd, cmd.prepare_argv())


@pytest.fixture(scope="module")
def lua_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lua")


@pytest.fixture(scope="module")
def maria(mariadb_server: MariaDBServer, lua_dir: Path) -> Iterator[Target]:
    db = mariadb_server

    def sql(database: str, statements: str) -> str:
        argv = db.client_argv("-B", "-D", database, "-e", statements)
        return subprocess.run(argv, capture_output=True, text=True, check=True, timeout=120).stdout

    dbs = ("bd_read", "bd_write", "bd_ours", "bd_stock")
    sql("mysql", "".join(f"DROP DATABASE IF EXISTS {d}; CREATE DATABASE {d};" for d in dbs))
    t = Target(lambda d: mysql_db_args(db.host, db.port, db.user, db.password, d), sql, lua_dir)
    _prepare(t, "points-covered-pk_range=100", "bd_read", READ_ROWS)  # benchdeck's prepare
    _prepare(t, "insert_range=100", "bd_write", WRITE_ROWS)  # stock prepare: our writes run on it
    yield t
    sql("mysql", "".join(f"DROP DATABASE {d};" for d in dbs))


@pytest.fixture(scope="module")
def pg(postgres_server: PostgresServer, lua_dir: Path) -> Iterator[Target]:
    s = postgres_server

    def sql(database: str, statements: str) -> str:
        argv = [str(s.bin_dir / "psql"), "-X", "-At", "-v", "ON_ERROR_STOP=1", "-f", "-"]
        argv += ["-h", s.host, "-p", str(s.port), "-U", s.user, "-d", database]
        return subprocess.run(argv, input=statements, capture_output=True, text=True, check=True).stdout

    dbs = ("bd_read", "bd_write", "bd_ours", "bd_stock")
    sql("postgres", "".join(f"DROP DATABASE IF EXISTS {d};\nCREATE DATABASE {d} OWNER bench;\n" for d in dbs))
    t = Target(lambda d: pgsql_db_args(s.host, s.port, s.bench_user, "", d), sql, lua_dir)
    _prepare(t, "scan_range=100", "bd_read", READ_ROWS)
    _prepare(t, "scan_range=100", "bd_write", WRITE_ROWS)  # stock insert then needs our setval
    yield t
    sql("postgres", "".join(f"DROP DATABASE {d};\n" for d in dbs))


def _check(summary: SysbenchSummary) -> None:
    assert summary.sysbench_version is not None
    assert summary.total_events == EVENTS
    assert summary.queries is not None
    assert summary.queries >= EVENTS
    assert summary.qps is not None
    assert summary.qps > 0


@pytest.mark.parametrize("name", ALL + VARIANTS)
def test_every_workload_runs_on_mariadb(maria: Target, name: str) -> None:
    _check(maria.run(name))


@pytest.mark.parametrize("name", PG_RUNS)
def test_our_scripts_and_stock_ones_run_on_postgres(pg: Target, name: str) -> None:
    _check(pg.run(name))


NO_PS = ["points-notcovered-si_range=100", "update-inlist_range=100", "scan_range=100"]


@pytest.mark.parametrize("name", NO_PS)
def test_without_prepared_statements(maria: Target, pg: Target, name: str) -> None:
    _check(maria.run(name, ps=False))
    _check(pg.run(name, ps=False))


def _com_stmt_execute(t: Target) -> int:
    return int(t.sql("bd_read", "SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'").split()[-1])


def test_db_ps_mode_is_honoured(maria: Target) -> None:
    for ps, low, high in ((True, EVENTS, EVENTS + 2), (False, 0, 0)):
        before = _com_stmt_execute(maria)
        maria.run("points-covered-si_range=100", ps=ps)
        assert low <= _com_stmt_execute(maria) - before <= high


def _explain_mariadb(t: Target, stmt: str) -> dict[str, str]:
    header, row = t.sql("bd_read", "EXPLAIN " + stmt).splitlines()
    return dict(zip(header.split("\t"), row.split("\t"), strict=True))


@pytest.mark.parametrize("name", COVERAGE)
def test_mariadb_explain_shows_the_index_and_coverage(maria: Target, name: str) -> None:
    index, covered = COVERAGE[name]
    plan = _explain_mariadb(maria, maria.statement(name))
    assert plan["key"] == index, plan
    assert plan["type"] == "range", plan
    extra = plan["Extra"].split("; ")  # "Using index condition" is not index-only
    assert ("Using index" in extra) is covered, plan


@pytest.mark.parametrize("name", COVERAGE)
def test_postgres_explain_shows_the_index_and_coverage(pg: Target, name: str) -> None:
    key, covered = COVERAGE[name]
    index = {"PRIMARY": "sbtest1_pkey"}.get(key, key)
    plan = pg.sql("bd_read", "EXPLAIN " + pg.statement(name) + ";")
    assert re.search(rf"(Index Only Scan|Index Scan|Bitmap Index Scan) (using|on) {index}\b", plan), plan
    assert ("Index Only Scan" in plan) is covered, plan


def test_scan_reads_every_row_and_returns_none(maria: Target, pg: Target) -> None:
    stmt = maria.statement("scan_range=100")
    assert stmt == "SELECT * FROM sbtest1 WHERE LENGTH(c) < 0"
    plan = _explain_mariadb(maria, stmt)
    assert (plan["type"], plan["key"]) == ("ALL", "NULL")
    out = maria.sql("bd_read", f"FLUSH STATUS; {stmt}; SHOW SESSION STATUS LIKE 'Handler_read_rnd_next'")
    assert out.splitlines()[0] == "Variable_name\tValue", "the scan itself returned no rows"
    assert int(out.split()[-1]) >= READ_ROWS
    analyze = f"EXPLAIN (ANALYZE, FORMAT JSON) {pg.statement('scan_range=100')};"
    node = json.loads(pg.sql("bd_read", analyze))[0]["Plan"]
    assert node["Node Type"] == "Seq Scan"
    assert node["Actual Rows"] == 0
    assert node["Rows Removed by Filter"] == READ_ROWS


def test_hot_points_are_a_fixed_small_set_random_points_are_not(maria: Target) -> None:
    hot = {maria.statement("hot-points_range=100") for _ in range(3)}
    assert len(hot) == 1
    ids = [int(x) for x in re.findall(r"\d+", hot.pop().split("IN", 1)[1])]
    assert ids == list(range(ids[0], ids[0] + 100))
    assert len({maria.statement("random-points_range=100") for _ in range(3)}) == 3


SAMPLER = """
package.path = (sysbench.cmdline.script_path:match("^(.*)/") or ".") .. "/?.lua;" .. package.path
local bd = require("bd_common")
bd.init({samples = {"how many ids to print", 1000}})
local none = function() return {} end
bd.query({sql = function() return "" end, types = none, values = none})
sysbench.cmdline.commands.sample = {function()
  for _ = 1, sysbench.opt.samples do io.write(bd.rand_id(), " ") end
end}
"""


def test_zipfian_ids_follow_the_distribution(lua_dir: Path) -> None:
    (lua_dir / f"{COMMON_SCRIPT}.lua").write_text(lua_source(COMMON_SCRIPT))
    (lua_dir / "sampler.lua").write_text(SAMPLER)
    n, s, count = 100, 0.8, 100_000
    argv = ["sysbench", str(lua_dir / "sampler.lua"), f"--table-size={n}", "--id-dist=zipfian"]
    out = subprocess.run([*argv, f"--samples={count}", "sample"], capture_output=True, text=True, check=True)
    got = collections.Counter(int(x) for x in out.stdout.split()[-count:])
    assert sum(got.values()) == count
    assert set(got) <= set(range(1, n + 1))
    zeta = sum(k**-s for k in range(1, n + 1))
    expected = {k: count * k**-s / zeta for k in range(1, n + 1)}
    chi2 = sum((got[k] - e) ** 2 / e for k, e in expected.items())
    assert chi2 < 160, chi2  # 99 degrees of freedom: p < 1e-4 of failing when correct


def _schema(t: Target, db: str, pg: bool) -> str:
    if pg:
        return t.sql(
            db,
            "SELECT column_name, data_type, character_maximum_length, column_default, is_nullable "
            "FROM information_schema.columns WHERE table_name = 'sbtest1' ORDER BY ordinal_position;"
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'sbtest1' ORDER BY 1;",
        )
    return re.sub(r" AUTO_INCREMENT=\d+", "", t.sql(db, "SHOW CREATE TABLE sbtest1"))


@pytest.mark.parametrize("server", ["maria", "pg"])
def test_our_tables_match_stock_prepare(request: pytest.FixtureRequest, server: str) -> None:
    t: Target = request.getfixturevalue(server)
    _prepare(t, "scan_range=100", "bd_ours", 100)
    _prepare(t, "point-query_range=100", "bd_stock", 100)
    assert _schema(t, "bd_ours", server == "pg") == _schema(t, "bd_stock", server == "pg")
    dense = t.sql("bd_ours", "SELECT MIN(id), MAX(id), COUNT(*), MIN(k) >= 1 AND MAX(k) <= 100 FROM sbtest1;")
    assert re.split(r"[\t|]", dense.splitlines()[-1]) == ["1", "100", "100", "t" if server == "pg" else "1"]
    _check(t.run("update-inlist_range=100"))  # our writes on stock-prepared (maria) tables


def test_post_write_step_mariadb(maria: Target) -> None:
    maria.run("update-nonindex_range=100")
    before = maria.sql("bd_write", "SELECT @@GLOBAL.innodb_max_dirty_pages_pct")
    # 10 s, not 1: the session's server keeps earlier tests' dirty pages, and on a loaded 2-core CI
    # run 1 s left 483 of them and 5 s 244 (flushing at innodb_io_capacity's 200 pages/s takes seconds)
    maria.sql("bd_write", ";\n".join(post_write_sql("mariadb", tables=1, wait_s=10)))
    assert maria.sql("bd_write", "SELECT @@GLOBAL.innodb_max_dirty_pages_pct") == before
    dirty = maria.sql("bd_write", "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
    assert int(dirty.split()[-1]) < 100


def test_post_write_step_postgres(pg: Target) -> None:
    pg.run("update-nonindex_range=100")
    pg.sql("bd_write", "".join(f"{s};\n" for s in post_write_sql("postgres", tables=1)))
    out = pg.sql("bd_write", "SELECT last_vacuum IS NOT NULL, n_dead_tup FROM pg_stat_user_tables;")
    assert out.split() == ["t|0"]
