"""Which runs a live benchdeck process is following: one lock file per run beside the store.

A follower holds an exclusive ``flock`` on ``.<store>.following/run-<id>.lock`` while it
streams the run; the kernel drops it when the process ends, however it ends (kill -9 too). Other
processes ask :func:`is_followed` before they backfill a run themselves (a store opened per batch
no longer tells, by its lock, that a writer is at work).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from pathlib import Path


def local_base(store_path: Path) -> Path:
    """Where a store's per-machine files go: the store file itself; for a team store
    (``ducklake:...``, not a file) a name in the user's state directory."""
    name = str(store_path)
    if not name.startswith("ducklake:"):
        return store_path
    import platformdirs

    state = Path(platformdirs.user_state_dir("benchdeck", appauthor=False)) / "team-stores"
    return state / hashlib.sha256(name.encode()).hexdigest()[:16]


def _lock_path(store_path: Path, run_id: int) -> Path:
    store_path = local_base(store_path)
    d = store_path.parent / f".{store_path.name}.following"
    d.mkdir(parents=True, exist_ok=True)
    return d / f"run-{run_id}.lock"


@contextlib.contextmanager
def following(store_path: Path, run_id: int) -> Iterator[None]:
    """Mark ``run_id`` as followed by this process for the duration of the block."""
    try:
        fd = os.open(_lock_path(store_path, run_id), os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:  # a read-only directory: nobody else can write there either
        yield
        return
    try:
        with contextlib.suppress(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)  # releases the lock


def is_followed(store_path: Path, run_id: int) -> bool:
    """Whether a live process holds ``run_id``'s follow lock."""
    try:
        fd = os.open(_lock_path(store_path, run_id), os.O_CREAT | os.O_RDWR, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def followed_runs(store_path: Path) -> frozenset[int]:
    """The runs of the store a live process follows now (a look at each run's lock file)."""
    d = _lock_path(store_path, 0).parent
    ids = (int(f.name[4:-5]) for f in d.glob("run-*.lock") if f.name[4:-5].isdigit())
    return frozenset(i for i in ids if is_followed(store_path, i))
