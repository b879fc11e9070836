"""When a writer keeps a shared store's file open between its flushes, and when it lets go.

Opening the file (attaching it to the writer's own database: its catalog read, then its WAL
replayed) costs more CPU than a flush of a few hundred rows, and many times that in wall time
when the cores are busy, so a writer whose flushes come quickly keeps it open.
Others get the file too: the writer lets go after ``hold_s`` of holding (and opens it again
``gap_s`` later, ahead of its next flush, so that flush does not pay the open), and when no
rows came for an ``idle_s``. (``gap_s=None``: not opened again before the next flush.)
"""

from __future__ import annotations

from collections.abc import Callable

from benchdeck.store.storage.db import Store, StoreError

SHARED_HOLD_S = 0.5
"""The longest a shared store is held over consecutive flushes before others get the file."""
SHARED_GAP_S = 0.05
"""How long it is then left to others before it is opened again ahead of the next flush."""
SHARED_WRITER_THREADS = 1
"""DuckDB threads of a shared store's writer: on batches of a few hundred rows a second thread
costs more CPU than it saves (measured under load: docs/performance.md)."""


class SharedHold:
    """The hold of one writer's shared store; every method runs on the writer's thread.

    Times are measured from when the file is open (an open under load can take longer than
    ``hold_s``: counted from the request, every flush would open it again).
    """

    def __init__(
        self,
        store: Store,
        clock: Callable[[], float],
        idle_s: float,
        hold_s: float = SHARED_HOLD_S,
        gap_s: float | None = SHARED_GAP_S,
    ):
        self.store = store
        if store.shared:
            store.set_threads(SHARED_WRITER_THREADS)
        self.clock = clock
        self.idle_s = idle_s
        self.hold_s = hold_s
        self.gap_s = gap_s
        self._held = False
        self._open_since: float | None = None  # the file held open since
        self._used = 0.0  # the last write (or open) while held
        self._reopen_at: float | None = None

    def before_write(self) -> None:
        if self.store.shared and not self._held:
            self.store.hold()
            self._held, self._reopen_at = True, None

    def after_write(self) -> None:
        if not self._held:
            return
        now = self._used = self.clock()
        if self._open_since is None:
            self._open_since = now
        elif now - self._open_since >= self.hold_s:
            self._let_go()
            self._reopen_at = None if self.gap_s is None else self.clock() + self.gap_s

    def next_wakeup(self) -> float | None:
        """Seconds until :meth:`tick` has something to do; ``None`` when nothing."""
        now = self.clock()
        if self._held:
            return max(0.0, self.idle_s - (now - self._used))
        if self._reopen_at is not None:
            return max(0.0, self._reopen_at - now)
        return None

    def tick(self, idle: bool) -> None:
        """Let go of a store no rows came for (``idle``: none buffered); open it again when
        the gap after a let-go is over."""
        now = self.clock()
        if self._held and idle and now - self._used >= self.idle_s:
            self._let_go()
        elif self._reopen_at is not None and now >= self._reopen_at:
            self._reopen_at = None
            self.store.hold()
            try:
                with self.store.reading():  # opens the file; the hold keeps it open
                    pass
            except StoreError:  # another process has it: the next flush waits for it
                self.store.let_go()
                return
            self._held = True
            self._open_since = self._used = self.clock()

    def close(self) -> None:
        self._reopen_at = None
        if self._held:
            self._let_go()

    def _let_go(self) -> None:
        self._held, self._open_since = False, None
        self.store.let_go()
