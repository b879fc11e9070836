"""Real file-system limits for tests: a small tmpfs (a full disk) and a read-only directory.

As root (the CI machine) these are tmpfs mounts; where mounting is refused, a non-root user's
``chmod 555`` directory stands in for the read-only one (callers fall back to RLIMIT_FSIZE for
the full disk). Root without mount rights has neither: the test fails, it is never skipped.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[bool]:
    """A real tmpfs of ``size`` at ``where`` (created); yields False if mounting is refused."""
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True).returncode == 0  # fmt: skip
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", str(where)], check=True)


@contextlib.contextmanager
def read_only(directory: Path, mounted: bool) -> Iterator[None]:
    """Make ``directory`` (a tmpfs of :func:`tmpfs` if ``mounted``) read-only for a while."""
    if mounted:
        subprocess.run(["mount", "-o", "remount,ro", str(directory)], check=True)
    else:
        assert os.geteuid() != 0, "neither a read-only mount nor a non-root user is available"
        directory.chmod(0o555)
    try:
        yield
    finally:
        if mounted:
            subprocess.run(["mount", "-o", "remount,rw", str(directory)], check=True)
        else:
            directory.chmod(0o755)
