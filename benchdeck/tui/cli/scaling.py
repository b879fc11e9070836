"""``benchdeck scaling``: per workload and build, QPS at each dop, scale-up and efficiency."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from benchdeck.engine.catalogue import default_catalogue, load_group_overrides
from benchdeck.store.reports.scaling_report import SCALING_FORMATS

if TYPE_CHECKING:
    from benchdeck.store.analysis.scaling import Scaling
    from benchdeck.tui.cli.context import Ctx


@click.command("scaling")
@click.option("--host", required=True, help="Host whose runs are read.")
@click.option(
    "--build", "builds", multiple=True, required=True, help="Build (repeat); the first is the base."
)
@click.option("--config", help="Only runs under this server config (default: each config its own series).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("rich", *SCALING_FORMATS)),
    help="Output format (default: rich on a terminal, text otherwise).",
)
@click.pass_obj
def scaling_cmd(obj: Ctx, host: str, builds: Sequence[str], config: str | None, fmt: str | None) -> None:
    """Scale-up: QPS at each dop / QPS at the lowest dop, efficiency (scale-up / dop ratio),
    cpu/o and cs/o per dop; one row per workload, build, config and dop.

    \b
    Examples:
      benchdeck scaling --host hetz --build pg180_o2nofp --format text
      benchdeck scaling --host local --build sqlite --build sqlite-sync --format csv > scaling.csv
    """
    from benchdeck.store.analysis.scaling import ScalingError, scaling
    from benchdeck.store.reports.scaling_report import render_scaling

    fmt = fmt or ("rich" if sys.stdout.isatty() else "text")
    overrides = load_group_overrides(obj.groups) if obj.groups else None
    cat = default_catalogue(overrides)
    with obj.open_store_for_reading() as store:
        try:
            result = scaling(
                store.cursor(),
                host=host,
                builds=list(dict.fromkeys(builds)),
                group_of=cat.group_of,
                sort_key=cat.sort_key,
                config=config,
            )
        except ScalingError as exc:
            raise click.ClickException(str(exc)) from None
    if fmt == "rich":
        _print_rich(result)
    else:
        click.echo(render_scaling(result, fmt), nl=False)


def _print_rich(s: Scaling) -> None:
    from rich.console import Console
    from rich.table import Table

    from benchdeck.store.reports.scaling_report import HEADINGS, cells, notes, title

    t = Table(title=title(s), box=None, caption="\n".join(notes(s)) or None)
    for i, h in enumerate(HEADINGS):
        t.add_column(h, justify="left" if i < 4 else "right")
    for p in s.points:
        row = list(cells(p))
        if p.efficiency < 0.5:  # less than half of the added clients' worth: a scaling limit
            row[7] = f"[red]{row[7]}[/]"
        t.add_row(*row)
    Console().print(t)
