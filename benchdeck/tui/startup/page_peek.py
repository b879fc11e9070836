"""The first page of Runs read by a child process while this one loads Textual.

A start whose kept page (tui.first_page) no longer matches the store must read the store before
the first frame. Done on a thread, DuckDB's import and the read hold this process's GIL and slow
Textual's import beside them (docs/performance.md has the measure). A forked child does the same
read on the other core: it opens the store read-only (a writer holding it, a schema to upgrade,
anything unusual: the child gives up and this process opens the store itself, as before), reads
the count and the first page, closes the store, sends the page as JSON and exits. This process
imports DuckDB only after the first frame, when it opens the store for real and shows the
store's own page if it differs.

Forked only from a process that has no other thread and has not loaded DuckDB (``benchdeck``
at its start): a fork copies one thread, and DuckDB's state would come half-made.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from benchdeck.tui.startup import first_page

if TYPE_CHECKING:  # (the records come with the child's read: Launch's first frame on a store
    # with no runs goes without them)
    from benchdeck.tui.startup.runs_page import RunsPage

Peeked: TypeAlias = "tuple[int, RunsPage | None]"
"""The number of runs stored and the first page (None when there are none)."""


def can_fork() -> bool:
    """Whether this process may fork a child to read the store (see the module's note)."""
    return (
        hasattr(os, "fork")
        and threading.active_count() == 1
        and "duckdb" not in sys.modules
        and "_duckdb" not in sys.modules
    )


class PagePeek:
    """A child process reading the first page of the store at ``path``; ``on_done`` gets
    what it read, or None if it could not (called once, on a thread of this process)."""

    def __init__(self, path: Path, on_done: Callable[[Peeked | None], None]) -> None:
        self._on_done = on_done
        self._lock = threading.Lock()
        self._reaped = False
        r, w = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            raise
        if pid == 0:  # the child: never returns
            os.close(r)
            _child(path, w)
        os.close(w)
        self._pid = pid
        self._thread = threading.Thread(target=self._collect, args=(r,), name="benchdeck-peek", daemon=True)
        self._thread.start()

    def _collect(self, r: int) -> None:
        chunks: list[bytes] = []
        with os.fdopen(r, "rb") as pipe:
            while chunk := pipe.read(65536):
                chunks.append(chunk)
        with self._lock:
            _, status = os.waitpid(self._pid, 0)
            self._reaped = True
        result: Peeked | None = None
        if os.waitstatus_to_exitcode(status) == 0:
            try:
                result = first_page.page_from_doc(json.loads(b"".join(chunks)))
            except (ValueError, KeyError, TypeError, IndexError):
                result = None  # (cannot happen with our child; the store is read again anyway)
        self._on_done(result)

    def stop(self) -> None:
        """Kill the child if it is still reading (its read-only hold on the store goes with
        it) and wait until it is gone and ``on_done`` has returned."""
        with self._lock:
            if not self._reaped:
                os.kill(self._pid, signal.SIGKILL)
        self._thread.join()


def _child(path: Path, w: int) -> None:
    """Read the count and the first page, send them, exit: 0 if sent, 1 otherwise."""
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a ctrl+c at start ends it quietly
        import gc

        gc.disable()  # a short-lived process
        from benchdeck.store.storage.db import Store
        from benchdeck.store.storage.lookups import count_all_runs
        from benchdeck.tui.startup.runs_page import read_first_page

        store = Store.open(path, read_only=True, attach=True)
        try:
            cur = store.cursor()
            runs = count_all_runs(cur)
            page = read_first_page(cur) if runs else None
            cur.close()
        finally:
            store.close()  # before the page goes: the parent opens the store once it has it
        data = json.dumps(first_page.page_doc(runs, page), separators=(",", ":")).encode()
        with os.fdopen(w, "wb") as pipe:
            pipe.write(data)
        code = 0
    except BaseException:  # anything: the parent reads the store itself (and reports errors)
        code = 1
    finally:
        os._exit(code)  # no atexit, no flush of buffers copied from the parent
