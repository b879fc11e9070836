"""store.faults: what a file is, and DuckDB's errors as one line that says what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.db import Store, StoreError
from store.faults import describe, expected_tables


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
        rows = s.con.execute("SELECT table_name FROM information_schema.tables").fetchall()
    assert {r[0] for r in rows} == expected_tables()
