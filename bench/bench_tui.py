"""Benchmark: the Textual app's startup on a 10,000-run store and the Live view's CPU.

How it measures, its targets and its history: docs/performance.md (bench_tui.py).

    python bench/bench_tui.py [--seconds 30] [--streams 16] [--reps 5] [--profile]
                              [--only startup|live] [--history 3600] [--live-reps 3]
                              [--stacks 2000] [--capture-window 10]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import fcntl
import io
import json
import os
import pstats
import random
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import Figure, record
from benchdeck.engine.events import BenchBatch, IostatBatch, Planned, RunStarted, VmstatBatch
from benchdeck.engine.planning.plan import Marks, RunPlan
from benchdeck.engine.profiling.capture import DEFAULT_EVENTS
from benchdeck.engine.profiling.feed import CaptureFeed
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample
from benchdeck.store.storage.db import Store
from tests.fixtures.big_store import build_store

ROOT = Path(__file__).resolve().parent.parent
STARTUP_TARGET_S = 1.0
STARTUP_TARGET_X = 1.5  # ... and at most this many times a bare Textual app's first frame (issue 29; 15: 2x)
CPU_TARGET_PCT = 3.0  # issue 15: fresh, switching tabs and an hour in
RUNS_MARKER = "c32r12"  # the config column (c32r128): only a row of the Runs table shows it
RUNS_SETTLED = "c32r128"  # ... all of it once the column is as wide as its content
# Launch usable: its lists filled (a build and a workload a user picks), not its labels alone
LAUNCH_MARKER = ("sqlite-sync", "point-query_range=100")
BARE_MARKER = "bare-textual-ready"
ESCAPES = re.compile(rb"\x1b\[[0-9;:<=>?$ ]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[^\[\]]")

# --- 1. startup ---------------------------------------------------------------------------

# Headless child: prints the perf_counter (CLOCK_MONOTONIC, the parent's clock too) of its
# first statement, of the end of its imports and of the first composited frame that shows
# what we wait for (and is shown: Textual drops the frames it makes while it batches the
# app's start). argv: mode (bare | runs | launch), store path.
HEADLESS_CHILD = """
import time
T0 = time.perf_counter()
import asyncio, json, sys
from pathlib import Path
sys.path.insert(0, {root!r})
mode, db = sys.argv[1], sys.argv[2]
from textual.app import App
if mode == "bare":
    from textual.widgets import Static

    class Bare(App):
        def compose(self):
            yield Static("bare")

    app = Bare()
    ready = lambda screen: True
else:
    from textual.widgets import DataTable
    from benchdeck.tui.app.app import BenchdeckApp
    from benchdeck.tui.app.screens.runs import RunsScreen

    app = BenchdeckApp(db=Path(db))

    def ready(screen):
        if mode == "launch":  # by name: importing the Launch module here would add to the figure
            return type(screen).__name__ == "LaunchScreen" and all(
                screen.query_one(q).option_count for q in ("#launch-builds", "#launch-workloads")
            )
        return isinstance(screen, RunsScreen) and screen.query_one(DataTable).row_count > 0
T_IMPORTED = time.perf_counter()
frame = None
display = app._display

def timed_display(screen, renderable):
    global frame
    display(screen, renderable)
    if frame is None and renderable is not None and not app._batch_count and ready(screen):
        frame = time.perf_counter()

app._display = timed_display

async def main():
    async with app.run_test(size=(120, 36)):
        deadline = time.perf_counter() + 30
        while frame is None and time.perf_counter() < deadline:
            await asyncio.sleep(0.002)

asyncio.run(main())
print(json.dumps({{"t0": T0, "imported": T_IMPORTED, "frame": frame}}), flush=True)
"""

BARE_PTY_CHILD = f"""
from textual.app import App
from textual.widgets import Static

class Bare(App):
    def compose(self):
        yield Static({BARE_MARKER!r})

Bare().run()
"""


def child_env(tmp: Path) -> dict[str, str]:
    """The user's environment, with config and data dirs of our own (no settings, no themes)."""
    env = dict(os.environ)
    env.update(
        XDG_CONFIG_HOME=str(tmp / "config"),
        XDG_DATA_HOME=str(tmp / "data"),
        BENCHDECK_CACHE_DIR=str(tmp / "cache"),
        TERM="xterm-256color",
        COLORTERM="truecolor",
        PYTHONDONTWRITEBYTECODE="",
    )
    for k in (
        "BENCHDECK_DB",
        "BENCHDECK_INVENTORY",
        "BENCHDECK_CONFIG",
        "BENCHDECK_UI_DIR",
        "BENCHDECK_CONFIG_DIR",
        "TEXTUAL",
    ):
        env.pop(k, None)
    return env


KEEP_CHILD = """
import sys, time
from pathlib import Path
from benchdeck.tui.startup import first_page
from benchdeck.tui.startup.store_handle import Opening
db = Path(sys.argv[1])
for _ in range(20):  # a store written within first_page.QUIET_S (just built) is kept once quiet
    if first_page.load(db) is not None:  # (kept already: the launch before had time to)
        break
    opening = Opening(db)
    opening.opened.result(timeout=60)
    opening.store.close()
    time.sleep(0.25)
else:
    raise SystemExit("the first page was not kept")
"""


def keep(db: Path, env: dict[str, str]) -> None:
    """What a start that lasts past its first moment does: the store opens and its first page
    is kept for the next start. (A pty launch here quits at its first frame, usually before
    its store has opened: the page it would keep was then kept only by chance.)"""
    subprocess.run([sys.executable, "-c", KEEP_CHILD, str(db)], env=env, check=True, cwd=ROOT)


def spawn_wall(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def headless_startup(mode: str, db: Path, env: dict[str, str]) -> dict[str, float]:
    """Spawn -> first frame, spawn -> first statement, imports, and the whole process."""
    code = HEADLESS_CHILD.format(root=str(ROOT))
    t_spawn = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", code, mode, str(db)],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    t_exit = time.perf_counter()
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if r["frame"] is None:
        raise RuntimeError(f"{mode}: no frame within 30 s\n{out.stderr}")
    return {
        "frame": r["frame"] - t_spawn,
        "interp": r["t0"] - t_spawn,
        "imports": r["imported"] - r["t0"],
        "wall": t_exit - t_spawn,
    }


def pty_startup(
    argv: list[str],
    marker: str | tuple[str, ...],
    env: dict[str, str],
    size: tuple[int, int],
    settled: str | None = None,
    settle_s: float = 2.0,
) -> tuple[float, float | None]:
    """Spawn ``argv`` on a pty of ``size``: seconds until ``marker`` (each of them, for a tuple)
    has reached the terminal, and until ``settled`` does (None if not within ``settle_s`` after)."""
    markers = {marker} if isinstance(marker, str) else set(marker)
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    t_spawn = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True
    )
    os.close(slave)
    raw = b""
    seen: float | None = None
    done: float | None = None
    deadline = t_spawn + 30
    try:
        while done is None and time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            now = time.perf_counter() - t_spawn
            raw = raw[-8192:] + chunk  # enough to hold any escape sequence cut by a read
            text = ESCAPES.sub(b"", raw)  # (Textual styles cells one character at a time)
            markers -= {m for m in markers if m.encode() in text}
            if seen is None and not markers:
                seen, deadline = now, t_spawn + now + settle_s
            if seen is not None and (settled is None or settled.encode() in text):
                done = now
        os.write(master, b"\x11")  # ctrl+q: Textual's quit
        end = time.perf_counter() + 10
        while proc.poll() is None and time.perf_counter() < end:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    break
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    if seen is None:
        raise RuntimeError(
            f"{argv[-1]}: {marker!r} never reached the terminal; got {ESCAPES.sub(b'', raw)[-400:]!r}"
        )
    return seen, done


def stats(xs: list[float]) -> tuple[float, float]:
    return statistics.median(xs), max(xs)


# --- 2. the Live screen ---------------------------------------------------------------------


class Meter:
    """Counts HostPane.show calls (and their CPU time: with the charts' redraws since they are
    drawn at once) and composited frames."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.show_s = 0.0

    def reset(self) -> None:
        self.counts.clear()
        self.show_s = 0.0

    def install(self) -> Callable[[], None]:
        from benchdeck.tui.app.screens import live

        original = live.HostPane.show

        def show(pane: Any, v: Any, line: str) -> None:
            t0 = time.process_time()  # CPU: on a shared machine the wall clock counts waits
            original(pane, v, line)
            self.show_s += time.process_time() - t0
            self.counts["show"] += 1

        live.HostPane.show = show  # type: ignore[method-assign]

        def undo() -> None:
            live.HostPane.show = original  # type: ignore[method-assign]

        return undo


def bench_row(k: int, rnd: random.Random) -> BenchInterval:
    qps = 50_000 * (1 + 0.05 * rnd.random())
    return BenchInterval(t=float(k), threads=24, tps=qps / 20, qps=qps, latency_ms=rnd.uniform(1, 3))


def vmstat_row(k: int, rnd: random.Random) -> VmstatSample:
    us = rnd.randint(30, 60)
    return VmstatSample(
        seq=k - 1,
        r=rnd.randint(10, 30),
        b=0,
        swpd=0,
        free=10**6,
        buff=10**4,
        cache=10**6,
        si=0,
        so=0,
        bi=0,
        bo=rnd.randint(1000, 9000),
        in_=100_000,
        cs=rnd.randint(900_000, 1_100_000),
        us=us,
        sy=15,
        id=85 - us,
        wa=0,
        st=0,
    )


def iostat_row(k: int, rnd: random.Random) -> IostatSample:
    return IostatSample(
        seq=k - 1,
        device="nvme0n1",
        r_s=rnd.uniform(0, 100),
        w_s=rnd.uniform(7000, 9000),
        rkb_s=rnd.uniform(0, 800),
        wkb_s=rnd.uniform(6e5, 8e5),
    )


def capture_bodies(rnd: random.Random, stacks: int) -> tuple[list[str], list[str]]:
    """A host's window bodies as its capture loop writes them: ``perf stat -x,`` lines of the
    default events (perf-stat.txt's CSV: value, unit, event, run time, running %), and
    ``stacks`` folded stacks of 11-43 frames (mysqld-like names)."""
    counters = [f"{rnd.randint(10**6, 10**10)},,{e},10004000000,100.00,," for e in DEFAULT_EVENTS]
    kinds = ("row_", "btr_", "buf_", "trx_", "que_", "handler::")
    funcs = [f"{rnd.choice(kinds)}fn_{i}" for i in range(400)]
    folded = []
    for i in range(stacks):
        frames = ["mysqld", "start_thread", "pfs_spawn_thread", *rnd.sample(funcs, rnd.randint(8, 40))]
        folded.append(f"{';'.join(frames)}_{i} {rnd.randint(1, 50)}")
    return counters, folded


def send_capture(
    feed: CaptureFeed, n: int, t: float, bodies: tuple[list[str], list[str]], window_s: float
) -> None:
    """Window ``n`` of each kind, as the runner hands the followed lines in (a block at once)."""
    for kind, body in zip(("counters", "cpu"), bodies, strict=True):
        head = f"# window {n} start={t:.3f} seconds={window_s:.3f} target=pids 812,901"
        feed.feed(kind, [head, *body, f"# end {n}"])


def send_samples(hub: Any, run_id: int, ks: range, rnd: random.Random) -> None:
    """Samples ``ks`` (seconds) of each kind, one batch per kind."""
    hub._on_event(BenchBatch(run_id, tuple(bench_row(k, rnd) for k in ks)))
    hub._on_event(VmstatBatch(run_id, tuple(vmstat_row(k, rnd) for k in ks)))
    hub._on_event(IostatBatch(run_id, tuple(iostat_row(k, rnd) for k in ks)))


async def feed(hub: Any, i: int, n: int, history: int = 0, capture: tuple[int, int] | None = None) -> None:
    """One stream: a run on host ``db<i>`` already ``history`` seconds in, one sample of each
    kind a second, phase ``i/n``; with ``capture`` (stacks, window seconds) perf windows too,
    host ``i`` ending its windows at second ``i`` modulo the window."""
    rnd = random.Random(i)
    run_id, host = 1000 + i, f"db{i:02d}"
    plan = RunPlan(
        run_id=run_id,
        host=host,
        workload="point-query_range=100",
        remote_dir=f"/tmp/bd-{i}",
        bench_argv=("sysbench",),
        duration_s=max(300, 2 * history),
        build="my8032_rel",
    )
    hub._on_event(Planned(run_id, plan))
    hub._on_event(RunStarted(run_id, host, plan.remote_dir, datetime.now()))
    if history:
        send_samples(hub, run_id, range(1, history + 1), rnd)
    capture_feed = CaptureFeed(plan, Marks(), hub._on_event) if capture else None
    bodies = capture_bodies(rnd, capture[0]) if capture else ([], [])  # made before the window
    window_s = capture[1] if capture else 1
    loop = asyncio.get_running_loop()
    start = loop.time() + i / n
    k = history
    while True:
        k += 1
        await asyncio.sleep(max(0.0, start + k - history - loop.time()))
        send_samples(hub, run_id, range(k, k + 1), rnd)
        if capture_feed is not None and k % window_s == i % window_s:
            start_s = float(max(0, k - window_s))  # (the format has no negative start)
            send_capture(capture_feed, k // window_s, start_s, bodies, float(window_s))


async def live_round(
    db: Path,
    streams: int,
    seconds: float,
    tab_every: float | None,
    meter: Meter,
    profiler: cProfile.Profile | None = None,
    warmup: float = 3.0,
    history: int = 0,
    capture: tuple[int, int] | None = None,
) -> dict[str, float]:
    from textual.widgets import Tabs

    from benchdeck.tui.app.app import BenchdeckApp
    from benchdeck.tui.app.screens.live import HostTab

    app = BenchdeckApp(db=db)
    frames = 0
    display = app._display

    def counted(screen: Any, renderable: Any) -> None:
        nonlocal frames
        display(screen, renderable)
        if renderable is not None:
            frames += 1

    app._display = counted  # type: ignore[method-assign]
    async with app.run_test(size=(160, 48)) as pilot:
        end = time.perf_counter() + 10
        while app.current_mode != "launch" and time.perf_counter() < end:  # empty store: Launch
            await pilot.pause()
        app.switch_mode("live")
        await pilot.pause()
        feeders = [asyncio.create_task(feed(app.hub, i, streams, history, capture)) for i in range(streams)]
        await asyncio.sleep(warmup)  # every tab added, every stream running
        tabs = app.screen.query_one("#live-tabs", Tabs)
        panes = [t.id for t in tabs.query(HostTab) if t.id]
        assert len(panes) == streams, f"{len(panes)} tabs for {streams} streams"
        meter.reset()
        frames = 0
        version0 = app.hub.model.version
        if profiler is not None:
            profiler.enable()
        cpu0, t0 = time.process_time(), time.perf_counter()
        switches = 0
        while (left := t0 + seconds - time.perf_counter()) > 0:
            if tab_every is None:
                await asyncio.sleep(left)
                continue
            await asyncio.sleep(min(tab_every, left))
            if time.perf_counter() < t0 + seconds:
                switches += 1
                tabs.active = panes[switches % len(panes)]
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - t0
        if profiler is not None:
            profiler.disable()
        for f in feeders:
            f.cancel()
        await asyncio.gather(*feeders, return_exceptions=True)
        events = app.hub.model.version - version0
    return {
        "cpu_pct": 100 * cpu / wall,
        "wall": wall,
        "shows": meter.counts["show"],
        "show_ms": 1000 * meter.show_s / max(1, meter.counts["show"]),
        "frames": frames,
        "switches": switches,
        "events": events,
    }


def run_live(
    db: Path,
    streams: int,
    seconds: float,
    tab_every: float | None,
    meter: Meter,
    profiler: cProfile.Profile | None = None,
    history: int = 0,
    capture: tuple[int, int] | None = None,
) -> dict[str, float]:
    return asyncio.run(
        live_round(db, streams, seconds, tab_every, meter, profiler, history=history, capture=capture)
    )


def median_round(rs: list[dict[str, float]]) -> dict[str, float]:
    """The round with the median CPU, with the rounds' lowest and highest CPU."""
    cpus = [r["cpu_pct"] for r in rs]
    mid = sorted(rs, key=lambda r: r["cpu_pct"])[(len(rs) - 1) // 2]
    return {**mid, "cpu_pct": statistics.median(cpus), "cpu_min": min(cpus), "cpu_max": max(cpus)}


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def profile_live(db: Path, streams: int, seconds: float, meter: Meter) -> str:
    """cProfile of the steady window of a round with streams (the profiler slows it ~3x)."""
    prof = cProfile.Profile()
    run_live(db, streams, seconds, None, meter, prof)
    out = io.StringIO()
    ps = pstats.Stats(prof, stream=out).strip_dirs()
    ps.sort_stats("cumulative").print_stats(r"live\.py|charts\.py|plotext|_compositor|query\.py|ansi", 30)
    ps.sort_stats("tottime").print_stats(15)
    return out.getvalue()


# --- sections -------------------------------------------------------------------------------


Row = tuple[str, str, str, str]  # what, figure, baseline / ratio, target


def startup_section(
    args: argparse.Namespace, tmp: Path, env: dict[str, str], empty: Path, figures: list[Figure]
) -> list[Row]:
    """Section 1: spawn -> first frame, headless and on a pty, with a 10k-run store (its figures
    appended to ``figures`` for the history)."""
    py = sys.executable
    big = tmp / "runs10k.duckdb"
    t0 = time.perf_counter()
    n = build_store(big, args.hosts, args.builds)
    print(f"store: {n:,} runs, built in {time.perf_counter() - t0:.1f} s")
    print(
        "\n1. startup to the usable frame: Launch with its lists, Runs with rows"
        f" ({args.reps} runs each; median / max, seconds)"
    )
    base_py = [spawn_wall([py, "-c", "pass"], env) for _ in range(args.reps)]
    base_tx = [spawn_wall([py, "-c", "import textual.app"], env) for _ in range(args.reps)]
    print(f"  python -c pass (process)          {stats(base_py)[0]:6.3f} / {stats(base_py)[1]:6.3f}")
    print(f"  python -c 'import textual.app'    {stats(base_tx)[0]:6.3f} / {stats(base_tx)[1]:6.3f}")
    cache = Path(env["BENCHDECK_CACHE_DIR"])

    def forget() -> None:
        """The first page the last start kept goes: as after the store changed. (What else
        the cache holds, the CSS parsed by earlier starts (tui/app/stylesheet.py), stays: a
        change of the store does not touch it.)"""
        for kept in cache.glob("runs-*.json"):
            kept.unlink()

    headless: dict[str, list[dict[str, float]]] = {}
    for mode, db in (("bare", empty), ("launch", empty), ("runs", big)):
        headless[mode] = []
        for _ in range(args.reps):
            forget()  # headless: the store read before the first frame
            headless[mode].append(headless_startup(mode, db, env))
    labels = {
        "bare": "bare Textual app",
        "launch": "benchdeck, empty store (Launch)",
        "first": "benchdeck, first start (no store)",
        "newcomer": "  the same, nothing kept at all",
        "runs": f"benchdeck, {n:,} runs (Runs rows)",
        "cold": "  the same, store changed since",
    }
    print("  headless (run_test, 120x36):       first frame     imports      process")
    for mode, rs in headless.items():
        fr = stats([r["frame"] for r in rs])
        imp = statistics.median(r["imports"] for r in rs)
        wall = statistics.median(r["wall"] for r in rs)
        print(f"    {labels[mode]:34s} {fr[0]:6.3f} / {fr[1]:6.3f}   {imp:6.3f}     {wall:6.3f}")
    cli = [py, "-m", "benchdeck", "--db"]  # as the `benchdeck` command starts (tui/entry.py)
    size = (120, 36)
    # Interleaved (bare, empty, 10k, 10k changed in each repetition): on a shared machine the
    # load moves, and each ratio compares launches made moments apart. "10k": the store as the
    # last start left it, which shows the first page that start kept (tui/startup/first_page.py;
    # kept by keep(): a launch here quits at its first frame, before its store has opened);
    # "changed": that page forgotten, as after any write, so the store is read first.
    pty_bare: list[tuple[float, float | None]] = []
    pty_launch: list[tuple[float, float | None]] = []
    pty_first: list[tuple[float, float | None]] = []
    pty_newcomer: list[tuple[float, float | None]] = []
    pty_rows: list[tuple[float, float | None]] = []
    pty_cold: list[tuple[float, float | None]] = []
    for rep in range(args.reps):
        pty_bare.append(pty_startup([py, "-c", BARE_PTY_CHILD], BARE_MARKER, env, size))
        # a newcomer's first start (no store file yet), then a store with no runs and nothing
        # kept for it (the child reads it; later starts find "no runs" kept, as the first)
        pty_first.append(pty_startup([*cli, str(tmp / f"first-{rep}.duckdb")], LAUNCH_MARKER, env, size))
        # ... and the very first start on the machine: no CSS kept by an earlier start either
        bare_cache = {**env, "BENCHDECK_CACHE_DIR": str(tmp / f"cache-new-{rep}")}
        new_db = str(tmp / f"newcomer-{rep}.duckdb")
        pty_newcomer.append(pty_startup([*cli, new_db], LAUNCH_MARKER, bare_cache, size))
        forget()
        pty_launch.append(pty_startup([*cli, str(empty)], LAUNCH_MARKER, env, size))
        forget()
        pty_cold.append(pty_startup([*cli, str(big)], RUNS_MARKER, env, size, settled=RUNS_SETTLED))
        keep(big, env)
        pty_rows.append(pty_startup([*cli, str(big)], RUNS_MARKER, env, size, settled=RUNS_SETTLED))
    pty_runs = {"bare": pty_bare, "first": pty_first, "newcomer": pty_newcomer, "launch": pty_launch}
    pty_runs |= {"runs": pty_rows, "cold": pty_cold}
    print("  real terminal (pty 120x36, `python -m benchdeck --db ...`), spawn -> bytes on the tty:")
    print(f"    {'':34s} median    max    min")
    for mode, rs in pty_runs.items():
        xs = [r[0] for r in rs]
        print(f"    {labels[mode]:34s} {stats(xs)[0]:6.3f} {stats(xs)[1]:6.3f} {min(xs):6.3f}")
    ratios = sorted(r[0] / b[0] for r, b in zip(pty_rows, pty_bare, strict=True))
    first_ratios = sorted(r[0] / b[0] for r, b in zip(pty_first, pty_bare, strict=True))
    newcomer_ratios = sorted(r[0] / b[0] for r, b in zip(pty_newcomer, pty_bare, strict=True))
    empty_ratios = sorted(r[0] / b[0] for r, b in zip(pty_launch, pty_bare, strict=True))
    cold_ratios = sorted(r[0] / b[0] for r, b in zip(pty_cold, pty_bare, strict=True))
    for what, rs in (
        ("10k-run store", ratios),
        ("  changed since", cold_ratios),
        ("first start (Launch)", first_ratios),
        ("  nothing kept at all", newcomer_ratios),
        ("empty store (Launch)", empty_ratios),
    ):
        print(
            f"    {what} / bare Textual, per repetition: median x{statistics.median(rs):.2f} "
            f"(x{rs[0]:.2f} - x{rs[-1]:.2f})"
        )
    truncated = sum(r[1] is None for r in pty_rows + pty_cold)
    full = [r[1] - r[0] for r in pty_rows + pty_cold if r[1] is not None]
    print(
        f"    Runs columns sized to their content: {len(full)}/{2 * len(pty_rows)} launches "
        f"(+{max(full, default=0):.3f} s after the first rows at most); {truncated} stayed "
        f"truncated to the header widths for 2 s"
    )
    runs_pty, empty_pty, bare_pty, cold_pty, first_pty, newcomer_pty = (
        stats([r[0] for r in pty_runs[m]]) for m in ("runs", "launch", "bare", "cold", "first", "newcomer")
    )
    runs_hl = stats([r["frame"] for r in headless["runs"]])
    empty_hl = stats([r["frame"] for r in headless["launch"]])
    met = max(runs_pty[1], runs_hl[1]) < STARTUP_TARGET_S
    print(
        f"  10k-run store vs empty store: x{runs_pty[0] / empty_pty[0]:.2f} (tty), "
        f"x{runs_hl[0] / empty_hl[0]:.2f} (headless); "
        f"vs bare Textual x{runs_pty[0] / bare_pty[0]:.2f} (tty)"
    )
    verdict = "met" if met else "NOT met"
    print(f"  target first frame with rows < {STARTUP_TARGET_S:.0f} s (every run): {verdict}")
    ratio, cold_ratio = runs_pty[0] / bare_pty[0], cold_pty[0] / bare_pty[0]
    first_ratio, empty_ratio = first_pty[0] / bare_pty[0], empty_pty[0] / bare_pty[0]
    newcomer_ratio = newcomer_pty[0] / bare_pty[0]
    target = f"<= {STARTUP_TARGET_X:.1f}x bare Textual"
    for what, fig, rs in (
        (f"{n:,} runs, first page kept (Runs)", runs_pty, ratios),
        (f"{n:,} runs, store changed since (Runs)", cold_pty, cold_ratios),
        ("first start, no store (Launch)", first_pty, first_ratios),
        ("first start, nothing kept at all (Launch)", newcomer_pty, newcomer_ratios),
        ("store with no runs, nothing kept (Launch)", empty_pty, empty_ratios),
    ):
        x = statistics.median(rs)
        figures.append(
            Figure(
                f"start to the usable frame on a pty, {what}", fig[0], "s", bare_pty[0], "bare Textual app"
            )
        )
        name = f"start on a pty, {what}: per-repetition median ratio"
        figures.append(Figure(name, x, "x bare Textual", None, "", target, x <= STARTUP_TARGET_X))
    for what, x in (("", ratio), (", store changed since the last start", cold_ratio)):
        verdict = "met" if x <= STARTUP_TARGET_X else "NOT met"
        print(
            f"  target first frame with rows{what} <= {STARTUP_TARGET_X:.1f}x bare Textual (tty): {verdict}"
        )
    return [
        (
            "startup, 10k runs, tty (med/max)",
            f"{runs_pty[0]:.3f} / {runs_pty[1]:.3f} s",
            f"empty {empty_pty[0]:.3f} s (x{runs_pty[0] / empty_pty[0]:.2f}), "
            f"bare Textual {bare_pty[0]:.3f} s (x{ratio:.2f}; per rep x{statistics.median(ratios):.2f})",
            f"<= {STARTUP_TARGET_X:.1f}x bare: {'met' if ratio <= STARTUP_TARGET_X else 'NOT met'}; "
            f"< {STARTUP_TARGET_S:.0f} s: {'met' if runs_pty[1] < STARTUP_TARGET_S else 'NOT met'}",
        ),
        (
            "startup, 10k runs changed since, tty",
            f"{cold_pty[0]:.3f} / {cold_pty[1]:.3f} s",
            f"bare Textual {bare_pty[0]:.3f} s (x{cold_ratio:.2f}; "
            f"per rep x{statistics.median(cold_ratios):.2f})",
            f"<= {STARTUP_TARGET_X:.1f}x bare: {'met' if cold_ratio <= STARTUP_TARGET_X else 'NOT met'}",
        ),
        *(
            (
                f"startup, {what} (Launch), tty",
                f"{fig[0]:.3f} / {fig[1]:.3f} s",
                f"bare Textual {bare_pty[0]:.3f} s (x{x:.2f}; per rep x{statistics.median(rs):.2f})",
                f"<= {STARTUP_TARGET_X:.1f}x bare: {'met' if x <= STARTUP_TARGET_X else 'NOT met'}",
            )
            for what, fig, x, rs in (
                ("first start, no store", first_pty, first_ratio, first_ratios),
                ("first start, nothing kept at all", newcomer_pty, newcomer_ratio, newcomer_ratios),
                ("empty store, nothing kept", empty_pty, empty_ratio, empty_ratios),
            )
        ),
        (
            "Runs columns fit their content, tty",
            f"{len(full)}/{2 * len(pty_rows)} launches",
            f"{truncated} stuck at header widths",
            "all",
        ),
        (
            "startup, 10k runs, headless (store read)",
            f"{runs_hl[0]:.3f} / {runs_hl[1]:.3f} s",
            f"empty {empty_hl[0]:.3f} s (x{runs_hl[0] / empty_hl[0]:.2f}), "
            f"import textual.app {stats(base_tx)[0]:.3f} s",
            f"< {STARTUP_TARGET_S:.0f} s: {'met' if runs_hl[1] < STARTUP_TARGET_S else 'NOT met'}",
        ),
    ]


def live_section(args: argparse.Namespace, empty: Path, figures: list[Figure]) -> list[Row]:
    """Section 2: the Live screen's CPU, idle, with streams, with streams and tab switching (its
    figures appended to ``figures``)."""
    summary: list[Row] = []
    reps = max(1, args.live_reps)
    print(
        f"\n2. Live screen CPU, headless 160x48, steady window {args.seconds:.0f} s after 3 s warm-up, "
        f"{reps} rounds each (interleaved; median, min-max); load average {load_average()}"
    )
    meter = Meter()
    undo = meter.install()
    capture = (args.stacks, args.capture_window)
    kinds: list[tuple[int, float | None, int, tuple[int, int] | None]] = [
        (0, None, 0, None),
        (args.streams, None, 0, None),
        (args.streams, 2.0, 0, None),
        (args.streams, None, 0, capture),
    ]
    if args.history:
        kinds.append((args.streams, None, args.history, None))
    rounds: list[list[dict[str, float]]] = [[] for _ in kinds]
    try:
        for _ in range(reps):
            for k, (streams, tab_every, history, cap) in enumerate(kinds):
                rounds[k].append(
                    run_live(empty, streams, args.seconds, tab_every, meter, history=history, capture=cap)
                )
        prof = profile_live(empty, args.streams, min(args.seconds, 15), meter) if args.profile else ""
    finally:
        undo()
    print(f"  load average after: {load_average()}")
    print(
        f"  capture: a counters window ({len(DEFAULT_EVENTS)} events) and a cpu window ({args.stacks} "
        f"folded stacks) per host every {args.capture_window} s"
    )
    idle, live, tabbing, captured = (median_round(rs) for rs in rounds[:4])
    long = median_round(rounds[4]) if args.history else None
    rows = [
        ("idle, no streams (baseline)", idle),
        (f"{args.streams} streams at 1 Hz", live),
        (f"{args.streams} streams, tab switch / 2 s", tabbing),
        (f"{args.streams} streams + counters, cpu profiles", captured),
    ]
    if long is not None:
        rows.append((f"{args.streams} streams, runs {args.history} s in", long))
    print(f"  {'':40s} CPU % core    min-max      +idle   show()  ms/show  frames  events")
    for label, r in rows:
        print(
            f"  {label:40s} {r['cpu_pct']:9.2f}  {r['cpu_min']:5.2f}-{r['cpu_max']:5.2f}  "
            f"{r['cpu_pct'] - idle['cpu_pct']:+6.2f}  "
            f"{r['shows']:6.0f}  {r['show_ms']:7.1f}  {r['frames']:6.0f}  {r['events']:6.0f}"
        )
    per_s = live["shows"] / live["wall"]
    print(
        f"  redraws: {per_s:.2f} HostPane.show per second for {live['events'] / live['wall']:.0f} "
        f"events/s (throttled to the visible tab, once a second); with tab switching "
        f"{tabbing['shows'] / tabbing['wall']:.2f}/s ({tabbing['switches']:.0f} switches)"
    )
    worst = max(r["cpu_pct"] for _, r in rows[1:])
    verdict = "met" if worst < CPU_TARGET_PCT else "NOT met"
    print(f"  target < {CPU_TARGET_PCT:.0f}% of one core, fresh, switching tabs and an hour in: {verdict}")
    for label, r in rows[1:]:
        met = r["cpu_pct"] < CPU_TARGET_PCT
        target = f"< {CPU_TARGET_PCT:.0f} %"
        figures.append(
            Figure(f"Live CPU, {label}", r["cpu_pct"], "% of a core", idle["cpu_pct"], "idle", target, met)
        )
        summary.append(
            (
                f"Live CPU, {label}",
                f"{r['cpu_pct']:.2f}% core ({r['cpu_min']:.2f}-{r['cpu_max']:.2f})",
                f"idle {idle['cpu_pct']:.2f}% (+{r['cpu_pct'] - idle['cpu_pct']:.2f}); "
                f"{r['shows'] / r['wall']:.2f} redraws/s",
                f"< {CPU_TARGET_PCT:.0f}%: {'met' if r['cpu_pct'] < CPU_TARGET_PCT else 'NOT met'}",
            )
        )
    if prof:
        print("\nprofile of a Live round with streams:\n" + prof)
    return summary


# --- main -----------------------------------------------------------------------------------


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=30, help="steady window of each Live round")
    ap.add_argument("--streams", type=int, default=16)
    ap.add_argument("--reps", type=int, default=5, help="startup repetitions")
    ap.add_argument("--hosts", type=int, default=4, help="store size: hosts x builds x 42 runs")
    ap.add_argument("--builds", type=int, default=60)
    ap.add_argument("--live-reps", type=int, default=3, help="rounds of each Live case")
    ap.add_argument("--stacks", type=int, default=2000, help="folded stacks per cpu profile window")
    ap.add_argument(
        "--capture-window", type=int, default=10, help="seconds per perf window (CaptureOptions.window_s)"
    )
    ap.add_argument("--profile", action="store_true", help="also profile a Live round with streams")
    ap.add_argument("--only", choices=("startup", "live"), help="run one section (default: both)")
    ap.add_argument(
        "--history", type=int, default=3600, help="also a Live round with runs this many seconds in (0: none)"
    )
    args = ap.parse_args()
    summary: list[Row] = []
    figures: list[Figure] = []

    with tempfile.TemporaryDirectory(prefix="bd-bench-tui-") as tmp_name:
        tmp = Path(tmp_name)
        env = child_env(tmp)
        os.environ.update({k: env[k] for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME")})
        empty = tmp / "empty.duckdb"
        Store.open(empty).close()
        if args.only != "live":
            summary += startup_section(args, tmp, env, empty, figures)
        if args.only != "startup":
            summary += live_section(args, empty, figures)
    record("bench_tui", figures, args)

    print("\nsummary")
    widths = [max(len(r[i]) for r in summary) for i in range(4)]
    head = ("what", "figure", "baseline (same run)", "target")
    widths = [max(w, len(h)) for w, h in zip(widths, head, strict=True)]
    for r in (head, *summary):
        print("  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


if __name__ == "__main__":
    main()
