"""A start with no kept page has a child process read the first page of Runs (tui.page_peek):
its page is the store's, this process loads no DuckDB before the first frame, and whenever
the child cannot read the store (a writer holds it, no runs, too slow) the store opens as it
did before, read-write. Each case runs `benchdeck`'s start in a fresh process (a fork is made
only by a process with one thread and no DuckDB), on a real DuckDB store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_lists import RunFilter
from benchdeck.tui.startup import first_page
from benchdeck.tui.startup.runs_page import read_runs_page
from tests.fixtures.cli_helpers import ROOT
from tests.startup.test_startup import NOT_FOR_THE_FIRST_FRAME, loaded_by_the_first_frame

# What `benchdeck` does before it imports Textual, then the first screen's questions, answered
# as JSON. argv: store path.
START = """
import json, os, signal, sys
from pathlib import Path
from benchdeck.tui.startup import first_page
from benchdeck.tui.startup.store_handle import Opening
first_page.QUIET_S = 0.0  # a page is kept at once (else only 2 s after the store's last write)
path = Path(sys.argv[1])
{setup}
opening = Opening(path, peek=True)
forked = opening._peek is not None
{before_settle}
{wait}
opening.settle()
before_open = {{"peeked": opening.peeked, "started": opening.started, "empty": opening.empty,
               "duckdb": "duckdb" in sys.modules, "forked": forked}}
kept = opening.kept
if not opening.started:
    opening.start()  # as the app does once the first frame is out
runs = opening.opened.result(timeout=60)
differs, page = opening.take_update()
out = dict(before_open, runs=runs, read_only=opening.store.read_only, differs=differs,
           kept=kept and first_page.page_doc(runs, kept), first=opening.take_first_runs() is not None,
           cached=first_page.load(path) is not None)
opening.store.close()
print("RESULT", json.dumps(out))
"""


def start(
    path: Path, before_settle: str = "", wait: str = "opening.decided.result(timeout=60)", setup: str = ""
) -> dict[str, Any]:
    """``benchdeck``'s start on ``path`` in a fresh process; ``setup`` runs first,
    ``before_settle`` before the first frame is due, ``wait`` is how long the first frame
    waits for the child."""
    code = START.format(setup=setup, before_settle=before_settle, wait=wait)
    r = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    result: dict[str, Any] = json.loads(r.stdout.rsplit("RESULT", 1)[1])
    return result


def pick(r: dict[str, Any], *keys: str) -> tuple[Any, ...]:
    return tuple(r[k] for k in keys)


def stores_page(path: Path) -> dict[str, Any]:
    with Store.open(path, read_only=True) as s:
        cur = s.cursor()
        row = cur.execute("SELECT count(*) FROM runs").fetchone()
        assert row is not None
        doc = first_page.page_doc(int(row[0]), read_runs_page(cur, RunFilter()))
        return dict(json.loads(json.dumps(doc)))  # as it comes through JSON (tuples are lists)


def test_the_child_reads_the_stores_first_page_and_duckdb_waits(store: Path) -> None:
    r = start(store)
    # the child's page is shown first; this process has not loaded DuckDB yet
    assert pick(r, "forked", "peeked", "started", "duckdb") == (True, True, False, False)
    assert r["kept"] == stores_page(store), "field for field the page the store gives"
    assert pick(r, "runs", "read_only", "differs") == (168, False, False)
    assert r["cached"], "the store's page is kept for the next start"
    again = start(store)
    assert not again["forked"], "the next start shows the kept page"
    assert again["kept"] == r["kept"]


def test_with_no_kept_page_the_first_frame_does_not_load_duckdb(store: Path) -> None:
    mods = (*NOT_FOR_THE_FIRST_FRAME, "duckdb", "benchdeck.store.storage.db")
    loaded = loaded_by_the_first_frame(store, mods)
    assert loaded == [], f"the app's start imported {loaded}"


def test_a_store_changed_after_the_child_read_it_shows_the_stores_page(store: Path) -> None:
    tag = (
        "from benchdeck.store.storage.db import Store\n"
        "opening.decided.result(timeout=60)\n"
        "with Store.open(path) as s:\n"
        "    s.cursor().execute(\"UPDATE runs SET tags = ['late'] WHERE run_id = 168\")\n"
    )
    r = start(store, before_settle=tag)
    assert pick(r, "peeked", "differs") == (True, True), "the store's page replaces the child's"
    assert r["kept"]["runs"][0][9] == [], "the child read the store before the tag"


def test_a_store_held_by_a_writer_opens_as_a_snapshot_as_before(store: Path) -> None:
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from benchdeck.store.storage.db import Store; s = Store.open(sys.argv[1]); "
            "print('held', flush=True); sys.stdin.read()",
            str(store),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert writer.stdout is not None
        assert writer.stdout.readline() == "held\n"
        r = start(store)
    finally:
        writer.communicate("", timeout=60)
    # the child could not read a store held by a writer: read as a snapshot, as without it
    assert pick(r, "forked", "peeked", "started", "read_only") == (True, False, True, True)
    assert pick(r, "runs", "first") == (168, True)


def test_a_store_without_runs_opens_after_the_first_frame(tmp_path: Path) -> None:
    """The child finds no runs: the app starts on Launch, which needs no DuckDB, and the store
    opens after that frame, read-write; the next start knows it from the cache, no child."""
    path = tmp_path / "empty.duckdb"
    Store.open(path).close()
    r = start(path)
    assert pick(r, "forked", "peeked", "empty", "started", "duckdb") == (True, True, True, False, False)
    assert pick(r, "runs", "read_only", "first", "cached") == (0, False, False, True)
    again = start(path)
    assert pick(again, "forked", "empty", "started", "duckdb") == (False, True, False, False)
    assert pick(again, "runs", "read_only") == (0, False)


def test_a_child_too_slow_is_stopped_before_the_store_opens(store: Path) -> None:
    """The child is stopped (SIGSTOP) while it reads: the first frame cannot wait, so it is
    killed, and the store then opens read-write (its read-only hold gone), not as a snapshot."""
    r = start(store, before_settle="os.kill(opening._peek._pid, signal.SIGSTOP)", wait="")
    # the store opened itself, read-write: the child's hold was gone
    assert pick(r, "forked", "peeked", "started", "read_only") == (True, False, True, False)
    assert pick(r, "runs", "first") == (168, True)


def test_no_child_in_a_process_with_threads_or_duckdb() -> None:
    """(pytest's process has loaded DuckDB: a fork here would copy it half-made)."""
    from benchdeck.tui.startup import page_peek

    assert "duckdb" in sys.modules
    assert not page_peek.can_fork()


def test_no_process_to_spare_reads_the_store_here(store: Path) -> None:
    """A fake failure (fork refused: root is not held to RLIMIT_NPROC, so this machine cannot
    refuse it for real): the store opens in this process, as without a child."""
    fail = (
        "def refused():\n"
        "    raise BlockingIOError(11, 'Resource temporarily unavailable')\n"
        "os.fork = refused\n"
    )
    r = start(store, setup=fail)
    assert pick(r, "forked", "peeked", "started", "read_only", "runs") == (False, False, True, False, 168)
