"""A small, fixed benchdeck store for the TUI tests and screenshots, built with the store API."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.metrics import PerOp
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_raw, save_summary, set_status
from benchdeck.store.storage.samples import append_bench, append_iostat, append_vmstat

HOST = "dell32"
OTHER_HOST = "beelink"
BASE = "my8028_rel_o2nofp"
NEW = "my8040_rel_o2nofp"
LTO = "my8040_rel_lto"
CONFIG = "z11a_c32r128"
DOP = 24

# workload: (base QPS, rQPS of NEW, rQPS of LTO, writes?)
WORKLOADS: dict[str, tuple[float, float, float, bool]] = {
    "hot-points_range=100": (40000.0, 1.06, 1.10, False),
    "point-query_range=100": (50000.0, 0.98, 1.02, False),
    "random-points_range=100": (30000.0, 0.93, 0.97, False),
    "range-covered-pk_range=100": (20000.0, 0.90, 0.95, False),
    "scan_range=100": (9000000.0, 1.12, 1.15, False),
    "read-only_range=100": (12000.0, 0.96, 1.00, False),
    "insert_range=100": (15000.0, 0.80, 0.85, True),
    "update-index_range=100": (10000.0, 0.56, 0.60, True),
    "write-only_range=10000": (8000.0, 0.75, 0.80, True),
}


@dataclass(frozen=True)
class Demo:
    path: Path
    base_update_index: int  # run ids with samples
    new_update_index: int
    failed: int


def _per_op(workload: str, build: str, ratio: float) -> PerOp:
    _, _, _, writes = WORKLOADS[workload]
    base = PerOp(ops=1.0, cpu_o=0.002, cs_o=10.0, r_o=0.0, rkb_o=0.0, wkb_o=4.0 if writes else 0.0)
    if build == BASE:
        return base
    if workload == "update-index_range=100" and build == NEW:
        return PerOp(ops=1.0, cpu_o=0.003, cs_o=14.1, r_o=0.0, rkb_o=0.0, wkb_o=9.28)
    return PerOp(
        ops=1.0,
        cpu_o=round(0.002 / ratio, 6),
        cs_o=round(10.0 / math.sqrt(ratio), 3),
        r_o=0.0,
        rkb_o=0.0,
        wkb_o=round(4.0 / ratio, 3) if writes else 0.0,
    )


def _run(
    store: Store,
    build: str,
    workload: str,
    qps: float | None,
    *,
    host: str = HOST,
    status: str = "finished",
    ratio: float = 1.0,
    device: str | None = "nvme0n1",
    error: str | None = None,
) -> int:
    with store.transaction() as cur:
        rid = create_run(
            cur,
            NewRun(
                host, parse_build_name(build), workload, "test", config=CONFIG, threads=DOP, device=device
            ),
            ncpu=32,
        )
        if qps is not None:
            save_summary(cur, rid, RunSummary(qps=qps, per_op=_per_op(workload, build, ratio)))
        set_status(cur, rid, status, error=error)
    return rid


def _samples(store: Store, rid: int, qps: float, cpu: int) -> None:
    with store.transaction() as cur:
        append_bench(
            cur,
            rid,
            [
                BenchInterval(t=float(t), threads=DOP, tps=qps / 20, qps=qps * (1 + 0.05 * math.sin(t / 3)))
                for t in range(1, 31)
            ],
        )
        append_vmstat(
            cur,
            rid,
            [
                VmstatSample(
                    i,
                    8,
                    0,
                    0,
                    1000,
                    200,
                    3000,
                    0,
                    0,
                    0,
                    400,
                    9000,
                    50000 + 100 * i,
                    cpu,
                    9,
                    100 - cpu - 11,
                    2,
                    0,
                )
                for i in range(30)
            ],
        )
        io = []
        for i in range(30):
            io.append(IostatSample(i, "nvme0n1", 1.0, 400.0 + i, 8.0, 16000.0 + 10 * i))
            io.append(IostatSample(i, "nvme0n1p1", 0.5, 200.0, 4.0, 8000.0))
        append_iostat(cur, rid, io)
        save_raw(cur, rid, "sysbench", "update-index.txt", "queries: 1 (1 per sec.)\n")


def build_demo(path: Path) -> Demo:
    """Two hosts, three builds, nine workloads, repeats on one, samples on update-index."""
    store = Store.open(path)
    try:
        ids: dict[tuple[str, str], int] = {}
        for workload, (qps, r_new, r_lto, _) in WORKLOADS.items():
            ids[(BASE, workload)] = _run(store, BASE, workload, qps)
            ids[(NEW, workload)] = _run(store, NEW, workload, qps * r_new, ratio=r_new)
            ids[(LTO, workload)] = _run(store, LTO, workload, qps * r_lto, ratio=r_lto)
        for q in (45000.0, 55000.0):  # repeats: the base's point-query spread is 20%
            _run(store, BASE, "point-query_range=100", q)
        _run(store, NEW, "point-query_range=100", 49000.0, ratio=0.98)
        failed = _run(
            store, NEW, "delete_range=100", None, status="failed", error="sysbench exited with status 1"
        )
        for workload in ("point-query_range=100", "insert_range=100"):
            qps = WORKLOADS[workload][0] / 4
            _run(store, BASE, workload, qps, host=OTHER_HOST, device=None)
            _run(store, NEW, workload, qps * 0.9, host=OTHER_HOST, ratio=0.9, device=None)
        base_ui, new_ui = ids[(BASE, "update-index_range=100")], ids[(NEW, "update-index_range=100")]
        _samples(store, base_ui, 10000.0, 40)
        _samples(store, new_ui, 5600.0, 55)
        # fixed dates so screens and snapshots do not depend on today
        store.con.execute(
            "UPDATE runs SET created_at = TIMESTAMP '2024-11-01 09:00:00' + run_id * INTERVAL 7 MINUTE"
        )
    finally:
        store.close()
    return Demo(path, base_ui, new_ui, failed)


def add_many_runs(path: Path, n: int) -> None:
    """``n`` more finished runs of the base build on the demo host (one bulk insert)."""
    with Store.open(path) as store:
        store.con.execute(
            "INSERT INTO runs (host_id, build_id, workload_id, config, threads, status, source) "
            "SELECT host_id, build_id, workload_id, config, threads, status, source FROM runs, range(?) "
            "WHERE run_id = (SELECT min(run_id) FROM runs)",
            [n],
        )
