"""The app's store handle on a store another process writes, or one it cannot write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchdeck.store.storage.db import Store
from benchdeck.tui.app.screens.base import StoreHandle
from tests.fixtures.cli_helpers import ROOT
from tests.fixtures.fs_limits import read_only, tmpfs

WRITER = """
import sys
from benchdeck.engine.builds import parse_build_name
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, create_run
store = Store.open(sys.argv[1])
for line in sys.stdin:
    with store.transaction() as cur:
        for _ in range(int(line)):
            create_run(cur, NewRun("h", parse_build_name("my8028_rel"), "scan_range=100", "t"))
    print("done", flush=True)
"""


def runs(handle: StoreHandle) -> int:
    cur = handle.cursor()
    try:
        row = cur.execute("SELECT count(*) FROM runs").fetchone()
    finally:
        cur.close()
    assert row is not None
    return int(row[0])


def test_reload_reads_what_the_writer_stored_since(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    Store.open(db).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    handle = StoreHandle(db)
    try:
        proc.stdin.write("3\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "done"
        assert runs(handle) == 3
        assert "read-only snapshot" in handle.label
        proc.stdin.write("4\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "done"
        assert runs(handle) == 3, "without a reload the screen keeps what it read"
        handle.refresh()
        assert runs(handle) == 7
        proc.stdin.close()
        proc.wait(timeout=30)
        handle.refresh()  # the writer is gone: the store itself, writable again
        assert runs(handle) == 7
        assert "snapshot" not in handle.label
    finally:
        handle.close()
        proc.kill()
        proc.wait()


def test_a_store_in_a_read_only_directory_is_shown_read_only(tmp_path: Path) -> None:
    """The app still shows a store it cannot write (a read-only tmpfs), and says why not."""
    import pytest

    from benchdeck.store.storage.db import StoreError

    with tmpfs(tmp_path / "ro", "16m") as mounted:
        db = tmp_path / "ro" / "s.duckdb"
        Store.open(db).close()
        with read_only(db.parent, mounted):
            handle = StoreHandle(db)
            try:
                assert runs(handle) == 0
                assert handle.label == f"{db} (read-only)", "where the store is, and that it is read-only"
                with pytest.raises(StoreError, match="read-only here"):
                    handle.writable_cursor()
            finally:
                handle.close()
