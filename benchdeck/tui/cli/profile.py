"""``benchdeck profile``: where the CPU went per query, by function, in one run or column or
between two; ``--format svg`` a flame graph (differential with two sides), ``folded`` the stacks.
Also ``benchdeck import profile RUN FILE`` (folded stacks, perf script output or a flamegraph.pl
SVG, each also gzip'd, attached to a run)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchdeck.store.analysis.columns import Column
from benchdeck.tui.cli.column_param import ColumnParam

if TYPE_CHECKING:
    import duckdb

    from benchdeck.tui.cli.context import Ctx
    from benchdeck.tui.services.profiles import ProfileRequest

FORMATS = ("text", "md", "csv", "json", "svg", "folded")


@click.command("profile")
@click.argument("runs", nargs=-1, type=int)
@click.option("--host", help="Host whose runs are profiled (with --base and --workload).")
@click.option(
    "--base",
    type=ColumnParam(),
    help="Base column BUILD[:CONFIG][@DOP], as compare's: its finished runs of the workload with a "
    "profile, merged.",
)
@click.option(
    "--with", "with_", type=ColumnParam(), help="Column BUILD[:CONFIG][@DOP] compared with the base."
)
@click.option("--workload", help="Workload, e.g. point-query_range=100.")
@click.option(
    "--config", help="Config of a build given without one (default: its only config; 'default': the unnamed)."
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option(
    "--by",
    type=click.Choice(["self", "total"]),
    default="self",
    show_default=True,
    help="Sort by self (the function's own code) or total (with what it calls) CPU per query.",
)
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True, help="Functions shown.")
@click.option(
    "--source",
    type=click.Choice(["auto", "captured", "imported"]),
    default="auto",
    show_default=True,
    help="A run's captured profile or the one imported beside it (auto: captured when there is one).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="Write to this file.")
@click.pass_obj
def profile_cmd(
    obj: Ctx,
    runs: tuple[int, ...],
    host: str | None,
    base: Column | None,
    with_: Column | None,
    workload: str | None,
    config: str | None,
    fmt: str,
    by: str,
    limit: int,
    source: str,
    output: Path | None,
) -> None:
    """Top functions by CPU per query (us/q), and how it changed from base to column.

    \b
    Examples:
      benchdeck profile --host dell32 --base my8028_rel_o2nofp --with my8040_rel_o2nofp \\
          --workload update-index_range=100
      benchdeck profile 812 815 --format svg -o diff.svg
      benchdeck profile 812 --format folded | flamegraph.pl > run812.svg
    """
    from benchdeck.engine.profiling.cpu import ProfileError
    from benchdeck.tui.services.profiles import (
        folded_text,
        load_profiles,
        render_table,
        svg_text,
    )

    if len(runs) > 2:
        raise click.UsageError("give one or two run ids")
    if runs and (host or base or with_ or workload):
        raise click.UsageError("give run ids or --host/--base/--workload, not both")
    if not runs and not (host and base and workload):
        raise click.UsageError("give one or two run ids, or --host, --base and --workload (and --with)")
    with obj.open_store_for_reading() as store:
        try:
            req = replace(_request(store.cursor(), runs, host, base, with_, workload, config), source=source)
            profiles = load_profiles(store.cursor(), req)
            if fmt == "svg":
                text = svg_text(profiles)
            elif fmt == "folded":
                text = folded_text(profiles)
            else:
                text = render_table(profiles, fmt, limit, by)
        except ProfileError as exc:
            raise click.ClickException(str(exc)) from None
    if output is None:
        click.echo(text, nl=False)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise click.ClickException(f"{output}: {exc.strerror}") from None
        click.echo(f"wrote {output}", err=True)


def _request(
    cur: duckdb.DuckDBPyConnection,
    runs: tuple[int, ...],
    host: str | None,
    base: Column | None,
    with_: Column | None,
    workload: str | None,
    config: str | None,
) -> ProfileRequest:
    """What to load: the run ids, or the sides resolved as compare resolves its columns (one
    config each, refused when a build has several and none is named)."""
    from benchdeck.store.analysis.profile_columns import ProfileColumnError, resolve_side
    from benchdeck.tui.services.profiles import ProfileRequest

    if runs or host is None or base is None or workload is None:
        return ProfileRequest(runs)
    try:
        b = resolve_side(cur, host, base, workload, config)
        c = resolve_side(cur, host, with_, workload, config) if with_ is not None else None
    except ProfileColumnError as exc:
        raise click.UsageError(str(exc)) from None
    dops = {d for d in (b.dop, c.dop if c else None) if d is not None}
    if len(dops) > 1:
        raise click.UsageError("profile compares the two sides at one dop: give the same @DOP to both")
    column = c.build if c else None
    return ProfileRequest(
        (),
        host,
        b.build,
        column,
        workload,
        c.config if c else b.config,
        b.config,
        next(iter(dops), None),
        cluster=c.cluster if c else b.cluster,
        base_cluster=b.cluster,
    )


@click.command("profile")
@click.argument("run_id", type=int)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--kind",
    type=click.Choice(["auto", "folded", "perf-script", "svg"]),
    default="auto",
    show_default=True,
    help="What the file holds (auto: by its bytes; gzip'd files are read through).",
)
@click.option(
    "--event",
    default="cpu-clock",
    show_default=True,
    help="The sampling event (cpu-clock, cycles) of folded stacks and SVGs (perf script says its own).",
)
@click.option(
    "--frequency",
    type=float,
    help="Sampling frequency in Hz (perf record -F; a cpu-clock perf script says it).",
)
@click.option(
    "--seconds",
    type=float,
    help="Seconds perf recorded (without it: shares of the samples only, no figure per query).",
)
@click.option("--beside", is_flag=True, help="Keep it beside the run's captured profile (both stay).")
@click.pass_obj
def import_profile_cmd(
    obj: Ctx,
    run_id: int,
    file: Path,
    kind: str,
    event: str,
    frequency: float | None,
    seconds: float | None,
    beside: bool,
) -> None:
    """Attach a profile to a run: folded stacks, perf script output or a flamegraph.pl SVG
    (each also gzip'd). Anything else is refused, saying what it looks like."""
    from benchdeck.engine.profiling.folded import StackFormatError
    from benchdeck.store.importers.profiles import ProfileImportError, import_profile_file
    from benchdeck.tui.services.profiles import RATIOS_NOTE

    with obj.open_store() as store:
        try:
            got = import_profile_file(store, run_id, file, kind, event, frequency, seconds, beside)
        except (StackFormatError, ProfileImportError) as exc:
            raise click.ClickException(f"{file}: {exc}") from None
    hz = f" at {got.frequency_hz:g} Hz" if got.frequency_hz else ""
    click.echo(f"run {run_id}: {got.stacks} stacks imported ({got.kind}, {got.event}{hz})")
    if got.beside:
        click.echo(
            f"run {run_id}: kept beside its captured profile ({got.beside} windows): "
            f"benchdeck profile {run_id} --source imported shows this one"
        )
    if not got.seconds:
        click.echo(f"run {run_id}: {RATIOS_NOTE}")


def import_tree_flame_graphs(store: object, directory: Path, host: str) -> str:
    """``import mytools``'s hook: attach the tree's flame graphs to their runs; a summary line
    (empty when the tree has none). Files that fail are named on stderr."""
    from benchdeck.store.importers.profiles import import_tree_profiles
    from benchdeck.store.storage.db import Store

    assert isinstance(store, Store)
    res = import_tree_profiles(store, directory, host)
    for f in res.failed:
        click.echo(f"benchdeck: profile skipped: {f}", err=True)
    if not (res.imported or res.already or res.no_run or res.failed):
        return ""
    unknown = f" ({res.unknown_window} of unknown length: ratios only)" if res.unknown_window else ""
    return (
        f"profiles: {res.imported} imported{unknown}, {res.already} already there, "
        f"{len(res.no_run)} without a matching run, {len(res.failed)} failed"
    )
