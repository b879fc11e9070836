"""What other processes stored while the app is open: ``benchdeck import``, ``run``, ``queue``,
``tag`` from another terminal. The app holds its store only while it reads or writes, so they
write beside it; this tells the app when the runs changed, and its screens reload as they do
after the app's own runs.

A poll costs a stat of the store file and its WAL while nothing writes (no lock taken, nobody
waits); only when they changed is the store read: one scan of three columns of ``runs``
(store.lookups.runs_state), with the file held for that query alone. While another process
streams a run, the file changes every second with its samples: then the store is read when the
runs that live processes follow change (one starts or ends: store/storage/following.py, a lock
file per run) and at least every ``STREAMING_READ_S``, not every 2 s: each read holds the file,
and a writer's batch that meets it waits (12-run queue beside the idle app, load 11 on 2 cores:
14 waits with this, 16 without, one queue each; the writers' own attach costs more). No Textual.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from benchdeck.store.storage.following import followed_runs
from benchdeck.store.storage.lookups import runs_state
from benchdeck.tui.startup.first_page import Identity, identity

if TYPE_CHECKING:
    from benchdeck.store.storage.db import Store

WATCH_S = 2.0
"""How often the app looks: what another process stored shows within this (plus the reload)."""
STREAMING_READ_S = 10.0
"""While another process streams a run, the longest the store goes unread after it changed: a
tag or an import beside that run shows within this."""
READS_AFTER_FOLLOW_CHANGE = 2
"""Reads due once the followed runs changed: the run's row or status may be committed just
after its follow lock is taken or let go, so the next change of the file is read too."""


class StoreWatch:
    """Polls one store (from a worker thread); :meth:`changed` is True once per change of its
    runs since the last poll (the first poll only takes the state)."""

    def __init__(self, store: Callable[[], Store]) -> None:
        self._store = store
        self._seen: Identity | None = None
        self._state: tuple[int, int, int] | None = None
        self._followed: frozenset[int] = frozenset()
        self._due = 0  # reads due whatever the followed runs (after they changed)
        self._read_at = 0.0  # time.monotonic() of the last read
        self.reads = 0
        """How many polls read the store (the others found the file as it was)."""

    def changed(self) -> bool:
        store = self._store()
        if store.snapshot_of is not None or store.lake is not None:
            return False  # a snapshot is read again by Reload; a team store is not watched
        now = identity(Path(store.path))
        if now == self._seen and self._state is not None:
            return False
        if not self._worth_reading(Path(store.path)):
            return False
        self.reads += 1
        self._read_at = time.monotonic()
        with store.reading() as cur:
            state = runs_state(cur)
        # taken after the read: the read itself may have replayed the WAL into the file
        self._seen = identity(Path(store.path))
        before, self._state = self._state, state
        return before is not None and state != before

    def _worth_reading(self, path: Path) -> bool:
        """The file changed: read it, unless only a followed run's samples came (the same runs
        followed as at the last look, and no read due after they changed)."""
        followed = followed_runs(path)
        if followed != self._followed:
            self._followed, self._due = followed, READS_AFTER_FOLLOW_CHANGE
        if self._due:
            self._due -= 1
            return True
        quiet_for = time.monotonic() - self._read_at
        return not followed or self._state is None or quiet_for >= STREAMING_READ_S
