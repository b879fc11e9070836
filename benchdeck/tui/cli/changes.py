"""``benchdeck changes``: where did QPS change, across versions or over time."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from benchdeck.engine.catalogue import default_catalogue, load_group_overrides
from benchdeck.engine.changepoints import DEFAULT_MAX_PVALUE, DEFAULT_MIN_MAGNITUDE, Options
from benchdeck.store.analysis.change_series import load_series
from benchdeck.store.analysis.changes import OVER, ChangesError, LeftOut, analyse
from benchdeck.store.reports.changes_report import FORMATS, Request, render

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx


@click.command("changes")
@click.option("--host", required=True, help="Host whose runs are analysed.")
@click.option(
    "--config", "config", help="Only runs with this DBMS config (default: each config its own series)."
)
@click.option("--dbms", help="Only builds of this DBMS (mysql, mariadb, postgres, rocksdb ...).")
@click.option("--workload", help="Only this workload.")
@click.option("--dop", type=int, help="Only runs at this concurrency.")
@click.option("--build", help="Only this build (with --over time: one build's runs in time order).")
@click.option(
    "--include",
    "include",
    multiple=True,
    metavar="BUILD",
    help="Put a forked BUILD in its DBMS's series, its fork set aside (repeat): a build the output says "
    "was left out, e.g. my8406v2_rel_o2nofp in mysql rel_o2nofp (a build without a fork is refused).",
)
@click.option(
    "--across-configs",
    is_flag=True,
    help="Over versions: one series across configs, each build under its config with the most runs "
    "(pg17 on x10a_c32r128 -> pg18 on x10b_c32r128).",
)
@click.option(
    "--over",
    type=click.Choice(OVER),
    default="version",
    show_default=True,
    help="version: a DBMS's versions in order; time: each build's repeated runs in the order they ran.",
)
@click.option(
    "--max-pvalue",
    type=click.FloatRange(0, 1, min_open=True),
    default=DEFAULT_MAX_PVALUE,
    show_default=True,
    help="A change is kept when its t-test p-value is below this.",
)
@click.option(
    "--min-magnitude",
    type=click.FloatRange(0),
    default=DEFAULT_MIN_MAGNITUDE,
    show_default=True,
    help="A change is kept when it moves QPS by more than this fraction (0.05 = 5%).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.pass_obj
def changes_cmd(
    obj: Ctx,
    host: str,
    config: str | None,
    dbms: str | None,
    workload: str | None,
    dop: int | None,
    build: str | None,
    include: tuple[str, ...],
    across_configs: bool,
    over: str,
    max_pvalue: float,
    min_magnitude: float,
    fmt: str,
) -> None:
    """Change points of QPS per workload (e-divisive means + t-test, as Apache Otava finds them),
    each with the per-op metrics that moved at the same point."""
    cat = default_catalogue(load_group_overrides(obj.groups) if obj.groups else None)
    opts = Options(max_pvalue=max_pvalue, min_magnitude=min_magnitude)
    left_out: list[LeftOut] = []
    with obj.open_store_for_reading() as store:
        cur = store.cursor()
        cur.execute("SET threads TO 1")  # as compare's: one host's runs are a small query
        try:
            series = load_series(
                cur,
                host=host,
                group_of=cat.group_of,
                sort_key=cat.sort_key,
                over="time" if over == "time" else "version",
                config=config,
                dbms=dbms,
                workload=workload,
                dop=dop,
                build=build,
                include=include,
                left_out=left_out,
                across_configs=across_configs,
            )
        except ChangesError as exc:
            if exc.exit_code == 2:  # a name the host has no runs of: a usage error, as for `run`
                raise click.UsageError(str(exc)) from None
            raise click.ClickException(str(exc)) from exc
    results = analyse(series, opts)
    click.echo(render(results, Request(host, over, opts, tuple(left_out)), fmt), nl=False)
