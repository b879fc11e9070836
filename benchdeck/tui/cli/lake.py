"""``benchdeck lake``: looking after a team store (``--db ducklake:postgres:...``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx


@click.group("lake")
def lake_group() -> None:
    """Look after a team store on DuckLake (--db ducklake:postgres:...)."""


@lake_group.command("maintain")
@click.option(
    "--older-than",
    "days",
    type=click.IntRange(min=0),
    default=7,
    show_default=True,
    help="Expire snapshots older than this many days (time travel before then is given up).",
)
@click.pass_obj
def maintain_cmd(obj: Ctx, days: int) -> None:
    """Compact the team store: rows of small commits kept in the catalog go to Parquet files,
    small files are merged, old snapshots and the files only they used are removed.

    \b
    Example (weekly, e.g. from cron, on one machine):
      benchdeck --db 'ducklake:postgres:dbname=bench host=db1 user=bench' lake maintain
    """
    from benchdeck.store.storage.lake_session import maintain
    from benchdeck.tui.cli.context import fail

    if not str(obj.db or "").startswith("ducklake:"):
        fail("--db (or $BENCHDECK_DB) names no team store (ducklake:postgres:...): nothing to maintain")
    with obj.open_store() as store:
        assert store.team is not None
        done = maintain(store.team, days)
    click.echo(
        f"flushed {done.flushed_rows} inlined row(s) to Parquet, merged {done.merged_files} file(s), "
        f"expired {done.expired_snapshots} snapshot(s), removed {done.removed_files} old file(s)"
    )
