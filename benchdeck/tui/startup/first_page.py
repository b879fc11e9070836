"""The first page of Runs as the last start read it, kept in the user's cache directory and
shown by the next start only while the store is exactly as it was when it was read.

"Exactly as it was": the store file and its write-ahead log have the same device, inode,
size, mtime and ctime as when the page was read (a WAL that appeared or went counts). A page
is kept only if neither changed while it was read and both were last written more than
:data:`QUIET_S` before (any later write then has a newer mtime, whatever the clock's grain).
The app opens the store after the first frame anyway and shows what it reads if it differs.

Neither DuckDB nor Textual here: this is what spares the first frame loading DuckDB.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdeck.store.storage.location import DB_ENV, default_db_path

if TYPE_CHECKING:  # (a kept "no runs" is read without them: Launch's first frame)
    from benchdeck.tui.startup.runs_page import RunsPage

CACHE_DIR_ENV = "BENCHDECK_CACHE_DIR"
FORMAT = 2
QUIET_S = 2.0

FileState = tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns
Identity = tuple[FileState, FileState | None]  # the store file, its WAL (None: there is none)


def cache_dir() -> Path:
    """``$BENCHDECK_CACHE_DIR``, else benchdeck's directory in the user cache dir."""
    env = os.environ.get(CACHE_DIR_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("benchdeck", appauthor=False))


def store_file(db: Path | None) -> Path | None:
    """The file ``db`` names, as the store resolves it (``$BENCHDECK_DB``, else the default in
    the user data dir); None for a DuckLake team store. (A different answer than the store's
    only misses the cache: pages are kept under the path of the store that was opened.)"""
    text = str(db) if db is not None else os.environ.get(DB_ENV, "")
    if text.startswith("ducklake:"):
        return None
    return Path(text).expanduser() if text else default_db_path()


def _state(path: Path) -> FileState | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def identity(path: Path) -> Identity | None:
    """The store file's and its WAL's identity now; None if there is no store file."""
    main = _state(path)
    if main is None:
        return None
    return main, _state(path.with_name(path.name + ".wal"))


def quiet(ident: Identity) -> bool:
    """Whether the files of ``ident`` were last written more than :data:`QUIET_S` ago."""
    last = max(s[3:] for s in ident if s is not None)  # (mtime, ctime) of the latest
    return time.time_ns() - max(last) >= QUIET_S * 1e9


def _cache_file(path: Path) -> Path:
    # (zlib: loaded with Textual anyway; hashlib would be one more import before the first
    # frame. Two stores whose names collide only miss: the file names the store it was kept for)
    key = f"{zlib.crc32(str(path.resolve()).encode()):08x}"
    return cache_dir() / f"runs-{key}.json"


def save(path: Path, before: Identity | None, runs: int, page: RunsPage | None) -> bool:
    """Keep ``page`` (read from ``path`` holding ``runs`` runs; None when it holds none) if the
    store was quiet and did not change while it was read (``before``: its identity before it
    was opened)."""
    if before is None or identity(path) != before or not quiet(before):
        return False
    doc = {"format": FORMAT, "store": str(path.resolve()), "identity": before, **page_doc(runs, page)}
    return write_whole(_cache_file(path), json.dumps(doc, separators=(",", ":")).encode())


def write_whole(target: Path, data: bytes) -> bool:
    """Write a cache file whole or not at all (a temporary file of mode 0600 renamed over it, in
    a directory made 0700): False if it could not be written, which for a cache only means the
    next start reads or parses again (no room, no permission ...). Off the UI thread."""
    import tempfile

    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}-", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def page_doc(runs: int, page: RunsPage | None) -> dict[str, Any]:
    """The number of runs and the first page as JSON's types (None: no runs, no page)."""
    if page is None:
        return {"count": runs, "hosts": None, "builds": None, "total": 0, "runs": []}
    from benchdeck.store.storage.run_lists import HistoryRow

    return {
        "count": runs,
        "hosts": page.hosts,
        "builds": page.builds,
        "total": page.total,
        "clusters": page.clusters,
        "runs": [[_json(getattr(r, f.name)) for f in fields(HistoryRow)] for r in page.runs],
    }


def page_from_doc(doc: dict[str, Any]) -> tuple[int, RunsPage | None]:
    """What :func:`page_doc` made (raises ValueError, KeyError, TypeError or IndexError for
    anything else)."""
    if doc["hosts"] is None:
        return int(doc["count"]), None
    from benchdeck.store.storage.run_lists import HistoryRow
    from benchdeck.tui.startup.runs_page import RunsPage

    names = [f.name for f in fields(HistoryRow)]
    width, at, tagged = len(names), names.index("created_at"), names.index("tags")
    runs = []
    for kept in doc["runs"]:  # (by position: ~1,000 of them before the first frame)
        row = list(kept)
        if len(row) != width:
            raise ValueError("a kept run of another shape")
        row[at] = datetime.fromisoformat(row[at])
        row[tagged] = tuple(row[tagged])
        runs.append(HistoryRow(*row))
    page = RunsPage(runs, list(doc["hosts"]), list(doc["builds"]), int(doc["total"]), bool(doc["clusters"]))
    return int(doc["count"]), page


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def load(path: Path) -> tuple[int, RunsPage | None] | None:
    """The number of runs and the first page kept for ``path``, if the store is as it was
    (``(0, None)``: it held no runs, and the app opens on Launch without DuckDB)."""
    now = identity(path)
    if now is None:
        return None
    try:
        doc: dict[str, Any] = json.loads(_cache_file(path).read_text(encoding="utf-8"))
        if doc.get("format") != FORMAT or doc.get("store") != str(path.resolve()):
            return None
        kept = doc["identity"]
        if [list(s) if s is not None else None for s in now] != kept:
            return None
        runs, page = page_from_doc(doc)
        return (runs, page) if page is not None or runs == 0 else None
    except (OSError, ValueError, KeyError, TypeError, IndexError):  # none, or not ours: read the store
        return None
