"""CPU per query by function, from folded stacks (pure code: no store, no UI).

With ``cpu-clock`` sampling at F Hz each sample stands for 1/F s of the profiled processes' CPU
(perf's software clock fires every 1/F s of a task's run time). A function's samples / F / the
queries of the same windows is its CPU time per query: *total* (inclusive: the samples whose
stack holds it, counted once per stack however often it recurses) and *self* (exclusive: the
samples where it is the leaf). With ``cycles`` sampling perf adjusts the period to reach F Hz
only roughly, so a window whose ``task-clock`` was counted is scaled by it instead: each sample
is then task-clock / the window's samples.

This is not vmstat's cpu/o: that is the whole box, the benchmark client included; a profile
covers what perf recorded (the server's processes, as the capture targets them).

A window of unknown length (an imported profile nobody said how long perf recorded: its
``seconds`` is 0) has no queries to divide by: a side with one is in ``share`` units, each
stack's percent of the side's profiled CPU (ratios only, never a figure per query).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from benchdeck.engine.profiling.records import ProfileWindow

_SCALE = {"us": 1e6, "cycles": 1.0}  # from what a sample stands for (seconds, cycles) to the unit
SHARE = "share"  # the unit of a side whose windows' length is not known: percent of its CPU


class ProfileError(ValueError):
    """A profile that cannot be turned into CPU per query (a one-line reason)."""


@dataclass(frozen=True, slots=True)
class WindowCost:
    """One window's share of a side: its samples, the CPU seconds they stand for, its queries."""

    run_id: int
    window: int
    samples: int
    cpu_s: float
    queries: float
    scaled_by: str  # "cpu-clock", "task-clock" or "frequency" (cycles without a task-clock count)


@dataclass(frozen=True, slots=True)
class SideProfile:
    """The merged windows of one side (a run, or a column's runs of one workload).

    ``stacks`` are folded stacks with their CPU in microseconds per query (each window's
    samples weighted by its own seconds per sample and divided by the side's queries)."""

    label: str
    windows: tuple[WindowCost, ...]
    stacks: tuple[tuple[str, int, float], ...]  # (stack, samples, us of CPU per query)
    unit: str = "us"  # or "cycles" (see unit_of), or SHARE (ratios only)

    @property
    def per_query(self) -> bool:
        """Its figures are per query (False: shares of its samples, the window's length unknown)."""
        return self.unit != SHARE

    @property
    def samples(self) -> int:
        return sum(w.samples for w in self.windows)

    @property
    def queries(self) -> float:
        return sum(w.queries for w in self.windows) if self.per_query else 0.0

    @property
    def cpu_per_query(self) -> float:
        """All the profiled CPU per query (the root of the flame graph), in :attr:`unit`
        (100 for a side in shares)."""
        if not self.per_query:
            return 100.0
        q = self.queries
        return sum(w.cpu_s for w in self.windows) * _SCALE[self.unit] / q if q > 0 else 0.0


@dataclass(frozen=True, slots=True)
class FunctionCost:
    """One function's CPU per query on one side: samples and microseconds, self and total."""

    function: str
    self_samples: int
    total_samples: int
    self_us: float
    total_us: float


@dataclass(frozen=True, slots=True)
class FunctionDiff:
    """One function in base and column: us of CPU per query on each side and the change."""

    function: str
    base_self_us: float
    col_self_us: float
    base_total_us: float
    col_total_us: float

    def diff(self, by: str = "self") -> float:
        return (
            self.col_self_us - self.base_self_us if by == "self" else self.col_total_us - self.base_total_us
        )

    def ratio(self, by: str = "self") -> float | None:
        base = self.base_self_us if by == "self" else self.base_total_us
        col = self.col_self_us if by == "self" else self.col_total_us
        return col / base if base > 0 else None


def seconds_per_sample(window: ProfileWindow, task_clock_ms: float | None = None) -> tuple[float, str]:
    """What one sample of ``window`` stands for, in CPU seconds, and what said so.

    ``task_clock_ms`` is perf stat's task-clock of the same window (msec), when counted. A
    ``cycles`` window of unknown frequency (flamegraph.pl SVGs of ``perf record -e cycles``:
    their "samples" are perf's periods, i.e. cycles) stands for one cycle per sample: see
    :func:`unit_of`."""
    samples = sum(n for _, n in window.stacks)
    if window.event != "cpu-clock" and task_clock_ms is not None and samples > 0:
        return task_clock_ms / 1000.0 / samples, "task-clock"
    if unit_of(window, task_clock_ms) == "cycles":
        return 1.0, "cycles"
    if not window.frequency_hz or window.frequency_hz <= 0:
        raise ProfileError(
            f"window {window.window} ({window.event}) has no sampling frequency and no task-clock count: "
            "its samples cannot be turned into seconds"
        )
    return 1.0 / window.frequency_hz, "cpu-clock" if window.event == "cpu-clock" else "frequency"


def unit_of(window: ProfileWindow, task_clock_ms: float | None = None) -> str:
    """``us`` (CPU microseconds per query), or ``cycles`` for a cycles profile that has neither a
    frequency nor a task-clock count (its samples are cycles)."""
    if window.event == "cycles" and not window.frequency_hz and task_clock_ms is None:
        return "cycles"
    return "us"


def side_profile(
    label: str,
    windows: Iterable[tuple[int, ProfileWindow, float, float | None]],
) -> SideProfile:
    """Merge windows ``(run_id, window, queries in it, task-clock msec or None)`` into one side
    (in shares when a window's length is unknown)."""
    wins = list(windows)
    if not wins:
        raise ProfileError(f"{label}: no profile windows")
    known = all(w.seconds > 0 for _, w, _, _ in wins)
    costs: list[WindowCost] = []
    weighted: dict[str, list[float]] = {}
    units: set[str] = set()
    for run_id, window, queries, task_ms in wins:
        units.add(unit_of(window, task_ms))
        if known and queries <= 0:
            raise ProfileError(f"run {run_id} window {window.window}: no queries in its {window.seconds:g} s")
        per_sample, how = _weight(window, task_ms, known)
        samples = sum(n for _, n in window.stacks)
        costs.append(WindowCost(run_id, window.window, samples, samples * per_sample, queries, how))
        for stack, n in window.stacks:
            acc = weighted.setdefault(stack, [0.0, 0.0])
            acc[0] += n
            acc[1] += n * per_sample
    if len(units) > 1:
        raise ProfileError(f"{label}: windows in cycles and in seconds cannot be merged")
    if not known:
        total = sum(v[1] for v in weighted.values()) or 1.0
        stacks = tuple(sorted((s, int(v[0]), 100.0 * v[1] / total) for s, v in weighted.items()))
        return SideProfile(label, tuple(costs), stacks, SHARE)
    unit = units.pop()
    total_q = sum(c.queries for c in costs)
    stacks = tuple(sorted((s, int(v[0]), v[1] * _SCALE[unit] / total_q) for s, v in weighted.items()))
    return SideProfile(label, tuple(costs), stacks, unit)


def _weight(window: ProfileWindow, task_ms: float | None, known: bool) -> tuple[float, str]:
    """A sample's weight; in shares, one sample where nothing says what it stands for."""
    try:
        return seconds_per_sample(window, task_ms)
    except ProfileError:
        if known:
            raise
        return 1.0, "samples"


def as_shares(side: SideProfile) -> SideProfile:
    """``side`` with each stack as its percent of the side's CPU (to compare with a side in shares)."""
    if not side.per_query:
        return side
    total = sum(v for _, _, v in side.stacks) or 1.0
    stacks = tuple((s, n, 100.0 * v / total) for s, n, v in side.stacks)
    return SideProfile(side.label, side.windows, stacks, SHARE)


def function_costs(side: SideProfile) -> dict[str, FunctionCost]:
    """Self and total samples and us of CPU per query of every function in ``side``."""
    self_n: dict[str, int] = {}
    total_n: dict[str, int] = {}
    self_us: dict[str, float] = {}
    total_us: dict[str, float] = {}
    for stack, n, us in side.stacks:
        frames = stack.split(";")
        leaf = frames[-1]
        self_n[leaf] = self_n.get(leaf, 0) + n
        self_us[leaf] = self_us.get(leaf, 0.0) + us
        for fn in set(frames):
            total_n[fn] = total_n.get(fn, 0) + n
            total_us[fn] = total_us.get(fn, 0.0) + us
    return {
        fn: FunctionCost(fn, self_n.get(fn, 0), total_n[fn], self_us.get(fn, 0.0), total_us[fn])
        for fn in total_n
    }


def top_functions(side: SideProfile, limit: int = 20, by: str = "self") -> list[FunctionCost]:
    """The functions with most CPU per query, self (default) or total."""
    costs = function_costs(side).values()

    def key(c: FunctionCost) -> tuple[float, str]:
        return (-(c.self_us if by == "self" else c.total_us), c.function)

    return sorted(costs, key=key)[:limit]


def diff_functions(
    base: SideProfile, col: SideProfile, limit: int | None = 20, by: str = "self"
) -> list[FunctionDiff]:
    """Functions by how much their CPU per query grew from base to column, most grown first.

    ``by="self"`` (the default) sorts by exclusive time: the function whose own code got more
    expensive tops the list, not its callers (whose total grows by the same amount)."""
    if not (base.per_query and col.per_query):
        base, col = as_shares(base), as_shares(col)
    if base.unit != col.unit:
        raise ProfileError(
            f"{base.label} is in {base.unit} per query, {col.label} in {col.unit}: not comparable"
        )
    b = function_costs(base)
    c = function_costs(col)
    zero = FunctionCost("", 0, 0, 0.0, 0.0)
    rows = [
        FunctionDiff(
            fn,
            b.get(fn, zero).self_us,
            c.get(fn, zero).self_us,
            b.get(fn, zero).total_us,
            c.get(fn, zero).total_us,
        )
        for fn in set(b) | set(c)
    ]
    rows.sort(key=lambda r: (-r.diff(by), r.function))
    return rows if limit is None else rows[:limit]


def grew_most(base: SideProfile, col: SideProfile, n: int = 3, min_us: float = 0.0) -> list[FunctionDiff]:
    """The ``n`` functions whose self CPU per query grew most (and by more than ``min_us``)."""
    return [r for r in diff_functions(base, col, limit=n) if r.diff() > min_us]


def queries_in_window(
    samples: Sequence[tuple[float, float | None]],
    start_s: float | None,
    seconds: float,
    run_qps: float | None,
) -> float:
    """Queries the benchmark did during ``[start_s, start_s + seconds]``.

    ``samples`` are the run's per-interval ``(t, qps)`` (t: the interval's end, seconds after the
    measured phase began, as sysbench prints it). Each interval counts by its overlap with the
    window. Without samples over the window (or a window of unknown start), the run's QPS
    times the window's seconds."""
    if start_s is not None and samples:
        end_s = start_s + seconds
        total = 0.0
        covered = 0.0
        prev = 0.0
        for t, qps in samples:
            lo, hi = max(prev, start_s), min(t, end_s)
            if hi > lo and qps is not None:
                total += qps * (hi - lo)
                covered += hi - lo
            prev = t
        if covered >= 0.5 * seconds and total > 0:
            return total * seconds / covered  # the uncovered edge at the run's mean of the window
    if run_qps is None or run_qps <= 0:
        raise ProfileError("no per-second samples over the window and no QPS for the run")
    return run_qps * seconds
