"""The Insert Benchmark's worker processes: inserters, deleters, query threads, the indexer.

Each worker is a process with its own connection (no GIL shared between the query threads and
the background writers). They count into a shared int64 array, one slot per worker, written
only by its owner (no locks): operations, rows, retried errors, the monotonic time it ended,
latency sum/max and a latency histogram. The client reads snapshots for its report lines.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchdeck.engine.families.insertbench import schema
from benchdeck.engine.families.insertbench.steps import Config, get_step

OPS, ROWS, ERRS, DONE_NS, LAT_SUM_US, LAT_MAX_US = range(6)
NB, LO_MS, HI_MS = 256, 1e-3, 1e5  # latency histogram: NB log buckets between LO and HI ms
MULT = (NB - 1) / math.log(HI_MS / LO_MS)
HIST = 6  # offset of the histogram in a slot
SLOT = HIST + NB


class Halt:
    """The stop flag as workers read it: also set once the client process is gone (an orphaned
    worker must not keep loading the server)."""

    def __init__(self, flag: Any) -> None:
        self.flag, self.parent = flag, os.getppid()

    @property
    def orphaned(self) -> bool:
        return os.getppid() != self.parent

    @property
    def value(self) -> bool:
        return bool(self.flag.value) or self.orphaned


@dataclass(frozen=True, slots=True)
class Job:
    kind: str  # insert | delete | query | index
    table: str
    tindex: int
    slot: int
    rows: int | None = 0  # insert: rows to insert (None: until stopped); index: rows in the table
    rate: float = 0.0  # insert: rows/s (0 = as fast as possible)
    feeders: tuple[int, ...] = ()  # delete: the slots of this table's inserters


def build_jobs(cfg: Config, counts: Sequence[int]) -> list[Job]:
    """The workers of a step: per table, inserters (+ a deleter) (+ query threads), or an indexer."""
    jobs: list[Job] = []
    for ti, table in enumerate(cfg.tables()):
        if cfg.kind == "index":
            jobs.append(Job("index", table, ti, len(jobs), rows=counts[ti]))
            continue
        feeders = []
        for i in range(cfg.insert_threads):
            share = cfg.rows * (i + 1) // cfg.insert_threads - cfg.rows * i // cfg.insert_threads
            rows = None if cfg.kind == "query" else share
            feeders.append(len(jobs))
            jobs.append(Job("insert", table, ti, len(jobs), rows=rows, rate=cfg.rate / cfg.insert_threads))
        if cfg.delete_per_insert:
            jobs.append(Job("delete", table, ti, len(jobs), feeders=tuple(feeders)))
        if cfg.kind == "query":
            jobs += [Job("query", table, ti, len(jobs) + q) for q in range(cfg.query_threads)]
    return jobs


def record(slots: Any, slot: int, rows: int, seconds: float) -> None:
    b = slot * SLOT
    us = int(seconds * 1e6)
    slots[b + OPS] += 1
    slots[b + ROWS] += rows
    slots[b + LAT_SUM_US] += us
    slots[b + LAT_MAX_US] = max(slots[b + LAT_MAX_US], us)
    i = int(math.log(max(seconds * 1000.0, LO_MS) / LO_MS) * MULT)
    slots[b + HIST + min(i, NB - 1)] += 1


def _insert(cfg: Config, job: Job, conn: Any, slots: Any, ids: Any, stop: Any, rng: random.Random) -> None:
    cur, done, sqls = conn.cursor(), 0, dict[int, str]()
    cap = max(float(cfg.rows_per_commit), job.rate)  # token bucket: 1 s of burst to catch up
    tokens, last = float(cfg.rows_per_commit), time.monotonic()  # the first transaction at once
    while not stop.value and (job.rows is None or done < job.rows):
        n = cfg.rows_per_commit if job.rows is None else min(cfg.rows_per_commit, job.rows - done)
        if job.rate > 0:
            now = time.monotonic()
            tokens, last = min(cap, tokens + (now - last) * job.rate), now
            if tokens < n:
                time.sleep(min(0.05, (n - tokens) / job.rate))
                continue
            tokens -= n
        sql = sqls.get(n) or sqls.setdefault(n, schema.insert_sql(cfg.dbms, job.table, n))
        values = schema.gen_rows(rng, n, cfg.data_length_min, cfg.data_length_max)
        t0 = time.perf_counter()
        try:
            cur.execute(sql, values)
            hi = schema.last_id(cfg.dbms, cur, n)
            conn.commit()
        except schema.driver_errors(cfg.dbms) as exc:
            if not schema.is_transient(exc):
                raise
            conn.rollback()
            slots[job.slot * SLOT + ERRS] += 1
            continue
        record(slots, job.slot, n, time.perf_counter() - t0)
        done += n
        ids[2 * job.tindex + 1] = max(ids[2 * job.tindex + 1], hi)


def _delete(cfg: Config, job: Job, conn: Any, slots: Any, ids: Any, stop: Any, rng: random.Random) -> None:
    """Deletes the oldest rows, following the inserters: as many ids as they inserted rows."""
    cur, width, sql = conn.cursor(), 0, schema.delete_sql(job.table)
    while True:
        fed = sum(slots[s * SLOT + ROWS] for s in job.feeders)
        feeders_done = all(slots[s * SLOT + DONE_NS] for s in job.feeders)
        if width >= fed or (width + cfg.rows_per_commit > fed and not feeders_done):
            if feeders_done or stop.orphaned:
                return
            time.sleep(0.005)
            continue
        n, lo = min(cfg.rows_per_commit, fed - width), ids[2 * job.tindex]
        t0 = time.perf_counter()
        try:
            cur.execute(sql, (lo, lo + n))
            conn.commit()
        except schema.driver_errors(cfg.dbms) as exc:
            if not schema.is_transient(exc):
                raise
            conn.rollback()
            slots[job.slot * SLOT + ERRS] += 1
            continue
        record(slots, job.slot, max(cur.rowcount, 0), time.perf_counter() - t0)
        width += n
        ids[2 * job.tindex] = lo + n


def _query(cfg: Config, job: Job, conn: Any, slots: Any, ids: Any, stop: Any, rng: random.Random) -> None:
    cur = conn.cursor()
    point = get_step(cfg.step).query == "point"
    sqls = [schema.range_query_sql(cfg.dbms, job.table, k) for k in range(len(schema.INDEXES))]
    psql = schema.point_query_sql(job.table)
    while not stop.value:
        params: tuple[Any, ...]
        if point:
            lo, hi = ids[2 * job.tindex], ids[2 * job.tindex + 1]
            sql, params = psql, (rng.randint(lo, max(lo, hi)),)
        else:
            k = rng.randrange(len(sqls))
            sql, params = sqls[k], schema.range_query_params(k, rng, cfg.rows_per_query)
        t0 = time.perf_counter()
        cur.execute(sql, params)
        rows = len(cur.fetchall())
        record(slots, job.slot, rows, time.perf_counter() - t0)


def _index(cfg: Config, job: Job, conn: Any, slots: Any, ids: Any, stop: Any, rng: random.Random) -> None:
    """Creates the secondary indexes one by one; each credits its share of the table's rows."""
    cur, n, rows = conn.cursor(), len(schema.INDEXES), job.rows or 0
    for i, (suffix, cols) in enumerate(schema.INDEXES):
        if stop.value:
            return
        t0 = time.perf_counter()
        cur.execute(schema.create_index_sql(cfg.dbms, job.table, suffix, cols))
        record(slots, job.slot, rows * (i + 1) // n - rows * i // n, time.perf_counter() - t0)


WORKERS = {"insert": _insert, "delete": _delete, "query": _query, "index": _index}


def work(cfg: Config, job: Job, slots: Any, ids: Any, stop: Any, errors: Any, barrier: Any) -> None:
    """A worker process: connect, wait for the others, work until done or ``stop``; errors -> queue."""
    conn = None
    try:
        conn = cfg.connect(autocommit=job.kind in ("query", "index"))
    except Exception as exc:  # any driver's connect error
        errors.put(f"{job.kind} worker on {job.table}: cannot connect: {exc}")
        stop.value = 1
    try:
        barrier.wait(timeout=120)
        if conn is not None:
            rng = random.Random(cfg.seed * 1000 + job.slot)  # noqa: S311 (benchmark data, not secrets)
            WORKERS[job.kind](cfg, job, conn, slots, ids, Halt(stop), rng)
    except Exception as exc:  # a database error ends the step (exit status 1)
        errors.put(f"{job.kind} worker on {job.table}: {type(exc).__name__}: {exc}")
        stop.value = 1
    finally:
        slots[job.slot * SLOT + DONE_NS] = time.monotonic_ns()
        if conn is not None:
            conn.close()
