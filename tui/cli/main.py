"""The ``benchdeck`` command line: a thin client over engine + store.

Errors are one line on stderr: exit 2 for usage errors, 1 for anything else.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:  # (loaded by the commands that use the store: the app's first frame may not)
    from benchdeck.store.db import Store, StoreLocked

ROOT_OPTIONS = ("--db", "--lake-data", "--groups", "--inventory")


class Ctx:
    """What every command needs: where the store is, which group table to use."""

    def __init__(self, db: Path | None, groups: Path | None):
        self.db = db
        self.groups = groups

    def open_store(self) -> Store:
        """The store for a command that writes: held only while it writes (see Store.shared)."""
        return open_shared_store(self.db)

    def open_store_for_reading(self) -> Store:
        """The store for a command that only reads (attached: this process opens no other)."""
        from benchdeck.store.db import Store

        _QuickExit.only_read = True
        return Store.open_for_reading(self.db, attach=True)


class _QuickExit:
    """A process whose command only read skips Python's last garbage collections at exit.

    They walk every object the imports made (click, inspect, DuckDB's module ...): ~14 ms of a
    ~160 ms ``compare``. Frozen objects are freed as the modules are cleared, as before; only
    reference cycles among them are left to the OS, and a reader has nothing in them to finish
    (its store is closed; a writer's process keeps the collections)."""

    only_read = False

    @staticmethod
    def at_exit() -> None:
        if _QuickExit.only_read:
            gc.freeze()


# How long a writing command waits for a store another process holds (it says so once).
LOCK_WAIT_ENV = "BENCHDECK_LOCK_WAIT"
DEFAULT_LOCK_WAIT_S = 600.0


def lock_wait_s() -> float:
    """``$BENCHDECK_LOCK_WAIT`` seconds (0: fail at once), else :data:`DEFAULT_LOCK_WAIT_S`."""
    raw = os.environ.get(LOCK_WAIT_ENV, "").strip()
    if not raw:
        return DEFAULT_LOCK_WAIT_S
    try:
        value = float(raw)
    except ValueError:
        raise click.UsageError(f"${LOCK_WAIT_ENV} must be a number of seconds, not {raw!r}") from None
    if not 0 <= value < 1e7:
        raise click.UsageError(f"${LOCK_WAIT_ENV} must be between 0 and 10,000,000 seconds, not {raw}")
    return value


def open_shared_store(db: Path | None) -> Store:
    """Open the store for writing as a good neighbour: the file is held per batch, and a store
    held by another process is waited for (``$BENCHDECK_LOCK_WAIT``), saying so once."""
    from benchdeck.store.db import Store

    wait = lock_wait_s()

    def waiting(exc: StoreLocked) -> None:
        click.echo(f"benchdeck: {exc}; waiting for it (up to {wait:.0f} s, ${LOCK_WAIT_ENV})", err=True)

    return Store.open(db, shared=True, lock_wait=wait, on_lock_wait=waiting)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one line naming what is wrong and exit."""
    click.echo(f"benchdeck: {message}", err=True)
    sys.exit(code)


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
    "export": ("benchdeck.tui.cli.export", "export_cmd"),
    "server": ("benchdeck.tui.cli.server", "server_group"),
    "build": ("benchdeck.tui.cli.build", "build_cmd"),
    "pgo": ("benchdeck.tui.cli.build", "pgo_cmd"),
    "compiled": ("benchdeck.tui.cli.build", "builds_cmd"),
    "runs": ("benchdeck.tui.cli.listing", "runs_cmd"),
    "builds": ("benchdeck.tui.cli.listing", "builds_cmd"),
    "lake": ("benchdeck.tui.cli.lake", "lake_group"),
}


class _LazyGroup(click.Group):
    """Imports a command's module when the command is asked for, not at start-up."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            if cmd_name in _LAZY:
                module, attr = _LAZY[cmd_name]
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
    help="Inventory TOML file (hosts, builds, suites); env BENCHDECK_CONFIG.",
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
        os.environ["BENCHDECK_CONFIG"] = str(inventory)
    if lake_data is not None:  # read where the store is opened (store.lake.DATA_ENV)
        os.environ["BENCHDECK_LAKE_DATA"] = str(lake_data)
    ctx.obj = Ctx(db, groups)
    if ctx.invoked_subcommand is None:
        from benchdeck.tui.startup.store_handle import Opening

        opening = Opening(db, peek=True)  # the first screen is read while Textual loads
        from benchdeck.tui.app.app import run_app  # imported late: Textual is not needed by other commands

        run_app(db=db, opening=opening)


def _register() -> None:
    from benchdeck.tui.cli.build import build_cmd, pgo_cmd
    from benchdeck.tui.cli.build import builds_cmd as compiled_cmd  # 'compiled': builds is the store's list
    from benchdeck.tui.cli.changes import changes_cmd
    from benchdeck.tui.cli.compare import compare_cmd
    from benchdeck.tui.cli.diff import diff_cmd
    from benchdeck.tui.cli.export import export_cmd
    from benchdeck.tui.cli.hosts import hosts_group
    from benchdeck.tui.cli.imports import import_group
    from benchdeck.tui.cli.lake import lake_group
    from benchdeck.tui.cli.listing import builds_cmd, runs_cmd
    from benchdeck.tui.cli.queue import queue_cmd
    from benchdeck.tui.cli.resume import cancel_cmd, resume_cmd
    from benchdeck.tui.cli.run import run_cmd
    from benchdeck.tui.cli.scaling import scaling_cmd
    from benchdeck.tui.cli.server import server_group

    for command in (
        hosts_group,
        import_group,
        run_cmd,
        queue_cmd,
        resume_cmd,
        cancel_cmd,
        compare_cmd,
        changes_cmd,
        scaling_cmd,
        diff_cmd,
        export_cmd,
        server_group,
        build_cmd,
        pgo_cmd,
        compiled_cmd,
        runs_cmd,
        builds_cmd,
        lake_group,
    ):
        if command.name not in cli.commands:
            cli.add_command(command)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: run the CLI, turning user errors into one line and an exit code."""
    if argv is None:  # the process's own entry point (not a test calling it in-process)
        atexit.register(_QuickExit.at_exit)
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
    except Exception as exc:
        if _is_a(exc, "benchdeck.store.db", "StoreError"):
            fail(_one_line(str(exc)), 1)
        if isinstance(exc, ValueError | OSError):
            if os.environ.get("BENCHDECK_DEBUG"):
                raise
            fail(_one_line(str(exc)), 1)
        if not _is_compare_error(exc):
            raise
        fail(_one_line(str(exc)), 1)


def _is_a(error: BaseException, module: str, name: str) -> bool:
    """``error`` is a ``module.name``, known without importing the module: one raised means
    it is loaded. (store.db brings DuckDB, which the app's first frame may not need;
    store.compare numpy and scipy, ~0.7 s.)"""
    kind = getattr(sys.modules.get(module), name, None)
    return isinstance(kind, type) and isinstance(error, kind)


def _is_compare_error(error: BaseException) -> bool:
    return _is_a(error, "benchdeck.store.compare", "CompareError")


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
