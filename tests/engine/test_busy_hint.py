"""The line that refuses a run while another run's process is alive on the host (issue 38 item 8):
it said "`benchdeck resume` it" also of a run the app follows, and resume answered "nothing to
resume". The hint now depends on whether a live benchdeck follows the run."""

from __future__ import annotations

import os
from pathlib import Path

from benchdeck.engine.running.run_dirs import busy_reason
from benchdeck.engine.transport.local import LocalTransport


def _alive_run(tmp_path: Path) -> str:
    """A run directory whose bench process group is alive (this test's own group)."""
    run = tmp_path / "runs" / "run7-abc123"
    run.mkdir(parents=True)
    (run / "bench.pgid").write_text(str(os.getpgid(0)))
    (run / "bench.pid").write_text(str(os.getpid()))
    return str(tmp_path / "runs")


async def test_a_followed_run_is_waited_for_not_resumed(tmp_path: Path) -> None:
    runs = _alive_run(tmp_path)
    why = await busy_reason(LocalTransport(), "local", runs, followed=lambda rid: rid == 7)
    assert why is not None
    assert why.startswith("local: run 7 still has its bench running")
    assert why.endswith(
        "a benchdeck follows it (the app, a run or queue): wait for it or `benchdeck cancel 7`"
    )
    assert "resume" not in why


async def test_a_run_nobody_follows_is_resumed(tmp_path: Path) -> None:
    runs = _alive_run(tmp_path)
    why = await busy_reason(LocalTransport(), "local", runs, followed=lambda rid: False)
    assert why is not None
    assert why.endswith("no benchdeck follows it: `benchdeck resume` it or `benchdeck cancel 7`")
