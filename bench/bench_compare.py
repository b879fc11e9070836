"""Benchmark: ``compare`` on a 10,000-run store against a plain-Python baseline.

How it measures, its targets and its history: docs/performance.md (bench_compare.py).

    python bench/bench_compare.py [--builds 60] [--hosts 4] [--repeat 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import Figure, record
from benchdeck.engine.catalogue import default_catalogue
from benchdeck.store.analysis.compare import compare
from benchdeck.store.storage.db import Store
from tests.fixtures.big_store import SAMPLES, build_store


def python_baseline(store: Store, host: str, base: str, others: list[str]) -> dict[str, object]:
    """The same comparison in plain Python over rows fetched with one simple query."""
    cat = default_catalogue()
    rows = (
        store.cursor()
        .execute(
            "SELECT h.name, b.name, w.name, r.threads, r.status, s.qps, s.cpu_o, s.cs_o, s.r_o, "
            "s.rkb_o, s.wkb_o FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
            "JOIN workloads w USING (workload_id) JOIN run_summary s USING (run_id)"
        )
        .fetchall()
    )
    wanted = {base, *others}
    cells: dict[tuple[str, int, str], list[tuple[float, ...]]] = defaultdict(list)
    for h, b, w, d, status, *vals in rows:
        if h == host and b in wanted and status == "finished" and vals[0] is not None:
            cells[(w, d, b)].append(tuple(vals))
    med = {k: [statistics.median(col) for col in zip(*v, strict=True)] for k, v in cells.items()}
    keys = sorted({(w, d) for (w, d, b) in med if b == base}, key=lambda k: cat.sort_key(k[0]))
    rqps = {
        k: [
            med[(k[0], k[1], o)][0] / med[(k[0], k[1], base)][0] if (k[0], k[1], o) in med else None
            for o in others
        ]
        for k in keys
    }
    groups: dict[tuple[str, int], list[float]] = defaultdict(list)
    for (w, _), vals in rqps.items():
        for i, v in enumerate(vals):
            if v is not None:
                groups[(cat.group_of(w), i)].append(v)
    stats = {k: (min(v), max(v), statistics.fmean(v), statistics.median(v)) for k, v in groups.items()}
    return {"rqps": rqps, "groups": stats}


def timed(fn: object, repeat: int) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000, max(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--builds", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.duckdb"
        t0 = time.perf_counter()
        n = build_store(db, args.hosts, args.builds)
        print(f"store: {n} runs, {n * SAMPLES * 3:,} samples, built in {time.perf_counter() - t0:.1f} s")
        cat = default_catalogue()
        base, others = "my8000_rel_o2nofp", ["my8030_rel_o2nofp", "my8059_rel_o2nofp"]
        with Store.open_for_reading(db) as store:
            cur = store.cursor()

            def ours() -> object:
                return compare(
                    cur,
                    host="host1",
                    base=base,
                    with_builds=others,
                    group_of=cat.group_of,
                    sort_key=cat.sort_key,
                    intervals=False,
                )

            def ours_ci() -> object:
                return compare(
                    cur,
                    host="host1",
                    base=base,
                    with_builds=others,
                    group_of=cat.group_of,
                    sort_key=cat.sort_key,
                )

            def baseline() -> object:
                return python_baseline(store, "host1", base, others)

            c = ours()
            b = baseline()
            ours_rq = [r.values for r in c.rqps]  # type: ignore[attr-defined]
            base_rq = list(b["rqps"].values())  # type: ignore[index]
            assert len(ours_rq) == len(base_rq) == 42, "both implementations must agree"
            assert all(
                abs(x - y) < 1e-9
                for r1, r2 in zip(ours_rq, base_rq, strict=True)
                for x, y in zip(r1, r2, strict=True)
            )
            ours_med, ours_max = timed(ours, args.repeat)
            ci_med, ci_max = timed(ours_ci, args.repeat)
            base_med, base_max = timed(baseline, args.repeat)
        print(f"compare (duckdb)        median {ours_med:8.1f} ms   max {ours_max:8.1f} ms")
        print(f"compare + noise CIs     median {ci_med:8.1f} ms   max {ci_max:8.1f} ms")
        print(f"plain-Python baseline   median {base_med:8.1f} ms   max {base_max:8.1f} ms")
        print(f"ratio baseline/compare  {base_med / ours_med:8.1f}x")
        print(f"target compare < 100 ms: {'met' if ours_med < 100 else 'NOT met'}")
        cold_t0 = time.perf_counter()
        with Store.open_for_reading(db) as store:
            compare(
                store.cursor(),
                host="host2",
                base=base,
                with_builds=others,
                group_of=cat.group_of,
                sort_key=cat.sort_key,
            )
        cold_ms = 1000 * (time.perf_counter() - cold_t0)
        print(f"cold (open store + compare) {cold_ms:.1f} ms")
    runs = f"{n:,} runs"
    record(
        "bench_compare",
        [
            Figure(
                f"compare, {runs}, median",
                ours_med,
                "ms",
                base_med,
                "plain Python",
                "< 100 ms",
                ours_med < 100,
            ),
            Figure(
                f"compare with noise intervals, {runs}, median", ci_med, "ms", ours_med, "without intervals"
            ),
            Figure(f"cold: open the store and compare, {runs}", cold_ms, "ms"),
        ],
        args,
    )


if __name__ == "__main__":
    main()
