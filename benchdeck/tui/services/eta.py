"""One ETA for a queue, from one place: the CLI's ``queue: k/N ... ETA``, Live's header and
Launch's "about ..." all read it here.

A run takes its measured part (duration and warm-up) plus set-up and tear-down: preflight,
server start, prepare, the files read back. That part was a guessed constant, a different one
in each place, and the three ETAs of one queue disagreed with each other and with its real time;
it is now learned from the host's runs already stored (wall time less measured time, the median
of the last :data:`LEARN_FROM`), a guess only for a host with none.
"""

from __future__ import annotations

import contextlib
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchdeck.engine.catalogue import family_of
from benchdeck.engine.events import Phase
from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS
from benchdeck.engine.families.sysbench.command import WorkloadError, default_duration, step_for
from benchdeck.engine.families.tpcc.names import DEFAULT_SECONDS as TPCC_SECONDS
from benchdeck.engine.planning.plan import RunOptions, queued_options
from benchdeck.store.storage import queue as q

if TYPE_CHECKING:  # (Launch imports this: its first frame is drawn before DuckDB loads)
    import duckdb

SETUP_GUESS_S = 15.0
"""Set-up of a run on a DBMS host with no stored run to learn from (preflight, prepare check)."""
BUILTIN_SETUP_GUESS_S = 1.0
"""The same for a built-in SQLite run on this machine (what such runs took, rounded up)."""
LEARN_FROM = 20
"""How many of the host's latest runs the set-up time is learned from."""


@dataclass(frozen=True, slots=True)
class Eta:
    """A queue's position and the seconds left on its host, as the item ``k`` started."""

    host: str
    k: int
    n: int
    seconds: float

    def left_s(self, elapsed_s: float) -> float:
        """Seconds left ``elapsed_s`` after the item started."""
        return max(0.0, self.seconds - elapsed_s)


@dataclass(frozen=True, slots=True)
class QueuePhase(Phase):
    """The ``queue`` phase of a run (its line is :func:`queue_line`), with its :class:`Eta`:
    what the log prints and what Live's header counts down from are one figure."""

    eta: Eta | None = None


def measured_s(workload: str, options: RunOptions) -> float:
    """The measured part of a run: its duration (given, the suite's, or the workload's
    default) and its warm-up."""
    duration = options.duration_s
    if duration is None and family_of(workload) == "sysbench":
        with contextlib.suppress(WorkloadError):
            writes = step_for(workload).writes
            duration = (options.write_s if writes else options.read_s) or default_duration(workload)
    elif duration is None and family_of(workload) == "tpcc":
        duration = TPCC_SECONDS
    return float((duration or 300) + options.warmup_s)


def learned_setup_s(cur: duckdb.DuckDBPyConnection, host: str) -> float | None:
    """Median set-up of the host's latest runs started by benchdeck (None when it has none)."""
    from benchdeck.store.storage.lookups import median_setup_s

    return median_setup_s(cur, host, LEARN_FROM)


def setup_s(cur: duckdb.DuckDBPyConnection, host: str, builds: Iterable[str] = ()) -> float:
    """The set-up to count per run on ``host``: learned, else the guess for its builds."""
    return or_guess(learned_setup_s(cur, host), builds)


def or_guess(learned: float | None, builds: Iterable[str]) -> float:
    """``learned``, else the guess: a built-in SQLite run's when every build is one."""
    if learned is not None:
        return learned
    names = list(builds)
    return BUILTIN_SETUP_GUESS_S if names and all(b in BUILTIN_BUILDS for b in names) else SETUP_GUESS_S


def matrix_s(per_host: dict[str, Sequence[float]], setups: dict[str, float]) -> float:
    """A matrix's seconds: hosts in parallel, each its runs (measured seconds) one after another."""
    return max((plan_s(m, setups[h]) for h, m in per_host.items()), default=0.0)


def plan_s(measured: Sequence[float], setup: float) -> float:
    """Seconds for runs one after another on one host (hosts run in parallel: the longest
    host's figure is the matrix's)."""
    return sum(m + setup for m in measured)


def queue_eta(item: q.QueueItem, where: q.Position, setup: float) -> Eta:
    """The host's items left (this one included): at the pace of the queue's finished runs on
    the host when there are some (set-up included), else as planned with ``setup`` each."""
    items = [item, *where.left_on_host]
    if where.done_s:
        seconds = statistics.fmean(where.done_s) * len(items)
    else:
        seconds = plan_s([measured_s(i.workload, queued_options(i.options)[0]) for i in items], setup)
    return Eta(item.host, where.k, where.n, seconds)


def format_s(s: float) -> str:
    """``0m53s``, ``1h05m``."""
    m, sec = divmod(int(s), 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{sec:02d}s"


def queue_line(item: q.QueueItem, eta: Eta) -> str:
    """``3/42 my8040_rel point-query_range=100 ETA 1h05m``."""
    config = f" ({item.config})" if item.config else ""
    sweep = f" dop {item.threads}" if item.threads else ""
    sweep += f" repeat {item.repeat_no}" if item.repeat_no else ""
    return f"{eta.k}/{eta.n} {item.build}{config} {item.workload}{sweep} ETA {format_s(eta.seconds)}"
