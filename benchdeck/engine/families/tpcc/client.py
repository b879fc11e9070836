"""TPC-C-like client: loads the nine tables, or runs the five-transaction mix, and reports it.

``python3 -m benchdeck.engine.families.tpcc.client --dbms mariadb --host H --port P --user U
--password X --database D --step run --warehouses 1 --threads 4 --seconds 60``. Steps: ``load``
(drop, create and load), ``check`` (prints 1 when a complete load of this scale is there, else
0), ``run`` (the mix). TPC-C-like, not TPC-C: no keying or think time, scaled-down items and
customers, no audit; see README "TPC-C-like".

Output of ``run`` (read by :class:`engine.parsers.tpcc.TpccParser`): the command line (password
masked), ``dbms: <name> <version>``, one line per report interval::

    [ 1s ] thds: 2 tps: 210.00 tpmC: 5640.00 rollbacks: 1 retries: 0 | new_order 94 2.10 4.52 6.31 | ...

(per transaction: count, then avg, p95 and p99 latency in ms, over the interval) and a summary
ending with ``elapsed: S s``. Each terminal is a process with its own connection and a home
warehouse (terminal k: warehouse k mod W + 1). A deadlock or serialisation failure is rolled
back and the transaction retried (counted as a retry); the spec's 1 % New-Order rollbacks are
counted as rollbacks. Exit status 1: a database error (an ``ERROR:`` line says which).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import random
import shlex
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchdeck.engine.families.insertbench import schema as db
from benchdeck.engine.families.insertbench.client import (
    add_connection_options,
    driver_missing,
    percentile_ms,
)
from benchdeck.engine.families.insertbench.steps import command_line
from benchdeck.engine.families.insertbench.workers import (
    ERRS,
    HIST,
    LAT_MAX_US,
    LAT_SUM_US,
    NB,
    OPS,
    ROWS,
    SLOT,
    Halt,
    record,
)
from benchdeck.engine.families.tpcc import schema, txns

CLIENT_MODULE = "benchdeck.engine.families.tpcc.client"
EXIT_ERROR = 1
NT = len(txns.NAMES)


@dataclass(frozen=True, slots=True)
class Config:
    dbms: str
    host: str
    port: int
    user: str
    password: str
    database: str
    step: str
    warehouses: int
    items: int
    customers: int
    threads: int
    seconds: float
    report_interval: float
    seed: int

    def connect(self, *, autocommit: bool) -> Any:
        return db.connect(
            self.dbms, self.host, self.port, self.user, self.password, self.database, autocommit=autocommit
        )

    def argv(self) -> list[str]:
        """The effective command line, password masked (the output's first line)."""
        return command_line(self, CLIENT_MODULE)


def parse_args(argv: Sequence[str] | None = None) -> Config:
    p = argparse.ArgumentParser(prog="python3 -m " + CLIENT_MODULE, description="TPC-C-like client")
    add_connection_options(p, database="tpcc")
    p.add_argument("--step", required=True, choices=("load", "check", "run"))
    p.add_argument("--warehouses", type=int, default=1)
    p.add_argument("--items", type=int, default=10_000, help="spec: 100000")
    p.add_argument("--customers", type=int, default=300, help="per district; spec: 3000")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--report-interval", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    if min(a.warehouses, a.threads) < 1 or a.items < 100 or a.customers < 30:
        p.error("need --warehouses >= 1, --threads >= 1, --items >= 100 and --customers >= 30")
    if a.seconds <= 0 or a.report_interval <= 0:
        p.error("--seconds and --report-interval must be > 0")
    port = a.port if a.port is not None else db.DEFAULT_PORTS[a.dbms]
    return Config(
        a.dbms,
        a.host,
        port,
        a.user,
        a.password,
        a.database,
        a.step,
        a.warehouses,
        a.items,
        a.customers,
        a.threads,
        float(a.seconds),
        float(a.report_interval),
        a.seed,
    )


def terminal(cfg: Config, k: int, slots: Any, stop: Any, errors: Any, barrier: Any) -> None:
    """Terminal ``k`` (a process): the mix until ``stop``; slot ``k * NT + txn`` counts each type."""
    conn = None
    try:
        conn = cfg.connect(autocommit=False)
        barrier.wait(timeout=120)
        halt, cur = Halt(stop), conn.cursor()
        t = txns.Terminal(k % cfg.warehouses + 1, cfg.warehouses, cfg.items, cfg.customers)
        rng = random.Random(cfg.seed * 1000 + k)  # noqa: S311 (benchmark data, not secrets)
        transient = db.driver_errors(cfg.dbms)
        while not halt.value:
            ti = rng.choices(range(NT), txns.WEIGHTS)[0]
            slot = k * NT + ti
            t0 = time.perf_counter()
            try:
                committed = txns.RUN[ti](cur, t, rng)
                conn.commit() if committed else conn.rollback()
            except transient as exc:
                if not db.is_transient(exc):
                    raise
                conn.rollback()
                slots[slot * SLOT + ERRS] += 1
                continue
            record(slots, slot, 0 if committed else 1, time.perf_counter() - t0)
    except Exception as exc:  # a database error ends the run (exit status 1)
        errors.put(f"terminal {k}: {type(exc).__name__}: {exc}")
        stop.value = 1
        barrier.abort()
    finally:
        if conn is not None:
            conn.close()


@dataclass(frozen=True, slots=True)
class Txn:
    """One transaction type's counters summed over the terminals (a snapshot)."""

    count: int
    rollbacks: int
    retries: int
    lat_sum_us: int
    lat_max_us: int
    hist: tuple[int, ...]

    def minus(self, o: Txn) -> Txn:
        return Txn(
            self.count - o.count,
            self.rollbacks - o.rollbacks,
            self.retries - o.retries,
            self.lat_sum_us - o.lat_sum_us,
            self.lat_max_us,
            tuple(a - b for a, b in zip(self.hist, o.hist, strict=True)),
        )

    def avg_ms(self) -> float:
        return self.lat_sum_us / self.count / 1000.0 if self.count else 0.0

    def pct_ms(self, pct: float) -> float:
        return min(percentile_ms(self.hist, pct), self.lat_max_us / 1000.0) if self.count else 0.0


def snapshot(cfg: Config, slots: Sequence[int]) -> list[Txn]:
    out = []
    for ti in range(NT):
        bases = [(k * NT + ti) * SLOT for k in range(cfg.threads)]
        out.append(
            Txn(
                sum(slots[b + OPS] for b in bases),
                sum(slots[b + ROWS] for b in bases),
                sum(slots[b + ERRS] for b in bases),
                sum(slots[b + LAT_SUM_US] for b in bases),
                max(slots[b + LAT_MAX_US] for b in bases),
                tuple(sum(slots[b + HIST + i] for b in bases) for i in range(NB)),
            )
        )
    return out


def interval_line(cfg: Config, t: float, dt: float, a: list[Txn], b: list[Txn]) -> str:
    d = [y.minus(x) for x, y in zip(a, b, strict=True)]
    committed = sum(x.count - x.rollbacks for x in d)
    new_orders = d[0].count - d[0].rollbacks
    parts = [
        f"[ {round(t) if abs(t - round(t)) < 0.005 else f'{t:.2f}'}s ] thds: {cfg.threads} "
        f"tps: {committed / dt:.2f} tpmC: {new_orders * 60 / dt:.2f} "
        f"rollbacks: {sum(x.rollbacks for x in d)} retries: {sum(x.retries for x in d)}"
    ]
    for name, x in zip(txns.NAMES, d, strict=True):
        parts.append(f"{name} {x.count} {x.avg_ms():.2f} {x.pct_ms(95):.2f} {x.pct_ms(99):.2f}")
    return " | ".join(parts)


def summary_lines(cfg: Config, elapsed: float, z: list[Txn], errors: int) -> list[str]:
    committed = sum(x.count - x.rollbacks for x in z)
    nopm = (z[0].count - z[0].rollbacks) * 60 / elapsed if elapsed > 0 else 0.0
    out = [
        f"threads: {cfg.threads}",
        f"warehouses: {cfg.warehouses}",
        f"transactions: {committed} ({committed / elapsed if elapsed > 0 else 0.0:.2f} per sec.)",
        f"tpmC: {nopm:.2f}",
        f"NOPM: {nopm:.2f}",
    ]
    for name, x in zip(txns.NAMES, z, strict=True):
        out.append(
            f"{name}: {x.count} avg {x.avg_ms():.2f} p95 {x.pct_ms(95):.2f} p99 {x.pct_ms(99):.2f} "
            f"max {x.lat_max_us / 1000.0:.2f} ms rollbacks {x.rollbacks} retries {x.retries}"
        )
    out += [f"errors: {errors}", f"elapsed: {elapsed:.2f} s"]
    return out


def run(cfg: Config) -> int:
    """The mix for ``cfg.seconds``: interval lines, then the summary; returns the exit status."""
    ctx = mp.get_context("fork")  # POSIX hosts, as the Insert Benchmark client
    slots = ctx.RawArray("q", cfg.threads * NT * SLOT)
    stop, errors, barrier = ctx.RawValue("b", 0), ctx.SimpleQueue(), ctx.Barrier(cfg.threads + 1)
    procs = [
        ctx.Process(target=terminal, args=(cfg, k, slots, stop, errors, barrier), daemon=True)
        for k in range(cfg.threads)
    ]
    for p in procs:
        p.start()
    elapsed, last_t, last = 0.0, 0.0, snapshot(cfg, slots[:])
    try:
        barrier.wait(timeout=180)
        t0, k, iv = time.monotonic(), 1, cfg.report_interval
        while not stop.value:
            now = time.monotonic() - t0
            if now >= cfg.seconds:
                break
            if now >= k * iv:
                cur = snapshot(cfg, slots[:])
                print(interval_line(cfg, k * iv, k * iv - last_t, last, cur), flush=True)
                last_t, last, k = k * iv, cur, k + 1
            time.sleep(min(0.01, max(0.0, k * iv - now)))
        elapsed = min(time.monotonic() - t0, cfg.seconds)
    except Exception:  # a broken barrier: a terminal failed to start (its error is queued)
        stop.value = 1
    finally:
        stop.value = 1
        for p in procs:
            p.join(60)
            if p.is_alive():
                p.kill()
    final = snapshot(cfg, slots[:])
    if elapsed - last_t > 0.01:
        print(interval_line(cfg, elapsed, elapsed - last_t, last, final), flush=True)
    failures = []
    while not errors.empty():
        failures.append(errors.get())
    for msg in failures:
        print(f"ERROR: {msg}", flush=True)
    print("\n".join(summary_lines(cfg, elapsed, final, len(failures))), flush=True)
    return EXIT_ERROR if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    cfg = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))  # stop the terminals first
    if cfg.step != "check":
        print(shlex.join(cfg.argv()), flush=True)
    try:
        conn = cfg.connect(autocommit=False)
        try:
            cur = conn.cursor()
            cur.execute("SELECT version()")
            version = str(cur.fetchone()[0])
            conn.commit()
            if cfg.step == "load":
                print(f"dbms: {cfg.dbms} {version}", flush=True)
                schema.load(
                    conn,
                    cfg.dbms,
                    cfg.warehouses,
                    cfg.items,
                    cfg.customers,
                    cfg.seed,
                    lambda s: print(s, flush=True),
                )
                return 0
            loaded = _loaded(conn, cur)
        finally:
            conn.close()
    except ModuleNotFoundError as exc:  # the DB driver is missing on this host
        print(driver_missing(cfg.dbms, exc), flush=True)
        return EXIT_ERROR
    except Exception as exc:  # any driver's error
        print(f"ERROR: {cfg.dbms} at {cfg.host}:{cfg.port}: {type(exc).__name__}: {exc}", flush=True)
        return EXIT_ERROR
    want = (cfg.warehouses, cfg.items, cfg.customers)
    if cfg.step == "check":
        print(1 if loaded == want else 0, flush=True)
        return 0
    if loaded != want:
        print(
            f"ERROR: no complete load of {want[0]} warehouses ({want[1]} items, {want[2]} customers per "
            "district): run --step load first",
            flush=True,
        )
        return EXIT_ERROR
    print(f"dbms: {cfg.dbms} {version}", flush=True)
    return run(cfg)


def _loaded(conn: Any, cur: Any) -> tuple[int, int, int] | None:
    """(warehouses, items, customers) of the last complete load, or None."""
    try:
        cur.execute(schema.loaded_sql())
        rows = cur.fetchall()
    except Exception:  # no such table: nothing loaded
        conn.rollback()
        return None
    conn.commit()
    return tuple(int(x) for x in rows[0]) if rows else None  # type: ignore[return-value]


if __name__ == "__main__":
    sys.exit(main())
