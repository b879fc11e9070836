"""A store shared between processes while ``benchdeck run`` streams into it.

Real processes throughout: the run is the real CLI on the built-in SQLite workload (local
transport, real vmstat/iostat), the reader is a plain DuckDB connection as a user's script or
the DuckDB CLI would open (queued on the file's lock first), and the second writer is a real
``benchdeck import``.
"""

from __future__ import annotations

import fcntl
import os
import re
import signal
import struct
import subprocess
import time
from pathlib import Path

import duckdb
import pytest

from tests.fixtures.cli_helpers import CLI, ROOT, bd

pytestmark = pytest.mark.integration  # a real run beside the reader

RECORDED = ROOT / "tests" / "data" / "recorded"


def _env(tmp_path: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    # No inventory file: the built-in `local` host; run directories under this HOME.
    e.update(BENCHDECK_DB=str(tmp_path / "bd.duckdb"), HOME=str(tmp_path), PYTHONPATH=str(ROOT))
    return e


FLOCK = struct.Struct("hhqqi4x")  # Linux's struct flock: type, whence, start, len, pid


def _run_delay() -> float:
    """Seconds this thread has been runnable without a CPU so far (the kernel's schedstat)."""
    return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9


def _no_store_within_60_s(signum: int, frame: object) -> None:
    raise AssertionError("the writer held the store for 60 s")


def _open_reader(db: Path) -> tuple[duckdb.DuckDBPyConnection, float, float]:
    """Open read-only as any DuckDB user would, once the writer lets go of the file: returns
    the connection, the wait the writer's hold caused (with the open's own work), and the wall
    time it all took.

    The reader queues on the file's lock in the kernel instead of retrying the open: a shared
    OFD lock (blocking) on the whole file is granted once the writer's exclusive one (DuckDB
    takes a POSIX write lock) is gone, and kept over the open so the writer cannot take the
    file back in between (DuckDB's own read lock keeps it after). Queued, the thread sleeps;
    granted, it is runnable, and what it then waits for a CPU is the scheduler's, not the
    writer's: schedstat's run_delay, taken off the wall time.
    """
    fd = os.open(db, os.O_RDONLY)
    try:
        t0, delay0 = time.monotonic(), _run_delay()
        handler = signal.signal(signal.SIGALRM, _no_store_within_60_s)
        signal.alarm(60)  # a writer that never lets go fails the test, not hangs it
        try:
            fcntl.fcntl(fd, fcntl.F_OFD_SETLKW, FLOCK.pack(fcntl.F_RDLCK, os.SEEK_SET, 0, 0, 0))
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, handler)
        con = duckdb.connect(str(db), read_only=True)
        wall, delay = time.monotonic() - t0, _run_delay() - delay0
    finally:
        os.close(fd)  # the OFD lock goes; DuckDB's read lock holds the file for the connection
    return con, wall - delay, wall


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

    waits: list[float] = []
    walls: list[float] = []
    lags: list[float] = []
    imported = None
    while run.poll() is None and len(waits) < 6:
        time.sleep(0.5)  # a user's reads are paced, not a tight loop that starves the writer
        con, waited, wall = _open_reader(db)
        try:
            row = con.execute("SELECT max(t), count(*) FROM bench_samples").fetchone()
        finally:
            con.close()
        remote = _remote_intervals(run_dir)
        if row and row[0] is not None and remote:
            waits.append(waited)
            walls.append(wall)
            lags.append(max(remote) - float(row[0]))
        if imported is None and len(waits) >= 2:
            imported = bd(
                env, "import", "sysbench", str(RECORDED / "sysbench_oltp_point_select.txt"),
                "--host", "other", "--build", "my8028_rel_o2nofp", "--workload", "point-query_range=100",
            )  # fmt: skip
    rest = run.stdout.read()
    assert run.wait(timeout=60) == 0, rest
    assert len(waits) >= 3, (waits, lags, rest)
    # The promise: a reader gets the store within 1 s of asking while a run streams. Measured
    # is what our writer's hold (and the open's own work) cost the reader; the wall time also
    # holds the reader's run-queue time, which on a loaded machine is most of it (a reader
    # retrying the open measured 0.86 s of which 0.80 s runnable without a CPU, at load 20):
    # asserted on the wall, this failed 2 times in 9 at load 20.
    assert max(waits) < 1.0, (waits, walls)
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
