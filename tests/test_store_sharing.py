"""A store shared between processes while ``benchdeck run`` streams into it.

Real processes throughout: the run is the real CLI on the built-in SQLite workload (local
transport, real vmstat/iostat), the reader is a plain DuckDB connection as a user's script or
the DuckDB CLI would open, and the second writer is a real ``benchdeck import``.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import duckdb

from tests.cli_helpers import CLI, ROOT, bd

RECORDED = ROOT / "tests" / "data" / "recorded"


def _env(tmp_path: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    # No inventory file: the built-in `local` host; run directories under this HOME.
    e.update(BENCHDECK_DB=str(tmp_path / "bd.duckdb"), HOME=str(tmp_path), PYTHONPATH=str(ROOT))
    return e


def _open_reader(db: Path, deadline_s: float) -> tuple[duckdb.DuckDBPyConnection, float]:
    """Open read-only as any DuckDB user would, retrying on the lock; returns the wait."""
    t0 = time.monotonic()
    while True:
        try:
            return duckdb.connect(str(db), read_only=True), time.monotonic() - t0
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise
            assert time.monotonic() - t0 < deadline_s, f"no read-only open within {deadline_s} s"


def _remote_intervals(run_dir: Path) -> list[float]:
    text = (run_dir / "bench.out").read_text() if (run_dir / "bench.out").exists() else ""
    return [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", text, re.M)]


def test_readers_and_a_second_writer_get_the_store_while_a_run_streams(tmp_path: Path) -> None:
    env = _env(tmp_path)
    db = Path(env["BENCHDECK_DB"])
    run = subprocess.Popen(
        [*CLI, "run", "--host", "local", "--build", "sqlite", "--workload", "read-only_range=10",
         "--time", "12"],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert run.stdout is not None
    run_dir: Path | None = None
    for line in run.stdout:
        m = re.search(r"measuring on local \((.+)\)", line)
        if m:
            run_dir = Path(m.group(1))
            break
    assert run_dir is not None, "the run never reached its measured step"

    waits, lags = [], []
    imported = None
    while run.poll() is None and len(waits) < 6:
        time.sleep(0.5)  # a user's reads are paced, not a tight loop that starves the writer
        con, waited = _open_reader(db, 1.0)
        try:
            row = con.execute("SELECT max(t), count(*) FROM bench_samples").fetchone()
        finally:
            con.close()
        remote = _remote_intervals(run_dir)
        if row and row[0] is not None and remote:
            waits.append(waited)
            lags.append(max(remote) - float(row[0]))
        if imported is None and len(waits) >= 2:
            imported = bd(
                env, "import", "sysbench", str(RECORDED / "sysbench_oltp_point_select.txt"),
                "--host", "other", "--build", "my8028_rel_o2nofp", "--workload", "point-query_range=100",
            )  # fmt: skip
    rest = run.stdout.read()
    assert run.wait(timeout=60) == 0, rest
    assert len(waits) >= 3, (waits, lags, rest)
    assert max(waits) < 1.0
    # The file's newest interval is at most 2 s ahead of the store (1 s batches + the flush).
    assert max(lags) <= 2.0, lags
    assert imported is not None
    assert imported.returncode == 0, imported.stderr
    m = re.search(r"^run (\d+) finished", rest, re.M)
    assert m, rest
    con = duckdb.connect(str(db), read_only=True)
    try:
        stored = [r[0] for r in con.execute(
            "SELECT t FROM bench_samples WHERE run_id = ? ORDER BY t", [int(m.group(1))]
        ).fetchall()]  # fmt: skip
        hosts = {r[0] for r in con.execute("SELECT host FROM run_results").fetchall()}
    finally:
        con.close()
    assert stored == _remote_intervals(run_dir), "every interval stored exactly once"
    assert hosts == {"local", "other"}
