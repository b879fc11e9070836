"""``benchdeck import``: one sysbench run from files, or a whole mytools result tree.

Registered on the root group by ``tui.cli``. Results go to stdout (the run id; one summary
line); progress goes to stderr: a Rich progress bar on a terminal, plain lines otherwise.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchdeck.tui.cli.profile import import_profile_cmd, import_tree_flame_graphs

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from benchdeck.store.importers import ImportProgress
    from benchdeck.tui.cli.context import Ctx

PLAIN_EVERY_S = 2.0  # a plain progress line at most this often (and at the end)


@click.group("import")
def import_group() -> None:
    """Import raw results (sysbench output, vmstat, iostat, mytools result trees).

    \b
    Examples:
      benchdeck import mytools ~/results/oct24.dell32 --host dell32 --device nvme0n1
      benchdeck --db other.duckdb import sysbench sb.o.point-query.range100.pk1.dop24 \\
          --host dell32 --build my8028_rel_o2nofp --workload point-query_range=100
    """


@import_group.command("sysbench")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--host", required=True, help="Host the run was made on.")
@click.option("--build", required=True, help="Build name, e.g. my8028_rel_o2nofp.")
@click.option("--config", "config", default="", help="DBMS config name, e.g. z11a_c32r128.")
@click.option("--workload", required=True, help="Workload name, e.g. point-query_range=100.")
@click.option(
    "--vmstat", type=click.Path(exists=True, dir_okay=False, path_type=Path), help="vmstat output of the run."
)
@click.option(
    "--iostat",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="iostat -x output of the run.",
)
@click.option("--device", help="Storage device of the benchmark (exact iostat device name).")
@click.option(
    "--met",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The mytools sb.met file of the run: its per-op metrics, used without --vmstat/--iostat.",
)
@click.option(
    "--table-size",
    type=click.IntRange(min=1),
    help="Rows per table, for a scan step (its QPS is rows/s) when the file's command line lacks it.",
)
@click.option(
    "--perf-stat",
    type=click.Path(dir_okay=False, path_type=Path),
    help="perf stat output taken during the run (its human format; several windows): its counters.",
)
@click.option("--threads", type=int, help="Concurrency, if the file does not say.")
@click.option("--dbms", help="DBMS, if the build name does not say (mysql, mariadb, postgres ...).")
@click.option("--version", "version", help="DBMS version, if the build name does not say.")
@click.option("--variant", help="Build variant, if the build name does not say.")
@click.option(
    "--new-workload",
    is_flag=True,
    help="Store --workload as given although benchdeck does not know it (a script of your own).",
)
@click.pass_obj
def import_sysbench(
    obj: Ctx,
    file: Path,
    host: str,
    build: str,
    config: str,
    workload: str,
    vmstat: Path | None,
    iostat: Path | None,
    device: str | None,
    met: Path | None,
    table_size: int | None,
    perf_stat: Path | None,
    threads: int | None,
    dbms: str | None,
    version: str | None,
    variant: str | None,
    new_workload: bool,
) -> None:
    """Import one sysbench run; prints the new run id."""
    from benchdeck.engine.builds import BuildNameError, parse_build_name
    from benchdeck.engine.dispatch.request_check import RequestError, check_import_workload
    from benchdeck.store.importers import RunFiles, import_run_files

    if not new_workload:
        try:  # a typo would be stored as a workload of its own, compared with nothing
            check_import_workload(workload)
        except RequestError as exc:
            raise click.UsageError(f"{exc} (--new-workload stores it as given)") from None
    if iostat and not device:
        raise click.UsageError("--iostat needs --device (the benchmark's storage device)")
    try:
        b = parse_build_name(build, dbms=dbms, version=version, variant=variant)
    except BuildNameError as exc:
        raise click.UsageError(str(exc)) from None
    files = RunFiles(
        host=host,
        build=b,
        workload=workload,
        sysbench=file,
        config=config,
        vmstat=vmstat,
        iostat=iostat,
        device=device,
        threads=threads,
        met=met,
        table_size=table_size,
    )
    with obj.open_store() as store:
        run = import_run_files(store, files, perf_stat=perf_stat)
    if run.already:
        click.echo(f"benchdeck: skipped: {file}: already stored as run {run.run_id} (same output)", err=True)
    for w in run.warnings:
        click.echo(f"benchdeck: warning: {w}", err=True)
    click.echo(run.run_id)


import_group.add_command(import_profile_cmd, "profile")


@import_group.command("mytools")
@click.argument(  # checked before the store is opened: a typo must not create an empty store
    "directory", type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--host", required=True, help="Host the results come from.")
@click.option("--device", help="Storage device of the benchmark (exact iostat device name).")
@click.option(
    "--table-size",
    type=click.IntRange(min=1),
    help="Rows per table for scan steps, when neither a run's command line nor sb.prepare.* says it.",
)
@click.pass_obj
def import_mytools(obj: Ctx, directory: Path, host: str, device: str | None, table_size: int | None) -> None:
    """Import a result tree of x.<build>.<config>.pk1/ folders; prints a summary line."""
    from benchdeck.store.importers import import_mytools_tree

    with obj.open_store() as store, ImportBar(plain=not sys.stderr.isatty()) as bar:
        res = import_mytools_tree(store, directory, host, device, progress=bar, table_size=table_size)
        profiles = import_tree_flame_graphs(store, directory, host)
    for w in res.warnings:
        click.echo(f"benchdeck: warning: {w}", err=True)
    for f in res.failed:
        click.echo(f"benchdeck: skipped: {f}", err=True)
    extra = f", {res.imported_per_op} with per-op metrics from sb.met" if res.imported_per_op else ""
    explain = f", {res.explain_lines} EXPLAIN lines kept in raw files" if res.explain_lines else ""
    perf = (
        f", {res.perf_windows} perf stat windows of {res.perf_runs} runs from sb.perf.hw.*"
        " (their .raw/.sorted copies not read)"
        if res.perf_windows
        else ""
    )
    added = f" ({res.devices_added} given {device}'s r/o, rKB/o, wKB/o)" if res.devices_added else ""
    click.echo(
        f"imported {len(res.run_ids)} runs ({res.already} already in the store{added}, "
        f"{len(res.failed)} files not imported{extra}{explain}{perf})"
    )
    if profiles:
        click.echo(profiles)
    if res.failed and not res.run_ids:
        from benchdeck.tui.cli.context import fail

        fail(f"no new run imported from {directory}: {len(res.failed)} file(s) failed (lines above)")


class ImportBar:
    """Import progress on stderr: a Rich bar on a terminal, else a plain line every few seconds."""

    def __init__(self, plain: bool):
        self.plain = plain
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._last = 0.0
        self._t0 = time.monotonic()

    def __enter__(self) -> ImportBar:
        if not self.plain:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("importing"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)

    def __call__(self, p: ImportProgress) -> None:
        if self._bar is not None:
            if self._task is None:
                self._task = self._bar.add_task("", total=p.total)
            self._bar.update(self._task, total=p.total, completed=p.done, description=p.label)
            return
        now = time.monotonic()
        if now - self._last >= PLAIN_EVERY_S or (p.done == p.total and not p.label):
            self._last = now
            click.echo(
                f"import: {p.done}/{p.total} files, {p.imported} runs stored, "
                f"{p.lines:,} lines, {now - self._t0:.1f} s",
                err=True,
            )
