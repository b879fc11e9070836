"""What a run does when tools are missing on the host (PATH narrowed for real, no fakes)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from benchdeck.engine.events import LogLine, RunFailed, RunFinished, RunStarted
from benchdeck.engine.families.builtin.catalogue import builtin_argv
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.transport import LocalTransport

pytestmark = pytest.mark.integration  # real runs with PATH narrowed


@pytest.fixture
def path_without_iostat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH holding every program of this machine except iostat."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for d in ("/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        for entry in os.scandir(d) if os.path.isdir(d) else ():
            target = bin_dir / entry.name
            if entry.name != "iostat" and not target.exists():
                target.symlink_to(entry.path)
    monkeypatch.setenv("PATH", str(bin_dir))


async def collect(plan: RunPlan) -> list[object]:
    return [ev async for ev in Runner(LocalTransport(), plan).events()]


def builtin_plan(tmp_path: Path) -> RunPlan:
    db = str(tmp_path / "b.sqlite")
    common = {"db_path": db, "time_s": 2, "table_size": 1000}
    return RunPlan(
        run_id=1,
        host="local",
        workload="point-query_range=100",
        remote_dir=tempfile.mkdtemp(prefix="bd-miss-"),
        bench_argv=tuple(builtin_argv("point-query_range=100", command="run", **common)),  # type: ignore[arg-type]
        prepare_argv=tuple(builtin_argv("point-query_range=100", command="prepare", **common)),  # type: ignore[arg-type]
        duration_s=2,
    )


@pytest.mark.usefixtures("path_without_iostat")
async def test_a_missing_monitor_is_reported_and_the_run_goes_on(tmp_path: Path) -> None:
    events = await collect(builtin_plan(tmp_path))
    notes = [e.text for e in events if isinstance(e, LogLine)]
    assert any("iostat missing on local" in n and "apt-get install sysstat" in n for n in notes), notes
    started = [e for e in events if isinstance(e, RunStarted)]
    assert [p.name for p in started[0].procs] == ["vmstat", "bench"]
    (fin,) = [e for e in events if isinstance(e, RunFinished)]
    assert fin.per_op.cpu_o is not None, "vmstat still gives cpu/o"
    assert fin.per_op.wkb_o is None, "no iostat, no wKB/o: never a made-up zero"


async def test_a_missing_benchmark_tool_fails_with_what_to_install(tmp_path: Path) -> None:
    plan = RunPlan(
        run_id=2,
        host="local",
        workload="point-query_range=100",
        remote_dir=tempfile.mkdtemp(prefix="bd-miss-"),
        bench_argv=("no-such-sysbench", "run"),
        duration_s=2,
    )
    events = await collect(plan)
    (failed,) = [e for e in events if isinstance(e, RunFailed)]
    assert failed.error == "local: missing no-such-sysbench (install: put no-such-sysbench on PATH)"
