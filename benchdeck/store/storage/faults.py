"""What can be wrong with a store file, found before benchdeck writes, and said in one line.

Not a DuckDB file (a SQLite database, any other file), another program's DuckDB database, a
damaged file (truncated, overwritten), a table dropped outside benchdeck, a read-only directory,
a full disk: each is one line naming the file and what to do (store.db raises it as a
StoreError). Nothing is written to a file that is not a benchdeck store, and a failed write
leaves what was stored before intact.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import duckdb

from benchdeck.store.storage.location import DB_ENV
from benchdeck.store.storage.schema import MIGRATIONS

PICK_ANOTHER = f"pick another store with --db or ${DB_ENV}"
RESTORE = "restore it from a backup, or move it aside to start a new store"
# DuckDB must never try to download an extension (e.g. sqlite_scanner for a SQLite file).
OFFLINE: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}

_DUCKDB_MAGIC = b"DUCK"  # at offset 8 of every DuckDB database file
_SQLITE_MAGIC = b"SQLite format 3\x00"
# Patterns of errors, compiled (re's cache) only when an error is described: otherwise a cost
# of every command's start.
_DAMAGED = (
    r"(?i)corrupt|could not read enough bytes|checksum|not a valid duckdb database"
    r"|invalidated|truncated|serializ|INTERNAL Error|failed to read|unexpected end|block id"
)
_NO_SPACE = r"(?i)no space left on device|disk quota exceeded"
_OTHER_VERSION = r"(?i)database file with version number"
_TOO_LARGE = r"(?i)file too large"
_TABLE_DDL = re.compile(r"(?i)\bCREATE TABLE (\w+)|\bDROP TABLE (\w+)|\bALTER TABLE (\w+) RENAME TO (\w+)")
_NOT_WRITABLE = r"(?i)read-only file system|permission denied|cannot open file .* for writing"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def sniff(path: Path) -> str | None:
    """A fault found in the file's first bytes: not a DuckDB database at all."""
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return f"store {path} is a directory, not a file; {PICK_ANOTHER}"
    except OSError as exc:
        return f"cannot read store {path}: {exc.strerror}"
    if not head:
        return (
            f"store {path} is an empty file, not a DuckDB database; remove it (benchdeck then "
            f"starts a new store there) or {PICK_ANOTHER}"
        )
    if head.startswith(_SQLITE_MAGIC):
        return f"{path} is a SQLite database, not a benchdeck store; {PICK_ANOTHER}"
    if head[8:12] != _DUCKDB_MAGIC:
        return f"{path} is not a DuckDB database (not a benchdeck store); {PICK_ANOTHER}"
    return None


def check_writable(path: Path) -> str | None:
    """DuckDB writes a ``.wal`` beside the store: its directory (and the file) must be writable."""
    if not os.access(path.parent, os.W_OK):
        return (
            f"cannot write store {path}: its directory {path.parent} is read-only; make it "
            f"writable, or {PICK_ANOTHER} (commands that only read, like compare, still work)"
        )
    if path.exists() and not os.access(path, os.W_OK):
        return f"cannot write store {path}: the file is read-only; make it writable, or {PICK_ANOTHER}"
    return None


@functools.cache
def expected_tables() -> frozenset[str]:
    """The tables a store at the latest schema has, read from the migrations' DDL."""
    tables: set[str] = {"schema_version"}
    for _, ddl in MIGRATIONS:
        for m in _TABLE_DDL.finditer(ddl):
            created, dropped, old, new = m.groups()
            tables.discard(dropped or old)
            tables.add(created or new or "")
    tables.discard("")
    return frozenset(tables)


@functools.cache
def _current_sql() -> str:
    """Binds only when every expected table exists: its rows are the applied versions."""
    others = sorted(expected_tables() - {"schema_version"})
    # table names from our own migrations' DDL, not user values
    unions = "".join(f" UNION ALL (SELECT NULL FROM {t} WHERE false)" for t in others)  # noqa: S608
    return "SELECT version FROM schema_version" + unions  # noqa: S608


def complete_store_versions(con: duckdb.DuckDBPyConnection) -> set[int] | None:
    """The applied schema versions of a store that has every expected table, told by one cheap
    query (the full checks are three catalogue queries, a visible share of a ``compare``).
    None is not a fault: it means "check it fully" (another program's database, a new file, a
    missing table, an unreadable file), and :func:`check_tables` and :func:`missing_tables`
    say what it is."""
    try:
        rows = con.execute(_current_sql()).fetchall()
    except duckdb.Error:
        return None
    return {int(r[0]) for r in rows}


def check_tables(path: Path, con: duckdb.DuckDBPyConnection) -> str | None:
    """Another program's database (tables, no ``schema_version``), or a benchdeck store that
    lacks some of its tables. None: a benchdeck store, or an empty database."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()
    have = {str(r[0]) for r in rows}
    if not have:
        return None
    if "schema_version" not in have:
        shown = ", ".join(sorted(have)[:5]) + (", ..." if len(have) > 5 else "")
        return (
            f"{path} is a DuckDB database of another program (tables: {shown}), not a benchdeck "
            f"store; benchdeck does not write into it: {PICK_ANOTHER}"
        )
    return None


def missing_tables(path: Path, con: duckdb.DuckDBPyConnection) -> str | None:
    """A store at the latest schema without one of its tables (dropped outside benchdeck)."""
    rows = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()
    missing = sorted(expected_tables() - {str(r[0]) for r in rows})
    if not missing:
        return None
    return (
        f"store {path} lacks table(s) {', '.join(missing)} (dropped outside benchdeck?); "
        f"nothing was changed: {RESTORE}"
    )


def migration_failed(path: Path, version: int, exc: BaseException) -> str:
    return (
        f"store {path} cannot be upgraded to schema v{version} ({_first_line(exc)}): it was changed "
        f"outside benchdeck; nothing was changed: {RESTORE}"
    )


def describe(path: Path, exc: BaseException, *, writing: bool = True) -> str:
    """A DuckDB (or OS) error on the store ``path`` as one line that says what to do."""
    text = str(exc)
    if re.search(_NO_SPACE, text):
        return (
            f"no space left on the device of store {path}: this change was not stored (what was "
            "stored before is intact); free some space and run it again"
        )
    if re.search(_TOO_LARGE, text):
        return (
            f"store {path} reached the file-size limit (ulimit -f): this change was not stored "
            "(what was stored before is intact); raise the limit and run it again"
        )
    if re.search(_NOT_WRITABLE, text):
        return f"cannot write store {path} ({_first_line(exc)}); make it writable, or {PICK_ANOTHER}"
    if re.search(_OTHER_VERSION, text):
        return (
            f"store {path} was written by another DuckDB version ({_first_line(exc)}); use the "
            f"benchdeck that wrote it, or {PICK_ANOTHER}"
        )
    if re.search(_DAMAGED, text):
        return f"store {path} is damaged ({_first_line(exc)}); {RESTORE}"
    verb = "write" if writing else "read"
    return f"cannot {verb} store {path}: {_first_line(exc)}"
