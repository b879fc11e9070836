"""``benchdeck export``: the store as Parquet or CSV files for other tools."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchdeck.store.reports.export_db import EXPORT_FORMATS, export_store

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx


@click.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(EXPORT_FORMATS), default="parquet", show_default=True)
@click.pass_obj
def export_cmd(obj: Ctx, directory: Path, fmt: str) -> None:
    """Write every table and view of the store into DIRECTORY (new or empty).

    Tables are written by DuckDB's EXPORT DATABASE (schema.sql, load.sql and one file a table:
    `IMPORT DATABASE 'DIR'` rebuilds the store); the views run_results, bench_series,
    vmstat_series and iostat_series go to DIR/views/.

    \b
    Example:
      benchdeck export ~/bd-export --format parquet
      duckdb -c "SELECT build, workload, qps FROM '~/bd-export/views/run_results.parquet'"
    """
    with obj.open_store_for_reading() as store:
        result = export_store(store.cursor(), directory, fmt)
    click.echo(f"exported {result.tables} tables and {len(result.views)} views to {result.directory}")
