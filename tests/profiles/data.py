"""A small store with CPU profiles, built with the store API (the capture's records, saved as the
capture saves them): two builds of one workload on one host, two runs each.

Numbers chosen to check by hand: cpu-clock at 1,000 Hz (a sample is 1 ms), 10-s windows at
1,000 QPS (10,000 queries a window). In the base ``row_upd_sec_index_entry`` has 2,000 samples a
window: 2 s / 10,000 queries = 200 us of CPU per query; the column's 3,000 are 300 us/q.
"""

from __future__ import annotations

from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.profiling.records import ProfileWindow
from benchdeck.engine.records import BenchInterval
from benchdeck.store.storage.captures import PROFILE_SOURCE
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.profiles import save_profile_windows
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.store.storage.samples import append_bench

HOST = "dell32"
BASE = "my8028_rel_o2nofp"
NEW = "my8040_rel_o2nofp"
WORKLOAD = "update-index_range=100"
CONFIG = "z11a_c32r128"
QPS = 1000.0
HZ = 1000.0

ROOT = "mysqld;start_thread;handle_connection;do_command;dispatch_command;mysql_execute_command"
BASE_STACKS = {
    f"{ROOT};mysql_update;row_upd_sec_index_entry": 2000,
    f"{ROOT};mysql_update;btr_cur_search_to_nth_level": 1500,
    f"{ROOT};mysql_update": 500,
    f"{ROOT};trx_commit;log_write_up_to": 1000,
    "mysqld;start_thread;buf_flush_page_cleaner": 500,
}
NEW_STACKS = {**BASE_STACKS, f"{ROOT};mysql_update;row_upd_sec_index_entry": 3000}
NEW_STACKS[f"{ROOT};trx_commit;log_write_up_to"] = 800  # shrank by 20 us/q


def window(no: int, stacks: dict[str, int], start_s: float = 5.0) -> ProfileWindow:
    stacks_ = tuple(sorted(stacks.items()))
    return ProfileWindow(no, 10.0, "cpu-clock", HZ, stacks_, start_s=start_s, target="all")


def add_run(
    store: Store,
    build: str,
    stacks: dict[str, int] | None,
    qps: float = QPS,
    summary_qps: float | None = None,
) -> int:
    """A finished run; ``summary_qps`` is the QPS Compare reads (default: ``qps``, the per-second
    samples' the profile's queries come from)."""
    with store.transaction() as cur:
        new_run = NewRun(HOST, parse_build_name(build), WORKLOAD, "test", config=CONFIG, threads=8)
        rid = create_run(cur, new_run)
        save_summary(cur, rid, RunSummary(qps=summary_qps or qps, elapsed_s=30.0))
        seconds = [BenchInterval(t=float(t), threads=8, tps=qps / 20, qps=qps) for t in range(1, 31)]
        append_bench(cur, rid, seconds)
        if stacks is not None:
            save_profile_windows(cur, rid, [window(0, stacks), window(1, stacks, 17.0)], PROFILE_SOURCE)
        set_status(cur, rid, "finished")
    return rid


def build_profile_store(path: Path) -> tuple[list[int], list[int]]:
    """Base and column run ids (two each, with profiles) in a new store at ``path``."""
    store = Store.open(path)
    try:
        base = [add_run(store, BASE, BASE_STACKS) for _ in range(2)]
        new = [add_run(store, NEW, NEW_STACKS, summary_qps=QPS * 0.9) for _ in range(2)]  # rQPS 0.9
        add_run(store, NEW, None)  # a run without a profile is left out of the column
    finally:
        store.close()
    return base, new
