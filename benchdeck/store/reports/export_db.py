"""Exporting a store to files other tools read: DuckDB's EXPORT DATABASE plus the views."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

import duckdb

from benchdeck.store.storage.views import VIEWS

EXPORT_FORMATS: Final = ("parquet", "csv")


@dataclass(frozen=True, slots=True)
class ExportResult:
    directory: Path
    tables: int
    views: tuple[str, ...]


def export_store(cur: duckdb.DuckDBPyConnection, directory: Path, fmt: str) -> ExportResult:
    """Write every table (re-importable with ``IMPORT DATABASE``) and each view as one file.

    ``directory`` must not exist or be empty: an export never mixes with older files.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: pick one of {', '.join(EXPORT_FORMATS)}")
    if directory.exists() and any(directory.iterdir()):
        raise ValueError(f"{directory} is not empty: export into a new or empty directory")
    directory.mkdir(parents=True, exist_ok=True)
    options = "FORMAT parquet, COMPRESSION zstd" if fmt == "parquet" else "FORMAT csv, HEADER true"
    # The path is bound as a literal by DuckDB's own quoting rules: COPY/EXPORT take no parameters.
    cur.execute(f"EXPORT DATABASE {_literal(str(directory))} ({options})")
    views_dir = directory / "views"
    views_dir.mkdir()
    for name in VIEWS:
        target = views_dir / f"{name}.{fmt}"
        cur.execute(f"COPY (SELECT * FROM {name}) TO {_literal(str(target))} ({options})")  # noqa: S608 - our view names
    tables = cur.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()"
    ).fetchone()
    return ExportResult(directory, int(tables[0]) if tables else 0, tuple(VIEWS))


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"
