"""A consistent copy of a store that another process is writing (DuckDB allows one writer and
no reader beside it), in a temporary directory that is always removed again.

The copy is consistent when the database file did not change while it was copied: a writer
appends to the ``.wal`` between checkpoints (a torn last WAL entry is ignored on replay), but a
checkpoint rewrites the file and removes the WAL; a copy made across one is tried again.
Directories left by a process that died are removed by the next copy.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import suppress
from pathlib import Path

PREFIX = "benchdeck-snapshot-"


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_orphans(tmp: Path | None = None) -> int:
    """Remove snapshot directories whose process is gone; returns how many."""
    base = Path(tmp or tempfile.gettempdir())
    n = 0
    for d in base.glob(PREFIX + "*"):
        pid = d.name.removeprefix(PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)) and d.is_dir():
            shutil.rmtree(d, ignore_errors=True)
            n += 1
    return n


class SnapshotChanged(Exception):
    """The store was checkpointed while it was copied: the copy may be torn."""


def copy_store(path: Path) -> Path:
    """Copy ``path`` and its WAL into a new temporary directory; returns the copy's path.

    Raises :class:`SnapshotChanged` (directory removed) if the file changed meanwhile, and
    OSError (directory removed) if it cannot be read.
    """
    remove_orphans()
    tmp = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    try:
        copy = tmp / path.name
        wal = path.with_name(path.name + ".wal")
        before = _stamp(path)
        shutil.copyfile(path, copy)
        with suppress(FileNotFoundError):  # no WAL, or a checkpoint just removed it
            shutil.copyfile(wal, copy.with_name(copy.name + ".wal"))
        if _stamp(path) != before:
            raise SnapshotChanged(str(path))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return copy


def discard(copy: Path) -> None:
    """Remove a copy made by :func:`copy_store` (its whole directory)."""
    if copy.parent.name.startswith(PREFIX):
        shutil.rmtree(copy.parent, ignore_errors=True)
