"""After ``benchdeck resume`` reattaches, the CLI shows every backfilled interval (not only the
last of a batch) and says what was stored before; the Live model gets both too."""

from __future__ import annotations

import re
import signal
import subprocess
import time

import pytest

from benchdeck.engine.events import BenchBatch, Replayed
from benchdeck.tui.app.state.live_model import RunView
from tests.fixtures.cli_helpers import CLI, ROOT, bd, remote_output
from tests.runlife.conftest import MARIADB, WORKLOAD

pytestmark = pytest.mark.integration  # real runs


def interval_ts(text: str) -> list[float]:
    return [float(t) for t in re.findall(r"^\[ (\d+)s \] thds:", text, re.M)]


def test_resume_prints_every_backfilled_interval(env: dict[str, str]) -> None:
    argv = [*CLI, "run", "--host", "sshd", "--build", MARIADB, "--workload", WORKLOAD, "--time", "7"]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    run_id = None
    for line in proc.stdout:
        if m := re.match(r"\[run (\d+)\] 2s qps", line):
            run_id = int(m.group(1))
            break
    assert run_id is not None, "benchdeck printed two intervals"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    deadline = time.monotonic() + 30  # the benchmark goes on without benchdeck: let it write more
    while len(interval_ts(remote_output(env, run_id))) < 5 and time.monotonic() < deadline:
        time.sleep(0.2)

    r = bd(env, "resume")
    assert r.returncode == 0, r.stdout + r.stderr
    printed = [float(t) for t in re.findall(rf"^\[run {run_id}\] (\d+)s qps", r.stdout, re.M)]
    m = re.search(rf"^\[run {run_id}\] (\d+) intervals stored before, up to (\d+)s", r.stdout, re.M)
    assert m, r.stdout
    stored_before = int(m.group(2))
    all_ts = interval_ts(remote_output(env, run_id))
    assert printed == [t for t in all_ts if t > stored_before], r.stdout
    assert len(printed) >= 3, "several intervals came in one backfill batch"


def test_live_view_shows_samples_stored_before_reattaching() -> None:
    from benchdeck.engine.records import BenchInterval

    view = RunView(1)
    view.apply(Replayed(1, bench=(BenchInterval(1.0, 1, 10.0, 100.0), BenchInterval(2.0, 1, 11.0, 110.0))))
    view.apply(BenchBatch(1, (BenchInterval(3.0, 1, 12.0, 120.0),)))
    assert view.t == [1.0, 2.0, 3.0]
    assert view.qps == [100.0, 110.0, 120.0]
