"""The host's cpu window with the real perf: recorded system-wide (-a: a sampling timer per CPU,
not one re-armed at every context switch of every target thread; bench/bench_capture.py), so the
folding must keep the target's samples only, never another busy process's."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.servers import die_with_parent, kill_and_wait, require

pytestmark = pytest.mark.integration  # the real perf, on two real busy processes


@pytest.fixture
def busy() -> Iterator[tuple[int, int]]:
    """(target, bystander): two processes that burn CPU, ``dd`` and ``yes``."""
    require("perf", "linux-perf")
    procs = [
        subprocess.Popen([*die_with_parent(), *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for argv in (["dd", "if=/dev/zero", "of=/dev/null", "bs=1"], ["yes"])
    ]
    try:
        yield procs[0].pid, procs[1].pid
    finally:
        for p in procs:
            kill_and_wait(p.pid)
            p.wait()


def test_a_window_keeps_the_targets_stacks_only(busy: tuple[int, int], tmp_path: Path) -> None:
    target, _ = busy
    argv = ["cpu", "--target", f"pid:{target}", "--windows", "1", "--window", "1", "--dir", str(tmp_path)]
    out = subprocess.run(
        [sys.executable, "-m", "benchdeck.engine.profiling.host_perf", *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    lines = out.splitlines()
    assert lines[0].startswith("# window 0 start=")
    assert lines[0].endswith(f"target=pids {target}")
    assert lines[-1] == "# end 0"
    stacks = lines[1:-1]
    assert stacks, "the target was sampled"
    assert all(s.startswith("dd;") for s in stacks), [s for s in stacks if not s.startswith("dd;")][:3]
