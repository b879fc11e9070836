"""Benchmark: what an open ``perf stat -p`` window costs MariaDB, by the number of events open
per thread (issue 26: does rotating small event groups per window, as the seed author's
doperf1 does, cut the in-window cost?).

How it measures, its targets and its history: docs/performance.md (bench_perf_events.py).

    python bench/bench_perf_events.py [--seconds 8] [--repeats 8]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_capture import interval
from bench.results import Figure, record
from benchdeck.engine.profiling.capture import DEFAULT_EVENTS

MODES: dict[str, str | None] = {
    "none": None,
    "1": "task-clock",
    "4": "task-clock,context-switches,cpu-migrations,page-faults",
    "14": ",".join(DEFAULT_EVENTS),
}


def _cpu(pid: int) -> float:
    """utime + stime of ``pid`` in seconds (proc(5))."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one(sb: list[str], pid: int, events: str | None, seconds: int) -> tuple[float, float]:
    """(QPS, server CPU microseconds per query) of one sysbench run inside one perf window."""
    perf = None
    if events is not None:
        argv = ["perf", "stat", "-x,", "-o", "/dev/null", "-e", events, "-p", str(pid)]
        perf = subprocess.Popen([*argv, "--", "sleep", str(seconds + 30)], stderr=subprocess.DEVNULL)
        time.sleep(0.5)  # perf attaches (its counters open) before the first query
    cpu0 = _cpu(pid)
    out = subprocess.run([*sb, f"--time={seconds}", "run"], capture_output=True, text=True, check=True).stdout
    cpu1 = _cpu(pid)
    if perf is not None:
        perf.terminate()
        perf.wait()
    queries = int(re.search(r"queries:\s+(\d+)", out).group(1))  # type: ignore[union-attr]
    return queries / seconds, (cpu1 - cpu0) / queries * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=8)
    a = ap.parse_args()
    from tests.fixtures.servers.mariadb import start_mariadb

    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)", flush=True)
    db = start_mariadb()
    try:
        sb = ["sysbench", "oltp_point_select", *db.sysbench_args(), "--threads=2", "--tables=1"]
        sb += ["--table-size=20000"]
        subprocess.run([*sb, "prepare"], capture_output=True, check=True)
        one(sb, db.pid, None, 2)  # warms the buffer pool: not measured
        names = list(MODES)
        qps: dict[str, list[float]] = {m: [] for m in names}
        cpu: dict[str, list[float]] = {m: [] for m in names}
        for r in range(a.repeats):
            for m in names[r % len(names) :] + names[: r % len(names)]:
                q, c = one(sb, db.pid, MODES[m], a.seconds)
                qps[m].append(q)
                cpu[m].append(c)
            line = "  ".join(f"{m}: {qps[m][-1]:,.0f} q/s {cpu[m][-1]:.1f} us/q" for m in names)
            print(f"repeat {r + 1}: {line}  load {os.getloadavg()[0]:.1f}", flush=True)
        figures = []
        for m in names[1:]:
            cr = [c / n for c, n in zip(cpu[m], cpu["none"], strict=True)]
            qr = [c / n for c, n in zip(qps[m], qps["none"], strict=True)]
            (clo, chi), (qlo, qhi) = interval(cr), interval(qr)
            print(
                f"events {m:>2}: server CPU/query x{statistics.median(cr):.3f} [{clo:.3f}, {chi:.3f}]"
                f"  QPS x{statistics.median(qr):.3f} [{qlo:.3f}, {qhi:.3f}]"
                f"  ({a.repeats} repeats of {a.seconds} s)"
            )
            what = f"perf stat -p, {m} events a thread"
            figures.append(Figure(f"{what}: server CPU per query", statistics.median(cr), "x no perf"))
            figures.append(Figure(f"{what}: QPS", statistics.median(qr), "x no perf"))
    finally:
        db.stop()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    record("bench_perf_events", figures, a)


if __name__ == "__main__":
    main()
