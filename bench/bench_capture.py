"""Benchmark: what ``--profile`` costs the benchmark with its default cadence, as QPS and the
server's CPU per query with and without each capture kind.

How it measures, its targets and its history: docs/performance.md (bench_capture.py).

    python bench/bench_capture.py [--seconds 90] [--repeats 5] [--workloads mariadb]
                                  [--window 10] [--period P] [--hz 99]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import Figure, record
from benchdeck.engine.dispatch.planner import make_plan
from benchdeck.engine.events import BenchBatch, CaptureBatch, RunFailed, RunFinished, RunStarted
from benchdeck.engine.families.sysbench.command import SysbenchCommand
from benchdeck.engine.hosts.inventory import local_host
from benchdeck.engine.planning.plan import RunOptions, RunPlan, RunRequest
from benchdeck.engine.profiling.capture import CaptureOptions, capture_plan
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.transport.local import LocalTransport

WORKLOAD = "point-query_range=100"
MODES = ("none", "counters", "cpu")
SKIP_S = 3.0  # the run's first seconds (connections, caches) count neither inside nor outside
TAIL_S = {"counters": 1.0, "cpu": 3.0}  # after a window: perf's exit (cpu: and the folding)


def capture(mode: str, a: argparse.Namespace) -> CaptureOptions | None:
    if mode == "none":
        return None
    return CaptureOptions((mode,), window_s=a.window, period_s=a.period, frequency_hz=a.hz)


Span = tuple[float, float, float]
"""(from, to, amount) on the run's clock: queries of a per-second sample, or server CPU seconds."""


@dataclass(frozen=True, slots=True)
class Measured:
    """One run: its QPS, the server's CPU per query, its queries and the server's CPU as spans
    of the run's clock (per-second samples; /proc every 0.5 s) and its windows (start, seconds)."""

    qps: float
    cpu_per_q: float | None
    queries: tuple[Span, ...]
    cpu: tuple[Span, ...]
    windows: tuple[tuple[float, float], ...]


def in_out(spans: Sequence[Span], windows: Sequence[tuple[float, float]], tail: float) -> tuple[float, float]:
    """(rate inside, rate outside): the amount per second of the spans that lie inside a window
    and of those that touch no window nor its ``tail`` (the run's first SKIP_S left out)."""
    got = {True: [0.0, 0.0], False: [0.0, 0.0]}
    for a, b, x in spans:
        if a < SKIP_S:
            continue
        if any(s <= a and b <= s + d for s, d in windows):
            side = got[True]
        elif not any(b > s and a < s + d + tail for s, d in windows):
            side = got[False]
        else:
            continue
        side[0] += x
        side[1] += b - a
    return tuple(x / t if t else math.nan for x, t in (got[True], got[False]))  # type: ignore[return-value]


def in_window(run: Measured, none: Measured, tail: float) -> tuple[float, float]:
    """(QPS, server CPU per query) inside the run's windows over outside them, each over the
    same ratio of ``none`` at the same seconds (the placebo: what the seconds' place does)."""

    def ratios(m: Measured) -> tuple[float, float]:
        (qi, qo), (ci, co) = in_out(m.queries, run.windows, tail), in_out(m.cpu, run.windows, tail)
        return qi / qo, (ci / qi) / (co / qo) if m.cpu else math.nan

    (q, c), (nq, nc) = ratios(run), ratios(none)
    return q / nq, c / nc


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
        c, files = capture_plan(opts, (f"port:{port}",), False, d, local=True, run_s=seconds)
        return replace(
            p, capture=c, files=files, prepare_argv=tuple(cmd.prepare_argv()) if rid == 1 else None
        )

    return plan


async def run_once(plan: RunPlan, server_pid: int | None) -> Measured:
    runner = Runner(LocalTransport(), plan)
    qps, cpu0, seconds = None, _cpu(server_pid), float(plan.duration_s)
    queries: list[Span] = []
    windows: list[tuple[float, float]] = []
    ticks: list[tuple[float, float]] = []  # (monotonic, server CPU seconds)
    sampler: asyncio.Task[None] | None = None

    async def sample(pid: int) -> None:
        while True:  # a bench's sampler: /proc has nothing to wait on
            ticks.append((time.monotonic(), _cpu(pid) or 0.0))
            await asyncio.sleep(0.5)

    t0 = time.monotonic()
    async for ev in runner.events():
        if isinstance(ev, RunStarted):  # the bench and the capture loop just started
            t0 = time.monotonic()
            if server_pid is not None:
                sampler = asyncio.create_task(sample(server_pid))
        elif isinstance(ev, RunFinished):
            qps = ev.qps
        elif isinstance(ev, BenchBatch):
            queries += [(r.t - 1, r.t, r.qps) for r in ev.rows if r.qps is not None]
        elif isinstance(ev, CaptureBatch):
            windows += [(w.start_s or 0.0, w.seconds) for w in (*ev.counters, *ev.profiles)]
        elif isinstance(ev, RunFailed):
            raise SystemExit(f"FAIL run {plan.run_id}: {ev.error}")
    if sampler is not None:
        sampler.cancel()
    assert qps is not None
    cpu1 = _cpu(server_pid)
    # the whole run's server CPU over its measured queries: prepare-free runs, a few % idle
    # before and after the measured seconds are the same in every mode
    per_q = None if cpu0 is None or cpu1 is None or not qps else (cpu1 - cpu0) / (qps * seconds) * 1e6
    cpu = tuple((a - t0, b - t0, y - x) for (a, x), (b, y) in itertools.pairwise(ticks))
    return Measured(qps, per_q, tuple(queries), cpu, tuple(windows))


def _cpu(pid: int | None) -> float | None:
    """utime + stime of ``pid`` in seconds (proc(5))."""
    if pid is None:
        return None
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def interval(ratios: list[float], n: int = 2000) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval of the median of the per-repeat ratios."""
    rng = random.Random(26)
    meds = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(n))
    return meds[int(0.025 * n)], meds[int(0.975 * n) - 1]


async def bench(
    name: str,
    make: Callable[[int, CaptureOptions | None], RunPlan],
    a: argparse.Namespace,
    server_pid: int | None = None,
) -> list[Figure]:
    await run_once(make(1, None), None)  # prepares the tables (run 1), warms the caches: not measured
    rid = 1
    got: dict[str, list[Measured]] = {m: [] for m in MODES}
    for r in range(a.repeats):
        for mode in MODES[r % 3 :] + MODES[: r % 3]:
            rid += 1
            got[mode].append(await run_once(make(rid, capture(mode, a)), server_pid))
        line = "  ".join(f"{m} {got[m][-1].qps:,.0f}" for m in MODES)
        print(f"{name} repeat {r + 1}: {line}  load {os.getloadavg()[0]:.1f}", flush=True)
    none = got["none"]
    figures = []
    for mode in MODES[1:]:
        runs = got[mode]
        figures.append(
            Figure(
                f"{name}, {mode} capture: whole-run QPS",
                statistics.median(m.qps for m in runs),
                "QPS",
                statistics.median(m.qps for m in none),
                "no capture",
            )
        )
        print(f"{name:8} {mode:8} {_ratio('QPS', [m.qps for m in runs], [m.qps for m in none])}", flush=True)
        if all(m.cpu_per_q is not None for m in (*runs, *none)):
            cpu = _ratio(
                "server CPU/query", [m.cpu_per_q or 0 for m in runs], [m.cpu_per_q or 0 for m in none]
            )
            print(f"{name:8} {mode:8} {cpu}", flush=True)
            figures.append(
                Figure(
                    f"{name}, {mode} capture: whole-run server CPU per query",
                    statistics.median(m.cpu_per_q or 0 for m in runs),
                    "µs",
                    statistics.median(m.cpu_per_q or 0 for m in none),
                    "no capture",
                )
            )
        inw = [in_window(m, n, TAIL_S[mode]) for m, n in zip(runs, none, strict=True)]
        duty = statistics.median(sum(d for _, d in m.windows) / a.seconds for m in runs)
        nwin = statistics.median(len(m.windows) for m in runs)
        print(f"{name:8} {mode:8} {nwin:g} windows, duty {duty:.1%} [{a.repeats} x {a.seconds} s]")
        for k, what in enumerate(("QPS", "server CPU/query")):
            xs = [x[k] for x in inw if not math.isnan(x[k])]
            if xs:
                print(
                    f"{name:8} {mode:8} in-window {what} x{statistics.median(xs):.3f} [{_fmt(interval(xs))}]"
                )
                figures.append(
                    Figure(
                        f"{name}, {mode} capture: in-window {what}",
                        statistics.median(xs),
                        "x the uncaptured run's same seconds",
                    )
                )
    return figures


def _ratio(what: str, mode: list[float], none: list[float]) -> str:
    ratios = [c / n for c, n in zip(mode, none, strict=True)]
    return (
        f"whole-run {what} {statistics.median(mode):,.1f} vs none {statistics.median(none):,.1f}: "
        f"x{statistics.median(ratios):.3f} [{_fmt(interval(ratios))}]"
    )


def _fmt(ci: tuple[float, float]) -> str:
    return f"{ci[0]:.3f}, {ci[1]:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=90)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--workloads", default="mariadb", help="mariadb, builtin or both")
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--period", type=float, default=None, help="default: each kind's (capture.py)")
    ap.add_argument("--hz", type=int, default=99)
    a = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)", flush=True)
    subprocess.run(["uptime"], check=False)
    figures = []
    with tempfile.TemporaryDirectory(prefix="bench-capture-") as tmp:
        work = Path(tmp)
        if "builtin" in a.workloads:
            figures += asyncio.run(bench("builtin", builtin_plans(work / "bi", a.seconds), a))
        if "mariadb" in a.workloads:
            from tests.fixtures.servers.mariadb import start_mariadb

            db = start_mariadb()
            try:
                make = mariadb_plans(work / "ma", a.seconds, db.sysbench_args(), db.port)
                figures += asyncio.run(bench("mariadb", make, a, db.pid))
            finally:
                db.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    subprocess.run(["uptime"], check=False)
    record("bench_capture", figures, a)


if __name__ == "__main__":
    main()
