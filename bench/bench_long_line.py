"""Benchmark: a sysbench output whose first line (the command) holds a 1 MB password.

How it measures, its targets and its history: docs/performance.md (bench_long_line.py).

    python bench/bench_long_line.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.results import Figure, record
from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.parsers.command import command_words
from benchdeck.engine.parsers.sysbench import parse_sysbench_output
from benchdeck.store.importers import RunFiles, import_run_files
from benchdeck.store.storage.db import Store
from tests.fixtures.seed001 import write_single_run_files


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def parse_file(path: Path) -> object:
    return parse_sysbench_output(path.read_text().splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-long-line-") as tmp_name:
        tmp = Path(tmp_name)
        files = write_single_run_files(tmp / "files")
        lines = files["sysbench"].read_text().splitlines()
        build = parse_build_name("my8028_rel_o2nofp")
        with Store.open(tmp / "store.duckdb") as store:

            def do_import(path: Path) -> None:
                import_run_files(store, RunFiles("h", build, files["workload"], sysbench=path))

            figures = []
            head = ("line", "read file", "split line", "shlex.split", "parse", "import")
            print("{:>8} {:>10} {:>11} {:>12} {:>8} {:>8}".format(*head))
            for size in (0, 100_000, 1_000_000):  # 0: the file as sysbench wrote it
                cmd = f"sysbench --mysql-password={'p' * size} --threads=24 oltp_point_select run"
                path = tmp / f"long{size}.txt"
                path.write_text("\n".join([cmd, *lines]) + "\n")
                t_read = best(path.read_text, args.repeat)
                t_split = best(partial(command_words, cmd), args.repeat)
                t_shlex = best(partial(shlex.split, cmd), 1) if size <= 100_000 else float("nan")
                t_parse = best(
                    lambda path=path: parse_sysbench_output(path.read_text().splitlines()), args.repeat
                )
                t_import = best(partial(do_import, path), args.repeat)
                ms = [t * 1000 for t in (t_read, t_split, t_shlex, t_parse, t_import)]
                if size == 1_000_000:
                    figures.append(
                        Figure(
                            "import, 1 MB command line, best",
                            ms[4],
                            "ms",
                            ms[0],
                            "reading the file",
                            "well under 1 s",
                            ms[4] < 1000,
                        )
                    )
                print(
                    "{:>6}kB {:>8.1f}ms {:>9.1f}ms {:>10.1f}ms {:>6.1f}ms {:>6.1f}ms".format(
                        size // 1000, *ms
                    )
                )
        record("bench_long_line", figures, args)
        print("shlex.split of the 1 MB line is not timed: quadratic (7.4 s at 800 kB, measured before).")


if __name__ == "__main__":
    main()
