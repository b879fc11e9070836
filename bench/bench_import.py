"""Benchmark: ``import mytools`` of a result tree, beside baselines measured in the same run.

How it measures, its targets and its history: docs/performance.md (bench_import.py).

    python bench/bench_import.py [--builds 35] [--rounds 250] [--tree PATH [--device md2]]
"""

from __future__ import annotations

import argparse
import io
import os
import re
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import Figure, record
from tests.store import mytools_tree as t

TARGET_LINES_S = 300_000
TARGET_RUNS_S = 50
TARGET_SIZE = 1.5
TARGET_CPU_LINES_S = 600_000  # issue 24: vmstat/iostat trees (500k); issue 40: the whole command, 600k
TARGET_RSS_MB = 300
RANGES = (10, 20, 30, 40, 50, 60, 70, 100)  # 4 steps x 8 = 32 runs per folder
STEPS = ("update-index", "scan", "point-query", "random-points")


def write_tree(root: Path, builds: int, rounds: int) -> Path:
    for i in range(builds):
        d = root / f"x.my80{i:02d}_rel_o2nofp.{t.CONFIG}.pk1"
        d.mkdir(parents=True)
        for k, step in enumerate(STEPS):
            value, met = t.MET.get(step, t.MET["point-query"])[t.BUILDS[i % 3]]
            for rng in RANGES:
                rest = f"{step}.range{rng}.pk1.dop{t.DOP}"
                seed = (i * 10 + k) * 1000 + rng  # random rows differ from file to file
                text = t.sysbench_output(step, value * (1 + i / 100), rounds=rounds, seed=seed)
                (d / f"sb.o.{rest}").write_text(text)
                (d / f"sb.met.{rest}").write_text(met.text())
    return root


def files_of(tree: Path) -> list[Path]:
    return sorted(p for p in tree.rglob("*") if p.is_file())


def plain_read(files: list[Path]) -> tuple[int, float, float]:
    """Lines, wall seconds and CPU seconds of reading every line of ``files``; a packed folder
    (``*.tar.gz``) is read as its members' lines, decompressed, not as the compressed bytes'
    newlines (every member: more lines than the import reads, which skips e.g. ps and ls
    outputs)."""
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    for p in files:
        if p.name.endswith(".tar.gz"):
            with tarfile.open(p, "r|gz") as tar:
                for member in tar:
                    if member.isfile() and (raw := tar.extractfile(member)) is not None:
                        data = io.BytesIO(raw.read())  # a stream member cannot be wrapped itself
                        for _ in io.TextIOWrapper(data, encoding="utf-8", errors="replace"):
                            n += 1
            continue
        with p.open(encoding="utf-8", errors="replace") as fh:
            for _ in fh:
                n += 1
    return n, time.perf_counter() - t0, time.process_time() - c0


def peak_rss_mb() -> float:
    """The process's peak resident set so far (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def tar_gz(tree: Path) -> tuple[int, float]:
    t0 = time.perf_counter()
    sink = _Count()  # counted, not kept: the peak RSS is the import's
    with tarfile.open(fileobj=sink, mode="w:gz", compresslevel=6) as tar:  # type: ignore[call-overload]
        tar.add(tree, arcname=tree.name)
    return sink.n, time.perf_counter() - t0


class _Count(io.RawIOBase):
    n = 0

    def writable(self) -> bool:
        return True

    def write(self, b: bytes) -> int:  # type: ignore[override]
        self.n += len(b)
        return len(b)


@dataclass(frozen=True)
class Imported:
    """What the ``benchdeck import mytools`` command did (its own output) and cost (its process)."""

    runs: int
    lines: int
    failed: int
    explain_lines: int
    skipped_lines: int
    wall: float
    cpu: float  # user + system CPU seconds of the whole process, start-up included
    peak_rss_mb: float


def run_import(python: str, tree: Path, db: Path, device: str | None) -> Imported:
    """Run the whole command as a user does, in a process of its own (``python -m benchdeck``,
    the store in ``db``); its CPU from the kernel's account of the child."""
    argv = [python, "-m", "benchdeck", "import", "mytools", str(tree), "--host", "bench"]
    env = {**os.environ, "BENCHDECK_DB": str(db)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv + (["--device", device] if device else []), capture_output=True, text=True,
                          env=env, cwd=db.parent, check=False)  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        sys.exit(f"the import failed ({done.returncode}):\n{done.stdout}{done.stderr}")

    def number(pattern: str, text: str) -> int:
        found = re.findall(pattern, text)
        return int(found[-1].replace(",", "")) if found else 0

    return Imported(
        runs=number(r"imported (\d+) runs", done.stdout),
        lines=number(r"runs stored, ([\d,]+) lines", done.stderr),
        failed=number(r"(\d+) files not imported", done.stdout),
        explain_lines=number(r"(\d+) EXPLAIN lines", done.stdout),
        skipped_lines=number(r"(\d+) unparsed line\(s\)", done.stderr),
        wall=wall,
        cpu=(after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        peak_rss_mb=after.ru_maxrss / 1024,  # the largest child's: the import is the only one so far
    )


def store_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--builds", type=int, default=35)
    ap.add_argument("--rounds", type=int, default=250)
    ap.add_argument("--tree", type=Path, help="a real mytools result tree instead of a synthetic one")
    ap.add_argument("--device", help="the iostat device of --tree: its vmstat/iostat files are imported")
    ap.add_argument(
        "--python",
        default=sys.executable,
        help="the Python whose benchdeck imports (e.g. a venv of older code)",
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tree = args.tree or write_tree(Path(tmp) / "tree", args.builds, args.rounds)
        files = files_of(tree)
        tree_bytes = sum(p.stat().st_size for p in files)
        plain_read(files)  # warm the page cache: both sides read from memory
        lines_read, read_s, read_cpu = plain_read(files)
        rss_before = peak_rss_mb()
        gz_bytes, gz_s = tar_gz(tree)

        db = Path(tmp) / "store" / "bench.duckdb"
        db.parent.mkdir()
        res = run_import(args.python, tree, db, args.device)
        wall, cpu, rss = res.wall, res.cpu, res.peak_rss_mb
        size = store_bytes(db)

    runs = res.runs
    print(f"tree: {tree if args.tree else 'synthetic'}: {len(files)} files, {tree_bytes / 1e6:.1f} MB, "
          f"{lines_read:,} lines; {runs} runs imported ({res.failed} files not imported), "
          f"{res.explain_lines:,} EXPLAIN lines, {res.skipped_lines} skipped lines; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; "
          f"{args.python} -m benchdeck import mytools")  # fmt: skip
    print(f"{'figure':<28}{'import':>14}{'baseline':>14}  baseline is (the import: the whole command)")
    print(
        f"{'lines/s (wall)':<28}{res.lines / wall:>14,.0f}{lines_read / read_s:>14,.0f}  plain read of lines"
    )
    print(f"{'lines/CPU-s':<28}{res.lines / cpu:>14,.0f}{lines_read / read_cpu:>14,.0f}  plain read of lines")
    print(f"{'peak RSS MB':<28}{rss:>14,.0f}{rss_before:>14,.0f}  the bench's own (plain read done)")
    print(f"{'runs/s (wall)':<28}{runs / wall:>14,.1f}")
    print(f"{'seconds':<28}{wall:>14.2f}{gz_s:>14.2f}  tar + gzip -6 of the tree")
    print(f"{'bytes':<28}{size:>14,}{gz_bytes:>14,}  tar + gzip -6 of the tree")
    print(f"{'store / tar.gz':<28}{size / gz_bytes:>14.2f}")
    ok = res.lines / wall >= TARGET_LINES_S and runs / wall >= TARGET_RUNS_S
    ok = ok and size / gz_bytes <= TARGET_SIZE
    if args.device:
        cpu_ok = res.lines / cpu >= TARGET_CPU_LINES_S and rss < TARGET_RSS_MB
        print(f"vmstat/iostat targets (>= {TARGET_CPU_LINES_S:,} lines/CPU-s, "
              f"peak RSS < {TARGET_RSS_MB} MB): {'met' if cpu_ok else 'NOT met'}")  # fmt: skip
    print(f"targets (>= {TARGET_LINES_S:,} lines/s, >= {TARGET_RUNS_S} runs/s, <= {TARGET_SIZE}x tar.gz): "
          f"{'met' if ok else 'NOT met'}")  # fmt: skip
    what = f"import mytools, {'--tree ' + str(tree) if args.tree else 'synthetic tree'}, {runs} runs"
    plain = "a plain read of the lines"
    figures = [
        Figure(
            f"{what}: lines/s",
            res.lines / wall,
            "lines/s",
            lines_read / read_s,
            plain,
            f">= {TARGET_LINES_S:,}",
            res.lines / wall >= TARGET_LINES_S,
        ),
        Figure(
            f"{what}: runs/s",
            runs / wall,
            "runs/s",
            None,
            "",
            f">= {TARGET_RUNS_S}",
            runs / wall >= TARGET_RUNS_S,
        ),
        Figure(
            f"{what}: store size",
            size,
            "bytes",
            gz_bytes,
            "tar + gzip -6 of the tree",
            f"<= {TARGET_SIZE}x",
            size / gz_bytes <= TARGET_SIZE,
        ),
        Figure(
            f"{what}: lines per CPU second",
            res.lines / cpu,
            "lines/CPU-s",
            lines_read / read_cpu,
            plain,
            f">= {TARGET_CPU_LINES_S:,}" if args.device else "",
            res.lines / cpu >= TARGET_CPU_LINES_S if args.device else None,
        ),
        Figure(
            f"{what}: peak RSS",
            rss,
            "MB",
            rss_before,
            "the bench's own, after the plain read",
            f"< {TARGET_RSS_MB} MB" if args.device else "",
            rss < TARGET_RSS_MB if args.device else None,
        ),
    ]
    record("bench_import", figures, args)


if __name__ == "__main__":
    main()
