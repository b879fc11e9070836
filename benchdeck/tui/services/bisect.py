"""Bisect for the clients: the engine's search (engine.bisect) over real builds and runs.

:class:`BuildsAndRuns` is the search's lab: each tested commit is exported from the recipe's
source history on the host, built with the recipe (one build per commit, ``<stem>_g<sha8>_rel_<variant>``,
reused when a finished build of the same commit, variant and flags is there) and measured with
the run service; every build and run is stored as usual. The session's memory
(services.bisect_state) lets a second ``bisect`` with the same arguments replay what was done
and go on from there.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchdeck.engine.bisect.decide import DEFAULT_THRESHOLD, Ratio
from benchdeck.engine.bisect.driver import Bisection, Options, Result, Step
from benchdeck.engine.bisect.history import Commit, GitError, export, history
from benchdeck.engine.building.recipes import Recipe
from benchdeck.engine.planning.plan import RunOptions, RunRequest
from benchdeck.store.analysis.noise import ratio_ci_repeats
from benchdeck.store.storage import build_records as br
from benchdeck.store.storage.bisect_runs import run_results
from benchdeck.store.storage.following import is_followed
from benchdeck.store.storage.live import unfinished
from benchdeck.store.storage.lookups import run_build
from benchdeck.tui.services.bisect_state import SessionState, sessions_dir
from benchdeck.tui.services.builds import BuildService
from benchdeck.tui.services.eta import format_s
from benchdeck.tui.services.runs import HostBusy, RunService

Say = Callable[[str], None]
GUESS_BUILD_S = 120.0
GUESS_RUN_SETUP_S = 10.0


class BisectError(Exception):
    """A bisect that cannot start or go on (a bad ref, a host busy with another run), one line."""


@dataclass(frozen=True, slots=True)
class BisectRequest:
    host: str
    recipe: str
    good: str
    bad: str
    workload: str
    variant: str = "o2nofp"
    config: str | None = None
    options: RunOptions = field(default_factory=RunOptions)
    repeats: int = 3
    max_repeats: int = 8
    threshold: float = DEFAULT_THRESHOLD

    @classmethod
    def from_args(cls, args: dict[str, Any]) -> BisectRequest:
        """A request back from a session's arguments (``resume``): the endpoints as shas."""
        d = dict(args)
        d["options"] = RunOptions(**d["options"])
        return cls(**d)

    def session_args(self, commits: Sequence[Commit]) -> dict[str, object]:
        """What names the session: the resolved endpoints, not the refs (a branch moves)."""
        d = dataclasses.asdict(self)
        d.update(good=commits[0].sha, bad=commits[-1].sha)
        return d


@dataclass(frozen=True, slots=True)
class Report:
    """A finished (or stopped) bisect: the search's result with the commits and builds it names."""

    request: BisectRequest
    commits: tuple[Commit, ...]
    result: Result
    build_names: dict[int, str]
    runs: dict[int, tuple[int, ...]]  # position -> run ids of this session
    qps: dict[int, tuple[float, ...]]
    builds_new: int  # compiled in this invocation (not reused)
    runs_new: int
    elapsed_s: float
    resumed: bool

    @property
    def culprit(self) -> tuple[Commit, Commit] | None:
        """(first bad commit, last good commit) of a culprit."""
        if self.result.culprit is None:
            return None
        first, last = self.result.culprit
        return self.commits[last], self.commits[first - 1]


def ratio(other: Sequence[float], base: Sequence[float]) -> Ratio | None:
    """The median ratio and compare's noise interval of it."""
    ci = ratio_ci_repeats(other, base)
    if ci is None:
        return None
    return Ratio(statistics.median(other) / statistics.median(base), ci.low, ci.high)


class BuildsAndRuns:
    """The search's lab on a real host (see the module docstring)."""

    def __init__(self, builds: BuildService, runs: RunService, req: BisectRequest, say: Say):
        self.builds, self.runs, self.req, self.say = builds, runs, req, say
        self.commits: list[Commit] = []
        self.names: dict[int, str] = {}
        self.run_ids: dict[int, list[int]] = {}
        self.qps: dict[int, list[float]] = {}
        self.build_s: list[float] = []
        self.run_s: list[float] = []
        self.builds_new = self.runs_new = 0
        self.started = time.monotonic()
        self.state: SessionState | None = None
        self.resumed = False

    @property
    def recipe(self) -> Recipe:
        return self.builds.session.inventory.recipe(self.req.recipe)

    async def open(self) -> int:
        """The commits from good to bad and the session's memory; returns the last position."""
        r = self.recipe
        check_recipe(r)
        t = await self.builds.session.transport(self.req.host)
        try:
            self.commits = await history(t, r.source, self.req.good, self.req.bad)
        except GitError as exc:
            raise BisectError(str(exc)) from None
        for i, c in enumerate(self.commits):
            self.names[i] = self._recipe_of(c, r.source).build_name(self.req.variant)
        args = self.req.session_args(self.commits)
        self.state = SessionState.load(sessions_dir(self.runs.store.label), args)
        self.resumed = self.state.resumed
        self.state.commits = [
            {**dataclasses.asdict(c), "build": self.names[i]} for i, c in enumerate(self.commits)
        ]
        self.state.save()
        await self._settle_leftovers()
        return len(self.commits) - 1

    def _recipe_of(self, c: Commit, source: str) -> Recipe:
        r = self.recipe
        return dataclasses.replace(r, source=source, stem=f"{r.build_stem}_g{c.short}")

    async def _settle_leftovers(self) -> None:
        """Runs of this bisect's builds a killed benchdeck left running: cancelled (their samples
        kept), so the host is free and the measurement is taken again."""
        names = set(self.names.values())
        with self.runs.store.reading() as cur:
            live = [lr for lr in unfinished(cur, self.req.host) if run_build(cur, lr.run_id) in names]
        for lr in live:
            if not is_followed(self.runs.store.label, lr.run_id):
                self.say(f"bisect: run {lr.run_id} was left running by a killed benchdeck: cancelling it")
                await self.runs.cancel(lr)

    async def build(self, position: int) -> bool:
        assert self.state is not None
        c, name = self.commits[position], self.names[position]
        if position in self.state.failed:
            return False
        r = self.recipe
        t = await self.builds.session.transport(self.req.host)
        workdir = await self.builds.session.remote_path(
            self.req.host, self.builds.session.inventory.host(self.req.host).workdir
        )
        try:
            source = await export(t, r.source, c.sha, workdir, r.name)
        except GitError as exc:
            raise BisectError(str(exc)) from None
        self.say(f"bisect: building {c.short} {c.subject[:60]} as {name}")
        out = await self.builds.build(self.req.host, self._recipe_of(c, source), self.req.variant, reuse=True)
        if not out.ok:
            self.say(f"bisect: {c.short} does not build, skipped: {out.error}")
            self.state.set_failed(position)
            return False
        if out.status == "finished":
            self.builds_new += 1
            if out.result is not None:
                self.build_s.append(out.result.duration_s)
        self.say(f"bisect: {name} {'reused' if out.status == 'reused' else 'built'}")
        self.builds.refresh_inventory()
        return True

    async def measure(self, position: int, nth: int) -> float | None:
        assert self.state is not None
        known = self.state.run_of(position, nth)
        if known is not None:
            with self.runs.store.reading() as cur:
                status, qps = run_results(cur, [known]).get(known, ("missing", None))
            if status in ("finished", "failed", "cancelled"):
                return self._keep(position, known, qps if status == "finished" else None)
        req = RunRequest(
            self.req.host, self.names[position], self.req.workload, self.req.options, self.req.config
        )
        t0 = time.monotonic()
        try:
            out = await self.runs.run(req)
        except HostBusy as exc:
            raise BisectError(f"the host is busy, nothing measured beside it: {exc}") from None
        self.runs_new += 1
        self.run_s.append(time.monotonic() - t0)
        self.state.set_run(position, nth, out.run_id)
        if out.status != "finished":
            self.say(f"bisect: run {out.run_id} of {self.names[position]} {out.status}: {out.error}")
        return self._keep(position, out.run_id, out.qps if out.status == "finished" else None)

    def _keep(self, position: int, run_id: int, qps: float | None) -> float | None:
        self.run_ids.setdefault(position, []).append(run_id)
        if qps is not None:
            self.qps.setdefault(position, []).append(qps)
        return qps

    def ratio(self, other: Sequence[float], base: Sequence[float]) -> Ratio | None:
        return ratio(other, base)

    def progress(self, step: Step) -> None:
        eta = self.eta_s(step)
        self.say(progress_line(step, self.commits, eta))
        if self.state is not None:  # the app's Bisect screen shows it (another process may run this)
            self.state.set_eta(eta if step.search.candidates() else 0.0)

    def eta_s(self, step: Step) -> float:
        """Seconds left: steps left x (a build + its runs), learned from this bisect so far
        (a build: the recipe's earlier builds on the host until one is made here)."""
        per_build = statistics.median(self.build_s) if self.build_s else self._earlier_build_s()
        guess_run = (self.req.options.duration_s or 60) + GUESS_RUN_SETUP_S
        per_run = statistics.median(self.run_s) if self.run_s else guess_run
        return step.search.steps_left() * (per_build + 2 * self.req.repeats * per_run)

    def _earlier_build_s(self) -> float:
        with self.builds.store.reading() as cur:
            done = [
                r.duration_s
                for r in br.records(cur, host=self.req.host, status="finished")
                if r.recipe == self.req.recipe and r.duration_s
            ]
        return statistics.median(done) if done else GUESS_BUILD_S

    def report(self, result: Result) -> Report:
        return Report(
            self.req,
            tuple(self.commits),
            result,
            dict(self.names),
            {p: tuple(v) for p, v in self.run_ids.items()},
            {p: tuple(v) for p, v in self.qps.items()},
            self.builds_new,
            self.runs_new,
            time.monotonic() - self.started,
            self.resumed,
        )


def check_recipe(r: Recipe) -> None:
    """A recipe bisect can build a commit at a time with: each build in its own prefix, and the
    source tree named by ``{source}`` (the commit's exported tree takes its place)."""
    if r.prefix and "{name}" not in r.prefix:
        raise BisectError(
            f"recipe {r.name}: its prefix {r.prefix} is the same for every commit; put {{name}} in it "
            "(or leave prefix out) so each commit's build has its own"
        )
    for step, argvs in r.steps.items():
        if any(r.source in word for argv in argvs for word in argv):
            raise BisectError(
                f"recipe {r.name}: its {step} step names {r.source} itself; write {{source}} so each "
                "commit builds its own tree"
            )


def progress_line(step: Step, commits: Sequence[Commit], eta_s: float) -> str:
    """``step 3: 1a2b3c4d bad x0.512 [0.49, 0.53] 3 runs | 4 left, ~2 steps, ETA 3m10s``."""
    t = step.tested
    if t is None:
        e = step.endpoints
        what = f"endpoints bad/good x{e.value:.3f} [{e.low:.3f}, {e.high:.3f}]" if e else "endpoints measured"
    else:
        r = t.to_good
        shown = f" x{r.value:.3f} [{r.low:.3f}, {r.high:.3f}]" if r else ""
        what = f"{commits[t.position].short} {t.mark}{shown} {t.runs} runs"
    left = len(step.search.candidates())
    tail = (
        f"{left} commits left, ~{step.search.steps_left()} steps, ETA {format_s(eta_s)}" if left else "done"
    )
    return f"step {step.number}: {what} | {tail} (builds {step.builds}, runs {step.runs})"


async def bisect(builds: BuildService, runs: RunService, req: BisectRequest, say: Say) -> Report:
    """The whole bisect (resumed when this session was started before)."""
    lab = BuildsAndRuns(builds, runs, req, say)
    n = await lab.open()
    if lab.state is not None and lab.resumed:
        say(f"bisect: resuming ({len(lab.state.runs)} runs and {len(lab.state.failed)} skips recorded)")
    say(f"bisect: {n} commits from {lab.commits[0].short} (good) to {lab.commits[-1].short} (bad)")
    result = await Bisection(lab, n, Options(req.threshold, req.repeats, req.max_repeats)).run()
    if lab.state is not None:
        lab.state.set_done()
    return lab.report(result)
