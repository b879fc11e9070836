"""Checks before a run measures: its files written, tools on PATH, disk space, the iostat device,
and no process of another run alive on the host. A check that fails raises :class:`StepFailed`.
"""

from __future__ import annotations

from collections.abc import Callable

from benchdeck.engine.events import LogLine, Phase, RunEvent
from benchdeck.engine.hosts.requirements import MONITORS, install_hint, remote_missing
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.run_dirs import busy_reason, runs_dir, write_file
from benchdeck.engine.transport import Transport

# Free KB on the filesystem that will hold "$1" (created first so df can see it).
_FREE_KB = 'mkdir -p -- "$1" && df -Pk -- "$1" | awk \'NR==2 {print $4}\''
# Exit 0 if block device "$1" exists, else list the block devices (no loop/ram) and exit 1.
_DEVICE_OR_LIST = r"""case $1 in */*|.*|"") ;; *) [ -e "/sys/class/block/$1" ] && exit 0;; esac
for d in /sys/block/*; do n=${d##*/}; case $n in loop*|ram*) ;; *) printf '%s\n' "$n";; esac; done
exit 1"""


class StepFailed(Exception):
    """A check or a step before the measured part failed; the run fails with this message."""


async def preflight(t: Transport, p: RunPlan, emit: Callable[[RunEvent], None]) -> list[str]:
    """Write the plan's files and check the host; returns the monitors that will run."""
    emit(Phase(p.run_id, "preflight"))
    for name, content in p.files:
        await write_file(t, f"{p.remote_dir}/{name}", content)
    missing = await remote_missing(t, [p.bench_argv[0], *(MONITORS if p.monitors else [])])
    if p.bench_argv[0] in missing:
        tool = p.bench_argv[0]
        raise StepFailed(f"{p.host}: missing {tool} (install: {install_hint([tool])})")
    monitors = [m for m in MONITORS if p.monitors and m not in missing]
    for m in missing:
        note = f"{m} missing on {p.host}: running without it, so no per-op metrics from it"
        emit(LogLine(p.run_id, "benchdeck", f"{note} (install: {install_hint([m])})"))
    await _check_disk(t, p)
    if "iostat" in monitors:
        await _check_device(t, p, emit)
    await check_idle(t, p)
    return monitors


async def check_idle(t: Transport, p: RunPlan) -> None:
    """Refuse to go on while a process of another run on this host is alive."""
    why = await busy_reason(t, p.host, runs_dir(p.remote_dir), p.remote_dir)
    if why is not None:
        raise StepFailed(why)


async def _check_disk(t: Transport, p: RunPlan) -> None:
    """Refuse to start when the run directory's filesystem is nearly full."""
    res = await t.run(["sh", "-c", _FREE_KB, "-", p.remote_dir])
    try:
        free_mb = int(res.stdout.strip()) // 1024
    except ValueError:
        return  # df unavailable: not a reason to refuse
    if free_mb < p.min_free_mb:
        raise StepFailed(f"{p.host}: only {free_mb} MB free under {p.remote_dir} (need {p.min_free_mb} MB)")


async def _check_device(t: Transport, p: RunPlan, emit: Callable[[RunEvent], None]) -> None:
    """Warn when the host's ``device`` does not exist there: iostat would report nothing."""
    if not p.device:
        return
    res = await t.run(["sh", "-c", _DEVICE_OR_LIST, "-", p.device])
    if not res.ok:
        known = ", ".join(res.stdout.split()) or "none found"
        msg = f"device {p.device} does not exist on {p.host} (block devices: {known}): no iostat metrics"
        emit(LogLine(p.run_id, "benchdeck", f"warning: {msg}; fix device in the inventory"))
