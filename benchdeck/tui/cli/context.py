"""What every command shares: the store to open (and how a writer waits for it), the group table,
and the one-line failure. Commands import this, never the entry point (no import back)."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:  # (loaded by the commands that use the store: the app's first frame may not)
    from benchdeck.store.storage.db import Store, StoreLocked


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
        from benchdeck.store.storage.db import Store

        _QuickExit.only_read = True
        return Store.open_for_reading(self.db, attach=True)


class _QuickExit:
    """A process whose command only read skips Python's last garbage collections at exit.

    They walk every object the imports made (click, inspect, DuckDB's module ...): a visible
    share of a short ``compare``. Frozen objects are freed as the modules are cleared, as
    before; only reference cycles among them are left to the OS, and a reader has nothing in them to finish
    (its store is closed; a writer's process keeps the collections)."""

    only_read = False
    own_process = False
    """The CLI is the process's entry point (not a test calling ``main`` in-process)."""

    @staticmethod
    def at_exit() -> None:
        if _QuickExit.only_read:
            gc.freeze()

    @staticmethod
    def after_command() -> None:
        """A reading command that ended well ends its process at once, its output flushed:
        its store is closed (a snapshot copy removed), it started no thread or file of its own
        to finish, and Python's teardown (every module cleared, DuckDB's database shut down)
        would only add to a short command's time. An error, or any other command, exits as
        before."""
        if not (_QuickExit.own_process and _QuickExit.only_read):
            return
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # (a closed pipe ...: Python's own exit deals with it, as before)
            return
        os._exit(0)


READ_COMMANDS = frozenset({"compare", "changes", "diff", "export", "scaling"})
"""Commands that only read the store: a short process whatever the store's size."""


READ_GC_THRESHOLD = 50_000
"""Allocations between two collections of a reading command's objects (Python's default: 700)."""


@contextmanager
def loading_quietly(command: str) -> Iterator[None]:
    """Load a reading command's module (DuckDB's with it) with Python's collector paused, then
    freeze what was loaded: the collections the imports trigger walk every object made so far,
    again and again, and nothing of a module is garbage. The collector runs again after, over
    the command's own objects only, once per :data:`READ_GC_THRESHOLD` new objects (a short
    process: its cycles, if any, wait a little longer). Other commands (long ones: import,
    queue) load and collect as before. (What it saved: docs/performance.md.)"""
    if not _QuickExit.own_process or command not in READ_COMMANDS or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.set_threshold(READ_GC_THRESHOLD, *gc.get_threshold()[1:])
        gc.enable()


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


def open_shared_store(db: Path | None, say: Callable[[str], None] | None = None) -> Store:
    """Open the store for writing as a good neighbour: the file is held per batch, and a store
    held by another process is waited for (``$BENCHDECK_LOCK_WAIT``), saying so once the wait
    is long enough to notice, in one line naming the holder (``say``: where that line goes, a
    live progress table's top; else stderr)."""
    from benchdeck.store.storage.db import Store
    from benchdeck.tui.cli.store_wait import waiting_line

    wait = lock_wait_s()

    def waiting(exc: StoreLocked) -> None:
        line = waiting_line(exc, wait, LOCK_WAIT_ENV)
        if say is not None:
            say(line)
        else:
            click.echo(line, err=True)

    return Store.open(db, shared=True, lock_wait=wait, on_lock_wait=waiting)


def fail(message: str, code: int = 1) -> NoReturn:
    """Print one line naming what is wrong and exit."""
    click.echo(f"benchdeck: {message}", err=True)
    sys.exit(code)
