"""Benchmark: the Profile screen's flame graph with a 100,000-stack profile.

How it measures, its targets and its history: docs/performance.md (bench_profile.py).

    python bench/bench_profile.py [--stacks 100000] [--reps 7]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual._compositor import CompositorUpdate
from textual.app import App, ComposeResult

from bench.results import Figure, record
from benchdeck.engine.profiling.tree import Frame, attach_other, build_tree
from benchdeck.tui.app.widgets.flame import FlameGraph
from benchdeck.tui.app.widgets.rqps import RqpsColours

TARGET_MS = 100.0


def synthetic(n: int, seed: int = 1) -> list[tuple[str, int, float]]:
    """``n`` distinct folded stacks from a random call tree (children picked by a skewed choice)."""
    rng = random.Random(seed)
    names = [
        f"fn_{i:04d}_{rng.choice(['row', 'btr', 'buf', 'trx', 'log', 'sql', 'net'])}" for i in range(5000)
    ]
    callees = {name: rng.sample(names, 6) for name in names}
    seen: dict[str, int] = {}
    while len(seen) < n:
        frames = ["mysqld", "start_thread", "handle_connection"]
        depth = rng.randint(8, 40)
        f = rng.choice(names[:50])
        for _ in range(depth):
            frames.append(f)
            f = callees[f][min(int(rng.expovariate(1.2)), 5)]
        stack = ";".join(frames)
        seen[stack] = seen.get(stack, 0) + max(1, int(rng.paretovariate(1.5)))
    return [(s, k, k * 0.01) for s, k in seen.items()]


class Bare(App[None]):
    def compose(self) -> ComposeResult:
        yield FlameGraph(id="flame")


async def first_frame_ms(
    tree: Frame, scale: float | None, reps: int
) -> tuple[list[float], list[float], list[float]]:
    """Milliseconds from ``show`` to the screen's update that drew it (the compositor's update
    turned into the terminal's bytes, as the app writes them), ``reps`` times; beside it, the
    same up to Textual's ``pilot.pause()`` (the old measure) and the widget's strips alone (the
    icicle's layout and segments, on a tree whose visible frames are already made).

    What the old measure waited for: ``pilot.pause()`` is Textual's test helper, not a frame:
    it sleeps in 20 ms steps until a step passes with < 1 ms of the process's CPU, so on the
    loaded 2-core machine it added 20-80 ms after the frame was already on the screen."""
    app = Bare()
    out: list[float] = []
    idle: list[float] = []
    alone: list[float] = []
    colours = RqpsColours("#E5534B", "#57AB5A", "#8B949E")
    async with app.run_test(size=(160, 48)) as pilot:
        flame = app.query_one(FlameGraph)
        display = app._display
        for _ in range(reps):
            flame.show(None, None, colours)
            await pilot.pause()
            rendered = asyncio.Event()
            shown = asyncio.Event()
            original = flame._make_strips

            def render(original=original, rendered=rendered):  # type: ignore[no-untyped-def]
                strips = original()
                rendered.set()
                return strips

            def displayed(screen, update, rendered=rendered, shown=shown):  # type: ignore[no-untyped-def]
                display(screen, update)
                if rendered.is_set() and isinstance(update, CompositorUpdate):
                    update.render_segments(app.console)  # headless skips the bytes: made here
                    shown.set()

            flame._make_strips = render  # type: ignore[method-assign]
            app._display = displayed  # type: ignore[method-assign]
            t0 = time.perf_counter()
            flame.show(tree, scale, colours)
            await shown.wait()
            out.append((time.perf_counter() - t0) * 1000)
            await pilot.pause()
            idle.append((time.perf_counter() - t0) * 1000)
            flame._make_strips = original  # type: ignore[method-assign]
            app._display = display  # type: ignore[method-assign]
            t0 = time.perf_counter()
            flame._make_strips()
            alone.append((time.perf_counter() - t0) * 1000)
    return out, idle, alone


def timed(fn, reps: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t0) * 1000)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stacks", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    # the first app of the process pays Textual's first-use costs (lazy imports, caches): not
    # the profile's size, so a warm-up before either measured size
    asyncio.run(first_frame_ms(build_tree(synthetic(100)), None, 2))
    frames: dict[int, tuple[float, float]] = {}
    for n in (1_000, args.stacks):
        stacks = synthetic(n)
        other = synthetic(n, seed=2)
        build = timed(lambda stacks=stacks: build_tree(stacks), args.reps)
        tree = build_tree(stacks)
        base = build_tree(other)

        def differential(tree: Frame = tree, base: Frame = base) -> None:
            attach_other(tree, base)

        diff = timed(differential, 3)
        scale = 1.0
        plain, plain_idle, plain_render = asyncio.run(first_frame_ms(build_tree(stacks), None, args.reps))
        coloured, _, _ = asyncio.run(first_frame_ms(tree, scale, args.reps))
        print(
            f"{n:>7,} stacks: worker: tree {statistics.median(build):7.1f} ms, differential "
            f"{statistics.median(diff):7.1f} ms | UI thread, first frame: plain "
            f"{statistics.median(plain):5.1f} ms (max {max(plain):5.1f}), differential "
            f"{statistics.median(coloured):5.1f} ms (max {max(coloured):5.1f}); strips alone "
            f"{statistics.median(plain_render):5.1f} ms; to pilot.pause() "
            f"{statistics.median(plain_idle):5.1f} ms"
        )
        frames[n] = statistics.median(plain), statistics.median(coloured)
    print(f"target: first frame < {TARGET_MS:.0f} ms at {args.stacks:,} stacks")
    (plain_ms, diff_ms), (base_plain, base_diff) = frames[args.stacks], frames[1_000]
    what, target = f"Profile screen, first frame of {args.stacks:,} stacks", f"< {TARGET_MS:.0f} ms"
    record(
        "bench_profile",
        [
            Figure(
                f"{what}, plain", plain_ms, "ms", base_plain, "1,000 stacks", target, plain_ms < TARGET_MS
            ),
            Figure(
                f"{what}, differential", diff_ms, "ms", base_diff, "1,000 stacks", target, diff_ms < TARGET_MS
            ),
        ],
        args,
    )


if __name__ == "__main__":
    main()
