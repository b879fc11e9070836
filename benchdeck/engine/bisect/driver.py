"""The bisection loop over a :class:`Lab`: build and measure the endpoints, then the commit in the
middle of what is left, until the culprit (or its range) is all that remains.

Measurements are interleaved: the endpoints alternate (good, bad, good, ...) and each round of a
tested commit is one of its runs followed by one endpoint run, so a host's drift falls on both
sides. A commit's ratios are taken against every endpoint run of the session so far.

The loop is deterministic given what the lab returns, and the lab keys each measurement by
(position, nth): a lab that stores its answers makes a second run of the loop replay them
without building or running again, and carry on from where an earlier one was killed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from benchdeck.engine.bisect.decide import DEFAULT_THRESHOLD, Ratio, endpoints, judge
from benchdeck.engine.bisect.search import Mark, Search

Kind = Literal["culprit", "no-regression", "unclear", "error"]


class Lab(Protocol):
    """What the loop needs from the caller: builds, runs, intervals and a place to report."""

    async def build(self, position: int) -> bool:
        """Build the commit at ``position`` (or find its build); False when it does not build."""
        ...

    async def measure(self, position: int, nth: int) -> float | None:
        """QPS of the ``nth`` run (from 0) of the commit at ``position``; None when it failed."""
        ...

    def ratio(self, other: Sequence[float], base: Sequence[float]) -> Ratio | None:
        """median(other) / median(base) with its noise interval (None when there is none)."""
        ...

    def progress(self, step: Step) -> None:
        """One step decided (endpoints or a commit), with where the search stands."""
        ...


@dataclass(frozen=True, slots=True)
class Options:
    threshold: float = DEFAULT_THRESHOLD
    repeats: int = 3
    """Runs of each tested commit (and of each endpoint at the start)."""
    max_repeats: int = 8
    """Runs an unclear commit may grow to before it is left unclear (the endpoints, which every
    step leans on and which cost no build: twice as many)."""


@dataclass(frozen=True, slots=True)
class Checked:
    """One commit's verdict, its ratio to the good endpoint and how many runs it took."""

    position: int
    mark: Mark
    to_good: Ratio | None
    runs: int


@dataclass(frozen=True, slots=True)
class Step:
    number: int
    tested: Checked | None  # None: the endpoints' step
    search: Search
    endpoints: Ratio | None
    builds: int
    runs: int


@dataclass(frozen=True, slots=True)
class Result:
    kind: Kind
    message: str
    n: int
    endpoints: Ratio | None = None
    culprit: tuple[int, int] | None = None  # first and last position of the culprit range
    tested: tuple[Checked, ...] = ()
    builds: int = 0
    runs: int = 0


@dataclass
class _State:
    values: dict[int, list[float]] = field(default_factory=dict)
    counts: dict[int, int] = field(default_factory=dict)
    builds: int = 0
    steps: int = 0

    @property
    def runs(self) -> int:
        return sum(self.counts.values())


class Bisection:
    """One search from good (position 0) to bad (position ``n``)."""

    def __init__(self, lab: Lab, n: int, options: Options | None = None):
        if n < 1:
            raise ValueError("bisect needs the bad commit to come after the good one")
        self.lab, self.n, self.o = lab, n, options or Options()
        self.s = _State()
        self.search = Search(n, {})
        self.tested: list[Checked] = []

    async def run(self) -> Result:
        for end in (0, self.n):
            if not await self._build(end):
                which = "good" if end == 0 else "bad"
                return self._result("error", f"the {which} endpoint does not build")
        apart = await self._endpoints()
        if apart != "apart":
            return self._result(*self._no_regression(apart))
        while (i := self.search.next()) is not None:
            mark: Mark = "skip"
            ratio = None
            if await self._build(i):
                mark, ratio = await self._test(i)
            self.search = self.search.with_mark(i, mark)
            self.tested.append(Checked(i, mark, ratio, self.s.counts.get(i, 0)))
            self._report(self.tested[-1])
        return self._result("culprit", "")

    async def _build(self, i: int) -> bool:
        self.s.builds += 1
        return await self.lab.build(i)

    async def _run(self, i: int) -> None:
        nth = self.s.counts.get(i, 0)
        self.s.counts[i] = nth + 1
        qps = await self.lab.measure(i, nth)
        if qps is not None:
            self.s.values.setdefault(i, []).append(qps)

    def _ratio(self, i: int, base: int) -> Ratio | None:
        other, against = self.s.values.get(i, []), self.s.values.get(base, [])
        return self.lab.ratio(other, against) if other and against else None

    async def _endpoints(self) -> str:
        while True:
            await self._run(0)
            await self._run(self.n)
            rounds = self.s.counts[0]
            apart = endpoints(self._ratio(self.n, 0), self.o.threshold)
            if rounds >= self.o.repeats and (apart != "unclear" or rounds >= 2 * self.o.max_repeats):
                self._report(None)
                return apart

    async def _test(self, i: int) -> tuple[Mark, Ratio | None]:
        while True:
            await self._run(i)
            await self._run(0 if self.s.counts[i] % 2 else self.n)  # the endpoints in turn
            to_good = self._ratio(i, 0)
            verdict = judge(to_good, self._ratio(i, self.n), self.o.threshold)
            runs = self.s.counts[i]
            if runs >= self.o.repeats and (verdict != "unclear" or runs >= self.o.max_repeats):
                return verdict, to_good

    def _report(self, tested: Checked | None) -> None:
        self.s.steps += 1
        self.lab.progress(
            Step(self.s.steps, tested, self.search, self._ratio(self.n, 0), self.s.builds, self.s.runs)
        )

    def _no_regression(self, apart: str) -> tuple[Kind, str]:
        r = self._ratio(self.n, 0)
        shown = f"bad/good {r.value:.3f} [{r.low:.3f}, {r.high:.3f}]" if r else "no interval"
        if apart == "not-apart":
            return "no-regression", f"no regression between good and bad ({shown})"
        return "unclear", (
            f"unclear: good and bad are not told apart after {self.s.counts[0]} runs each ({shown}); "
            "no culprit named"
        )

    def _result(self, kind: Kind, message: str) -> Result:
        culprit = self.search.culprit() if kind == "culprit" else None
        if culprit is not None and not message:
            first, last = culprit
            message = "culprit" if first == last else f"culprit range of {last - first + 1} commits"
        return Result(
            kind,
            message,
            self.n,
            self._ratio(self.n, 0),
            culprit,
            tuple(self.tested),
            self.s.builds,
            self.s.runs,
        )
