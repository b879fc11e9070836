"""A run on a cluster whose benchdeck is killed (SIGKILL) mid-run: ``benchdeck resume`` follows
the replica's sources again, so every lag line the probe wrote (while nobody followed too) is
stored exactly once; ``benchdeck cancel`` stops the probes on the node hosts with the run.
Real managed MariaDB primary and replica on this machine, real sysbench writes."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchdeck.engine.cluster.lag_parse import LagParser
from tests.cli.test_cluster_cli import BUILD, env_for, managed_inventory
from tests.fixtures.cli_helpers import CLI, ROOT, bd, db_rows, remote_output
from tests.fixtures.servers import free_port

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def inventory() -> Iterator[str]:
    """One managed primary+replica for the module (the first run brings it up); killed after."""
    work = Path(tempfile.mkdtemp(prefix="bd-clr-"))
    yield managed_inventory(work, {"p": free_port(), "r1": free_port()})
    for pid_file in work.glob("servers/*/benchdeck-run/mysqld.pid"):
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)


def killed_after(env: dict[str, str], seconds: int, intervals: int) -> int:
    """Start ``run --cluster`` for ``seconds``; SIGKILL it once it printed ``intervals``; its run id."""
    argv = [*CLI, "run", "--cluster", "loop", "--build", BUILD, "--workload", "write-only",
            "--time", str(seconds), "--threads", "1", "--tables", "1", "--table-size", "2000"]  # fmt: skip
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    run_id, out = None, []
    for line in proc.stdout:
        out.append(line)
        if m := re.match(rf"\[run (\d+)\] {intervals}s qps", line):
            run_id = int(m.group(1))
            break
    proc.send_signal(signal.SIGKILL)  # benchdeck dies; the run and the nodes' probes go on
    proc.wait(timeout=10)
    assert run_id is not None, "".join(out)
    return run_id


def wait_intervals(env: dict[str, str], run_id: int, n: int) -> None:
    """Until sysbench (followed by nobody) wrote ``n`` intervals."""
    deadline = time.monotonic() + 60
    while len(re.findall(r"^\[ \d+s \] thds:", remote_output(env, run_id), re.M)) < n:
        assert time.monotonic() < deadline, "sysbench went on writing intervals"
        time.sleep(0.1)


def node_procs(env: dict[str, str], run_id: int) -> list[dict[str, object]]:
    """The node sources the store recorded for the run (beside its own processes)."""
    ((procs,),) = db_rows(env, "SELECT procs FROM remote_runs WHERE run_id = ?", [run_id])
    return [p for p in json.loads(str(procs)) if "node" in p]


def test_a_resumed_cluster_run_stores_every_lag_line_once(tmp_path: Path, inventory: str) -> None:
    env = env_for(tmp_path, inventory)
    run_id = killed_after(env, 10, 2)
    wait_intervals(env, run_id, 6)  # lag lines nobody follows, only in the probe's file
    before = db_rows(env, "SELECT max(t) FROM replica_lag WHERE run_id = ?", [run_id])[0][0]

    r = bd(env, "resume", timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    ((status,),) = db_rows(env, "SELECT status FROM runs WHERE run_id = ?", [run_id])
    assert status == "finished", r.stdout
    ((remote_dir,),) = db_rows(env, "SELECT remote_dir FROM remote_runs WHERE run_id = ?", [run_id])
    text = Path(str(remote_dir), "r1.lag.out").read_text()
    stored = [t for (t,) in db_rows(env, "SELECT t FROM replica_lag WHERE run_id = ? ORDER BY t", [run_id])]
    assert len(stored) == len(text.splitlines()), "one row per probe line"
    nodes = node_procs(env, run_id)  # what resume followed again
    assert sorted(str(n["what"]) for n in nodes) == ["iostat", "lag", "vmstat"]
    (lag,) = [n for n in nodes if n["what"] == "lag" and n["node"] == "r1"]
    parser = LagParser(str(lag["probe"]), ["r1"], float(str(lag["t0"])) + float(str(lag["skew"])))
    in_file = [s.t for line in text.splitlines() for s in parser.feed(line)[0]]
    assert stored == in_file, "every lag line of the probe's file stored exactly once"
    measured = [t for t in stored if t >= 0]
    assert measured[0] < 1.5, measured  # the whole 10 s run
    assert measured[-1] >= 8, measured
    assert max(b - a for a, b in itertools.pairwise(measured)) < 1.6, measured
    assert before is None or float(str(before)) < 6 <= measured[-1]  # rows after the kill came back
    vm = db_rows(env, "SELECT count(*) FROM node_vmstat_samples WHERE run_id = ? AND node = 'r1'", [run_id])
    assert int(str(vm[0][0])) >= 9


def test_cancelling_a_cluster_run_stops_the_node_probes(tmp_path: Path, inventory: str) -> None:
    env = env_for(tmp_path, inventory)
    run_id = killed_after(env, 60, 2)
    ((remote_dir,),) = db_rows(env, "SELECT remote_dir FROM remote_runs WHERE run_id = ?", [run_id])
    pgids = {f.name: int(f.read_text()) for f in Path(str(remote_dir)).glob("r1.*.pgid")}
    assert sorted(pgids) == ["r1.iostat.pgid", "r1.lag.pgid", "r1.vmstat.pgid"]
    assert all(alive(g) for g in pgids.values())

    r = bd(env, "cancel", str(run_id), timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    deadline = time.monotonic() + 10  # (TERM: each group exits within its current second)
    while left := [name for name, g in pgids.items() if alive(g)]:
        assert time.monotonic() < deadline, f"still running after cancel: {left}"
        time.sleep(0.1)
    ((status,),) = db_rows(env, "SELECT status FROM runs WHERE run_id = ?", [run_id])
    assert status == "cancelled"


def alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True
