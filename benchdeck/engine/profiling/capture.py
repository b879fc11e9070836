"""What a run captures with perf (``--profile counters,cpu``), against which process, and the
command lines of the capture loop shipped to the host (:mod:`.host_perf`).

Off by default. The target is found on the host at every window, from the first spec that
names a live process: a managed server's pid file; an existing server's datadir pid file
(``postmaster.pid``, ``*.pid``) or its TCP port; for db_bench and the built-in workload the
benchmark's own process group (``bench``: the runner puts its pgid in). PostgreSQL adds the
postmaster's children (``children``): the backends of the window's connections.
"""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from benchdeck.engine.profiling.cadence import Schedule, Slot, schedule, tail_s
from benchdeck.engine.running.client_files import import_root, package_files

KINDS = ("counters", "cpu")
# The seed author's doperf1 list (mdcallag/mytools bench/sysbench.lua/run.sh), software first:
# a VM counts those only, every hardware event reads <not supported> there (stored as missing).
DEFAULT_EVENTS = (
    "task-clock", "context-switches", "cpu-migrations", "page-faults",
    "cycles", "instructions", "branches", "branch-misses", "cache-references", "cache-misses",
    "L1-dcache-load-misses", "L1-icache-load-misses", "dTLB-load-misses", "iTLB-load-misses",
)  # fmt: skip
# The default cadence: a window, then a pause, as the seed author's loop (run.sh: perf record
# 10 s after sleeping perf_loop_sleep = 50 s, perf stat after 30 s; the sleep comes first).
# While a window is open the counted server pays for it: perf stat -p switches per-thread
# counters at each of the server's context switches (whatever the events open per thread, so
# rotating event groups would not cut it: bench/bench_perf_events.py), perf record at 99 Hz
# with its folding costs less (bench/bench_capture.py). A whole run pays that x window / period:
# counters 10 s of every 150 s keeps it within the 1% target, cpu 10 s of every 60 s (the
# author's cadence) within 3% (the measures: docs/performance.md). --profile-period overrides
# both.
DEFAULT_PERIOD_S = {"counters": 150.0, "cpu": 60.0}
PACKAGE = "benchdeck.engine.profiling"
SHIP_DIR = "bp"  # in the run directory: engine/profiling/{host_perf,fold,elf_check}.py
_SOURCES = ("__init__", "elf_check", "fold", "host_perf")


class CaptureError(ValueError):
    """A ``--profile`` value benchdeck cannot use, in one line."""


@dataclass(frozen=True, slots=True)
class CaptureOptions:
    """What the user asked to capture (CLI, Launch or the inventory's ``profile`` keys).

    ``window_s`` of every ``period_s`` seconds (None: each kind's DEFAULT_PERIOD_S, at least the
    window; the first windows after a settle, the kinds in turn, shorter in a short run:
    :mod:`.cadence`); ``frequency_hz`` is perf record's sampling rate (its cost:
    bench/bench_capture.py, README); ``optional``: the run goes on without what the host cannot
    capture (else the preflight stops it)."""

    kinds: tuple[str, ...] = ()
    window_s: float = 10.0
    period_s: float | None = None
    frequency_hz: int = 99
    event: str = "cpu-clock"
    events: tuple[str, ...] = DEFAULT_EVENTS
    optional: bool = False

    def __post_init__(self) -> None:
        bad = [k for k in self.kinds if k not in KINDS]
        if bad:
            raise CaptureError(f"unknown capture {bad[0]!r} (use {', '.join(KINDS)})")
        if not 0 < self.window_s <= (self.period_s or self.window_s):
            raise CaptureError(
                f"window {self.window_s:g} s must be > 0 and at most the period {self.period(KINDS[0]):g} s"
            )
        if not 1 <= self.frequency_hz <= 10000:
            raise CaptureError(f"sampling frequency {self.frequency_hz} Hz out of 1-10000")
        if self.event not in ("cpu-clock", "cycles", "task-clock"):
            raise CaptureError(f"sampling event {self.event!r}: use cpu-clock or cycles")

    def period(self, kind: str) -> float:
        """Seconds from one window of ``kind`` to the next."""
        return (
            self.period_s
            if self.period_s is not None
            else max(DEFAULT_PERIOD_S.get(kind, 0.0), self.window_s)
        )


def parse_kinds(text: str) -> tuple[str, ...]:
    """``counters,cpu`` (or ``off``/empty) as kinds; CaptureError names an unknown one."""
    kinds = tuple(dict.fromkeys(k.strip() for k in text.split(",") if k.strip() and k.strip() != "off"))
    CaptureOptions(kinds)  # validates
    return kinds


@dataclass(frozen=True, slots=True)
class CapturePlan:
    """A run's capture: the user's options, the target specs (``pidfile:PATH``, ``datadir:DIR``,
    ``port:N``, ``bench``) and how the host runs the loop (``python`` and ``PYTHONPATH``)."""

    options: CaptureOptions
    targets: tuple[str, ...]
    children: bool = False
    python: str = "python3"
    pythonpath: str = ""
    run_s: float | None = None
    """The run's length (its first windows fit in it), None when open-ended (a load)."""

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.options.kinds

    def schedule(self) -> Schedule:
        """Each kind's first window in this run, or why it has none (too short a run)."""
        o = self.options
        return schedule(o.kinds, o.window_s, self.run_s, o.period_s is not None)

    def argv(
        self, kind: str, bench_pgid: int | None = None, run_dir: str | None = None, windows: int | None = None
    ) -> list[str]:
        """The host's command line of one capture kind (``check``: the preflight's)."""
        o = self.options
        argv = [self.python, "-m", f"{PACKAGE}.host_perf", kind]
        if run_dir is not None:
            argv += ["--dir", run_dir]
        for t in self.targets:
            if t != "bench":
                argv += ["--target", t]
            elif bench_pgid is not None:  # the preflight, before the bench starts: its own pid
                argv += ["--target", f"pgid:{bench_pgid}"]
        if self.children:
            argv.append("--children")
        slot = self.schedule().slots.get(kind, Slot(0.0, o.window_s))  # check: any
        argv += ["--window", f"{slot.window_s:.3f}", "--period", f"{o.period(kind):g}"]
        argv += ["--first", f"{slot.first_s:.3f}"]
        if self.run_s is not None:  # later windows only where they end in time (cpu's folded)
            argv += ["--until", f"{self.run_s - (tail_s(slot.window_s) if kind == 'cpu' else 0):.3f}"]
        argv += ["--events", ",".join(o.events), "--event", o.event, "--freq", str(o.frequency_hz)]
        argv += ["--kinds", ",".join(o.kinds)]
        if windows is not None:
            argv += ["--windows", str(windows)]
        return argv

    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": self.pythonpath} if self.pythonpath else {}


def capture_plan(
    opts: CaptureOptions | None,
    targets: tuple[str, ...],
    children: bool,
    remote_dir: str,
    local: bool,
    run_s: float | None = None,
    python: str = "python3",
) -> tuple[CapturePlan | None, tuple[tuple[str, str], ...]]:
    """The plan's capture and the files to ship for it (none when nothing is captured).

    On a local host the loop runs with this interpreter and benchdeck's own sources; on a
    remote one its two files go into the run directory and run with the host's ``python``."""
    if opts is None or not opts.kinds:
        return None, ()
    base = CapturePlan(opts, targets, children, run_s=run_s)
    if local:
        root = os.pathsep.join(p for p in (import_root(PACKAGE), os.environ.get("PYTHONPATH")) if p)
        return replace(base, python=sys.executable, pythonpath=root), ()
    files = package_files(PACKAGE, _SOURCES, SHIP_DIR)
    return replace(base, python=python, pythonpath=posixpath.join(remote_dir, SHIP_DIR)), files


def options_from_dict(d: Mapping[str, Any]) -> CaptureOptions:
    """Stored (JSON) options back as the frozen record (lists back to tuples)."""
    kw: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    return CaptureOptions(**kw)


def plan_from_dict(d: Mapping[str, Any]) -> CapturePlan:
    """A stored (JSON) capture plan back as the frozen record."""
    kw: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
    kw["options"] = options_from_dict(d["options"])
    return CapturePlan(**kw)
