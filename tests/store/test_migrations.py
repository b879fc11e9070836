"""Stores made by every earlier schema version open with this code, migrated and unchanged.

Two kinds of old store:
- one per released version, made by the code that released it (its own CLI imported two runs
  with vmstat and iostat, its own Store added remote runs, a queue and run records): the
  zstd-compressed files in migration_fixtures/, made by make_fixtures.py from git history;
- one per version in MIGRATIONS, made by this code's migration path stopped at that version and
  filled with rows for that version's tables, so a migration merged later is covered too.

Each is fingerprinted with plain SQL before, opened with the current Store, and must show the
same runs, QPS, samples, queue, remote runs and raw files (read through store.raw.read_raw),
answer the views, and take writes. A migration a store lacks below its newest one (merged
branches) is applied too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
import zstandard

import benchdeck.store.storage.db
import benchdeck.store.storage.file_schema
import benchdeck.store.storage.views
from benchdeck.store.storage import raw
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.schema import MIGRATIONS

FIXTURES = Path(__file__).parent / "migration_fixtures"
RELEASED = sorted(int(p.name[1:].split(".")[0]) for p in FIXTURES.glob("v*.duckdb.zst"))
VIEWS_FROM = 9  # the version that added the views (store/storage/views.py)


def test_every_released_version_has_a_fixture() -> None:
    assert RELEASED == [1, 2, 3, 4, 5]  # the versions that ever landed before this schema
    assert {v for v, _ in MIGRATIONS} >= set(RELEASED)


def _columns(con: duckdb.DuckDBPyConnection, table: str) -> set[str]:
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = ?", [table]
    ).fetchall()
    return {r[0] for r in rows}


def _raw_texts(con: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    """Raw files as text, however the store keeps them (v1-5: VARCHAR content; v6+: codec)."""
    if "content" in _columns(con, "raw_files"):
        return con.execute("SELECT run_id, kind, name, content FROM raw_files ORDER BY ALL").fetchall()
    rows = con.execute("SELECT run_id, kind, name, codec, data FROM raw_files").fetchall()
    return sorted((r, k, n, raw.decompress(c, bytes(d)).decode()) for r, k, n, c, d in rows)


def fingerprint(path: Path) -> dict[str, Any]:
    """What a user's data is, read with plain SQL (works on a store of any version)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        fp: dict[str, Any] = {
            "counts": {
                t: con.execute(f"SELECT count(*) FROM {t}").fetchone()
                for t in tables
                if t != "schema_version"
            },
            "runs": con.execute(
                "SELECT r.run_id, h.name, b.name, b.version, w.name, r.config, r.threads, r.status, "
                "r.source, r.source_path, r.tags, r.device FROM runs r JOIN hosts h USING (host_id) "
                "JOIN builds b USING (build_id) JOIN workloads w USING (workload_id) ORDER BY r.run_id"
            ).fetchall(),
            "summary": con.execute(
                "SELECT run_id, qps, tps, lat_avg_ms, lat_pct_ms, cpu_o, cs_o, wkb_o, bench_samples, "
                "vm_samples, io_samples FROM run_summary ORDER BY run_id"
            ).fetchall(),
            "bench": con.execute(
                "SELECT run_id, count(*), sum(qps), max(t) FROM bench_samples GROUP BY ALL ORDER BY ALL"
            ).fetchall(),
            "vmstat": con.execute(
                "SELECT run_id, count(*), sum(cs), sum(us) FROM vmstat_samples GROUP BY ALL ORDER BY ALL"
            ).fetchall(),
            "iostat": con.execute(
                "SELECT run_id, device, count(*), sum(wkb_s) FROM iostat_samples GROUP BY ALL ORDER BY ALL"
            ).fetchall(),
            "skipped": con.execute("SELECT * FROM skipped_lines ORDER BY ALL").fetchall(),
            "raw": _raw_texts(con),
        }
        if "remote_runs" in tables:
            fp["remote"] = con.execute(
                "SELECT run_id, host, remote_dir, procs, plan, started_at FROM remote_runs ORDER BY ALL"
            ).fetchall()
        if "queue_items" in tables:
            fp["queue"] = con.execute(
                "SELECT q.options, i.position, i.host, i.build, i.workload, i.status, i.run_id "
                "FROM queue_items i JOIN queues q USING (queue_id) ORDER BY i.position"
            ).fetchall()
        if "run_records" in tables:
            fp["records"] = con.execute(
                "SELECT run_id, dbms_version, variables, git_commit FROM run_records ORDER BY ALL"
            ).fetchall()
        return fp
    finally:
        con.close()


def check_migrated(path: Path, before: dict[str, Any]) -> None:
    """Open with the current code: latest schema, the same data, views answer, writes work."""
    with Store.open(path) as s:
        assert s.applied_versions() == {v for v, _ in MIGRATIONS}
        cur = s.cursor()
        run_ids = [r[0] for r in before["runs"]]
        texts = sorted((rid, f.kind, f.name, f.text) for rid in run_ids for f in raw.read_raw(cur, rid))
        assert texts, "no raw files read after migration"
        assert texts == before["raw"]
        results = cur.execute("SELECT run_id, host, build, qps FROM run_results ORDER BY run_id").fetchall()
        assert [(r, q) for r, _, _, q in results] == [(r[0], r[1]) for r in before["summary"]]
        for view, key in (
            ("bench_series", "bench"),
            ("vmstat_series", "vmstat"),
            ("iostat_series", "iostat"),
        ):
            got = cur.execute(f"SELECT run_id, count(*) FROM {view} GROUP BY ALL ORDER BY ALL").fetchall()
            want: dict[int, int] = {}
            for row in before[key]:
                want[row[0]] = want.get(row[0], 0) + row[2 if key == "iostat" else 1]
            assert dict(got) == want
        # A finished run's status and tags can still be changed (v4 dropped the blocking keys).
        with s.transaction() as w:
            w.execute("UPDATE runs SET status = 'failed', tags = ['migrated'] WHERE run_id = ?", [run_ids[0]])
        cur.close()
    after = fingerprint(path)
    first = before["runs"][0]
    assert after["runs"][0] == (*first[:7], "failed", *first[8:10], ["migrated"], *first[11:])
    after["runs"][0] = first  # (status and tags changed on purpose above)
    for table, n in before["counts"].items():
        assert after["counts"][table] == n, table
    for key, value in before.items():
        if key != "counts":  # (tables a later version added are new and empty)
            assert after[key] == value, key


def _unpack(version: int, tmp_path: Path) -> Path:
    path = tmp_path / f"v{version}.duckdb"
    path.write_bytes(
        zstandard.ZstdDecompressor().decompress((FIXTURES / f"v{version}.duckdb.zst").read_bytes())
    )
    return path


@pytest.mark.parametrize("version", RELEASED)
def test_store_made_by_released_version_migrates(version: int, tmp_path: Path) -> None:
    path = _unpack(version, tmp_path)
    before = fingerprint(path)
    assert len(before["runs"]) == 2
    assert all(r[1] for r in before["summary"])
    assert all(n for _, n, _, _ in before["bench"])
    assert len(before["raw"]) == 6
    assert ("remote" in before) == (version >= 2)
    assert ("queue" in before) == (version >= 3)
    check_migrated(path, before)


def _fill(con: duckdb.DuckDBPyConnection, version: int) -> None:
    """Rows for the tables a store of ``version`` has, as that version's code wrote them."""
    con.execute("INSERT INTO hosts (name, ncpu) VALUES ('h1', 32)")
    con.execute(
        "INSERT INTO builds (name, dbms, version, version_key) "
        "VALUES ('my8028_rel', 'mysql', '8.0.28', '0008.0000.0028')"
    )
    con.execute("INSERT INTO workloads (name) VALUES ('point-query')")
    for i, qps in enumerate((12345.67, 23456.78)):
        (rid,) = con.execute(
            "INSERT INTO runs (host_id, build_id, workload_id, threads, status, source, source_path, device) "
            "VALUES (1, 1, 1, ?, 'finished', 'import', ?, 'nvme0n1') RETURNING run_id",
            [8 * (i + 1), f"/arc/run{i}/sb.o"],
        ).fetchone()
        con.execute(
            "INSERT INTO run_summary (run_id, qps, tps, lat_avg_ms, cpu_o, cs_o, bench_samples, "
            "vm_samples, io_samples) VALUES (?, ?, ?, 0.61, 0.0021, 3.4, 3, 2, 2)",
            [rid, qps, qps / 20],
        )
        for t in (1, 2, 3):
            con.execute(
                "INSERT INTO bench_samples (run_id, t, threads, qps) VALUES (?, ?, 8, ?)", [rid, t, qps + t]
            )
        for seq in (1, 2):
            con.execute(
                "INSERT INTO vmstat_samples (run_id, seq, cs, us, ts) "
                "VALUES (?, ?, 61208, 70, '2026-11-21 20:00:0' || ?)",
                [rid, seq, seq],
            )
            con.execute(
                "INSERT INTO iostat_samples (run_id, seq, device, wkb_s, ts) "
                "VALUES (?, ?, 'nvme0n1', 1412.5, NULL)",
                [rid, seq],
            )
        con.execute(
            "INSERT INTO skipped_lines VALUES (?, 'sysbench', 7, 'garbage', 'not a sysbench line')", [rid]
        )
        for kind, text in (("sysbench", f"queries: {qps} per sec.\n"), ("vmstat", "procs ---\n")):
            if version < 6:
                con.execute("INSERT INTO raw_files VALUES (?, ?, ?, ?)", [rid, kind, f"{kind}.txt", text])
            else:
                raw.save_raw(con, rid, kind, f"{kind}.txt", text)
    if version >= 2:
        con.execute("INSERT INTO remote_runs VALUES (1, 'h1', '/tmp/bd-1', '{\"sysbench\": 42}', '{}', NULL)")
    if version >= 3:
        con.execute("INSERT INTO queues (options) VALUES (?)", [json.dumps({"threads": 8})])
        con.execute(
            "INSERT INTO queue_items (queue_id, position, host, build, workload, status, run_id) "
            "VALUES (1, 0, 'h1', 'my8028_rel', 'point-query', 'done', 1)"
        )
    if version >= 7:
        con.execute("INSERT INTO run_records (run_id, dbms_version, git_commit) VALUES (1, '8.0.28', 'abc')")


@pytest.mark.parametrize("version", [v for v, _ in MIGRATIONS])
def test_store_made_at_every_version_migrates(
    version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / f"at{version}.duckdb"
    upto = tuple(m for m in MIGRATIONS if m[0] <= version)
    with monkeypatch.context() as m:
        m.setattr(benchdeck.store.storage.file_schema, "MIGRATIONS", upto)
        m.setattr(benchdeck.store.storage.file_schema, "LATEST_VERSION", version)
        if version < VIEWS_FROM:  # that version's code had no views (they name later columns)
            m.setattr(benchdeck.store.storage.views, "apply", lambda cur: None)
        with Store.open(path) as s:
            assert s.applied_versions() == {v for v, _ in upto}
            with s.transaction() as cur:
                _fill(cur, version)
    before = fingerprint(path)
    check_migrated(path, before)


def test_migrations_merged_with_lower_numbers_are_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store made by code that lacked a migration below its newest one (a branch merged later,
    as 7 could have been) gets it, and a store made then opens without change."""
    path = _unpack(5, tmp_path)
    without_7 = tuple(m for m in MIGRATIONS if m[0] != 7)
    with monkeypatch.context() as m:
        m.setattr(benchdeck.store.storage.file_schema, "MIGRATIONS", without_7)
        with Store.open(path) as s:
            assert s.applied_versions() == {v for v, _ in without_7}
    before = fingerprint(path)
    with Store.open(path) as s:
        assert s.applied_versions() == {v for v, _ in MIGRATIONS}
        assert s.scalar("SELECT count(*) FROM run_records") == 0
    with Store.open(path) as s:  # nothing left to apply: opens as is
        assert s.scalar("SELECT count(*) FROM schema_version") == len(MIGRATIONS)
    after = fingerprint(path)
    assert after["summary"] == before["summary"]
    assert after["raw"] == before["raw"]


def test_a_version_the_code_does_not_know_is_too_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Knowing the newest version is not enough: a store with a migration this code lacks (a gap
    below the latest, as a branch's migration before it merges) is newer than this code."""
    path = tmp_path / "s.duckdb"
    Store.open(path).close()
    monkeypatch.setattr(
        benchdeck.store.storage.file_schema, "MIGRATIONS", tuple(m for m in MIGRATIONS if m[0] != 7)
    )
    with pytest.raises(benchdeck.store.storage.db.StoreTooNew, match="schema version 7"):
        Store.open(path)
