"""A version series in the posts' shape: beelink in "MySQL 8.0.40 does not fix the regressions I
hoped it would fix" (Small Datum, 2024): sysbench at dop 1 on MySQL 8.0.28, 8.0.30, 8.0.33, 8.0.39
and 8.0.40, as rQPS relative to 8.0.28, plus the ``sb.met`` per-op blocks of scan and
update-index. The post names where things changed: regressions "starting in 8.0.30" (scan:
"new CPU overhead after 8.0.28"; update-index: more CPU, context switches and KB written per
update), and "the big improvement to random-points starting in 8.0.33" (bug 102037 fixed).

:func:`write_store` rebuilds it as runs in a store: QPS = the 8.0.28 figure x rQPS, one run per
version as the post prints it, or ``repeats`` runs per version spread by ``noise`` (run-to-run
noise, seeded) as a user who repeats each run would have.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchdeck.engine.builds import parse_build_name
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import ensure_build, ensure_host, ensure_workload

HOST = "beelink"
CONFIG = "z11a_bee"
VERSIONS = ("8.0.28", "8.0.30", "8.0.33", "8.0.39", "8.0.40")
BUILDS = tuple(f"my{v.replace('.', '')}_rel_o2nofp" for v in VERSIONS)

# "Results: beelink", columns 8.0.30 8.0.33 8.0.39 8.0.40 relative to 8.0.28, as printed
RQPS_TABLE = """
0.91 1.06 1.09 1.13 hot-points_range=100
1.00 0.91 0.92 0.92 point-query.pre_range=100
1.00 0.91 0.93 0.92 point-query_range=100
0.91 1.01 1.03 1.06 points-covered-pk.pre_range=100
0.90 1.00 1.03 1.06 points-covered-pk_range=100
0.89 1.00 1.03 1.07 points-covered-si.pre_range=100
0.89 1.00 1.03 1.06 points-covered-si_range=100
0.89 1.00 1.02 1.04 points-notcovered-pk.pre_range=100
0.89 1.00 1.02 1.05 points-notcovered-pk_range=100
0.88 0.93 0.98 1.01 points-notcovered-si.pre_range=100
0.88 0.93 0.98 1.01 points-notcovered-si_range=100
0.96 2.20 2.30 2.35 random-points.pre_range=1000
0.90 1.00 1.03 1.05 random-points.pre_range=100
0.94 0.91 0.93 0.94 random-points.pre_range=10
0.94 2.20 2.30 2.35 random-points_range=1000
0.90 1.00 1.03 1.05 random-points_range=100
0.93 0.91 0.93 0.94 random-points_range=10
0.95 0.90 0.90 0.96 range-covered-pk.pre_range=100
0.95 0.90 0.90 0.96 range-covered-pk_range=100
0.96 0.91 0.91 0.97 range-covered-si.pre_range=100
0.95 0.90 0.90 0.98 range-covered-si_range=100
0.97 0.93 0.94 0.97 range-notcovered-pk.pre_range=100
0.96 0.92 0.93 0.97 range-notcovered-pk_range=100
0.88 0.86 0.91 0.94 range-notcovered-si.pre_range=100
0.87 0.86 0.91 0.94 range-notcovered-si_range=100
0.97 0.94 0.93 0.98 read-only.pre_range=10000
0.97 0.93 0.93 0.94 read-only.pre_range=100
0.99 0.93 0.94 0.94 read-only.pre_range=10
0.98 0.95 0.94 0.99 read-only_range=10000
1.00 0.95 0.95 0.97 read-only_range=100
0.98 0.94 0.94 0.96 read-only_range=10
0.89 0.82 0.80 0.78 scan_range=100
0.95 0.88 0.89 0.90 delete_range=100
0.94 0.88 0.88 0.88 insert_range=100
0.97 0.93 0.93 0.95 read-write_range=100
0.96 0.92 0.92 0.93 read-write_range=10
0.88 0.82 0.84 0.76 update-index_range=100
0.94 0.87 0.89 0.90 update-inlist_range=100
0.96 0.89 0.90 0.91 update-nonindex_range=100
0.97 0.91 0.91 0.91 update-one_range=100
0.95 0.90 0.90 0.91 update-zipf_range=100
0.93 0.88 0.89 0.87 write-only_range=10000
"""

# sb.met.<step>.range100.pk1.dop1 "--- absolute": cpu/o cs/o r/o rKB/o wKB/o o/s, per version
HW_TABLE = {
    "scan_range=100": [
        (0.222553, 2.534, 0, 0.001, 0.035, 55),
        (0.251913, 6.640, 0, 0, 0.052, 49),
        (0.273314, 7.107, 0, 0, 0.039, 45),
        (0.282176, 15.578, 0, 0, 0.053, 44),
        (0.285792, 7.622, 0, 0, 0.041, 43),
    ],
    "update-index_range=100": [
        (0.008211, 15.312, 0, 0, 47.066, 2649),
        (0.009487, 17.353, 0, 0, 66.043, 2337),
        (0.009875, 17.636, 0, 0, 66.695, 2178),
        (0.010162, 17.959, 0, 0, 67.203, 2216),
        (0.010903, 18.917, 0, 0, 68.954, 2024),
    ],
}
BASE_QPS = 10_000.0  # the post prints only ratios for the other steps


def rqps() -> dict[str, tuple[float, ...]]:
    """workload -> rQPS of each version (8.0.28 is 1)."""
    out = {}
    for line in RQPS_TABLE.strip().splitlines():
        *cols, name = line.split()
        out[name] = (1.0, *(float(c) for c in cols))
    return out


def write_store(path: Path, repeats: int = 1, noise: float = 0.0, seed: int = 16) -> None:
    """Runs of every workload and version; per-op metrics for scan and update-index.

    Hosts, builds and workloads go in through the store API; the runs and their summaries in
    two bulk inserts (one statement per run takes ~20 s for 600 runs here).
    """
    rng = np.random.default_rng(seed)
    rows: dict[str, list[object]] = {k: [] for k in ("key", "build", "workload", "qps", *_HW)}
    for workload, ratios in rqps().items():
        hw = HW_TABLE.get(workload)
        for i, (build, ratio) in enumerate(zip(BUILDS, ratios, strict=True)):
            for _ in range(repeats):
                jitter = 1.0 + (float(rng.normal(0.0, noise)) if noise else 0.0)
                rows["key"].append(f"fixture:{len(rows['key'])}")
                rows["build"].append(build)
                rows["workload"].append(workload)
                if hw is None:
                    rows["qps"].append(BASE_QPS * ratio / jitter)
                    for col in _HW:
                        rows[col].append(None)
                    continue
                cpu, cs, r, rkb, wkb, ops = hw[i]
                rows["qps"].append(ops / jitter)
                for col, v in zip(_HW, (cpu * jitter, cs * jitter, r, rkb, wkb * jitter), strict=True):
                    rows[col].append(v)
    # typed NumPy arrays, which DuckDB scans as a table (NaN is NULL)
    new_runs = {k: np.array(v, dtype=np.float64 if k in ("qps", *_HW) else str) for k, v in rows.items()}
    with Store.open(path) as store, store.transaction() as cur:
        ensure_host(cur, HOST, 8)
        for build in BUILDS:
            ensure_build(cur, parse_build_name(build))
        for workload in rqps():
            ensure_workload(cur, workload)
        cur.register("new_runs", new_runs)
        cur.execute(
            "INSERT INTO runs (host_id, build_id, workload_id, config, threads, status, source, "
            "source_path, started_at, finished_at) "
            "SELECT h.host_id, b.build_id, w.workload_id, ?, 1, 'finished', 'test', n.key, "
            "current_timestamp, current_timestamp FROM new_runs n "
            "JOIN hosts h ON h.name = ? JOIN builds b ON b.name = n.build "
            "JOIN workloads w ON w.name = n.workload",
            [CONFIG, HOST],
        )
        cur.execute(
            "INSERT INTO run_summary (run_id, qps, cpu_o, cs_o, r_o, rkb_o, wkb_o) "
            "SELECT r.run_id, n.qps, n.cpu_o, n.cs_o, n.r_o, n.rkb_o, n.wkb_o "
            "FROM new_runs n JOIN runs r ON r.source_path = n.key"
        )
        cur.unregister("new_runs")


_HW = ("cpu_o", "cs_o", "r_o", "rkb_o", "wkb_o")
