"""Benchmark: ``benchdeck compare`` end to end (a whole process) beside ``python -c "import duckdb"``.

How it measures, its targets and its history: docs/performance.md (bench_cli_compare.py).

    python bench/bench_cli_compare.py [--repeat 15] [--tree PATH] [--format text] [--cached-bytecode]

    python bench/bench_cli_compare.py --store /tmp/p29/arc.duckdb [--repeat 15] [--cached-bytecode]
        [--before /tmp/before]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREE = Path("/work/arc/bench/arc/nov25.sb.mysql/dop1")
HOST = "h1"
BASE = "my5651_rel_o2nofp"
WITH = ("my8044_rel_o2nofp", "my9500_rel_o2nofp")
TARGET = 2.0
sys.path.insert(0, str(ROOT))

from bench.archive_cli import CLI, bench_commands, interleaved  # noqa: E402  (after the path)
from bench.results import Figure, record  # noqa: E402

ARCHIVE_TARGET = 1.5
_MARIADB_VERSIONS = (
    "100339 100434 100529 100623 101114 110006 110106 110206 110302 110408 110502 110602 110702 110803 120002"
)
MARIADB = [f"ma{v}_rel_withdbg" for v in _MARIADB_VERSIONS.split(" ")]
ARCHIVE = {
    "compare, 2 columns": [
        *("compare", "--host", "hetz", "--base", "my5651_rel_o2nofp"),
        *("--with", "my9400_rel_o2nofp", "--dop", "40"),
    ],
    "compare, 16 columns": ["compare", "--host", "hetz", "--base", "ma100244_rel_withdbg"]
    + [a for w in MARIADB for a in ("--with", w)]
    + ["--config", "z12b_c32r128", "--dop", "40"],
}


def line(name: str, values: list[float]) -> str:
    return (
        f"{name:<30}{statistics.median(values) * 1000:>9.1f}{min(values) * 1000:>9.1f}"
        f"{max(values) * 1000:>9.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--tree", type=Path, default=TREE, help="mytools tree to import (default: %(default)s)")
    ap.add_argument("--format", default="text", choices=("text", "md", "csv", "json"))
    ap.add_argument("--cached-bytecode", action="store_true", help="keep bytecode between processes")
    ap.add_argument("--store", type=Path, help="time compares on this archive store instead (see above)")
    ap.add_argument("--before", type=Path, help="with --store: also from this checkout of old code")
    args = ap.parse_args()
    if args.store:
        figures = bench_commands(
            args.store, ARCHIVE, args.repeat, ARCHIVE_TARGET, args.cached_bytecode, args.before
        )
        record("bench_cli_compare", figures, args)
        return
    if not args.tree.is_dir():
        sys.exit(f"no mytools tree at {args.tree}: pass one with --tree")
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "s.duckdb")
        env = dict(os.environ)
        if args.cached_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        bytecode = "cached" if not env.get("PYTHONDONTWRITEBYTECODE") else "compiled on every start"
        stray = [p for pkg in ("engine", "store", "tui") for p in (ROOT / pkg).rglob("__pycache__")]
        if stray and not args.cached_bytecode:
            bytecode = f"compiled on every start, but for {len(stray)} __pycache__ folders in the tree"
        imp = subprocess.run(
            [sys.executable, "-c", CLI, "--db", db, "import", "mytools", str(args.tree), "--host", HOST],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if imp.returncode != 0:
            sys.exit(f"import failed: {imp.stderr.strip()}")
        compare = [sys.executable, "-c", CLI, "--db", db, "compare", "--host", HOST, "--base", BASE]
        compare += [a for w in WITH for a in ("--with", w)] + ["--format", args.format]
        out = subprocess.run(compare, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        if out.returncode != 0 or (args.format == "text" and f"Relative to: {BASE}" not in out.stdout):
            sys.exit(f"compare failed: {out.stderr.strip()}")
        runs = imp.stdout.split("imported ", 1)[1].split(" ", 1)[0] if "imported " in imp.stdout else "?"
        procs = {
            "compare": compare,
            "import duckdb (baseline)": [sys.executable, "-c", "import duckdb"],
            "python -c pass": [sys.executable, "-c", "pass"],
        }
        wall, cpu, (load0, load1) = interleaved(procs, env, args.repeat)
    print(
        f"store: {runs} runs from {args.tree}; compare --format {args.format}, {len(WITH)} columns; "
        f"{args.repeat} interleaved repeats; bytecode {bytecode}; {os.cpu_count()} CPUs, "
        f"load {load0:.1f} -> {load1:.1f}"
    )
    print(f"{'ms':<30}{'median':>9}{'min':>9}{'max':>9}")
    for kind, table in (("wall", wall), ("CPU", cpu)):
        for name, values in table.items():
            print(line(f"{kind} {name}", values))
    base = "import duckdb (baseline)"
    ratio = statistics.median(wall["compare"]) / statistics.median(wall[base])
    cpu_ratio = statistics.median(cpu["compare"]) / statistics.median(cpu[base])
    pairs = statistics.median(c / b for c, b in zip(wall["compare"], wall[base], strict=True))
    print(
        f"compare / import duckdb: wall {ratio:.2f}x (median of per-repeat ratios {pairs:.2f}x), "
        f"CPU {cpu_ratio:.2f}x"
    )
    print(f"target <= {TARGET}x: {'met' if ratio <= TARGET else 'NOT met'}")
    what = f"benchdeck compare, {runs}-run store, {len(WITH)} columns"
    med = {
        k: {n: statistics.median(v) * 1000 for n, v in t.items()} for k, t in (("wall", wall), ("CPU", cpu))
    }
    target = f"<= {TARGET}x"
    figures = [
        Figure(
            f"{what}, {kind}",
            med[kind]["compare"],
            "ms",
            med[kind][base],
            "import duckdb",
            target,
            x <= TARGET,
        )
        for kind, x in (("CPU", cpu_ratio), ("wall", ratio))
    ]
    record("bench_cli_compare", figures, args)


if __name__ == "__main__":
    main()
