"""``benchdeck cancel`` of a run whose benchdeck was killed: every interval the remote files
hold is stored first, then the run is marked cancelled (real sshd, MariaDB, sysbench)."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import CLI, ROOT, bd, db_rows, remote_output, ssh_env
from tests.fixtures.servers.mariadb import MariaDBServer
from tests.fixtures.servers.sshd import SshdServer

pytestmark = pytest.mark.integration  # real sshd and MariaDB

BUILD = "ma101119_rel"
WORKLOAD = "point-query_range=100"


def interval_ts(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", text, re.M)]


def test_cancel_after_benchdeck_was_killed_stores_every_interval(
    tmp_path: Path, sshd_server: SshdServer, mariadb_server: MariaDBServer
) -> None:
    env = ssh_env(tmp_path, sshd_server, mariadb_server, BUILD, database=mariadb_server.database,
                  host_keys="threads = 1\ntables = 1\ntable_size = 10000")  # fmt: skip
    run = [*CLI, "run", "--host", "sshd", "--build", BUILD, "--workload", WORKLOAD, "--time", "60"]
    proc = subprocess.Popen(
        run, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    run_id, seen = None, 0
    for line in proc.stdout:
        if m := re.match(r"\[run (\d+)\] \d+s qps", line):
            run_id, seen = int(m.group(1)), seen + 1
            if seen == 3:
                break
    assert run_id is not None, "benchdeck printed samples"
    proc.send_signal(signal.SIGKILL)  # benchdeck dies; the remote sysbench goes on
    proc.wait(timeout=10)
    deadline = time.monotonic() + 60
    while len(interval_ts(remote_output(env, run_id))) < 8:  # intervals no benchdeck stored
        assert time.monotonic() < deadline, "sysbench went on writing intervals"
        time.sleep(0.1)

    r = bd(env, "cancel", str(run_id))
    assert r.returncode == 0, r.stdout + r.stderr
    text = remote_output(env, run_id)
    ts = interval_ts(text)
    stored = [t for (t,) in db_rows(env, "SELECT t FROM bench_samples WHERE run_id = ? ORDER BY t", [run_id])]
    assert stored == ts, "every interval line of the remote file stored exactly once"
    assert f"run {run_id} cancelled: {len(ts)} interval(s) stored" in r.stdout, r.stdout
    assert "General statistics" not in text, "sysbench was stopped early"
    ((status, n_vm),) = db_rows(
        env,
        "SELECT status, (SELECT count(*) FROM vmstat_samples WHERE run_id = $r) FROM runs WHERE run_id = $r",
        {"r": run_id},
    )
    assert status == "cancelled"
    assert n_vm >= 7, "the monitors' samples are backfilled too"
    assert bd(env, "resume").stdout.strip() == "nothing to resume"
