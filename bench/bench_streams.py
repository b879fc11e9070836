"""Benchmark: N concurrent live streams from one process, remote line -> stored row in DuckDB.

How it measures, its targets and its history: docs/performance.md (bench_streams.py).

    python bench/bench_streams.py [--seconds 20] [--streams 16,32,64,128] [--repeats 2]
                                  [--sshd 4] [--store shared|held] [--policies new,reopen]
                                  [--login-shell]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import asyncssh
import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from stream_timing import BARE_FOLLOW, GENERATOR, NO_RC_FILES, Load, LoopLag, fmt, line_times, stats_ms

from bench.results import Figure, record
from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.events import BenchBatch, EndEvent, RunEvent, RunFailed, RunStarted
from benchdeck.engine.running.runner import Runner, RunPlan
from benchdeck.engine.transport import HostSpec, SSHTransport
from benchdeck.store.storage import faults, ingest, shared_hold
from benchdeck.store.storage import file_store as db
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink, pump
from benchdeck.store.storage.runs import NewRun, create_run
from tests.fixtures.servers.sshd import SshdServer, start_sshd

TARGET_P99_MS = 250.0
TARGET_CPU_PCT = 0.5
Chunks = list[tuple[float, bytes]]


@dataclass
class Stream:
    host: str
    out: Path
    chunks: Chunks = field(default_factory=list)  # (received, bytes) of bench.out
    events: dict[float, float] = field(default_factory=dict)  # t -> parsed event yielded
    started: float | None = None
    end: str = ""
    in_window: int = 0


@dataclass
class Round:
    """One round's figures; latencies in seconds."""

    n: int
    load: Load
    cpu_pct: float  # of one core, per stream
    lag: tuple[float, float, float, float]
    steps: dict[str, list[float]]
    startup_s: float = 0.0
    opens_per_s: float = 0.0
    flush_ms: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    flush_cpu_ms: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    open_ms: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    problems: list[str] = field(default_factory=list)


class TimedSSH(SSHTransport):
    """SSHTransport that notes when each chunk of a followed bench.out comes out of asyncssh."""

    def __init__(self, spec: HostSpec, chunks: dict[str, Chunks]):
        super().__init__(spec)
        self.chunks = chunks

    def follow(self, path: str, offset: int = 0) -> AsyncGenerator[bytes, None]:
        inner = super().follow(path, offset)
        return self._timed(self.chunks[path], inner) if path in self.chunks else inner

    @staticmethod
    async def _timed(rec: Chunks, inner: AsyncGenerator[bytes, None]) -> AsyncGenerator[bytes, None]:
        async with aclosing(inner) as chunks:
            async for chunk in chunks:
                rec.append((time.time(), chunk))
                yield chunk


def spec_for(srv: SshdServer, i: int) -> HostSpec:
    return HostSpec(
        name=f"h{i}", hostname=srv.host, port=srv.port, user=srv.user,
        key_files=(str(srv.client_key),), known_hosts=str(srv.known_hosts), use_ssh_config=False,
    )  # fmt: skip


async def gather_limited(coros: list[Any], limit: int = 16) -> list[Any]:
    sem = asyncio.Semaphore(limit)

    async def one(c: Any) -> Any:
        async with sem:
            return await c

    return await asyncio.gather(*(one(c) for c in coros))


def window_rows(st: Stream, t0: float, seconds: int) -> list[float]:
    return [t for t in line_times(st.chunks) if t0 <= t < t0 + seconds]


async def bare_round(servers: list[SshdServer], n: int, seconds: int) -> Round:
    """N plain asyncssh channels on ``tail -F`` of the generator's file; nothing parsed."""
    started = time.time()
    conns = await gather_limited([
        asyncssh.connect(
            s.host, port=s.port, username=s.user, client_keys=[str(s.client_key)],
            known_hosts=str(s.known_hosts), config=None,
        )
        for s in (servers[i % len(servers)] for i in range(n))
    ])  # fmt: skip
    streams: list[Stream] = []
    readers = []

    async def read(proc: asyncssh.SSHClientProcess[bytes], rec: Chunks) -> None:
        while chunk := await proc.stdout.read(1 << 16):
            rec.append((time.time(), chunk))

    for i, conn in enumerate(conns):
        d = Path(tempfile.mkdtemp(prefix="bd-bare-"))
        st = Stream(f"h{i}", d / "bench.out")
        streams.append(st)
        cmd = shlex.join(["sh", "-c", BARE_FOLLOW, "bare", GENERATOR, str(d / "stop"), str(st.out)])
        proc = await conn.create_process(cmd, encoding=None, stdin=asyncssh.DEVNULL, stderr=asyncssh.DEVNULL)
        readers.append(asyncio.create_task(read(proc, st.chunks)))
    startup = time.time() - started
    await asyncio.sleep(1.1)  # every generator has written (phases are < 1 s)
    t0, cpu0, wall0, load, lag = time.time(), time.process_time(), time.perf_counter(), Load(), LoopLag()
    lag.start()
    await asyncio.sleep(seconds)
    cpu = time.process_time() - cpu0
    r = Round(n, load.stop(), 100 * cpu / (time.perf_counter() - wall0) / n, lag.stop(), {"write->recv": []})
    await asyncio.sleep(1.0)  # the window's last lines arrive
    for st in streams:
        st.out.with_name("stop").touch()
    await asyncio.wait_for(asyncio.gather(*readers), 30)  # tail --pid ends with its writer
    for conn in conns:
        conn.close()
    for st in streams:
        got = line_times(st.chunks)
        inside = [t for t in got if t0 <= t < t0 + seconds]
        r.steps["write->recv"].extend(got[t] - t for t in inside)
        if not inside:
            r.problems.append(f"baseline {st.host}: no line in the {seconds} s window")
        shutil.rmtree(st.out.parent, ignore_errors=True)
    r.startup_s = startup
    return r


@dataclass(frozen=True)
class Policy:
    """How the shared store's writer writes."""

    batch_time: float
    hold_s: float
    gap_s: float | None
    wal_bytes: int  # the WAL checkpointed at a let-go past this
    attach: bool = True  # the file attached to the writer's own database; else a database per hold
    threads: int | None = None  # DuckDB threads of the writer's database (None: DuckDB's default)


_NEW = Policy(
    ingest.BATCH_TIME_S,
    shared_hold.SHARED_HOLD_S,
    shared_hold.SHARED_GAP_S,
    db.WAL_CHECKPOINT_BYTES,
    threads=shared_hold.SHARED_WRITER_THREADS,
)
POLICIES: dict[str, Policy] = {
    "new": _NEW,
    # the file attached per hold, but DuckDB's threads and the 1 MB WAL of before
    "attach": replace(_NEW, threads=None, wal_bytes=1 << 20),
    # before issue 15's third pass: the same holds, but every hold started a DuckDB database of
    # the file (36-42 ms quiet, 126-250 ms under load), on DuckDB's threads, a 1 MB WAL
    "reopen": replace(_NEW, attach=False, threads=None, wal_bytes=1 << 20),
    # before issue 15's second pass: 1 s batches, the file opened per batch, DuckDB's 16 MB WAL
    # (the pump's hand-over of queued events is the new one in both)
    "old": Policy(1.0, 0.0, None, 16 << 20, attach=False),
}


def database_per_hold(store: Store, threads: int | None) -> duckdb.DuckDBPyConnection:
    """How a shared store opened its file before it attached it: a DuckDB database of its own
    per hold (no lock wait: nothing else opens the bench's store)."""
    config = {**faults.OFFLINE, **({"threads": threads} if threads else {})}
    con = duckdb.connect(str(store.path), config=config)
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    return con


async def benchdeck_round(
    servers: list[SshdServer], store: Store, n: int, seconds: int, policy: str, profile: str = ""
) -> Round:
    t_start = time.time()
    chunks: dict[str, Chunks] = {}
    transports = [TimedSSH(spec_for(servers[i % len(servers)], i), chunks) for i in range(n)]
    await gather_limited([t.connect() for t in transports])
    with store.transaction() as cur:
        build = parse_build_name("my8028_rel")
        rids = [create_run(cur, NewRun(f"h{i}", build, "insert_range=100", "bench")) for i in range(n)]
    streams: dict[int, Stream] = {}
    window: dict[str, Any] = {}
    all_started = asyncio.Event()
    queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()
    commits: list[tuple[float, list[tuple[int, list[float]]]]] = []
    flushes: list[float] = []
    handed: dict[tuple[int, float], float] = {}
    flush_cpu: list[float] = []

    class TimedSink(EventSink):
        """Notes when each row is handed to the sink (on the writer thread) and committed."""

        def handle_many(self, events: Sequence[RunEvent]) -> None:
            now = time.time()
            for ev in events:
                if isinstance(ev, BenchBatch):
                    handed.update(((ev.run_id, r.t), now) for r in ev.rows)
            super().handle_many(events)

        def flush(self) -> int:
            rows = [(rid, [r.t for r in p.bench]) for rid, p in self._pending.items() if p.bench]
            t0, c0 = time.perf_counter(), time.thread_time()
            written = super().flush()
            if rows:
                commits.append((time.time(), rows))
                flushes.append(time.perf_counter() - t0)
                flush_cpu.append(time.thread_time() - c0)
            return written

    pol = POLICIES[policy]
    db.WAL_CHECKPOINT_BYTES = pol.wal_bytes
    sink = TimedSink(store, batch_time=pol.batch_time, hold_s=pol.hold_s)
    sink.hold.gap_s = pol.gap_s
    store.set_threads(pol.threads)  # (after the sink, which sets the new policy's)

    async def drive(t: SSHTransport, i: int, rid: int) -> None:
        d = Path(tempfile.mkdtemp(prefix="bd-stream-"))
        st = streams[rid] = Stream(f"h{i}", d / "bench.out")
        chunks[str(st.out)] = st.chunks
        plan = RunPlan(
            run_id=rid, host=f"h{i}", workload="insert_range=100", remote_dir=str(d),
            bench_argv=("perl", "-e", GENERATOR, str(d / "stop")), duration_s=seconds, monitors=False,
        )  # fmt: skip
        sink.plans[rid] = plan
        async for ev in Runner(t, plan).events():
            if isinstance(ev, BenchBatch):
                now = time.time()
                st.events.update((r.t, now) for r in ev.rows)
            await queue.put(ev)

    def observe(ev: RunEvent) -> None:
        st = streams[ev.run_id]
        if isinstance(ev, RunStarted):
            st.started = time.time()
        elif isinstance(ev, EndEvent):
            st.end = type(ev).__name__ + (f": {ev.error}" if isinstance(ev, RunFailed) else "")
        if len(streams) == n and all(s.started or s.end for s in streams.values()):
            all_started.set()

    opens = [0]
    files = store.backend
    assert isinstance(files, db.FileStore)
    connect = files._connect_waiting

    open_s: list[float] = []

    def counting(wait: float) -> Any:
        opens[0] += 1
        t0 = time.perf_counter()
        try:
            return connect(wait) if pol.attach or not store.shared else database_per_hold(store, pol.threads)
        finally:
            open_s.append(time.perf_counter() - t0)

    files._connect_waiting = counting  # type: ignore[method-assign]
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchdeck-writer")  # as `run` does
    ingester = asyncio.create_task(pump(queue, sink, observe, writer))
    finished = asyncio.gather(
        *(drive(t, i, rid) for i, (t, rid) in enumerate(zip(transports, rids, strict=True)))
    )
    await all_started.wait()
    # the window opens once the writer has stored every run's start, too
    await asyncio.get_running_loop().run_in_executor(writer, lambda: None)
    window["t"] = time.time()
    t0, cpu0, wall0, load, lag = window["t"], time.process_time(), time.perf_counter(), Load(), LoopLag()
    opens0 = opens[0]
    lag.start()
    prof = cProfile.Profile(time.thread_time) if profile else None
    if prof is not None:
        prof.enable()
    await asyncio.sleep(seconds)
    if prof is not None:
        prof.disable()
        prof.dump_stats(f"{profile}.{n}.{policy}")
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    r = Round(n, load.stop(), 100 * cpu / wall / n, lag.stop(), {})
    r.opens_per_s = (opens[0] - opens0) / wall
    r.open_ms = stats_ms(open_s[opens0 : opens[0]])
    r.startup_s = t0 - t_start
    await asyncio.sleep(2.0)  # rows written at the window's end reach the store
    for st in streams.values():
        st.out.with_name("stop").touch()
    await finished
    await queue.put(None)
    await ingester
    writer.shutdown(wait=True)
    files._connect_waiting = connect  # type: ignore[method-assign]
    for t in transports:
        await t.close()

    committed = {(rid, t): at for at, rows in commits for rid, ts in rows for t in ts}
    steps: dict[str, list[float]] = {
        k: [] for k in ("write->recv", "recv->event", "event->sink", "sink->commit", "in process", "total")
    }
    for rid, st in streams.items():
        recv = line_times(st.chunks)
        for t in window_rows(st, t0, seconds):
            ev, done = st.events.get(t), committed.get((rid, t))
            if ev is None or done is None or (rid, t) not in handed:
                r.problems.append(
                    f"{st.host}: line t={t} received but {'not parsed' if ev is None else 'not committed'}"
                )
                continue
            st.in_window += 1
            steps["write->recv"].append(recv[t] - t)
            steps["recv->event"].append(ev - recv[t])
            steps["event->sink"].append(handed[rid, t] - ev)
            steps["sink->commit"].append(done - handed[rid, t])
            steps["in process"].append(done - recv[t])
            steps["total"].append(done - t)
    r.steps = steps
    r.flush_ms = stats_ms(flushes)
    r.flush_cpu_ms = stats_ms(flush_cpu)
    r.problems += exactly_once(store, streams, seconds)
    for st in streams.values():
        shutil.rmtree(st.out.parent, ignore_errors=True)
    return r


def exactly_once(store: Store, streams: dict[int, Stream], seconds: int) -> list[str]:
    """Every line a writer wrote is one stored row; every stream delivered in the window."""
    with store.reading() as cur:
        stored = dict(
            cur.execute(
                "SELECT run_id, count(*) FROM bench_samples WHERE run_id IN "
                "(SELECT unnest($ids)) GROUP BY run_id",
                {"ids": list(streams)},
            ).fetchall()
        )
    problems = []
    for rid, st in streams.items():
        written = sum(1 for ln in st.out.read_text().splitlines() if ln.startswith("[ "))
        if stored.get(rid, 0) != written:
            problems.append(f"{st.host}: {written} lines written, {stored.get(rid, 0)} rows stored")
        if st.in_window == 0:
            problems.append(f"{st.host}: delivered no row in the {seconds} s window ({st.end or 'no end'})")
        elif st.end != "RunFinished":
            problems.append(f"{st.host}: {st.end or 'did not end'}")
    return problems


def show(kind: str, rep: int, r: Round) -> None:
    parts = "  ".join(f"{k} {fmt(stats_ms(v))}" for k, v in r.steps.items())
    rows = len(next(iter(r.steps.values())))
    print(
        f"N={r.n:3d} #{rep} {kind:9s} {r.load}; start {r.startup_s:4.1f} s; rows {rows}; "
        f"CPU/stream {r.cpu_pct:5.2f}%; loop lag p99/max {r.lag[2]:.0f}/{r.lag[3]:.0f} ms",
        flush=True,
    )
    extra = (
        f"  [store opens {r.opens_per_s:.1f}/s, flush p50/p99 {r.flush_ms[0]:.0f}/{r.flush_ms[2]:.0f} ms, "
        f"its CPU {r.flush_cpu_ms[0]:.0f}/{r.flush_cpu_ms[2]:.0f} ms, "
        f"an open p50/max {r.open_ms[0]:.0f}/{r.open_ms[3]:.0f} ms]"
        if kind != "baseline"
        else ""
    )
    print(f"        p50/p95/p99/max ms: {parts}{extra}", flush=True)
    for p in r.problems:
        print(f"FAIL N={r.n}: {p}", flush=True)


async def main_async(args: argparse.Namespace) -> int:
    extra = "" if args.login_shell else NO_RC_FILES
    servers = [start_sshd(extra_config=extra) for _ in range(args.sshd)]
    summary: dict[tuple[int, str], list[tuple[Round, Round]]] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = Store.open(Path(tmp) / "streams.duckdb", shared=args.store == "shared", lock_wait=10)
            with store:
                for n in [int(x) for x in args.streams.split(",")]:
                    for rep in range(1, args.repeats + 1):
                        base = await bare_round(servers, n, args.seconds)
                        show("baseline", rep, base)
                        for policy in args.policies.split(","):
                            bd = await benchdeck_round(servers, store, n, args.seconds, policy, args.profile)
                            show(f"bd/{policy}", rep, bd)
                            summary.setdefault((n, policy), []).append((base, bd))
    finally:
        for s in servers:
            s.stop()

    def med(rounds: list[Round], step: str, i: int) -> float:
        return statistics.median(stats_ms(r.steps[step])[i] for r in rounds)

    print(
        f"\nsummary ({args.store} store, {args.seconds} s windows, median of {args.repeats} repeat(s); ms):"
    )
    print(
        "   N policy   | load | baseline write->recv p50/p99 | benchdeck write->recv p50/p99 | recv->commit "
        "p50/p99 | total p50/p95/p99/max | CPU/stream (baseline)"
    )
    for (n, policy), pairs in summary.items():
        b, d = [p[0] for p in pairs], [p[1] for p in pairs]
        print(
            f" {n:3d} {policy:8s} | {statistics.median(r.load.loadavg for r in d):4.1f} | "
            f"{med(b, 'write->recv', 0):.1f}/{med(b, 'write->recv', 2):.1f} | "
            f"{med(d, 'write->recv', 0):.1f}/{med(d, 'write->recv', 2):.1f} | "
            f"{med(d, 'in process', 0):.0f}/{med(d, 'in process', 2):.0f} | "
            f"{'/'.join(format(med(d, 'total', i), '.0f') for i in range(4))} | "
            f"{statistics.median(r.cpu_pct for r in d):.3f}% "
            f"({statistics.median(r.cpu_pct for r in b):.3f}%)",
            flush=True,
        )
    policies = args.policies.split(",")
    mine = "new" if "new" in policies else policies[0]  # benchdeck's own policy, else the first
    top = (max(n for n, _ in summary), mine)  # at the largest N
    d = [p[1] for p in summary[top]]
    p99, local, cpu = med(d, "total", 2), med(d, "in process", 2), statistics.median(r.cpu_pct for r in d)
    print(
        f"targets at N={top[0]} ({top[1]} policy): p99 < {TARGET_P99_MS:g} ms: "
        f"{'met' if p99 < TARGET_P99_MS else 'NOT met'} "
        f"({p99:.0f} ms; in this process {local:.0f} ms); CPU < {TARGET_CPU_PCT:g}% per stream: "
        f"{'met' if cpu < TARGET_CPU_PCT else 'NOT met'} ({cpu:.3f}%)"
    )
    record("bench_streams", summary_figures(summary, mine, med), args)
    failed = sum(len(r.problems) for pairs in summary.values() for pair in pairs for r in pair)
    if failed:
        print(f"FAIL: {failed} stream problem(s) above", file=sys.stderr)
        return 1
    return 0


def summary_figures(
    summary: dict[tuple[int, str], list[tuple[Round, Round]]],
    mine: str,
    med: Callable[[list[Round], str, int], float],
) -> list[Figure]:
    """p99 of a line to its stored row and CPU per stream, at every N, for the history."""
    figures = []
    for (n, policy), pairs in summary.items():
        b, d = [p[0] for p in pairs], [p[1] for p in pairs]
        own = policy == mine
        p99, cpu = med(d, "total", 2), statistics.median(r.cpu_pct for r in d)
        what = f"{n} streams, {policy} policy"
        figures += [
            Figure(f"{what}: remote line -> stored row, p99", p99, "ms", med(b, "write->recv", 2),
                   "bare asyncssh, write -> received", f"< {TARGET_P99_MS:g} ms" if own else "",
                   p99 < TARGET_P99_MS if own else None),
            Figure(f"{what}: CPU per stream", cpu, "% of a core", statistics.median(r.cpu_pct for r in b),
                   "bare asyncssh", f"< {TARGET_CPU_PCT:g} %" if own else "",
                   cpu < TARGET_CPU_PCT if own else None),
        ]  # fmt: skip
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--streams", default="16,32,64,128")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--sshd", type=int, default=4)
    ap.add_argument("--store", choices=("shared", "held"), default="shared")
    ap.add_argument(
        "--policies",
        default="new",
        help=f"shared-store write policies to run, in this order per repeat: {', '.join(POLICIES)}",
    )
    ap.add_argument("--profile", default="", help="cProfile the event loop's thread into PROFILE.N.POLICY")
    ap.add_argument("--login-shell", action="store_true", help="let sessions read root's ~/.bashrc")
    args = ap.parse_args()
    sys.exit(asyncio.run(main_async(args)))


if __name__ == "__main__":
    main()
