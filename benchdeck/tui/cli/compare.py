"""``benchdeck compare``: rQPS of (build, config) columns against a base, in five formats."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from benchdeck.engine.catalogue import SUITES, default_catalogue, load_group_overrides
from benchdeck.store.analysis.columns import Column
from benchdeck.store.reports.compare_report import CSV_TABLES, FORMATS, render
from benchdeck.tui.cli.column_param import ColumnParam
from benchdeck.tui.cli.suites import SUITE_HELP, suite_steps

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx

OUTPUT_FORMATS = ("rich", *FORMATS)


@click.command("compare")
@click.option("--host", required=True, help="Host whose runs are compared.")
@click.option(
    "--base",
    required=True,
    type=ColumnParam(),
    help="Base column BUILD[:CONFIG][@DOP]: every column is divided by it.",
)
@click.option(
    "--with",
    "with_",
    multiple=True,
    required=True,
    type=ColumnParam(),
    help="Column to compare, BUILD[:CONFIG][@DOP] (repeat; one build may come under several configs "
    "or at several dops).",
)
@click.option("--config", "config", help="Config of a build given without one (default: its only config).")
@click.option("--dop", type=int, help="Only runs at this concurrency.")
@click.option("--suite", help=f"Only the steps of this suite, in its order: {SUITE_HELP}.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(OUTPUT_FORMATS),
    help="Output format (default: rich on a terminal, text otherwise).",
)
@click.option(
    "--table",
    type=click.Choice(CSV_TABLES),
    help="With --format csv: which table (default rqps: one row per workload, dop and column); "
    "counters also with --format json (perf stat counters per operation).",
)
@click.pass_obj
def compare_cmd(
    obj: Ctx,
    host: str,
    base: Column,
    with_: Sequence[Column],
    config: str | None,
    dop: int | None,
    suite: str | None,
    fmt: str | None,
    table: str | None,
) -> None:
    """rQPS per workload with its confidence interval, group summary and per-op metrics.

    \b
    Examples:
      benchdeck compare --host dell32 --base my8028_rel_o2nofp --with my8040_rel_o2nofp --dop 24
      benchdeck compare --host hetz --base pg180_o2nofp@1 --with pg180_o2nofp@48
      benchdeck compare --host dell32 --base pg174_o2nofp:x10a_c32r128 \\
          --with pg181_o2nofp:x10b_c32r128 --suite classic --format md > report.md
    """
    fmt = fmt or ("rich" if sys.stdout.isatty() else "text")
    if table is not None and fmt != "csv" and not (table == "counters" and fmt == "json"):
        raise click.UsageError("--table goes with --format csv (--table counters also with --format json)")
    from benchdeck.store.analysis.compare import compare  # numpy and scipy: only for this command

    overrides = load_group_overrides(obj.groups) if obj.groups else None
    steps = suite_steps(suite) if suite else None
    cat = default_catalogue(overrides, suite if suite in SUITES else None)
    with obj.open_store_for_reading() as store:
        # one thread: on a host's few thousand runs DuckDB's second thread costs more CPU than
        # it saves time (16-column archive compare: 172 -> 159 ms CPU, 15 interleaved, load 5)
        cur = store.cursor()
        cur.execute("SET threads TO 1")
        result = compare(
            cur,
            host=host,
            base=base,
            with_builds=list(with_),
            group_of=cat.group_of,
            sort_key=cat.sort_key,
            config=config,
            dop=dop,
            only=set(steps) if steps is not None else None,
        )
    if fmt == "rich":
        from benchdeck.tui.reports.render_rich import print_comparison

        print_comparison(result)
    else:
        click.echo(render(result, fmt, table or "rqps"), nl=False)
