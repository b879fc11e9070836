"""The store describes itself (issue 25 item 19): a comment on every column of every table and
view, and vmstat/iostat sample times as TIMESTAMP in their tables, old stores' text converted."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

import benchdeck.store.storage.file_schema
from benchdeck.engine.records import VmstatSample
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.samples import append_vmstat
from benchdeck.store.storage.schema import MIGRATIONS


def test_every_column_of_every_table_and_view_has_a_comment(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.duckdb"):
        pass
    con = duckdb.connect(str(tmp_path / "s.duckdb"), read_only=True)
    try:
        bare = con.execute(
            "SELECT table_name || '.' || column_name FROM duckdb_columns() "
            "WHERE database_name = current_database() AND comment IS NULL"
        ).fetchall()
        n = con.execute("SELECT count(*) FROM duckdb_columns() WHERE database_name = current_database()")
        total = n.fetchone()
        types = con.execute(
            "SELECT table_name, data_type FROM duckdb_columns() WHERE column_name = 'ts' ORDER BY 1"
        ).fetchall()
        vm_cs = con.execute(
            "SELECT comment FROM duckdb_columns() WHERE table_name = 'vmstat_series' AND column_name = 'cs'"
        ).fetchone()
    finally:
        con.close()
    assert bare == []
    assert total is not None
    assert total[0] > 300
    assert types == [
        (t, "TIMESTAMP") for t in ("iostat_samples", "iostat_series", "vmstat_samples", "vmstat_series")
    ]
    assert vm_cs == ("vmstat cs: context switches per second.",)


def test_migration_11_turns_stored_sample_times_into_timestamps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store made without migration 11 (sample times as the tools' text) gets them converted:
    ISO, the US locale's, and none; then new samples are parsed on the way in."""
    path = tmp_path / "old.duckdb"
    with monkeypatch.context() as m:
        m.setattr(
            benchdeck.store.storage.file_schema, "MIGRATIONS", tuple(x for x in MIGRATIONS if x[0] != 11)
        )
        with Store.open(path) as s, s.transaction() as cur:
            for seq, ts in enumerate(
                ("2026-11-21 19:52:23", "11/21/26 19:52:24", "11/21/2026 07:52:25 PM", None)
            ):
                cur.execute(
                    "INSERT INTO vmstat_samples (run_id, seq, cs, ts) VALUES (1, ?, 10, ?)", [seq, ts]
                )
            cur.execute(
                "INSERT INTO iostat_samples (run_id, seq, device, ts) "
                "VALUES (1, 0, 'sda', '2026-11-21 19:52:23')"
            )
    with Store.open(path) as s, s.transaction() as cur:
        assert 11 in s.applied_versions()
        append_vmstat(cur, 2, [VmstatSample(0, *[1] * 17, timestamp="11/22/26 08:00:00")])
        got = cur.execute("SELECT run_id, seq, ts FROM vmstat_samples ORDER BY ALL").fetchall()
        io = cur.execute("SELECT ts FROM iostat_samples").fetchall()
    assert got == [
        (1, 0, datetime(2026, 11, 21, 19, 52, 23)),
        (1, 1, datetime(2026, 11, 21, 19, 52, 24)),
        (1, 2, datetime(2026, 11, 21, 19, 52, 25)),
        (1, 3, None),
        (2, 0, datetime(2026, 11, 22, 8, 0, 0)),
    ]
    assert io == [(datetime(2026, 11, 21, 19, 52, 23),)]
