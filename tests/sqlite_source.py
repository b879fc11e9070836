"""SQLite's amalgamation for the build tests, from the npm package better-sqlite3.

The package (``deps/sqlite3/sqlite3.c``) is fetched once with ``npm pack`` into a cache
(``$BENCHDECK_TEST_CACHE``, default ``~/.cache/benchdeck-tests``; scripts/install-test-deps.sh
fills it), so tests never download it again. A missing npm fails the test with what to install.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

PACKAGE = "better-sqlite3@12.11.1"  # ships SQLite 3.53.2
CACHE_ENV = "BENCHDECK_TEST_CACHE"
MEMBERS = ("sqlite3.c", "sqlite3.h")


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or "~/.cache/benchdeck-tests").expanduser()


def tarball() -> Path:
    """The package's tarball in the cache, packed by npm the first time."""
    name, _, version = PACKAGE.rpartition("@")
    path = cache_dir() / f"{name}-{version}.tgz"
    if path.exists():
        return path
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(f"npm is missing (apt-get install npm): needed once to fetch {PACKAGE}", pytrace=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(
        [npm, "pack", PACKAGE, "--pack-destination", str(path.parent)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if res.returncode != 0 or not path.exists():
        pytest.fail(f"npm pack {PACKAGE} failed: {res.stderr.strip()[-500:]}", pytrace=False)
    return path


def amalgamation(dest: Path) -> tuple[Path, str]:
    """``sqlite3.c`` and ``sqlite3.h`` extracted into ``dest``; returns (dir, SQLite version)."""
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball()) as tf:
        for m in MEMBERS:
            member = tf.getmember(f"package/deps/sqlite3/{m}")
            src = tf.extractfile(member)
            assert src is not None
            (dest / m).write_bytes(src.read())
    header = (dest / "sqlite3.h").read_text(errors="replace")
    found = re.search(r'#define SQLITE_VERSION\s+"([\d.]+)"', header)
    assert found is not None
    return dest, found.group(1)
