"""Start-up to the first usable frame in instructions (valgrind): the same figure at any load.

How it measures, its targets and its history: docs/performance.md (bench_startup_instructions.py).

    python bench/bench_startup_instructions.py [--before DIR]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_tui import KEEP_CHILD, child_env  # noqa: E402

from bench.results import Figure, record  # noqa: E402

# The child: runs the bare app or benchdeck's entry, and ends at the first usable frame shown (a
# frame Textual writes outside a batch, of Launch or Runs), before any teardown.
CHILD = """
import os, sys
mode, db, done = sys.argv[1], sys.argv[2], sys.argv[3]
import textual.app
display = textual.app.App._display
def usable(screen):
    # Launch with its lists filled, Runs with its rows: a screen a user can act on
    name = type(screen).__name__
    if name == "LaunchScreen":
        return all(screen.query_one(q).option_count for q in ("#launch-builds", "#launch-workloads"))
    return name == "RunsScreen" and screen.query_one("DataTable").row_count > 0
def shown(self, screen, renderable):
    display(self, screen, renderable)
    if renderable is not None and not self._batch_count and (mode == "bare" or usable(screen)):
        open(done, "w").write(type(screen).__name__)
        os._exit(0)
textual.app.App._display = shown
if mode == "bare":
    from textual.widgets import Static
    class Bare(textual.app.App):
        def compose(self):
            yield Static("bare")
    Bare().run()
else:
    sys.argv = ["benchdeck", "--db", db]
    from benchdeck.tui.entry import main
    main()
"""

# An earlier start that lasts keeps the CSS it parsed (WARM) and the store's first page, or "no
# runs", for the next start (bench_tui's KEEP_CHILD), as a user's earlier session does.
WARM = """
import asyncio, sys
from pathlib import Path
from benchdeck.tui.app.app import BenchdeckApp
async def main():
    app = BenchdeckApp(db=Path(sys.argv[1]))
    async with app.run_test(size=(120, 36)) as pilot:
        for _ in range(50):
            await pilot.pause()
asyncio.run(main())
"""

COLLECTED = re.compile(r"Collected : (\d+)")


def real_python() -> str:
    """The interpreter itself (valgrind does not follow a shim's exec)."""
    return os.path.realpath(sys.executable)


def env_for(tree: Path, tmp: Path) -> dict[str, str]:
    """bench_tui's child environment, running ``tree``'s code with a fixed hash seed."""
    return {**child_env(tmp), "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}


def on_pty(argv: list[str], env: dict[str, str], cwd: Path, timeout: float = 300) -> None:
    """Run ``argv`` on a 120x36 pty until it exits, reading what it writes."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
    )
    os.close(slave)
    deadline = time.monotonic() + timeout
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([master], [], [], 0.1)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    break
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def instructions(tree: Path, mode: str, db: Path, tmp: Path) -> int:
    """Instructions from the interpreter's start to the first frame of ``mode``."""
    done = tmp / "done"
    done.unlink(missing_ok=True)
    log = tmp / "callgrind.log"
    argv = [
        "valgrind",
        "--tool=callgrind",
        f"--log-file={log}",
        f"--callgrind-out-file={tmp / 'callgrind.out'}",
        real_python(),
        "-c",
        CHILD,
        mode,
        str(db),
        str(done),
    ]
    on_pty(argv, env_for(tree, tmp), tree)
    if not done.exists():
        raise SystemExit(f"{mode} ({tree}): no first frame\n{log.read_text()[-2000:]}")
    found = COLLECTED.search(log.read_text())
    if found is None:
        raise SystemExit(f"{mode}: no count in {log}")
    return int(found.group(1))


MAKE_STORES = """
import sys
from pathlib import Path
from benchdeck.store.storage.db import Store
from tests.fixtures.big_store import build_store
Store.open(Path(sys.argv[1])).close()
print(build_store(Path(sys.argv[2]), 4, 60))
"""


def prepare(tree: Path, tmp: Path, empty: Path, big: Path) -> None:
    """Bytecode compiled, the CSS parsed and the first pages kept, as after earlier starts."""
    packages = [str(tree / d) for d in ("benchdeck", "tui", "store", "engine", "themes")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=False, capture_output=True)
    env = env_for(tree, tmp)
    for db in (empty, big):
        subprocess.run(
            [sys.executable, "-c", WARM, str(db)], env=env, cwd=tree, check=True, capture_output=True
        )
        subprocess.run([sys.executable, "-c", KEEP_CHILD, str(db)], env=env, cwd=tree, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", type=Path, help="a checkout of the code before, measured in the same run")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt-get install valgrind)")
    trees = [("this code", ROOT)]
    if args.before is not None:
        trees.insert(0, ("before", args.before.resolve()))
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as t:
        base = Path(t)
        n = 4 * 60 * 42
        rows: dict[str, dict[str, int]] = {}
        for label, tree in trees:
            tmp = base / label.replace(" ", "-")
            tmp.mkdir()
            # each tree's stores made by its own code (a newer schema is refused by older code)
            empty, mine = tmp / "empty.duckdb", tmp / "runs10k.duckdb"
            made = subprocess.run(
                [sys.executable, "-c", MAKE_STORES, str(empty), str(mine)],
                env=env_for(tree, tmp), cwd=tree, check=True, capture_output=True, text=True,
            )  # fmt: skip
            n = int(made.stdout.strip())
            prepare(tree, tmp, empty, mine)
            rows[label] = {
                "bare": instructions(tree, "bare", empty, tmp),
                "launch": instructions(tree, "app", empty, tmp),
                "runs": instructions(tree, "app", mine, tmp),
            }
        print(
            "first usable frame (Launch: lists filled; Runs: rows) on a 120x36 pty, instructions"
            f" (valgrind callgrind); store: {n:,} runs"
        )
        names = {
            "bare": "bare Textual app (baseline)",
            "launch": "benchdeck, store with no runs (Launch)",
            "runs": f"benchdeck, {n:,} runs, page kept (Runs)",
        }
        for label, r in rows.items():
            print(f"  {label}:")
            for key, what in names.items():
                ratio = r[key] / r["bare"]
                print(f"    {what:42s} {r[key] / 1e6:9.1f} M   x{ratio:.3f} bare")
        if "before" in rows:
            b, a = rows["before"], rows["this code"]
            print("  this code / before:")
            for key in ("launch", "runs"):
                print(f"    {names[key]:42s} x{a[key] / b[key]:.3f}  ({(a[key] - b[key]) / 1e6:+.1f} M)")
    figures = [
        Figure(f"instructions to the first frame, {what}, {label}", r[key] / 1e6, "M instructions",
               r["bare"] / 1e6, "bare Textual app")
        for label, r in rows.items()
        for key, what in names.items()
        if key != "bare"
    ]  # fmt: skip
    record("bench_startup_instructions", figures, args)


if __name__ == "__main__":
    main()
