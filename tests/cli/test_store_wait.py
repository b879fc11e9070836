"""The line a CLI writer says while it waits for the store (issue 38 item 8): every writer of a
12-run queue beside the idle app printed "store ... is in use by process N (another
benchdeck?); close it ..." at its first collision with one of the app's reads, 27 lines
through the live progress table. Now it names the holder as the user knows it and says why."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from benchdeck.store.storage.errors import StoreLocked
from benchdeck.tui.cli.store_wait import describe, holder_name, waiting_line


def test_the_holder_is_named_as_the_user_knows_it() -> None:
    assert describe(7, ["/usr/bin/python3", "-m", "benchdeck"]) == "the benchdeck app (process 7)"
    assert describe(7, ["/v/bin/benchdeck", "--db", "x.duckdb"]) == "the benchdeck app (process 7)"
    queue = ["/v/bin/benchdeck", "--db", "x.duckdb", "queue", "--host", "local"]
    assert describe(7, queue) == "benchdeck queue (process 7)"
    assert describe(7, ["duckdb", "x.duckdb"]) == "process 7 (duckdb)"
    assert describe(7, []) == "process 7"


def test_a_live_app_process_is_named_from_its_command_line(tmp_path: Path) -> None:
    """A real process whose command line is ``benchdeck`` alone (Python reading its script from
    a pipe it is never given), read from /proc as a waiting writer reads the app's."""
    app = subprocess.Popen(["benchdeck"], executable=sys.executable, stdin=subprocess.PIPE)
    try:
        cmdline = Path(f"/proc/{app.pid}/cmdline")
        deadline = time.monotonic() + 10
        while cmdline.read_bytes() != b"benchdeck\0":  # until the child has exec'd
            assert time.monotonic() < deadline, cmdline.read_bytes()
        assert holder_name(app.pid) == f"the benchdeck app (process {app.pid})"
    finally:
        app.kill()
        app.wait()


def test_the_line_says_whom_and_why_in_one_line(tmp_path: Path) -> None:
    store = tmp_path / "s.duckdb"
    line = waiting_line(StoreLocked(store, None), 600, "BENCHDECK_LOCK_WAIT")
    assert line == (
        f"benchdeck: waiting for store {store}: another process has it open; close it, or pick "
        "another store with --db or $BENCHDECK_DB (waiting up to 600 s, $BENCHDECK_LOCK_WAIT)"
    )
    assert "\n" not in line
