"""What the app's Bisect screen shows of a session, running or done: the commit line with each
tested commit's runs (each run's QPS over the good endpoint's median) and verdict, the step, and
at the end the culprit with the functions whose CPU per query grew.

The session is replayed: the engine's search is run again over the lab answers the store holds
(:class:`ReplayLab`), so the screen shows exactly what the bisect decided, and a bisect still
running shows up to the run it waits for.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from benchdeck.engine.bisect.decide import Ratio
from benchdeck.engine.bisect.driver import Bisection, Options, Result, Step
from benchdeck.store.storage.bisect_runs import run_results
from benchdeck.tui.services.bisect import ratio
from benchdeck.tui.services.bisect_state import SessionState

if TYPE_CHECKING:
    import duckdb


class Pending(Exception):
    """The replay reached a measurement or build the session has not made yet."""

    def __init__(self, position: int):
        self.position = position


@dataclass(frozen=True, slots=True)
class CommitRow:
    position: int
    short: str
    subject: str
    mark: str  # good, bad, skip, unclear; endpoint; testing; "" untested
    ratios: tuple[float, ...]  # each run's QPS / the good endpoint's median
    to_good: Ratio | None


@dataclass(frozen=True, slots=True)
class View:
    title: str
    rows: tuple[CommitRow, ...]
    steps: int
    result: Result | None  # None while the bisect goes on
    headline: str
    grown: str  # culprit vs parent: the functions whose CPU per query grew most
    eta_s: float | None = None  # running: seconds left by the bisect's own last estimate


class ReplayLab:
    """The search's lab answered from a session's memory and the store (never builds or runs)."""

    def __init__(self, cur: duckdb.DuckDBPyConnection, state: SessionState):
        self.state = state
        self.results = run_results(cur, list(state.runs.values()))
        self.qps: dict[int, list[float]] = {}
        self.steps: list[Step] = []

    async def build(self, position: int) -> bool:
        return position not in self.state.failed

    async def measure(self, position: int, nth: int) -> float | None:
        run_id = self.state.run_of(position, nth)
        status, qps = self.results.get(run_id, ("missing", None)) if run_id is not None else ("", None)
        if status not in ("finished", "failed", "cancelled"):
            raise Pending(position)
        if status == "finished" and qps is not None:
            self.qps.setdefault(position, []).append(qps)
            return qps
        return None

    def ratio(self, other: Sequence[float], base: Sequence[float]) -> Ratio | None:
        return ratio(other, base)

    def progress(self, step: Step) -> None:
        self.steps.append(step)


def _sync(coro: Coroutine[Any, Any, Result]) -> Result:
    """Run a coroutine that never waits (the replay lab answers at once)."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("the replay waited on something")


def session_view(cur: duckdb.DuckDBPyConnection, state: SessionState) -> View:
    """The session as the screen draws it (see the module docstring)."""
    a, commits = state.args, state.commits
    lab = ReplayLab(cur, state)
    search = Bisection(lab, len(commits) - 1, Options(a["threshold"], a["repeats"], a["max_repeats"]))
    result: Result | None = None
    testing: int | None = None
    try:
        result = _sync(search.run())
    except Pending as p:
        testing = p.position
    marks = {t.position: (t.mark, t.to_good) for t in search.tested}
    good = statistics.median(lab.qps[0]) if lab.qps.get(0) else None
    rows = []
    for i, c in enumerate(commits):
        mark, to_good = marks.get(i, ("", None))
        if i in (0, len(commits) - 1):
            mark = "good" if i == 0 else "bad"
            to_good = ratio(lab.qps[i], lab.qps[0]) if i and lab.qps.get(i) and lab.qps.get(0) else None
        if i == testing and not mark:
            mark = "testing"
        runs = tuple(q / good for q in lab.qps.get(i, [])) if good else ()
        rows.append(CommitRow(i, c["sha"][:8], c["subject"], mark, runs, to_good))
    title = f"bisect {a['workload']} on {a['host']}, recipe {a['recipe']} ({a['variant']})"
    headline, grown = _headline(result, commits), _grown(cur, a, commits, result)
    eta = state.eta_left(time.time()) if result is None else None
    return View(
        f"{title}: {len(commits) - 1} commits", tuple(rows), len(lab.steps), result, headline, grown, eta
    )


def _headline(result: Result | None, commits: Sequence[dict[str, str]]) -> str:
    if result is None:
        return "running"
    if result.culprit is None:
        return result.message
    first, last = result.culprit
    c = commits[last]
    if first == last:
        return f'culprit: {c["sha"][:8]} "{c["subject"]}" by {c["author"]}, {c["date"]}'
    shas = ", ".join(commits[i]["sha"][:8] for i in range(first, last + 1))
    return f"culprit: one of {last - first + 1} commits {shas}"


def _grown(
    cur: duckdb.DuckDBPyConnection,
    a: dict[str, Any],
    commits: Sequence[dict[str, str]],
    result: Result | None,
) -> str:
    from benchdeck.tui.services.profiles import ProfileRequest, grown_text

    if result is None or result.culprit is None:
        return ""
    first, last = result.culprit
    req = ProfileRequest(
        host=a["host"],
        base=commits[first - 1]["build"],
        column=commits[last]["build"],
        workload=a["workload"],
        config=a["config"],
    )
    return grown_text(cur, req)
