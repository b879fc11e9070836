"""The bisection's decisions and search, pure: verdicts from intervals, the next commit, skipped
and unclear commits, and whole searches over a simulated noisy history (the intervals are the
real ones of compare: store.analysis.noise). The real builds and runs: tests/cli/test_bisect.py.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from benchdeck.engine.bisect.decide import Ratio, endpoints, judge
from benchdeck.engine.bisect.driver import Bisection, Options, Result, Step
from benchdeck.engine.bisect.search import Search
from benchdeck.store.analysis.noise import ratio_ci_repeats


def r(low: float, high: float) -> Ratio:
    return Ratio((low + high) / 2, low, high)


@pytest.mark.parametrize(
    ("to_good", "to_bad", "verdict"),
    [
        (r(0.50, 0.60), r(0.9, 1.1), "bad"),
        (r(0.96, 1.04), None, "good"),
        (r(0.90, 1.05), r(1.6, 2.1), "good"),  # straddles the line, far faster than bad
        (r(0.90, 1.05), r(1.0, 1.1), "unclear"),
        (r(0.90, 1.05), None, "unclear"),
        (None, None, "unclear"),
        (r(0.80, 0.90), r(1.5, 1.7), "unclear"),  # slower than good, faster than bad: half way
        (r(0.80, 0.90), r(1.0, 1.04), "bad"),
    ],
)
def test_judge(to_good: Ratio | None, to_bad: Ratio | None, verdict: str) -> None:
    assert judge(to_good, to_bad, 0.05) == verdict


def test_endpoints_apart_only_past_the_threshold() -> None:
    assert endpoints(r(0.5, 0.6)) == "apart"
    assert endpoints(r(0.97, 1.02)) == "not-apart"
    assert endpoints(r(1.2, 1.3)) == "not-apart"  # faster: no regression
    assert endpoints(r(0.9, 1.0)) == "unclear"
    assert endpoints(None) == "unclear"


def test_search_halves_and_steps_around_skips() -> None:
    s = Search(16, {})
    assert s.next() == 8
    s = s.with_mark(8, "skip")
    assert s.next() == 7  # nearest the middle, the lower on a tie
    s = s.with_mark(7, "good").with_mark(9, "bad")
    assert s.bounds == (7, 9)
    assert s.next() is None
    assert s.culprit() == (8, 9)  # the skipped commit may be the culprit: a range


def test_search_culprit_is_one_commit_when_neighbours_are_known() -> None:
    s = Search(4, {2: "good", 3: "bad"})
    assert s.next() is None
    assert s.culprit() == (3, 3)
    assert Search(16, {}).steps_left() == 4


class SimulatedLab:
    """A history of ``n + 1`` commits whose QPS drops by ``drop`` at ``planted`` (None: never),
    each run within +-``noise``; ``broken`` commits do not build. Answers are kept per
    (position, nth), so a second search over the same lab replays them."""

    def __init__(
        self,
        n: int,
        planted: int | None,
        *,
        drop: float = 0.5,
        noise: float = 0.10,
        broken: Sequence[int] = (),
        seed: int = 1,
    ):
        self.n, self.planted, self.drop, self.noise = n, planted, drop, noise
        self.broken = set(broken)
        self.rng = random.Random(seed)
        self.answers: dict[tuple[int, int], float] = {}
        self.built: set[int] = set()
        self.new_builds = self.new_runs = 0
        self.steps: list[Step] = []

    async def build(self, position: int) -> bool:
        if position not in self.built:
            self.new_builds += 1
            self.built.add(position)
        return position not in self.broken

    async def measure(self, position: int, nth: int) -> float | None:
        if (position, nth) not in self.answers:
            self.new_runs += 1
            slow = self.planted is not None and position >= self.planted
            base = 1000 * (1 - self.drop if slow else 1)
            self.answers[position, nth] = base * (1 + self.rng.uniform(-self.noise, self.noise))
        return self.answers[position, nth]

    def ratio(self, other: Sequence[float], base: Sequence[float]) -> Ratio | None:
        ci = ratio_ci_repeats(other, base)
        if ci is None:
            return None
        med = sorted(other)[len(other) // 2] / sorted(base)[len(base) // 2]
        return Ratio(med, ci.low, ci.high)

    def progress(self, step: Step) -> None:
        self.steps.append(step)


async def search(lab: SimulatedLab, **opts: float) -> Result:
    return await Bisection(lab, lab.n, Options(**opts)).run()  # type: ignore[arg-type]


@pytest.mark.parametrize("planted", range(1, 17))
async def test_names_every_planted_commit_within_the_build_budget(planted: int) -> None:
    lab = SimulatedLab(16, planted, seed=planted)
    res = await search(lab, repeats=2)
    assert res.kind == "culprit"
    assert res.culprit == (planted, planted)
    assert res.builds <= math.ceil(math.log2(16)) + 2
    assert [s.number for s in lab.steps] == list(range(1, len(lab.steps) + 1))


async def test_no_regression_names_no_culprit() -> None:
    lab = SimulatedLab(16, None)
    res = await search(lab)
    assert res.kind == "no-regression"
    assert res.culprit is None
    assert res.builds == 2
    assert "no regression between good and bad" in res.message


async def test_a_small_change_within_noise_is_no_regression_or_unclear_never_a_culprit() -> None:
    lab = SimulatedLab(16, 9, drop=0.03, noise=0.10)
    res = await search(lab, repeats=3, max_repeats=6)
    assert res.kind in ("no-regression", "unclear")
    assert res.culprit is None


async def test_unbuildable_commit_is_skipped_and_a_culprit_beside_it_is_a_range() -> None:
    lab = SimulatedLab(16, 11, broken=[10])
    res = await search(lab)
    assert res.kind == "culprit"
    assert res.culprit == (10, 11)
    assert any(t.position == 10 and t.mark == "skip" for t in res.tested)
    assert "range of 2 commits" in res.message


async def test_unbuildable_commit_away_from_the_culprit_still_names_it() -> None:
    lab = SimulatedLab(16, 11, broken=[12])
    res = await search(lab)
    assert res.culprit == (11, 11)
    assert [t.position for t in res.tested if t.mark == "skip"] == [12]


async def test_unclear_commit_gets_more_runs_up_to_the_limit() -> None:
    lab = SimulatedLab(16, 9, drop=0.07, noise=0.25, seed=3)
    res = await search(lab, repeats=2, max_repeats=5)
    runs = {t.position: t.runs for t in res.tested}
    assert any(t.mark == "unclear" for t in res.tested) or res.kind != "culprit"
    assert all(n <= 5 for n in runs.values())


async def test_a_second_search_replays_the_first_without_new_work() -> None:
    lab = SimulatedLab(16, 6, broken=[8])
    first = await search(lab)
    builds, runs = lab.new_builds, lab.new_runs
    again = await search(lab)
    assert (lab.new_builds, lab.new_runs) == (builds, runs)
    assert again == first


def test_bad_after_good_is_required() -> None:
    with pytest.raises(ValueError, match="after the good one"):
        Bisection(SimulatedLab(0, None), 0)
