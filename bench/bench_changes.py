"""Benchmark: change points of 1,000 workloads x 50 versions, beside Apache Otava on the same series.

How it measures, its targets and its history: docs/performance.md (bench_changes.py).

    python bench/bench_changes.py [--workloads 1000] [--versions 50] [--repeat 5]
    python bench/bench_changes.py --store /tmp/p29/arc.duckdb [--host hetz] [--repeat 15] [--cached-bytecode]
        [--before /tmp/before]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.archive_cli import bench_commands
from bench.results import Figure, record
from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.changepoints import Options, detect, worth_numpy
from benchdeck.store.analysis.change_series import load_series
from benchdeck.store.analysis.changes import analyse
from benchdeck.store.storage.db import Store
from tests.changes.otava_oracle import venv_python

OTAVA_TIMER = """
import json, sys, time
from otava.analysis import compute_change_points
job = json.load(sys.stdin)
wall, cpu = [], []
for _ in range(job["repeat"]):
    t, c = time.perf_counter(), time.process_time()
    out = [[int(c.index) for c in compute_change_points(s, max_pvalue=0.001, min_magnitude=0.05)[0]]
           for s in job["series"]]
    wall.append(time.perf_counter() - t)
    cpu.append(time.process_time() - c)
wall.sort(); cpu.sort()
json.dump({"wall": wall[len(wall) // 2], "cpu": cpu[len(cpu) // 2], "indices": out}, sys.stdout)
"""


def make_series(n_workloads: int, n_versions: int, seed: int = 16) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    out = []
    for w in range(n_workloads):
        level = np.full(n_versions, 1000.0 * (1 + w % 40))
        if w % 10 < 3:
            for _ in range(1 + w % 2):
                at = int(rng.integers(1, n_versions))
                level[at:] *= 1 + float(rng.choice([-1, 1])) * float(rng.uniform(0.1, 0.4))
        noise = 0.01 + 0.01 * (w % 3) / 2
        out.append((level * (1 + rng.normal(0, noise, n_versions))).tolist())
    return out


def build_store(path: Path, series: list[list[float]]) -> None:
    n_versions = len(series[0])
    builds = [f"my8{v // 100}{v % 100:02d}_rel_o2nofp" for v in range(n_versions)]
    cols: dict[str, list[object]] = {"build": [], "workload": [], "qps": [], "cpu_o": []}
    for w, s in enumerate(series):
        for v, q in enumerate(s):
            cols["build"].append(builds[v])
            cols["workload"].append(f"wl{w:04d}")
            cols["qps"].append(q)
            cols["cpu_o"].append(100.0 / q)
    tbl = {k: np.array(v, dtype=np.float64 if k in ("qps", "cpu_o") else str) for k, v in cols.items()}
    with Store.open(path) as store, store.transaction() as cur:
        cur.execute("INSERT INTO hosts (name, ncpu) VALUES ('bench', 32)")
        for name in builds:
            b = parse_build_name(name)
            cur.execute(
                "INSERT INTO builds (name, dbms, version, version_key, fork, variant) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [name, b.dbms, b.version, b.version_key, b.fork, b.variant],
            )
        cur.register("new_runs", tbl)
        cur.execute("INSERT INTO workloads (name) SELECT DISTINCT workload FROM new_runs")
        cur.execute(
            "INSERT INTO runs (host_id, build_id, workload_id, config, threads, status, source, source_path) "
            "SELECT 1, b.build_id, w.workload_id, 'c', 1, 'finished', 'bench', "
            "n.workload || '/' || n.build FROM new_runs n "
            "JOIN builds b ON b.name = n.build JOIN workloads w ON w.name = n.workload"
        )
        cur.execute(
            "INSERT INTO run_summary (run_id, qps, cpu_o) SELECT r.run_id, n.qps, n.cpu_o FROM new_runs n "
            "JOIN runs r ON r.source_path = n.workload || '/' || n.build"
        )


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall time and median CPU time of this process (the VM is shared: CPU time is
    what the work costs, wall time what a user waits)."""
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", type=int, default=1000)
    ap.add_argument("--versions", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--store", type=Path, help="time the whole command on this archive store instead")
    ap.add_argument("--host", default="hetz", help="with --store: the host (default: %(default)s)")
    ap.add_argument(
        "--cached-bytecode", action="store_true", help="with --store: keep bytecode between processes"
    )
    ap.add_argument(
        "--before", type=Path, help="with --store: also run the command from this checkout of the code before"
    )
    args = ap.parse_args()
    if args.store:
        name = f"changes --host {args.host}"
        repeat = max(args.repeat, 15)
        figures = bench_commands(
            args.store, {name: name.split()}, repeat, 2.0, args.cached_bytecode, args.before
        )
        record("bench_changes", figures, args)
        return
    series = make_series(args.workloads, args.versions)
    size = f"{args.workloads:,} workloads x {args.versions} versions"

    opts = Options()
    # on numpy when the batch is worth it, as analyse() decides (this one is: 2,500,000 Q cells)
    vec = worth_numpy((len(s) for s in series), opts.window)
    ours = [[cp.index for cp in detect(s, options=opts, vectorised=vec)] for s in series]
    t_detect = timed(lambda: [detect(s, options=opts, vectorised=vec) for s in series], args.repeat)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        build_store(db, series)
        with Store.open(db, read_only=True) as store:
            cur = store.cursor()

            def end_to_end() -> None:
                found = load_series(cur, host="bench", group_of=lambda _w: "g", sort_key=lambda w: (0, w))
                analyse(found, opts)

            t_e2e = timed(end_to_end, args.repeat)

    job = json.dumps({"series": series, "repeat": args.repeat})
    done = subprocess.run(
        [str(venv_python()), "-c", OTAVA_TIMER], input=job, capture_output=True, text=True, check=True
    )
    otava = json.loads(done.stdout)
    same = sum(a == b for a, b in zip(ours, otava["indices"], strict=True))
    changed = sum(1 for o in ours if o)

    load = os.getloadavg()[0]
    print(f"change points, {size} ({changed} series with changes), median of {args.repeat}")
    print(
        f"(load average {load:.1f} on {os.cpu_count()} cores: wall time waits for the CPU, CPU time does not)"
    )
    print(f"  {'':38} {'wall':>9} {'CPU':>9}")
    print(f"  {'detection (engine.changepoints)':38} {_ms(t_detect[0])} {_ms(t_detect[1])}")
    print(f"  {'benchdeck changes: store + analysis':38} {_ms(t_e2e[0])} {_ms(t_e2e[1])}   target < 1,000 ms")
    print(f"  {'baseline: Apache Otava 0.8.0':38} {_ms(otava['wall'])} {_ms(otava['cpu'])}")
    print(f"  Otava / detection, CPU time: {otava['cpu'] / t_detect[1]:.1f}x")
    print(f"  same change points as Otava: {same} of {len(series)} series")
    ms, otava_name = 1000, "Apache Otava 0.8.0"
    record(
        "bench_changes",
        [
            Figure(
                f"change points, {size}: detection, CPU",
                t_detect[1] * ms,
                "ms",
                otava["cpu"] * ms,
                otava_name,
            ),
            Figure(
                f"change points, {size}: detection, wall",
                t_detect[0] * ms,
                "ms",
                otava["wall"] * ms,
                otava_name,
            ),
            Figure(
                f"change points, {size}: store + analysis, wall",
                t_e2e[0] * ms,
                "ms",
                None,
                "",
                "< 1 s",
                t_e2e[0] < 1,
            ),
            Figure(f"change points, {size}: the same as Otava's", same, "series", len(series), "series"),
        ],
        args,
    )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:6.0f} ms"


if __name__ == "__main__":
    main()
