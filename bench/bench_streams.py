"""Benchmark: N concurrent live streams from one process, remote line -> row in DuckDB.

For N = 1, 8, 32 it starts N detached remote writers spread over several real local sshd
servers; each prints one sysbench-format interval line per second whose ``t`` is the wall
clock time it was written. benchdeck follows them (SSHTransport -> LineFollower -> parser ->
events -> EventSink -> DuckDB) and this script records, per row, the time from the remote
write to the commit of the row, and the CPU used by this process.

Prints per N: CPU per stream (% of one core), end-to-end latency p50 and p99, and the ratio of
each to the N=1 baseline of the same run. Targets: p99 < 250 ms, < 1% of a core per stream.

    python bench/bench_streams.py [--seconds 20] [--streams 1,8,32] [--sshd 4]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.builds import parse_build_name
from engine.events import BenchBatch, RunEvent, RunStarted
from engine.runner import Runner, RunPlan
from engine.transport import HostSpec, SSHTransport
from store.db import Store
from store.ingest import EventSink, pump
from store.runs import NewRun, create_run
from tests.servers.sshd import SshdServer, start_sshd

# One interval line per second; t is the epoch time of the write (same clock: loopback).
WRITER = (
    'n=$1; i=0; while [ "$i" -lt "$n" ]; do i=$((i+1)); '
    'printf "[ %ss ] thds: 1 tps: 10.00 qps: 200.00 (r/w/o: 140.00/40.00/20.00) '
    'lat (ms,95%%): 1.00 err/s: 0.00 reconn/s: 0.00\\n" "$(date +%s.%N | cut -c1-14)"; '
    "sleep 1; done"
)


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


async def one_round(servers: list[SshdServer], store: Store, n: int, seconds: int) -> dict[str, float]:
    transports = []
    for i in range(n):
        srv = servers[i % len(servers)]
        spec = HostSpec(
            name=f"h{i}",
            hostname=srv.host,
            port=srv.port,
            user=srv.user,
            key_files=(str(srv.client_key),),
            known_hosts=str(srv.known_hosts),
            use_ssh_config=False,
        )
        t = SSHTransport(spec)
        await t.connect()
        transports.append(t)
    latencies: list[float] = []
    pending: list[float] = []
    started = 0
    steady: dict[str, float] = {}
    all_started = asyncio.Event()
    queue: asyncio.Queue[RunEvent | None] = asyncio.Queue()

    async def drive(t: SSHTransport, i: int) -> None:
        with store.transaction() as cur:
            rid = create_run(
                cur, NewRun(f"h{i}", parse_build_name("my8028_rel"), "insert_range=100", "bench")
            )
        plan = RunPlan(
            run_id=rid,
            host=f"h{i}",
            workload="insert_range=100",
            remote_dir=tempfile.mkdtemp(prefix="bd-stream-"),
            bench_argv=("sh", "-c", WRITER, "writer", str(seconds)),
            duration_s=seconds,
            monitors=False,
        )
        sink.plans[rid] = plan
        async for ev in Runner(t, plan).events():
            await queue.put(ev)

    def observe(ev: RunEvent) -> None:
        nonlocal started
        if isinstance(ev, BenchBatch):
            pending.extend(r.t for r in ev.rows)
        elif isinstance(ev, RunStarted):
            started += 1
            if started == n:  # steady state: every stream is running
                steady.update(t=time.time(), cpu=time.process_time(), wall=time.perf_counter())
                all_started.set()

    class TimedSink(EventSink):
        """Records, at each commit, how long ago each committed row was written remotely."""

        def flush(self) -> int:
            written = super().flush()
            if written:
                now = time.time()
                if steady:
                    latencies.extend(now - t for t in pending if t > steady["t"] + 1)
                pending.clear()
            return written

    sink = TimedSink(store, batch_time=0.1)

    ingester = asyncio.create_task(pump(queue, sink, observe))
    finished = asyncio.gather(*(drive(t, i) for i, t in enumerate(transports)))
    # The steady window ends when the first stream ends (the last line of each is at `seconds`).
    await all_started.wait()
    await asyncio.sleep(max(1.0, seconds - (time.time() - steady["t"]) - 2))
    cpu, wall = time.process_time() - steady["cpu"], time.perf_counter() - steady["wall"]
    await finished
    await queue.put(None)
    await ingester
    for t in transports:
        await t.close()
    return {
        "rows": len(latencies),
        "cpu_per_stream_pct": 100 * cpu / wall / n,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * pct(latencies, 99),
    }


async def main_async(args: argparse.Namespace) -> None:
    servers = [start_sshd() for _ in range(args.sshd)]
    try:
        with tempfile.TemporaryDirectory() as tmp, Store.open(Path(tmp) / "streams.duckdb") as store:
            results = {}
            for n in [int(x) for x in args.streams.split(",")]:
                results[n] = await one_round(servers, store, n, args.seconds)
                r = results[n]
                base = results[min(results)]
                print(
                    f"N={n:3d}  rows {r['rows']:5.0f}  CPU/stream {r['cpu_per_stream_pct']:6.2f}% "
                    f"(x{r['cpu_per_stream_pct'] / base['cpu_per_stream_pct']:.2f} of N={min(results)})  "
                    f"latency p50 {r['p50_ms']:6.1f} ms  p99 {r['p99_ms']:6.1f} ms "
                    f"(x{r['p99_ms'] / base['p99_ms']:.2f})",
                    flush=True,
                )
            worst = max(results.values(), key=lambda r: r["p99_ms"])
            print(
                f"targets: p99 < 250 ms: {'met' if worst['p99_ms'] < 250 else 'NOT met'}; "
                f"CPU < 1% per stream: "
                f"{'met' if all(r['cpu_per_stream_pct'] < 1 for r in results.values()) else 'NOT met'}"
            )
    finally:
        for s in servers:
            s.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--streams", default="1,8,32")
    ap.add_argument("--sshd", type=int, default=4)
    asyncio.run(main_async(ap.parse_args()))


if __name__ == "__main__":
    main()
