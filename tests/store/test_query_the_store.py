"""The store as users query it: the pinned DuckDB CLI opens it, the README's queries run, export."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from tests.fixtures.cli_helpers import ROOT, bd

RECORDED = ROOT / "tests" / "data" / "recorded"
PERF = ROOT / "tests" / "data" / "perf_stat" / "sb.perf.hw.point-query.range100.pk1.1"  # hand-written


def _readme_sql() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Query the store\n(.*?)(?=^## )", text, re.S | re.M)
    assert section, "README has no '## Query the store' section"
    return re.findall(r"^```sql\n(.*?)^```", section.group(1), re.S | re.M)


@pytest.fixture
def store(tmp_path: Path) -> tuple[dict[str, str], Path]:
    db = tmp_path / "bd.duckdb"
    env = {"BENCHDECK_DB": str(db), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    # two runs, two outputs: an output already stored is the same run (its content, not its path)
    recorded = (RECORDED / "sysbench_oltp_point_select.txt").read_text()
    outs = {"my8028_rel_o2nofp": tmp_path / "sb.o.0", "my8040_rel_o2nofp": tmp_path / "sb.o.1"}
    for i, out in enumerate(outs.values()):
        out.write_text(recorded + "\n" * i)
    for build in ("my8028_rel_o2nofp", "my8040_rel_o2nofp"):
        r = bd(
            env,
            "import", "sysbench", str(outs[build]),
            "--host", "dell32", "--build", build, "--workload", "update-index_range=100",
            "--vmstat", str(RECORDED / "vmstat_t_1_5.txt"),
            *(("--perf-stat", str(PERF)) if build == "my8028_rel_o2nofp" else ()),
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
    return env, db


def _duckdb_cli(db: Path, sql: str) -> list[dict[str, object]]:
    exe = shutil.which("duckdb")
    assert exe, "the DuckDB CLI (pip install duckdb-cli==1.5.5, in the test extra) is missing"
    out = subprocess.run(
        [exe, "-readonly", "-json", str(db), "-c", sql], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if out.stdout.strip() else []


def test_the_pinned_cli_opens_the_store_and_runs_the_readme_queries(
    store: tuple[dict[str, str], Path],
) -> None:
    _, db = store
    version = subprocess.run(["duckdb", "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith(f"v{duckdb.__version__}"), (version, duckdb.__version__)
    per_build, rqps, cpu, counters = (_duckdb_cli(db, sql) for sql in _readme_sql())
    assert [(r["build"], r["runs"]) for r in per_build] == [
        ("my8028_rel_o2nofp", 1),
        ("my8040_rel_o2nofp", 1),
    ]
    assert {r["build"]: r["rqps"] for r in rqps} == {"my8028_rel_o2nofp": 1.0, "my8040_rel_o2nofp": 1.0}
    assert len(cpu) == 4  # vmstat -t 1 5: five rows, the since-boot first one dropped
    assert cpu[0]["ts"] == "2026-11-21 19:59:11"
    assert all(r["cpu_pct"] is not None for r in cpu)
    assert [(r["build"], r["event"], r["total"], r["counted"], r["windows"]) for r in counters] == [
        ("my8028_rel_o2nofp", "L1-icache-loads-misses", 48e6, 1, 1),
        ("my8028_rel_o2nofp", "instructions", 9.6e9, 1, 1),
    ]


def test_tables_views_and_columns_are_described(store: tuple[dict[str, str], Path]) -> None:
    _, db = store
    con = duckdb.connect(str(db), read_only=True)
    try:
        undescribed = con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE comment IS NULL AND table_name <> 'schema_version' "
            "UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal AND comment IS NULL"
        ).fetchall()
        qps_comment = con.execute(
            "SELECT comment FROM duckdb_columns() WHERE table_name = 'run_summary' AND column_name = 'qps'"
        ).fetchone()
    finally:
        con.close()
    assert undescribed == []
    assert qps_comment
    assert "per second" in str(qps_comment[0])


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_export_writes_tables_and_views_that_reimport(
    store: tuple[dict[str, str], Path], tmp_path: Path, fmt: str
) -> None:
    env, _ = store
    out = tmp_path / f"export-{fmt}"
    r = bd(env, "export", str(out), "--format", fmt)
    assert r.returncode == 0, r.stderr
    assert "views" in r.stdout
    view_file = out / "views" / f"run_results.{fmt}"
    rows = duckdb.sql(f"SELECT build, qps FROM '{view_file}' ORDER BY build").fetchall()
    assert [b for b, _ in rows] == ["my8028_rel_o2nofp", "my8040_rel_o2nofp"]
    assert all(q and q > 0 for _, q in rows)
    copy = duckdb.connect(str(tmp_path / f"copy-{fmt}.duckdb"))
    try:
        copy.execute(f"IMPORT DATABASE '{out}'")
        assert copy.execute("SELECT count(*) FROM vmstat_samples").fetchone() == (8,)
        assert copy.execute("SELECT count(*) FROM run_results").fetchone() == (2,)
    finally:
        copy.close()
    again = bd(env, "export", str(out), "--format", fmt)
    assert again.returncode == 1
    assert again.stderr.count("\n") == 1
    assert "not empty" in again.stderr
