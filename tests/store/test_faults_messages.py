"""store.faults: what a file is, and DuckDB's errors as one line that says what to do."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from benchdeck.store.storage.db import Store, StoreError
from benchdeck.store.storage.faults import complete_store_versions, describe, expected_tables
from benchdeck.store.storage.schema import MIGRATIONS


@pytest.mark.parametrize(
    ("content", "needle"),
    [(b"", "is an empty file"), (b"hello", "is not a DuckDB database"),
     (b"SQLite format 3\x00" + b"\0" * 100, "is a SQLite database"),
     (b"PGDMP" + b"\0" * 100, "is not a DuckDB database")],
)  # fmt: skip
def test_files_that_are_not_duckdb_are_refused_untouched(tmp_path: Path, content: bytes, needle: str) -> None:
    db = tmp_path / "x.duckdb"
    db.write_bytes(content)
    for read_only in (False, True):
        with pytest.raises(StoreError, match=needle):
            Store.open(db, read_only=read_only)
    assert db.read_bytes() == content
    assert not db.with_name("x.duckdb.wal").exists()


def test_a_directory_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="is a directory"):
        Store.open(tmp_path)


@pytest.mark.parametrize(
    ("error", "needle"),
    [
        ("IO Error: Could not write file: No space left on device", "free some space"),
        ('IO Error: Could not write file "x": File too large', "file-size limit"),
        ('IO Error: Cannot open file "x.wal": Read-only file system', "make it writable"),
        ("IO Error: Corrupt database file: computed checksum 1 does not match", "restore it from a backup"),
        (
            "IO Error: Trying to read a database file with version number 67, but we can only read "
            "versions between 64 and 66.",
            "another DuckDB version",
        ),
        ("Catalog Error: something else\nLINE 1: ...", "cannot write store"),
    ],
)
def test_describe(error: str, needle: str) -> None:
    line = describe(Path("/s/x.duckdb"), RuntimeError(error))
    assert needle in line
    assert "/s/x.duckdb" in line
    assert "\n" not in line


def test_expected_tables_follow_the_migrations(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.duckdb") as s:
        rows = s.con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
        ).fetchall()
    assert {r[0] for r in rows} == expected_tables()


def test_the_quick_schema_check_passes_only_a_complete_store(tmp_path: Path) -> None:
    """Opening trusts the one-query check only for a store with every table; anything else
    (None) goes through the full checks and their messages."""
    path = tmp_path / "s.duckdb"
    Store.open(path).close()
    con = duckdb.connect(str(path))
    try:
        assert complete_store_versions(con) == {v for v, _ in MIGRATIONS}
        con.execute("DELETE FROM schema_version WHERE version = 1")
        assert complete_store_versions(con) == {v for v, _ in MIGRATIONS} - {1}
    finally:
        con.close()
    versions = {v for v, _ in MIGRATIONS}
    for left_out in [None, *sorted(expected_tables() - {"schema_version"})]:
        # the tables by name only (the check reads none of their columns)
        con = duckdb.connect()
        con.execute("CREATE TABLE schema_version (version INTEGER)")
        con.execute("INSERT INTO schema_version SELECT unnest(?)", [sorted(versions)])
        for table in sorted(expected_tables() - {"schema_version", left_out or ""}):
            con.execute(f"CREATE TABLE {table} (x INTEGER)")
        assert complete_store_versions(con) == (versions if left_out is None else None), left_out
        con.close()
    empty = duckdb.connect(str(tmp_path / "empty.duckdb"))
    assert complete_store_versions(empty) is None
    empty.close()
