"""A store for the Scaling tab's snapshots: one host, a base build that scales and a PGO build
that is faster at low concurrency and stops scaling at high (the chapter's curves), two
workloads, dops 1 to 64. Figures are made up, fixed, and shaped like the posts' curves."""

from __future__ import annotations

from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.metrics import PerOp
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status

HOST = "hetz"
CONFIG = "x10a_c32r128"
BASE = "pg180_o2nofp"
PGO = "pg180_rel_pgo_use"
DOPS = (1, 2, 4, 8, 16, 32, 64)
# (workload, build): QPS at dop 1 and the efficiency lost per doubling
CURVES = {
    ("point-query_range=100", BASE): (30000.0, 0.97),
    ("point-query_range=100", PGO): (36000.0, 0.90),
    ("update-one_range=100", BASE): (26000.0, 0.80),
    ("update-one_range=100", PGO): (29000.0, 0.62),
}


def build_scaling_store(path: Path) -> Path:
    with Store.open(path) as store:
        for (workload, build), (qps1, keep) in CURVES.items():
            for k, dop in enumerate(DOPS):
                qps = qps1 * dop * keep**k
                with store.transaction() as cur:
                    new = NewRun(HOST, parse_build_name(build), workload, "test", config=CONFIG, threads=dop)
                    rid = create_run(cur, new, ncpu=48)
                    per_op = PerOp(qps, cpu_o=0.0008 / keep**k, cs_o=3.8 * keep**k)
                    save_summary(cur, rid, RunSummary(qps=qps, per_op=per_op))
                    set_status(cur, rid, "finished")
    return path
