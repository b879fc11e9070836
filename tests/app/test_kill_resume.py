"""The app killed (SIGKILL) while its queue streams, then ``benchdeck resume``: nothing lost,
nothing stored twice. The real app in a real terminal (tmux, tests/test_e2e_tmux.py's), the
default matrix of the built-in SQLite workload really running on this machine; the store read
beside the app by a plain DuckDB reader while it runs (the app holds it only while it writes).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.test_e2e_tmux import RUNS_WAIT_S, SESSION, UI_WAIT_S, Tmux, footer, start_app, tmux, wait_file

pytestmark = pytest.mark.integration  # the real app in tmux, real runs

__all__ = ["tmux"]  # the fixture
REPO = Path(__file__).resolve().parents[2]
POLL_S = 0.2


def _read(db: Path, sql: str) -> list[tuple[object, ...]]:
    """A plain read-only connection, as a user's script makes it; a writer's batch holding the
    file is waited out (the app lets go between batches)."""
    deadline = time.monotonic() + UI_WAIT_S
    while True:
        try:
            con = duckdb.connect(str(db), read_only=True)
        except duckdb.IOException:
            assert time.monotonic() < deadline, "the store stayed locked"
            time.sleep(0.05)
            continue
        try:
            return con.execute(sql).fetchall()
        finally:
            con.close()


def _intervals(run_dir: Path) -> list[float]:
    out = run_dir / "bench.out"
    text = out.read_text() if out.exists() else ""
    return [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", text, re.M)]


def test_the_app_killed_mid_queue_then_resume_loses_and_doubles_nothing(tmux: Tmux, tmp_path: Path) -> None:
    db = start_app(tmux, tmp_path)
    tmux.wait(
        lambda s: "Seconds per workload" in s and "6 runs = 1 host(s)" in s, "the Launch screen", UI_WAIT_S
    )
    tmux.keys("s")
    tmux.wait(lambda s: "Cancel run" in footer(s), "the Live screen", UI_WAIT_S)

    # kill it once a run has finished and the next one streams samples
    deadline = time.monotonic() + RUNS_WAIT_S
    while True:
        rows = _read(db, "SELECT status, (SELECT count(*) FROM bench_samples b WHERE b.run_id = r.run_id) "
                         "FROM runs r ORDER BY run_id")  # fmt: skip
        if any(s == "finished" for s, _ in rows) and any(s == "running" and n for s, n in rows):
            break
        assert time.monotonic() < deadline, f"no run streaming after a finished one: {rows}"
        time.sleep(POLL_S)
    shell = int(tmux("list-panes", "-t", SESSION, "-F", "#{pane_pid}").split()[0])
    [app_pid] = [int(p) for p in subprocess.run(["pgrep", "-P", str(shell)], capture_output=True,
                                                 text=True, check=True).stdout.split()]  # fmt: skip
    os.kill(app_pid, signal.SIGKILL)
    assert wait_file(tmp_path / "exit", "the app to be gone", UI_WAIT_S, tmux) == str(128 + signal.SIGKILL)
    left = _read(db, "SELECT count(*) FROM runs WHERE status = 'running'")
    assert left == [(1,)], left

    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    env.update(
        BENCHDECK_CONFIG=str(tmp_path / "benchdeck.toml"),
        BENCHDECK_CONFIG_DIR=str(tmp_path / "config"),
        PYTHONPATH=str(REPO),
    )
    resumed = subprocess.run(
        [sys.executable, "-c", "from benchdeck.tui.cli.main import main; main()", "--db", str(db), "resume"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=RUNS_WAIT_S,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr

    runs = _read(db, "SELECT run_id, status FROM runs ORDER BY run_id")
    assert len(runs) == 6, runs
    assert all(status == "finished" for _, status in runs), runs
    dups = _read(db, "SELECT run_id, t FROM bench_samples GROUP BY run_id, t HAVING count(*) > 1")
    assert dups == []
    for run_id, _ in runs:
        [run_dir] = (tmp_path / "work" / "runs").glob(f"run{run_id}-*")
        stored = [
            r[0] for r in _read(db, f"SELECT t FROM bench_samples WHERE run_id = {int(run_id)} ORDER BY t")
        ]
        assert stored == _intervals(run_dir), f"run {run_id}: every interval stored once"
    assert _read(db, "SELECT count(*) FROM queue_items WHERE status IN ('pending', 'running')") == [(0,)]
