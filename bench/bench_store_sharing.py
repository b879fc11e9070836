"""Benchmark: what holding the store only while writing costs (``Store.open(shared=True)``).

How it measures, its targets and its history: docs/performance.md (bench_store_sharing.py).

    python bench/bench_store_sharing.py [--builds 30] [--batches 40] [--streams 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compare import build_store

from bench.results import Figure, record
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.samples import append_bench, append_iostat, append_vmstat


def one_batch(store: Store, second: int, streams: int) -> float:
    t0 = time.perf_counter()
    with store.transaction() as cur:
        for run_id in range(1, streams + 1):
            append_bench(cur, run_id, [BenchInterval(t=second, threads=24, tps=1.0, qps=20.0)])
            vm = VmstatSample(
                seq=second, r=1, b=0, swpd=0, free=1, buff=1, cache=1, si=0, so=0, bi=0, bo=0, in_=1,
                cs=1, us=1, sy=1, id=98, wa=0, st=0,
            )  # fmt: skip
            append_vmstat(cur, run_id, [vm])
            io = IostatSample(seq=second, device="nvme0n1", r_s=0.0, w_s=1.0, rkb_s=0.0, wkb_s=4.0)
            append_iostat(cur, run_id, [io])
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--builds", type=int, default=30)
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--streams", type=int, default=1)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        runs = build_store(path, 4, a.builds)
        results: dict[str, list[float]] = {"held": [], "shared": []}
        for rnd in range(2):  # interleaved rounds: the VM's speed drifts
            for mode in ("held", "shared"):
                store = Store.open(path, shared=mode == "shared")
                try:
                    for i in range(a.batches):
                        results[mode].append(one_batch(store, 1000 * rnd + i, a.streams))
                finally:
                    store.close()
        held, shared = (statistics.median(results[m]) * 1000 for m in ("held", "shared"))
        print(f"store: {runs:,} runs; {a.streams} streams, one batch a second, {a.batches} x 2 batches each")
        print(f"held open (baseline) : {held:7.2f} ms per batch  ({held / 10:.2f} % of a core at 1 Hz)")
        print(f"shared (per batch)   : {shared:7.2f} ms per batch  ({shared / 10:.2f} % of a core at 1 Hz)")
        print(f"ratio shared / held  : {shared / held:.1f}x")
    what = f"a writer sharing its store, {a.streams} streams, per batch"
    record("bench_store_sharing", [Figure(what, shared, "ms", held, "holding the store open")], a)


if __name__ == "__main__":
    main()
