"""db_bench and pgbench families end to end: argv builders -> real short runs -> parsers.

Each run writes stdout and stderr to one file, as the runner's ``bench.out`` does, and the
parsers read that file line by line (split on ``\\n`` only, like the follower).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from benchdeck.engine.families.dbbench.command import (
    BENCHMARK,
    STEPS,
    DbBenchConfig,
    DbBenchError,
    db_exists_argv,
    load_argv,
    loaded_mark,
    mark_argv,
    setup_flags,
    step_argv,
    suite_argvs,
    unmark_argv,
)
from benchdeck.engine.families.pgbench.command import (
    PgbenchError,
    PgConn,
    init_argv,
    run_argv,
    tables_exist_argv,
)
from benchdeck.engine.parsers.dbbench import DbBenchParser
from benchdeck.engine.parsers.pgbench import PgbenchParser
from tests.fixtures.servers.postgres import PostgresServer

OPS = re.compile(r"^(\S+)\s+:\s+[\d.]+ micros/op (\d+) ops/sec", re.M)
TPS = re.compile(r"^tps = ([\d.]+) \(without initial connection time\)$", re.M)


def run_merged(argv: Sequence[str], out: Path, timeout: float = 60) -> tuple[int, str]:
    """Run with stdout and stderr into one file (as ``bench.out``); (exit code, the file's text)."""
    with out.open("wb") as f:
        rc = subprocess.run(list(argv), stdout=f, stderr=subprocess.STDOUT, timeout=timeout, check=False)
    return rc.returncode, out.read_bytes().decode("utf-8", "replace")


def lines(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


# --- db_bench ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dbb(tmp_path_factory: pytest.TempPathFactory) -> DbBenchConfig:
    if shutil.which("db_bench") is None:
        pytest.fail("db_bench not found: install it with `apt-get install -y rocksdb-tools`", pytrace=False)
    d = tmp_path_factory.mktemp("dbbench")
    # 600k keys of 16+100 B; fillseq ignores --duration, so its time comes from --num
    return DbBenchConfig(
        db_dir=str(d / "db"), num_keys=600_000, key_size=16, value_size=100, threads=2, duration_s=3
    )


@pytest.fixture(scope="module")
def fillseq_out(dbb: DbBenchConfig, tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], str]:
    # a write rate limit makes the load last ~3 s whatever the machine's speed (about 150k keys/s)
    cfg = replace(dbb, extra=(("benchmark_write_rate_limit", str(24 << 20)),))
    argv = step_argv("fillseq", cfg)
    rc, text = run_merged(argv, tmp_path_factory.mktemp("fill") / "bench.out")
    assert rc == 0, text[-2000:]
    return argv, text


@pytest.mark.integration
def test_dbbench_fillseq(fillseq_out: tuple[list[str], str]) -> None:
    argv, text = fillseq_out
    p = DbBenchParser(argv)
    live = [iv for ln in lines(text) if (iv := p.feed(ln)) is not None]
    assert p.skipped == []
    assert p.messages == []
    assert len(live) >= 2
    assert {iv.threads for iv in live} == {1}
    printed = OPS.findall(text)
    assert [name for name, _ in printed] == ["fillseq"]
    s = p.summary()
    assert s.qps == float(printed[0][1]) > 0
    assert s.total_events == 600_000
    assert p.ended


@pytest.mark.integration
def test_dbbench_db_exists_check(dbb: DbBenchConfig, fillseq_out: object) -> None:
    def exists(cfg: DbBenchConfig) -> str:
        return subprocess.run(db_exists_argv(cfg), capture_output=True, text=True, check=True).stdout.strip()

    assert Path(dbb.db_dir, "CURRENT").is_file()
    assert exists(dbb) == "0", "CURRENT alone: a load killed half way leaves it too"
    subprocess.run(mark_argv(dbb), check=True)
    assert Path(loaded_mark(dbb)).read_text() == "600000\n"
    assert exists(dbb) == "1"
    assert exists(replace(dbb, num_keys=700_000)) == "0", "loaded with another key count"
    assert exists(replace(dbb, db_dir=dbb.db_dir + "-missing")) == "0"
    subprocess.run(unmark_argv(dbb), check=True)
    assert exists(dbb) == "0"


@pytest.mark.integration
def test_dbbench_load_marks_only_a_load_that_exited_0(dbb: DbBenchConfig, tmp_path: Path) -> None:
    cfg = replace(dbb, db_dir=str(tmp_path / "rocksdb" / "db"), num_keys=1_000)
    assert subprocess.run(load_argv(cfg), capture_output=True, check=False).returncode == 0
    assert Path(loaded_mark(cfg)).read_text() == "1000\n"
    broken = replace(cfg, db_bench=str(tmp_path / "no-db_bench"))
    assert subprocess.run(load_argv(broken), capture_output=True, check=False).returncode != 0
    assert not Path(loaded_mark(cfg)).exists(), "the failed load took the old mark away"


@pytest.mark.integration
def test_dbbench_readwhilewriting(dbb: DbBenchConfig, fillseq_out: object, tmp_path: Path) -> None:
    argv = step_argv("readww", dbb)
    rc, text = run_merged(argv, tmp_path / "bench.out")
    assert rc == 0, text[-2000:]
    p = DbBenchParser(argv)
    live = [iv for ln in lines(text) if (iv := p.feed(ln)) is not None]
    assert p.skipped == []
    assert len(live) >= 2
    assert {iv.threads for iv in live} == {2}  # the two readers; the writer (thread 0) left out
    printed = OPS.findall(text)
    assert printed[0][0] == "readwhilewriting"
    assert p.summary().qps == p.results["readwhilewriting"] == float(printed[0][1]) > 0


OTHER_STEPS = [("fwdrangeww", "iobuf"), ("revrangeww", "iodir"), ("overwrite", "iodir")]


@pytest.mark.integration
@pytest.mark.parametrize(("step", "setup"), OTHER_STEPS)
def test_dbbench_other_steps_run(
    dbb: DbBenchConfig, fillseq_out: object, tmp_path: Path, step: str, setup: str
) -> None:
    """Debian's db_bench accepts every flag of the step (O_DIRECT included) and prints its result."""
    cfg = replace(dbb, setup=setup, duration_s=1)
    argv = step_argv(step, cfg)
    rc, text = run_merged(argv, tmp_path / "bench.out")
    assert rc == 0, text[-2000:]
    p = DbBenchParser(argv)
    for ln in lines(text):
        p.feed(ln)
    assert p.skipped == []
    assert p.messages == []
    assert list(p.results) == [BENCHMARK[step]]
    assert p.summary().qps == float(OPS.findall(text)[0][1]) > 0


def test_dbbench_argv_shapes() -> None:
    cfg = DbBenchConfig("/data/db", "iodir", num_keys=1000, threads=4, duration_s=60, cache_bytes=4096)
    argvs = dict(suite_argvs(cfg))
    assert list(argvs) == list(STEPS)
    fill = argvs["fillseq"]
    assert fill[:2] == ["db_bench", "--benchmarks=fillseq"]
    assert {"--disable_wal=true", "--threads=1", "--use_existing_db=false"} <= set(fill)
    assert not any(a.startswith(("--duration", "--benchmark_write_rate_limit")) for a in fill)
    for step in ("readww", "fwdrangeww", "revrangeww"):
        assert "--benchmark_write_rate_limit=2097152" in argvs[step]
        assert {"--threads=4", "--duration=60", "--use_existing_db=true"} <= set(argvs[step])
    assert "--reverse_iterator=true" in argvs["revrangeww"]
    assert "--reverse_iterator=false" in argvs["fwdrangeww"]
    assert all("--stats_interval_seconds=1" in a and "--db=/data/db" in a for a in argvs.values())
    assert all("--use_direct_reads=true" in a for a in argvs.values())
    assert setup_flags("iobuf") == [
        "--use_direct_reads=false",
        "--use_direct_io_for_flush_and_compaction=false",
    ]
    assert step_argv("readwhilewriting", cfg) == argvs["readww"]
    byrx = DbBenchConfig(db_dir="/d", num_keys=1000)
    assert byrx.cache() > byrx.raw_bytes()
    assert DbBenchConfig(db_dir="/d", num_keys=10**7, setup="iobuf").cache() < 10**7 * 420


@pytest.mark.parametrize(
    "bad",
    [
        {"setup": "nope"},
        {"db_dir": "-rf"},
        {"threads": 0},
        {"setup": "byrx", "cache_bytes": 1000},
        {"setup": "iobuf", "cache_bytes": 10**12},
        {"compression": "zstd; rm"},
        {"extra": (("Bad Flag", "1"),)},
    ],
)
def test_dbbench_rejects(bad: dict[str, object]) -> None:
    cfg = DbBenchConfig(**{"db_dir": "/d", "num_keys": 1000, **bad})  # type: ignore[arg-type]
    with pytest.raises(DbBenchError):
        step_argv("readww", cfg)
    with pytest.raises(DbBenchError):
        suite_argvs(DbBenchConfig(db_dir="/d"), ("readww",))


# --- pgbench -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg(postgres_server: PostgresServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[PgConn, str]:
    s = postgres_server
    conn = PgConn(s.database, host=s.host, port=s.port, user=s.bench_user)
    pgbench = str(s.bin_dir / "pgbench")
    rc, text = run_merged(init_argv(conn, 1, pgbench=pgbench), tmp_path_factory.mktemp("pg") / "prepare.out")
    assert rc == 0, text
    return conn, pgbench


@pytest.mark.integration
@pytest.mark.parametrize("builtin", ["select-only", "tpcb-like"])
def test_pgbench_run(pg: tuple[PgConn, str], builtin: str, tmp_path: Path) -> None:
    conn, pgbench = pg
    argv = run_argv(conn, builtin, clients=2, jobs=2, duration_s=3, pgbench=pgbench)
    rc, text = run_merged(argv, tmp_path / "bench.out")
    assert rc == 0, text
    p = PgbenchParser(argv)
    live = [iv for ln in lines(text) if (iv := p.feed(ln)) is not None]
    assert p.skipped == []
    assert p.messages == []
    assert len(live) >= 2
    assert {iv.threads for iv in live} == {2}
    assert all(iv.latency_ms is not None and iv.latency_ms > 0 for iv in live)
    s = p.summary()
    assert s.tps == s.eps == float(TPS.findall(text)[0]) > 0
    assert s.threads == 2
    assert s.options["builtin"] == builtin
    assert p.ended


@pytest.mark.integration
def test_pgbench_tables_exist_check(pg: tuple[PgConn, str], postgres_server: PostgresServer) -> None:
    conn, _ = pg
    psql = str(postgres_server.bin_dir / "psql")
    ok = subprocess.run(tables_exist_argv(conn, 1, psql=psql), capture_output=True, text=True, check=False)
    assert (ok.returncode, ok.stdout.strip()) == (0, "1")
    other = subprocess.run(tables_exist_argv(conn, 5, psql=psql), capture_output=True, text=True, check=False)
    assert (other.returncode, other.stdout.strip()) == (0, "")  # another scale: initialise again
    # What an interrupted ``pgbench -i`` leaves: accounts short of rows, or without their key.
    for break_it, repair in (
        ("DELETE FROM pgbench_accounts WHERE aid = 1", "INSERT INTO pgbench_accounts VALUES (1, 1, 0, '')"),
        (
            "ALTER TABLE pgbench_accounts DROP CONSTRAINT pgbench_accounts_pkey",
            "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
        ),
    ):
        subprocess.run(postgres_server.psql_argv("-c", break_it), capture_output=True, check=True)
        check = tables_exist_argv(conn, 1, psql=psql)
        short = subprocess.run(check, capture_output=True, text=True, check=False)
        subprocess.run(postgres_server.psql_argv("-c", repair), capture_output=True, check=True)
        assert (short.returncode, short.stdout.strip()) == (0, ""), break_it
    again = subprocess.run(tables_exist_argv(conn, 1, psql=psql), capture_output=True, text=True, check=False)
    assert again.stdout.strip() == "1"


def test_pgbench_argv_shapes() -> None:
    conn = PgConn("sbtest", host="db1", port=5433, user="bench")
    init = ["pgbench", "-i", "-s", "10", "-h", "db1", "-p", "5433", "-U", "bench", "-q", "sbtest"]
    assert init_argv(conn, 10) == init
    argv = run_argv(conn, "select-only", clients=8, duration_s=60)
    assert argv == [
        "pgbench", "-h", "db1", "-p", "5433", "-U", "bench", "-S", "-c", "8", "-j", "8", "-T", "60",
        "--progress=1", "-M", "prepared", "sbtest",
    ]  # fmt: skip
    assert run_argv(PgConn("x"), "tpcb-like")[1:3] == ["-b", "tpcb-like"]
    for kwargs in ({"builtin": "nope"}, {"protocol": "weird"}, {"clients": 2, "jobs": 3}, {"clients": 0}):
        with pytest.raises(PgbenchError):
            run_argv(conn, **kwargs)
    with pytest.raises(PgbenchError):
        init_argv(PgConn("-evil"), 1)
