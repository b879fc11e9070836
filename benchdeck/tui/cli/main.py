"""The ``benchdeck`` command line: a thin client over engine + store.

Errors are one line on stderr: exit 2 for usage errors, 1 for anything else.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from benchdeck.tui.cli.context import Ctx, _QuickExit, fail, loading_quietly
from benchdeck.tui.services.errors import is_compare_error, is_store_error

ROOT_OPTIONS = ("--db", "--lake-data", "--groups", "--inventory")


# Where each command lives: a command imports its own module only (``compare`` need not load
# asyncssh, the runner or the change-point code). A name not here loads every module through
# _register(), and so does listing the commands (--help).
_LAZY = {
    "hosts": ("benchdeck.tui.cli.hosts", "hosts_group"),
    "import": ("benchdeck.tui.cli.imports", "import_group"),
    "run": ("benchdeck.tui.cli.run", "run_cmd"),
    "queue": ("benchdeck.tui.cli.queue", "queue_cmd"),
    "resume": ("benchdeck.tui.cli.resume", "resume_cmd"),
    "cancel": ("benchdeck.tui.cli.resume", "cancel_cmd"),
    "compare": ("benchdeck.tui.cli.compare", "compare_cmd"),
    "changes": ("benchdeck.tui.cli.changes", "changes_cmd"),
    "scaling": ("benchdeck.tui.cli.scaling", "scaling_cmd"),
    "diff": ("benchdeck.tui.cli.diff", "diff_cmd"),
    "profile": ("benchdeck.tui.cli.profile", "profile_cmd"),
    "export": ("benchdeck.tui.cli.export", "export_cmd"),
    "server": ("benchdeck.tui.cli.server", "server_group"),
    "cluster": ("benchdeck.tui.cli.cluster", "cluster_group"),
    "build": ("benchdeck.tui.cli.build", "build_cmd"),
    "pgo": ("benchdeck.tui.cli.build", "pgo_cmd"),
    "compiled": ("benchdeck.tui.cli.build", "builds_cmd"),
    "bisect": ("benchdeck.tui.cli.bisect", "bisect_cmd"),
    "runs": ("benchdeck.tui.cli.listing", "runs_cmd"),
    "builds": ("benchdeck.tui.cli.listing", "builds_cmd"),
    "lake": ("benchdeck.tui.cli.lake", "lake_group"),
}


# Commands whose numpy does no linear algebra (compare's bootstrap; changes no longer loads numpy):
# OpenBLAS starts a thread per core as numpy loads, CPU such a command does not need. A value
# the user set is kept.
_ONE_BLAS_THREAD = frozenset({"compare"})


class _LazyGroup(click.Group):
    """Imports a command's module when the command is asked for, not at start-up."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _ONE_BLAS_THREAD:
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads
        if cmd_name not in self.commands:
            if cmd_name in _LAZY:
                module, attr = _LAZY[cmd_name]
                with loading_quietly(cmd_name):
                    self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
            else:
                _register()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        _register()
        return super().list_commands(ctx)


@click.group(
    cls=_LazyGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="BENCHDECK_DB",
    help="DuckDB store file (default: benchdeck.duckdb in the user data dir; env BENCHDECK_DB), "
    "or a team store: 'ducklake:postgres:dbname=NAME host=... user=...'.",
)
@click.option(
    "--lake-data",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="BENCHDECK_LAKE_DATA",
    help="Where a new team store (--db ducklake:...) keeps its data files; env BENCHDECK_LAKE_DATA.",
)
@click.option(
    "--groups",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="TOML file with a [groups] table (workload = group) overriding the default groups.",
)
@click.option(
    "--inventory",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Inventory TOML file (hosts, builds, suites); env BENCHDECK_INVENTORY.",
)
@click.version_option(package_name="benchdeck")
@click.pass_context
def cli(
    ctx: click.Context, db: Path | None, lake_data: Path | None, groups: Path | None, inventory: Path | None
) -> None:
    """Run, watch and compare database benchmarks. Without a command, opens the app.

    \b
    Examples:
      benchdeck                                  # the app (the built-in SQLite workload: s on Launch)
      benchdeck --db results.duckdb import mytools ~/results/oct24.dell32 --host dell32
      benchdeck runs --host dell32 --status failed
      benchdeck compare --host dell32 --base my8028_rel_o2nofp --with my8040_rel_o2nofp --dop 24

    Options of benchdeck itself (--db, --lake-data, --groups, --inventory) go before the command.
    """
    if inventory is not None:
        os.environ["BENCHDECK_INVENTORY"] = str(inventory)  # (engine.hosts.inventory.INVENTORY_ENV)
    if lake_data is not None:  # read where the store is opened (store.lake.DATA_ENV)
        os.environ["BENCHDECK_LAKE_DATA"] = str(lake_data)
    ctx.obj = Ctx(db, groups)
    if ctx.invoked_subcommand is None:
        from benchdeck.tui.startup.open_app import open_app

        open_app(db)


def _register() -> None:
    """Every command of :data:`_LAZY` (``--help``, or a name not in the table)."""
    for name, (module, attr) in _LAZY.items():
        if name not in cli.commands:
            cli.add_command(getattr(importlib.import_module(module), attr), name)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and an exit code."""
    if argv is None:  # the process's own entry point (not a test calling it in-process)
        _QuickExit.own_process = True
        atexit.register(_QuickExit.at_exit)
    try:
        cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="benchdeck",
            standalone_mode=False,
        )
        _QuickExit.after_command()
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
    except Exception as exc:
        if is_store_error(exc):
            fail(_one_line(str(exc)), 1)
        if isinstance(exc, ValueError | OSError):
            if os.environ.get("BENCHDECK_DEBUG"):
                raise
            fail(_one_line(str(exc)), 1)
        if not is_compare_error(exc):
            raise
        fail(_one_line(str(exc)), getattr(exc, "exit_code", 1))  # 2: an unknown host or build


def _command_words(argv: Sequence[str] | None) -> list[str]:
    """The command and subcommand names the user typed (``import mytools``)."""
    args = list(argv) if argv is not None else sys.argv[1:]
    words: list[str] = []
    group: click.Command | None = cli
    for a in args:
        found = group.get_command(click.Context(group), a) if isinstance(group, click.Group) else None
        if found is not None:
            words.append(a)
            group = found
        elif not a.startswith("-") and words:
            break
    return words


def _one_line(msg: Any) -> str:
    return " ".join(str(msg).split())


if __name__ == "__main__":
    main()
