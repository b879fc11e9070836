"""Whole CLI commands on an archive store beside ``python -c "import duckdb"`` (issue 29).

Shared by ``bench_changes.py --store`` and ``bench_cli_compare.py --store``: copies the store into
a temporary folder (the copy is what the commands open, so the original is never written), runs
each command and the baselines as separate processes, interleaved, ``repeat`` times, and prints
wall and CPU medians (user + sys of the child; the VM is shared, so CPU time is what a command
costs and wall time what a user waits) with each command's CPU and wall ratio to ``import duckdb``.

With ``$PYTHONDONTWRITEBYTECODE`` set (as in this machine's shells) every process compiles our
modules on each start (what that costs: docs/performance.md); ``cached_bytecode`` lets every
process, the baseline too, keep bytecode in a temporary ``$PYTHONPYCACHEPREFIX`` as an installed
benchdeck does. The header says which.

``before``: a checkout of the code before a change (``git worktree add /tmp/before main``, or
``git archive main | tar -x -C /tmp/before``); each command also runs from it, interleaved, as
``<name> (before)``, so a change's figures stand beside the old code's of the same run.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.results import Figure

ROOT = Path(__file__).resolve().parent.parent
CLI = "from benchdeck.tui.cli.main import main; main()"
BASELINE = "import duckdb (baseline)"


def run_once(argv: Sequence[str], env: dict[str, str], cwd: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU seconds of one process; exits with its stderr if it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {r.stderr.decode(errors='replace').strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


Times = dict[str, list[float]]


def interleaved(
    procs: dict[str, list[str]], env: dict[str, str], repeat: int, trees: dict[str, Path] | None = None
) -> tuple[Times, Times, tuple[float, float]]:
    """Wall and CPU seconds of every process, ``repeat`` rounds of one each in turn (after one
    round that warms the page cache), and the load average before and after. ``trees``: the
    processes that run another checkout's code (its folder: their ``$PYTHONPATH`` and cwd)."""
    trees = trees or {}
    envs = {name: {**env, "PYTHONPATH": str(trees[name])} if name in trees else env for name in procs}
    cwds = {name: trees.get(name, ROOT) for name in procs}
    for name, argv in procs.items():  # a failing command stops here
        run_once(argv, envs[name], cwds[name])
    load0 = os.getloadavg()[0]
    wall: Times = {k: [] for k in procs}
    cpu: Times = {k: [] for k in procs}
    for _ in range(repeat):
        for name, argv in procs.items():
            w, c = run_once(argv, envs[name], cwds[name])
            wall[name].append(w)
            cpu[name].append(c)
    return wall, cpu, (load0, os.getloadavg()[0])


def bench_commands(
    store: Path,
    commands: dict[str, list[str]],
    repeat: int,
    target: float,
    cached_bytecode: bool = False,
    before: Path | None = None,
) -> list[Figure]:
    """Time ``benchdeck --db COPY <args>`` for each named command beside the baselines (and
    beside the same commands run from the checkout ``before``); each command's CPU median, for
    the history."""
    if not store.is_file():
        sys.exit(f"no store at {store}")
    if before is not None and not (before / "benchdeck" / "tui" / "cli" / "main.py").is_file():
        sys.exit(f"no benchdeck checkout at {before} (--before)")
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "archive.duckdb"
        shutil.copyfile(store, copy)
        env = dict(os.environ)
        if cached_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        bytecode = "compiled on every start" if env.get("PYTHONDONTWRITEBYTECODE") else "cached"
        cli = [sys.executable, "-c", CLI, "--db", str(copy)]
        procs = {name: [*cli, *args] for name, args in commands.items()}
        trees: dict[str, Path] = {}
        if before is not None:
            for name, args in commands.items():
                procs[f"{name} (before)"] = [*cli, *args]
                trees[f"{name} (before)"] = before.resolve()
        procs[BASELINE] = [sys.executable, "-c", "import duckdb"]
        procs["python -c pass"] = [sys.executable, "-c", "pass"]
        wall, cpu, (load0, load1) = interleaved(procs, env, repeat, trees)
    print(
        f"store {store}; {repeat} interleaved repeats, medians; bytecode {bytecode}; {os.cpu_count()} CPUs, "
        f"load {load0:.1f} -> {load1:.1f}"
    )
    print(f"  {'':44} {'wall ms':>8} {'CPU ms':>8} {'wall x':>7} {'CPU x':>7}")
    bw, bc = statistics.median(wall[BASELINE]), statistics.median(cpu[BASELINE])
    for name in procs:
        w, c = statistics.median(wall[name]), statistics.median(cpu[name])
        print(f"  {name:44} {w * 1000:8.0f} {c * 1000:8.0f} {w / bw:6.2f}x {c / bc:6.2f}x")
    figures = []
    for name in [*commands, *trees]:
        ratio = statistics.median(cpu[name]) / bc
        verdict = "met" if ratio <= target else "NOT met"
        print(f"  {name}: CPU {ratio:.2f}x import duckdb, target <= {target}x: {verdict}")
        med = statistics.median(cpu[name]) * 1000
        figures.append(
            Figure(f"{name}, CPU", med, "ms", bc * 1000, BASELINE, f"<= {target}x", ratio <= target)
        )
    return figures
