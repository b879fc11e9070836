"""The one line a CLI writer says while it waits for a store another process holds.

A writer meets the app's reads and other writers' batches all the time, each a few to a few
hundred milliseconds; it says so only once a wait lasts long enough to notice
(``LOCK_NOTICE_S`` in store/storage/file_store.py), names the holder as the user knows it (the
benchdeck app, a ``benchdeck queue``, a DuckDB shell) and says why it waits. The line goes above
a live progress table, never through it (tui/cli/run_progress.py).
"""

from __future__ import annotations

from pathlib import Path

from benchdeck.store.storage.errors import StoreLocked
from benchdeck.store.storage.location import DB_ENV

_VALUED = {"--db", "--lake-data", "--groups", "--inventory"}
"""Options of ``benchdeck`` before its command that take a value (skipped to find the command)."""


def _argv(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


def _after_benchdeck(argv: list[str]) -> list[str] | None:
    """The words after ``benchdeck`` (the script, ``-m benchdeck`` or the test's ``-c``), or None
    when the process is not a benchdeck."""
    for i, word in enumerate(argv):
        code = argv[i - 1 : i] == ["-c"] and "benchdeck" in word and "main()" in word  # (the tests')
        if Path(word).name == "benchdeck" or code:
            return argv[i + 1 :]
    return None


def holder_name(pid: int | None) -> str:
    """``the benchdeck app (process N)``, ``benchdeck queue (process N)``, ``process N (duckdb)``."""
    return "another process" if pid is None else describe(pid, _argv(pid))


def describe(pid: int, argv: list[str]) -> str:
    """:func:`holder_name` of a process whose command line is ``argv``."""
    rest = _after_benchdeck(argv)
    if rest is None:
        return f"process {pid} ({Path(argv[0]).name})" if argv else f"process {pid}"
    words = iter(rest)
    for word in words:
        if word in _VALUED:
            next(words, None)
        elif not word.startswith("-"):
            return f"benchdeck {word} (process {pid})"
    return f"the benchdeck app (process {pid})"


def waiting_line(exc: StoreLocked, wait_s: float, wait_env: str) -> str:
    """The line: whom the writer waits for, why, and for how long at most."""
    who = holder_name(exc.pid)
    limit = f"waiting up to {wait_s:.0f} s, ${wait_env}"
    if who.startswith(("the benchdeck app", "benchdeck ")):
        return f"benchdeck: waiting for store {exc.path}: {who} is reading or writing it ({limit})"
    return (
        f"benchdeck: waiting for store {exc.path}: {who} has it open; close it, or pick another "
        f"store with --db or ${DB_ENV} ({limit})"
    )
