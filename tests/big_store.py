"""A big synthetic store (hosts x builds x the classic 42 workloads, 60 samples each), written in
bulk: the tests of paging and start-up and the benches (bench_compare, bench_tui,
bench_runs_pages) read the same one."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.catalogue import CLASSIC_42
from benchdeck.store.db import Store

SAMPLES = 60


def build_store(path: Path, n_hosts: int, n_builds: int) -> int:
    store = Store.open(path)
    cur = store.cursor()
    builds = [f"my80{i:02d}_rel_o2nofp" if i < 100 else f"my8{i:03d}_rel" for i in range(n_builds)]
    cur.execute("BEGIN")
    for h in range(n_hosts):
        cur.execute("INSERT INTO hosts (host_id, name, ncpu) VALUES (?, ?, 32)", [h + 1, f"host{h}"])
    for i, name in enumerate(builds):
        b = parse_build_name(name)
        cur.execute(
            "INSERT INTO builds (build_id, name, dbms, version, version_key, fork, variant) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [i + 1, name, b.dbms, b.version, b.version_key, b.fork, b.variant],
        )
    for i, (wl, _) in enumerate(CLASSIC_42):
        cur.execute("INSERT INTO workloads (workload_id, name) VALUES (?, ?)", [i + 1, wl])
    run_ids, host_ids, build_ids, wl_ids, qps = [], [], [], [], []
    rid = 0
    for h in range(n_hosts):
        for b in range(n_builds):
            for w in range(len(CLASSIC_42)):
                rid += 1
                run_ids.append(rid)
                host_ids.append(h + 1)
                build_ids.append(b + 1)
                wl_ids.append(w + 1)
                qps.append(10000.0 * (1 + w) * (1 + 0.002 * b) * (1 + 0.1 * h))
    runs = {"run_id": np.array(run_ids), "host_id": np.array(host_ids), "build_id": np.array(build_ids),
            "workload_id": np.array(wl_ids)}  # fmt: skip
    cur.register("runs_src", runs)
    cur.execute(
        "INSERT INTO runs (run_id, host_id, build_id, workload_id, config, threads, status, source) "
        "SELECT run_id, host_id, build_id, workload_id, 'c32r128', 24, 'finished', 'bench' FROM runs_src"
    )
    summ = {"run_id": np.array(run_ids), "qps": np.array(qps)}
    cur.register("summ_src", summ)
    cur.execute(
        "INSERT INTO run_summary (run_id, qps, cpu_o, cs_o, r_o, rkb_o, wkb_o, bench_samples, "
        "vm_samples, io_samples) SELECT run_id, qps, 45.0 / qps, 1e6 / qps, 0, 0, 7e5 / qps, "
        f"{SAMPLES}, {SAMPLES}, {SAMPLES} FROM summ_src"
    )
    cur.execute(
        "INSERT INTO bench_samples (run_id, t, threads, tps, qps) "
        "SELECT r.run_id, s.t, 24, r.qps / 20, r.qps FROM summ_src r, range(1, ? + 1) s(t)",
        [SAMPLES],
    )
    cur.execute(
        "INSERT INTO vmstat_samples (run_id, seq, r, b, cs, us, sy, id, wa, st) "
        "SELECT r.run_id, s.seq, 20, 0, 1000000, 30, 15, 55, 0, 0 FROM summ_src r, range(?) s(seq)",
        [SAMPLES],
    )
    cur.execute(
        "INSERT INTO iostat_samples (run_id, seq, device, r_s, w_s, rkb_s, wkb_s) "
        "SELECT r.run_id, s.seq, 'nvme0n1', 0, 8000, 0, 700000 FROM summ_src r, range(?) s(seq)",
        [SAMPLES],
    )
    cur.execute("COMMIT")
    store.close()
    return rid
