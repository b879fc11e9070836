"""The ``benchdeck`` command line: a thin client over engine + store.

Errors are one line on stderr: exit 2 for usage errors, 1 for anything else.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import click

from engine.builds import BuildNameError, parse_build_name
from engine.catalogue import SUITES, default_catalogue, load_group_overrides
from store.compare import CompareError, compare
from store.db import Store, StoreError
from store.report import FORMATS, render
from tui.suites import SUITE_HELP, suite_steps

OUTPUT_FORMATS = ("rich", *FORMATS)
ROOT_OPTIONS = ("--db", "--groups", "--inventory")


class Ctx:
    """What every command needs: where the store is, which group table to use."""

    def __init__(self, db: Path | None, groups: Path | None):
        self.db = db
        self.groups = groups

    def open_store(self) -> Store:
        return Store.open(self.db)

    def open_store_for_reading(self) -> Store:
        return Store.open_for_reading(self.db)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one line naming what is wrong and exit."""
    click.echo(f"benchdeck: {message}", err=True)
    sys.exit(code)


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="BENCHDECK_DB",
    help="DuckDB store file (default: benchdeck.duckdb in the user data dir; env BENCHDECK_DB).",
)
@click.option(
    "--groups",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="TOML file with a [groups] table (workload = group) overriding the default groups.",
)
@click.option(
    "--inventory",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Inventory TOML file (hosts, builds, suites); env BENCHDECK_CONFIG.",
)
@click.version_option(package_name="benchdeck")
@click.pass_context
def cli(ctx: click.Context, db: Path | None, groups: Path | None, inventory: Path | None) -> None:
    """Run, watch and compare database benchmarks. Without a command, opens the app.

    \b
    Examples:
      benchdeck                                  # the app (the built-in SQLite workload: s on Launch)
      benchdeck --db results.duckdb import mytools ~/results/oct24.dell32 --host dell32
      benchdeck runs --host dell32 --status failed
      benchdeck compare --host dell32 --base my8028_rel_o2nofp --with my8040_rel_o2nofp --dop 24

    Options of benchdeck itself (--db, --groups, --inventory) go before the command.
    """
    if inventory is not None:
        os.environ["BENCHDECK_CONFIG"] = str(inventory)
    ctx.obj = Ctx(db, groups)
    if ctx.invoked_subcommand is None:
        from tui.app import run_app  # imported late: Textual is not needed by other commands

        run_app(db=db)


@cli.group("import")
def import_group() -> None:
    """Import raw results (sysbench output, vmstat, iostat, mytools result trees).

    \b
    Examples:
      benchdeck import mytools ~/results/oct24.dell32 --host dell32 --device nvme0n1
      benchdeck --db other.duckdb import sysbench sb.o.point-query.range100.pk1.dop24 \\
          --host dell32 --build my8028_rel_o2nofp --workload point-query_range=100
    """


@import_group.command("sysbench")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--host", required=True, help="Host the run was made on.")
@click.option("--build", required=True, help="Build name, e.g. my8028_rel_o2nofp.")
@click.option("--config", "config", default="", help="DBMS config name, e.g. z11a_c32r128.")
@click.option("--workload", required=True, help="Workload name, e.g. point-query_range=100.")
@click.option("--vmstat", type=click.Path(dir_okay=False, path_type=Path), help="vmstat output of the run.")
@click.option(
    "--iostat", type=click.Path(dir_okay=False, path_type=Path), help="iostat -x output of the run."
)
@click.option("--device", help="Storage device of the benchmark (exact iostat device name).")
@click.option("--threads", type=int, help="Concurrency, if the file does not say.")
@click.option("--dbms", help="DBMS, if the build name does not say (mysql, mariadb, postgres ...).")
@click.option("--version", "version", help="DBMS version, if the build name does not say.")
@click.option("--variant", help="Build variant, if the build name does not say.")
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
    threads: int | None,
    dbms: str | None,
    version: str | None,
    variant: str | None,
) -> None:
    """Import one sysbench run; prints the new run id."""
    from store.importers import RunFiles, import_run_files

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
    )
    with obj.open_store() as store:
        run = import_run_files(store, files)
    for w in run.warnings:
        click.echo(f"benchdeck: warning: {w}", err=True)
    click.echo(run.run_id)


@import_group.command("mytools")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--host", required=True, help="Host the results come from.")
@click.option("--device", help="Storage device of the benchmark (exact iostat device name).")
@click.pass_obj
def import_mytools(obj: Ctx, directory: Path, host: str, device: str | None) -> None:
    """Import a result tree of x.<build>.<config>.pk1/ folders; prints a summary line."""
    from store.importers import import_mytools_tree

    with obj.open_store() as store:
        res = import_mytools_tree(store, directory, host, device)
    for w in res.warnings:
        click.echo(f"benchdeck: warning: {w}", err=True)
    for f in res.failed:
        click.echo(f"benchdeck: skipped: {f}", err=True)
    click.echo(
        f"imported {len(res.run_ids)} runs ({res.already} already in the store, "
        f"{len(res.failed)} files not imported)"
    )
    if res.failed and not res.run_ids:
        sys.exit(1)


@cli.command("compare")
@click.option("--host", required=True, help="Host whose runs are compared.")
@click.option("--base", required=True, help="Base build: every column is divided by it.")
@click.option("--with", "with_", multiple=True, required=True, help="Build to compare (repeat).")
@click.option("--config", "config", help="Only runs with this DBMS config.")
@click.option("--dop", type=int, help="Only runs at this concurrency.")
@click.option("--suite", help=f"Only the steps of this suite, in its order: {SUITE_HELP}.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(OUTPUT_FORMATS),
    help="Output format (default: rich on a terminal, text otherwise).",
)
@click.pass_obj
def compare_cmd(
    obj: Ctx,
    host: str,
    base: str,
    with_: Sequence[str],
    config: str | None,
    dop: int | None,
    suite: str | None,
    fmt: str | None,
) -> None:
    """rQPS per workload, group summary and per-op hardware metrics.

    \b
    Examples:
      benchdeck compare --host dell32 --base my8028_rel_o2nofp --with my8040_rel_o2nofp --dop 24
      benchdeck compare --host dell32 --base my8028_rel_o2nofp --with my8040_rel_o2nofp \\
          --with my8040_rel_lto --suite classic --format md > report.md
    """
    overrides = load_group_overrides(obj.groups) if obj.groups else None
    steps = suite_steps(suite) if suite else None
    cat = default_catalogue(overrides, suite if suite in SUITES else None)
    with obj.open_store_for_reading() as store:
        result = compare(
            store.cursor(),
            host=host,
            base=base,
            with_builds=list(with_),
            group_of=cat.group_of,
            sort_key=cat.sort_key,
            config=config,
            dop=dop,
            only=set(steps) if steps is not None else None,
        )
    fmt = fmt or ("rich" if sys.stdout.isatty() else "text")
    if fmt == "rich":
        from tui.render_rich import print_comparison

        print_comparison(result)
    else:
        click.echo(render(result, fmt), nl=False)


def _register() -> None:
    from tui.cli_hosts import hosts_group
    from tui.cli_run import cancel_cmd, queue_cmd, resume_cmd, run_cmd
    from tui.cli_store import builds_cmd, runs_cmd

    for command in (hosts_group, run_cmd, queue_cmd, resume_cmd, cancel_cmd, runs_cmd, builds_cmd):
        cli.add_command(command)


_register()


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and an exit code."""
    try:
        cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="benchdeck",
            standalone_mode=False,
        )
    except click.NoSuchOption as exc:
        hint = ""
        if exc.option_name in ROOT_OPTIONS:
            hint = f" ({exc.option_name} is an option of benchdeck itself: put it first, e.g. "
            hint += f"benchdeck {exc.option_name} VALUE {' '.join(_command_words(argv))} ...)"
        fail(_one_line(exc.format_message()) + hint, 2)
    except click.UsageError as exc:
        fail(_one_line(exc.format_message()), 2)
    except click.ClickException as exc:
        fail(_one_line(exc.format_message()), exc.exit_code or 1)
    except click.Abort:
        fail("aborted", 1)
    except (StoreError, CompareError) as exc:
        fail(_one_line(str(exc)), 1)
    except (ValueError, OSError) as exc:
        if os.environ.get("BENCHDECK_DEBUG"):
            raise
        fail(_one_line(str(exc)), 1)


def _command_words(argv: Sequence[str] | None) -> list[str]:
    """The command and subcommand names the user typed (``import mytools``)."""
    args = list(argv) if argv is not None else sys.argv[1:]
    words: list[str] = []
    group: click.Command | None = cli
    for a in args:
        if isinstance(group, click.Group) and a in group.commands:
            words.append(a)
            group = group.commands[a]
        elif not a.startswith("-") and words:
            break
    return words


def _one_line(msg: Any) -> str:
    return " ".join(str(msg).split())


if __name__ == "__main__":
    main()
