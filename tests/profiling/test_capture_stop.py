"""The host's capture loop stopped by the runner (SIGTERM to its whole process group, as when the
benchmark ends): a window then open ends there and is still written (folded, for cpu); a loop
stopped before its first window says so in a gap; two loops of one run never count at once."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.fixtures.servers import die_with_parent, kill_and_wait, require

pytestmark = pytest.mark.integration  # the real perf on a real busy process

HEAD = re.compile(r"^# window 0 start=([\d.]+) seconds=([\d.]+) target=pids (\d+)$")


@pytest.fixture
def busy() -> Iterator[int]:
    """A process that burns CPU (``dd``): the target."""
    require("perf", "linux-perf")
    p = subprocess.Popen(
        [*die_with_parent(), "dd", "if=/dev/zero", "of=/dev/null", "bs=1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield p.pid
    finally:
        kill_and_wait(p.pid)
        p.wait()


def start_loop(kind: str, target: int, run_dir: Path, *more: str) -> subprocess.Popen[str]:
    """The loop in its own process group, as the runner starts it (``--dir``: the run directory)."""
    argv = [sys.executable, "-m", "benchdeck.engine.profiling.host_perf", kind, "--target", f"pid:{target}"]
    argv += ["--dir", str(run_dir), "--events", "task-clock", *more]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True)


def wait_for(what: str, ready: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


def running(pgid: int, comm: str, *words: str) -> bool:
    """A process of group ``pgid`` runs ``comm`` with ``words`` in its command line (perf stat's
    ``sleep``, once perf has started it: counting; ``perf script``: a window is being folded)."""
    for d in Path("/proc").iterdir():
        try:
            if d.name.isdigit() and os.getpgid(int(d.name)) == pgid:
                argv = (d / "cmdline").read_bytes().split(b"\0")
                if (d / "comm").read_text().strip() == comm and all(w.encode() in argv for w in words):
                    return True
        except (OSError, ProcessLookupError):
            continue
    return False


def test_a_counters_window_open_when_the_run_ends_is_cut_there_and_kept(busy: int, tmp_path: Path) -> None:
    loop = start_loop("counters", busy, tmp_path, "--first", "0", "--window", "60", "--windows", "1")
    wait_for("counting", lambda: running(loop.pid, "sleep", "60"))
    os.killpg(loop.pid, signal.SIGTERM)  # the runner's stop: the loop, perf and its workload
    out, _ = loop.communicate(timeout=60)
    assert loop.returncode == 0, out
    lines = out.splitlines()
    head = HEAD.match(lines[0])
    assert head is not None, out[:300]
    assert float(head[2]) < 20, "the window ends at the stop, not after its 60 s"
    assert lines[-1] == "# end 0"
    assert any(",task-clock," in ln and not ln.startswith("<not") for ln in lines), lines


def test_a_cpu_window_being_folded_when_the_run_ends_is_kept(busy: int, tmp_path: Path) -> None:
    """The loss of issue 37: the run ended while perf script folded the window (the loop exited
    0 at once and the window was gone without a word)."""
    more = ("--first", "0", "--window", "2", "--windows", "1", "--freq", "999")
    loop = start_loop("cpu", busy, tmp_path, *more)
    wait_for("folding", lambda: running(loop.pid, "perf", "script"))
    os.killpg(loop.pid, signal.SIGTERM)
    out, _ = loop.communicate(timeout=60)
    assert loop.returncode == 0, out
    lines = out.splitlines()
    head = HEAD.match(lines[0])
    assert head is not None, out[:300]
    assert 1.9 < float(head[2]) < 2.5, "the whole window: it had ended"
    assert lines[-1] == "# end 0"
    stacks = lines[1:-1]
    assert stacks
    assert all(s.startswith("dd;") for s in stacks), stacks[:3]


def test_a_loop_stopped_before_its_first_window_says_so(tmp_path: Path) -> None:
    require("perf", "linux-perf")
    loop = start_loop("cpu", os.getpid(), tmp_path, "--first", "60")
    wait_for("listening", lambda: any(tmp_path.glob("bdperf.*")))
    os.killpg(loop.pid, signal.SIGTERM)
    out, _ = loop.communicate(timeout=30)
    assert loop.returncode == 0
    assert re.fullmatch(
        r"# gap 0 start=[\d.]+ reason=the run ended [\d.]+ s in, "
        r"before the first window \(planned at 60 s\)\n",
        out,
    ), out


def test_two_kinds_take_turns(busy: int, tmp_path: Path) -> None:
    """Both kinds asked for a 2 s window at once: cpu's waits until counters' has ended (the
    times are each loop's own, from its start: the two started together, within a few ms)."""
    more = ("--first", "0", "--window", "2", "--windows", "1")
    started, loops = [], []
    for kind in ("counters", "cpu"):
        started.append(time.monotonic())
        loops.append(start_loop(kind, busy, tmp_path, *more))
    heads = [HEAD.match(p.communicate(timeout=60)[0].split("\n", 1)[0]) for p in loops]
    assert all(heads), heads
    (c_start, c_secs), (p_start, _) = [(float(h[1]), float(h[2])) for h in heads if h is not None]
    counters_end = started[0] + c_start + c_secs
    cpu_start = started[1] + p_start
    assert cpu_start > counters_end - 0.25, (
        f"cpu counted from {cpu_start - counters_end:+.2f} s of counters' end"
    )
