"""``benchdeck queue`` says where it is (k/N, build, workload, ETA), and ``benchdeck cancel
--queue N`` stops the whole queue while another benchdeck runs it (it holds the store)."""

from __future__ import annotations

import re
import subprocess

import pytest

from tests.fixtures.cli_helpers import CLI, ROOT, bd, db_rows
from tests.runlife.conftest import MARIADB, WORKLOAD

pytestmark = pytest.mark.integration  # real runs


def test_cancel_queue_while_another_benchdeck_runs_it(env: dict[str, str]) -> None:
    argv = [*CLI, "queue", "--host", "sshd", "--build", MARIADB, "--time", "30"]
    argv += [
        "--workload",
        WORKLOAD,
        "--workload",
        "points-covered-si_range=100",
        "--workload",
        "scan_range=100",
    ]
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if re.match(r"\[run \d+\] \d+s qps", line):  # the first run is measuring
            break
    queue_line = next((ln for ln in lines if "queue: " in ln), "")
    assert re.fullmatch(rf"\[run 1\] queue: 1/3 {MARIADB} {re.escape(WORKLOAD)} ETA 2m15s\n", queue_line), (
        "".join(lines)
    )

    r = bd(env, "cancel", "--queue", "1")
    assert r.returncode == 0, r.stdout + r.stderr
    # the running benchdeck holds the store only per batch: the waiting items are cancelled in it
    # directly (the request file is for a store held throughout, e.g. by the app)
    assert r.stdout.startswith("queue 1 cancelled: 2 waiting run(s) cancelled; run 1 "), r.stdout
    assert "(the benchdeck following it records the end)" in r.stdout
    out, _ = proc.communicate(timeout=60)
    assert re.search(r"^run 1 cancelled", out, re.M), out
    assert "run 2" not in out, "no further run of the queue started"
    assert proc.returncode == 1
    statuses = db_rows(env, "SELECT status, run_id FROM queue_items WHERE queue_id = 1 ORDER BY position")
    assert statuses == [("cancelled", 1), ("cancelled", None), ("cancelled", None)]
    assert bd(env, "cancel", "--queue", "7").stderr.strip() == "benchdeck: there is no queue 7"
    assert bd(env, "cancel").returncode == 2


def test_cancel_queue_with_nobody_running_it(env: dict[str, str]) -> None:
    from benchdeck.store.storage.db import Store
    from benchdeck.store.storage.queue import create_queue

    with Store.open(env["BENCHDECK_DB"]) as store, store.transaction() as cur:
        qid = create_queue(cur, ["sshd"], [MARIADB], [WORKLOAD, WORKLOAD], {})
    r = bd(env, "cancel", "--queue", str(qid))
    assert r.returncode == 0, r.stderr
    said = (
        f"queue {qid} cancelled: 2 waiting run(s) cancelled; no run was running (0 process group(s) stopped)"
    )
    assert r.stdout.strip() == said
    assert bd(env, "resume").stdout.strip() == "nothing to resume"
