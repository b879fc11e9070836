"""``benchdeck runs`` and ``benchdeck builds``: what the store holds, in compare's formats.

Registered on the root group by ``tui.cli``; ``tui.cli`` is imported lazily here (either module
may be imported first).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

import click

from benchdeck.engine.config_names import config_label
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_lists import (
    BuildRow,
    HistoryRow,
    RunFilter,
    build_rows,
    count_runs,
    run_history,
)

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx

OUTPUT_FORMATS = ("rich", "text", "md", "csv", "json")  # compare's (store.report: numpy, not needed)
STATUSES = ("queued", "running", "finished", "failed", "cancelled")

Cell = str | int | float | None


def _format_option(f: Any) -> Any:
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(OUTPUT_FORMATS),
        help="Output format (default: rich on a terminal, text otherwise).",
    )(f)


def render_table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], fmt: str, title: str = "") -> str:
    """``rows`` as text (tab-separated, a header line), md, csv or json (a list of objects)."""
    shown = [["" if c is None else (f"{c:.1f}" if isinstance(c, float) else str(c)) for c in r] for r in rows]
    if fmt == "json":
        return json.dumps([dict(zip(headers, r, strict=True)) for r in rows], indent=2) + "\n"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(headers)
        writer.writerows(shown)
        return out.getvalue()
    if fmt == "md":
        esc = [[c.replace("|", "\\|") for c in r] for r in shown]
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(r) + " |" for r in esc]
        return (f"{title}\n\n" if title else "") + "\n".join(lines) + "\n"
    lines = ["\t".join(headers), *("\t".join(r) for r in shown)]
    return (f"{title}\n\n" if title else "") + "\n".join(lines) + "\n"


def print_rich(
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    title: str | None,
    right: set[str],
    spare: Sequence[str] = (),
) -> None:
    """A table fitted to the terminal: no cell wrapped or cut; the ``spare`` columns dropped
    (first to last, with a note) while it is too wide."""
    from rich.console import Console

    from benchdeck.tui.reports.rich_fit import dropped_note, fitted_table, print_unshrunk

    console = Console()
    cells = [
        ["" if c is None else (f"{c:,.1f}" if isinstance(c, float) else str(c)) for c in r] for r in rows
    ]
    table, dropped = fitted_table(console, headers, cells, right, spare, title)
    print_unshrunk(console, table)
    if dropped:
        console.print(dropped_note(dropped))


def _emit(
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    fmt: str | None,
    title: str | None,
    right: set[str],
    spare: Sequence[str] = (),
    rich_title: bool = True,
) -> None:
    fmt = fmt or ("rich" if sys.stdout.isatty() else "text")
    if fmt == "rich":
        print_rich(headers, rows, title if rich_title else None, right, spare)
    else:
        click.echo(render_table(headers, rows, fmt, title if fmt == "md" and title else ""), nl=False)


RUN_HEADERS = ("run", "host", "build", "config", "workload", "dop", "status", "qps", "date", "tags", "reason")
RUN_SPARE = ("reason", "tags", "config", "host", "date")
CLUSTER_HEADERS = ("cluster", "lag max s", "flag")
"""Columns ``runs`` adds when a listed run ran on a cluster (issue 41)."""
"""Dropped in this order while ``runs`` is too wide for the terminal (run, build, workload, dop,
status and qps always stay)."""


def run_cells(r: HistoryRow, label: bool = True) -> tuple[Cell, ...]:
    """A run's cells; ``label``: its config as people read it (``default``), else as stored."""
    return (
        r.run_id,
        r.host,
        r.build,
        config_label(r.config) if label else r.config,
        r.workload,
        r.threads,
        r.status,
        r.qps,
        r.when,
        ", ".join(r.tags),
        r.reason,
    )


@click.command("runs")
@click.option("--host", help="Only runs on this host.")
@click.option("--build", help="Only runs of this build.")
@click.option("--config", help="Only runs with this DBMS config, e.g. z11a_c32r128.")
@click.option(
    "--workload", help="Only this workload, or the workloads a glob matches (read-only_range=*, *range=100)."
)
@click.option("--tag", help="Only runs with this tag.")
@click.option("--status", type=click.Choice(STATUSES), help="Only runs with this status.")
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), help="Only runs made on or after YYYY-MM-DD.")
@click.option("--limit", type=click.IntRange(min=1), help="At most this many, newest first (default: all).")
@_format_option
@click.pass_obj
def runs_cmd(
    obj: Ctx,
    host: str | None,
    build: str | None,
    config: str | None,
    workload: str | None,
    tag: str | None,
    status: str | None,
    since: datetime | None,
    limit: int | None,
    fmt: str | None,
) -> None:
    """List the runs in the store, newest first; the count goes to stderr.

    \b
    Examples:
      benchdeck runs --host dell32 --build my8040_rel_o2nofp
      benchdeck runs --status failed --format text
      benchdeck runs --workload 'update-*' --since 2025-01-01 --format csv > runs.csv
    """
    day: date | None = since.date() if since else None
    f = RunFilter(host, build, None, day, None, tag, limit or 2**62, config, status, workload)
    with Store.open_for_reading(obj.db) as store:
        cur = store.cursor()
        _check_names(cur, {"host": host, "build": build, "config": config, "workload": workload})
        rows = run_history(cur, f)
        total = count_runs(cur, f)
    shown = f"{len(rows):,} of {total:,} runs" if len(rows) < total else f"{total:,} runs"
    cells: list[tuple[Cell, ...]] = [run_cells(r, fmt not in ("csv", "json")) for r in rows]
    headers: tuple[str, ...] = RUN_HEADERS
    spare: tuple[str, ...] = RUN_SPARE
    if any(r.cluster is not None for r in rows):  # runs on a cluster: which, and their flag
        headers, spare = (*RUN_HEADERS, *CLUSTER_HEADERS), (*RUN_SPARE[:1], "lag max s", *RUN_SPARE[1:])
        cells = [(*c, r.cluster or "", r.lag_max_s, r.flag) for c, r in zip(cells, rows, strict=True)]
    # the count once: on stderr (a Rich title too showed it twice on a terminal)
    _emit(headers, cells, fmt, shown, {"run", "dop", "qps", "lag max s"}, spare, False)
    click.echo(shown, err=True)


_KNOWN_SQL = {
    "host": "SELECT name FROM hosts",
    "build": "SELECT name FROM builds",
    "config": "SELECT DISTINCT config FROM runs",
    "workload": "SELECT name FROM workloads",
}


def _check_names(cur: Any, given: dict[str, str | None]) -> None:
    """A usage error (exit 2) for a host, build, config or workload the store has no run of,
    with the closest known name: a typo listed "0 runs" and exited 0. A workload glob
    (``*``, ``?``, ``[``) is not checked."""
    from benchdeck.engine.planning.unknown import unknown_message

    for what, value in given.items():
        if value is None or (what == "workload" and any(c in value for c in "*?[")):
            continue
        known = [config_label(str(r[0])) for r in cur.execute(_KNOWN_SQL[what]).fetchall()]
        if what == "workload" and value.lower() in {k.lower() for k in known}:
            continue  # (workloads in any case, as the glob)
        if config_label(value) not in known:
            raise click.UsageError(unknown_message(what, value, known, " in the store"))


BUILD_HEADERS = ("build", "dbms", "version", "fork", "variant", "hosts", "runs", "finished", "last run")


def build_cells(b: BuildRow) -> tuple[Cell, ...]:
    last = b.last_run.strftime("%Y-%m-%d %H:%M") if b.last_run else None
    return (b.name, b.dbms, b.version, b.fork, b.variant, ", ".join(b.hosts), b.runs, b.finished, last)


@click.command("builds")
@click.option("--host", help="Only builds with runs on this host.")
@_format_option
@click.pass_obj
def builds_cmd(obj: Ctx, host: str | None, fmt: str | None) -> None:
    """List the builds in the store (oldest version first) with their hosts and run counts.

    \b
    Examples:
      benchdeck builds
      benchdeck builds --host dell32 --format md
    """
    with Store.open_for_reading(obj.db) as store:
        rows = build_rows(store.cursor(), host)
    spare = ("last run", "hosts", "fork", "variant", "dbms")
    _emit(
        BUILD_HEADERS, [build_cells(b) for b in rows], fmt, f"{len(rows)} builds", {"runs", "finished"}, spare
    )
