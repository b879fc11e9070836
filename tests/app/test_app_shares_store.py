"""The open app shares its store: it holds the file only while it reads or writes, so beside it
a plain DuckDB reader (Python, the pinned DuckDB CLI), ``benchdeck import`` and ``benchdeck
run`` get the store, and the app shows what they stored. Real processes beside the real app
(pilot), the built-in SQLite workload really running on this machine.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable

from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.runs import RunsScreen
from tests.app.helpers import column_texts, on_screen
from tests.app.test_launch_live import (
    RUN_WAIT_S,
    SIZE,
    UI_WAIT_S,
    WORKLOAD,
    inventory,
    start_one_run,
    wait_for,
)
from tests.fixtures.cli_helpers import CLI, ROOT

pytestmark = pytest.mark.integration  # real runs, readers and writers beside the app

__all__ = ["inventory"]  # the autouse fixture: only the local host, in the test's tmp dir

RECORDED = ROOT / "tests" / "data" / "recorded"
# A plain reader, as a user's script opens the store: once, no retry; prints (runs, seconds).
READ_ONCE = (
    "import duckdb, sys, time; t = time.monotonic(); c = duckdb.connect(sys.argv[1], read_only=True); "
    "print(c.execute('SELECT count(*) FROM runs').fetchone()[0], time.monotonic() - t)"
)
# A reader queued on the file's lock (tests/test_store_sharing.py's): prints what the writer's
# hold cost it and the newest stored interval of run argv[2].
READ_QUEUED = (
    "import sys; from pathlib import Path; from tests.test_store_sharing import _open_reader; "
    "con, waited, wall = _open_reader(Path(sys.argv[1])); "
    "print(waited, wall, con.execute('SELECT max(t) FROM bench_samples WHERE run_id = ?', "
    "[int(sys.argv[2])]).fetchone()[0])"
)


def _env(tmp_path: Path, db: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    e.update(
        BENCHDECK_DB=str(db),
        HOME=str(tmp_path),
        PYTHONPATH=str(ROOT),
        BENCHDECK_CONFIG=str(tmp_path / "benchdeck.toml"),
    )
    return e


async def _run(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """A process beside the app (the app's loop goes on meanwhile)."""
    return await asyncio.to_thread(
        subprocess.run, list(argv), env=env, cwd=ROOT, capture_output=True, text=True, timeout=RUN_WAIT_S
    )


def _import_argv(host: str, output: str = "sysbench_oltp_point_select.txt") -> list[str]:
    """Import one recorded sysbench output (an output already stored is skipped: name another)."""
    workload = "read-write_range=100" if "read_write" in output else "point-query_range=100"
    return [*CLI, "import", "sysbench", str(RECORDED / output), "--host", host,
            "--build", "my8028_rel_o2nofp", "--workload", workload]  # fmt: skip


def _run_ids(app: BenchdeckApp) -> list[str]:
    return column_texts(app.screen.query_one("#runs-table", DataTable), 0)


async def test_an_idle_app_leaves_the_store_to_readers_and_writers(tmp_path: Path) -> None:
    db = tmp_path / "bd.duckdb"
    env = _env(tmp_path, db)
    first = await _run(*_import_argv("one"), env=env)
    assert first.returncode == 0, first.stderr
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen) and len(_run_ids(app)) == 1, "Runs")
        # (a) readers open it at once: no retry, no wait
        python = await _run(sys.executable, "-c", READ_ONCE, str(db))
        assert python.returncode == 0, python.stderr
        runs, seconds = python.stdout.split()
        assert runs == "1"
        assert float(seconds) < 1.0
        cli = await _run("duckdb", "-readonly", "-json", str(db), "-c", "SELECT count(*) AS n FROM runs")
        assert cli.returncode == 0, cli.stderr
        assert json.loads(cli.stdout) == [{"n": 1}]
        # (b) a writer from another terminal, told not to wait at all for a held store
        second = await _run(
            *_import_argv("two", "sysbench_oltp_read_write_cmdline.txt"),
            env={**env, "BENCHDECK_LOCK_WAIT": "0"},
        )
        assert second.returncode == 0, second.stderr
        assert "skipped" not in second.stderr, second.stderr
        # (c) the app shows it, with no key pressed
        runs_screen = on_screen(app, RunsScreen)
        await wait_for(pilot, lambda: len(_run_ids(app)) == 2, "the imported run on Runs", UI_WAIT_S)
        assert app.screen is runs_screen


async def test_a_streaming_app_shares_the_store_and_every_interval_is_stored_once(
    tmp_path: Path, inventory: Path
) -> None:
    db = tmp_path / "bd.duckdb"
    env = _env(tmp_path, db)
    # a second host on this machine, for the CLI's run: benchdeck measures one run per host
    with inventory.open("a") as f:
        f.write(f'[hosts.side]\ntransport = "local"\nworkdir = "{tmp_path / "side"}"\n')
    app = BenchdeckApp(db)
    async with app.run_test(size=SIZE) as pilot:
        await start_one_run(pilot, seconds=12)

        def app_run() -> int | None:
            active = app.hub.model.active()
            return active[0].run_id if active and active[0].t else None

        await wait_for(pilot, app_run, "the app's run streaming", RUN_WAIT_S)
        run_id = app_run()
        assert run_id is not None
        app_dir = next((tmp_path / "work" / "runs").glob(f"run{run_id}-*"))
        # beside it: a CLI run (its own samples streaming too) and an import
        cli_run = await asyncio.to_thread(
            subprocess.Popen,
            [*CLI, "run", "--host", "side", "--build", "sqlite-sync", "--workload", WORKLOAD, "--time", "4"],
            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
        waits, lags = [], []
        for _ in range(3):
            read = await _run(sys.executable, "-c", READ_QUEUED, str(db), str(run_id), env=env)
            assert read.returncode == 0, read.stderr
            waited, _wall, newest = read.stdout.split()
            remote = _intervals(app_dir)
            if newest != "None" and remote and app_run() == run_id:
                waits.append(float(waited))
                lags.append(max(remote) - float(newest))
            await asyncio.sleep(0.5)
        imported = await _run(*_import_argv("other"), env=env)
        assert imported.returncode == 0, imported.stderr
        out, _ = await asyncio.to_thread(cli_run.communicate, timeout=RUN_WAIT_S)
        assert cli_run.returncode == 0, out
        await wait_for(pilot, lambda: app.hub.outcomes, "the app's run to end", RUN_WAIT_S)
        assert app.hub.outcomes[0].status == "finished"
    print(f"reader waits {waits} s, lags {lags} s")
    assert waits, "no read while the app's run streamed"
    assert max(waits) < 1.0, waits  # what the app's hold cost a reader (see test_store_sharing)
    assert max(lags) <= 2.0, lags
    m = re.search(r"^run (\d+) finished", out, re.M)
    assert m, out
    cli_dir = next((tmp_path / "work" / "runs").glob(f"run{m.group(1)}-*"), None) or _cli_dir(
        tmp_path, m.group(1)
    )
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        for rid, d in ((run_id, app_dir), (int(m.group(1)), cli_dir)):
            stored = [r[0] for r in con.execute(
                "SELECT t FROM bench_samples WHERE run_id = ? ORDER BY t", [rid]).fetchall()]  # fmt: skip
            assert stored == _intervals(d), f"run {rid}: every interval stored exactly once"
        hosts = {r[0] for r in con.execute("SELECT host FROM run_results").fetchall()}
    finally:
        con.close()
    assert hosts == {"local", "side", "other"}


def _intervals(run_dir: Path) -> list[float]:
    out = run_dir / "bench.out"
    text = out.read_text() if out.exists() else ""
    return [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", text, re.M)]


def _cli_dir(tmp_path: Path, run_id: str) -> Path:
    found = list(tmp_path.rglob(f"run{run_id}-*"))
    assert found, f"no run directory of run {run_id}"
    return found[0]
