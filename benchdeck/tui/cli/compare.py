"""``benchdeck compare``: rQPS of (build, config) columns against a base, in five formats."""

from __future__ import annotations

import fnmatch
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
    import duckdb

    from benchdeck.store.analysis.compare import Comparison
    from benchdeck.tui.cli.context import Ctx

OUTPUT_FORMATS = ("rich", *FORMATS)


@click.command("compare")
@click.option("--host", required=True, help="Host whose runs are compared.")
@click.option(
    "--base",
    required=True,
    type=ColumnParam(),
    help="Base column BUILD[:CONFIG][@CLUSTER][@DOP]: every column is divided by it.",
)
@click.option(
    "--with",
    "with_",
    multiple=True,
    required=True,
    type=ColumnParam(),
    help="Column to compare, BUILD[:CONFIG][@CLUSTER][@DOP] (repeat; one build may come under several "
    "configs, at several dops, alone and on a cluster).",
)
@click.option("--config", "config", help="Config of a build given without one (default: its only config).")
@click.option("--dop", type=int, help="Only runs at this concurrency.")
@click.option("--suite", help=f"Only the steps of this suite, in its order: {SUITE_HELP}.")
@click.option(
    "--workload",
    "workloads",
    multiple=True,
    help="Only this workload (repeat), or the workloads a glob matches: 'update-*', '*range=100'.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(OUTPUT_FORMATS),
    help="Output format (default: rich on a terminal, text otherwise).",
)
@click.option(
    "--table",
    type=click.Choice(CSV_TABLES),
    help="With --format csv: which table (default rqps: one row per workload, dop and column; nodes: "
    "a cluster column's nodes); counters in any format: the perf stat counters per operation only.",
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
    workloads: Sequence[str],
    fmt: str | None,
    table: str | None,
) -> None:
    """rQPS per workload with its confidence interval, group summary and per-op metrics.

    \b
    Examples:
      benchdeck compare --host dell32 --base my8028_rel_o2nofp --with my8040_rel_o2nofp --dop 24
      benchdeck compare --host hetz --base pg180_o2nofp@1 --with pg180_o2nofp@48
      benchdeck compare --host local --base base --with pgo_use --with base@loop3 --with pgo_use@loop3
      benchdeck compare --host dell32 --base pg174_o2nofp:x10a_c32r128 \\
          --with pg181_o2nofp:x10b_c32r128 --suite classic --format md > report.md
    """
    fmt = fmt or ("rich" if sys.stdout.isatty() else "text")
    if table is not None and fmt != "csv" and table != "counters":
        raise click.UsageError(f"--table {table} goes with --format csv (--table counters with any format)")
    from benchdeck.store.analysis.compare import compare  # numpy and scipy: only for this command

    overrides = load_group_overrides(obj.groups) if obj.groups else None
    steps = suite_steps(suite) if suite else None
    cat = default_catalogue(overrides, suite if suite in SUITES else None)
    with obj.open_store_for_reading() as store:
        # one thread: on a host's few thousand runs DuckDB's second thread costs more CPU than
        # it saves time (measured on the archive store: docs/performance.md)
        cur = store.cursor()
        cur.execute("SET threads TO 1")
        only = set(steps) if steps is not None else None
        if workloads:
            picked = matching_workloads(cur, workloads)
            only = picked if only is None else only & picked
        result = compare(
            cur,
            host=host,
            base=base,
            with_builds=list(with_),
            group_of=cat.group_of,
            sort_key=cat.sort_key,
            config=config,
            dop=dop,
            only=only,
        )
    if table == "counters" and fmt in ("rich", "text", "md"):
        _print_counters(result, fmt)
    elif fmt == "rich":
        from benchdeck.tui.reports.render_rich import print_comparison

        print_comparison(result)
    else:
        click.echo(render(result, fmt, table or "rqps"), nl=False)


def matching_workloads(cur: duckdb.DuckDBPyConnection, given: Sequence[str]) -> set[str]:
    """The store's workloads each name or glob of ``given`` picks; a usage error for a name (or
    a glob) that picks none, with the closest name."""
    from benchdeck.engine.planning.unknown import unknown_message

    names = [str(r[0]) for r in cur.execute("SELECT name FROM workloads").fetchall()]
    picked: set[str] = set()
    for g in given:
        found = fnmatch.filter(names, g) if any(c in g for c in "*?[") else [g] if g in names else []
        if not found:
            raise click.UsageError(unknown_message("workload", g, names, " in the store"))
        picked.update(found)
    return picked


def _print_counters(result: Comparison, fmt: str) -> None:
    """``--table counters`` in rich, text or md: the Counters section alone; a line on stderr
    and exit 1 when no run of the columns has counters."""
    from benchdeck.store.reports.compare_report import md_escape
    from benchdeck.store.reports.counters_report import NO_COUNTERS, md_lines, text_lines

    if not result.counters:
        raise click.ClickException(NO_COUNTERS)
    if fmt == "rich":
        from rich.console import Console

        from benchdeck.tui.reports.render_rich import counter_tables

        Console().print(*counter_tables(result))
    elif fmt == "md":
        click.echo("\n".join(md_lines(result, md_escape)).lstrip("\n"))
    else:
        click.echo("\n".join(text_lines(result)).lstrip("\n"))
