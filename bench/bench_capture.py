"""Benchmark: what ``--profile`` costs the benchmark, as QPS with and without each capture kind.

Targets (issue 26): < 1% of QPS for ``counters`` (perf stat, 10 s windows), < 3% for ``cpu``
(perf record -g at 99 Hz, folded on the host after each window). Each repeat runs the three
modes (``none``, ``counters``, ``cpu``) back to back on the same workload, in a rotated order,
so every mode sees the same load; a mode's cost is the median over repeats of its QPS over
the same repeat's ``none``. Two workloads: the built-in SQLite workload (the benchmark process
is the target) and sysbench point-query against a private MariaDB (the server is the target,
found by its port), both on this machine through benchdeck's runner (LocalTransport).

    python bench/bench_capture.py [--seconds 20] [--repeats 3] [--workloads builtin,mariadb]
                                  [--window 10] [--hz 99]

On the shared 2-core VM the load of other work moves QPS by several % between runs: read the
spread (min-max of the per-repeat ratios) beside the median before reading a 1% difference.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchdeck.engine.events import RunFailed, RunFinished
from benchdeck.engine.families.sysbench.command import SysbenchCommand
from benchdeck.engine.hosts.inventory import local_host
from benchdeck.engine.planning.plan import RunOptions, RunPlan, RunRequest
from benchdeck.engine.planning.planner import make_plan
from benchdeck.engine.profiling.capture import CaptureOptions, capture_plan
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.transport.local import LocalTransport

WORKLOAD = "point-query_range=100"
MODES = ("none", "counters", "cpu")


def capture(mode: str, window: float, hz: int) -> CaptureOptions | None:
    return (
        None if mode == "none" else CaptureOptions((mode,), window_s=window, period_s=window, frequency_hz=hz)
    )


def builtin_plans(work: Path, seconds: int) -> Callable[[int, CaptureOptions | None], RunPlan]:
    host = replace(local_host(), workdir=str(work), threads=2, table_size=20000)

    def plan(rid: int, opts: CaptureOptions | None) -> RunPlan:
        d = tempfile.mkdtemp(prefix=f"run{rid}-", dir=work / "runs")
        req = RunRequest("local", "sqlite", WORKLOAD, RunOptions(duration_s=seconds, capture=opts))
        return make_plan(rid, host, None, req, d, None)

    (work / "runs").mkdir(parents=True, exist_ok=True)
    return plan


def mariadb_plans(
    work: Path, seconds: int, args: list[str], port: int
) -> Callable[[int, CaptureOptions | None], RunPlan]:
    cmd = SysbenchCommand(WORKLOAD, tuple(args), threads=2, tables=1, table_size=20000)
    work.mkdir(parents=True, exist_ok=True)

    def plan(rid: int, opts: CaptureOptions | None) -> RunPlan:
        d = tempfile.mkdtemp(prefix=f"run{rid}-", dir=work)
        p = RunPlan(rid, "local", WORKLOAD, d, tuple(cmd.run_argv(seconds)), seconds, ncpu=os.cpu_count())
        c, files = capture_plan(opts, (f"port:{port}",), False, d, local=True)
        return replace(
            p, capture=c, files=files, prepare_argv=tuple(cmd.prepare_argv()) if rid == 1 else None
        )

    return plan


async def run_once(plan: RunPlan) -> float:
    runner = Runner(LocalTransport(), plan)
    qps = None
    async for ev in runner.events():
        if isinstance(ev, RunFinished):
            qps = ev.qps
        elif isinstance(ev, RunFailed):
            raise SystemExit(f"FAIL run {plan.run_id}: {ev.error}")
    assert qps is not None
    return qps


async def bench(
    name: str, make: Callable[[int, CaptureOptions | None], RunPlan], a: argparse.Namespace
) -> None:
    rid = 0
    got: dict[str, list[float]] = {m: [] for m in MODES}
    for r in range(a.repeats):
        order = MODES[r % 3 :] + MODES[: r % 3]
        for mode in order:
            rid += 1
            got[mode].append(await run_once(make(rid, capture(mode, a.window, a.hz))))
        print(f"{name} repeat {r + 1}: " + "  ".join(f"{m} {got[m][-1]:,.0f}" for m in MODES), flush=True)
    for mode in MODES[1:]:
        ratios = [c / n for c, n in zip(got[mode], got["none"], strict=True)]
        cost = (1 - statistics.median(ratios)) * 100
        print(
            f"{name:8} {mode:8} QPS median {statistics.median(got[mode]):,.0f} vs none "
            f"{statistics.median(got['none']):,.0f}: cost {cost:+.2f}% "
            f"(per-repeat ratio {min(ratios):.3f}-{max(ratios):.3f}, {a.repeats} repeats)"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workloads", default="builtin,mariadb")
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--hz", type=int, default=99)
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as tmp:
        work = Path(tmp)
        if "builtin" in a.workloads:
            first = builtin_plans(work / "bi", a.seconds)
            asyncio.run(run_once(first(9999, None)))  # prepare the tables once, not measured
            asyncio.run(bench("builtin", first, a))
        if "mariadb" in a.workloads:
            from tests.servers.mariadb import start_mariadb

            db = start_mariadb()
            try:
                asyncio.run(
                    bench("mariadb", mariadb_plans(work / "ma", a.seconds, db.sysbench_args(), db.port), a)
                )
            finally:
                db.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
