"""The verdict on one commit, from the noise intervals of its QPS ratios, as compare and changes
judge a ratio: a difference counts when the whole interval sits past the threshold.

A regression is a drop of QPS from the good endpoint to the bad one. A commit is **bad** when the
interval of its ratio to good sits below ``1 - threshold`` (slower than good by more than the
threshold) and it is not also faster than bad by more than the threshold; **good** when the
interval of its ratio to good sits above that line, or the interval of its ratio to bad sits
above ``1 + threshold`` (faster than bad: a good commit whose runs straddle the line still counts
when the regression is large), and it is not slower than good by more than the threshold;
otherwise **unclear**, and more runs may tell. Asking both endpoints keeps a few unlucky runs
from deciding: a good commit whose runs came out slow is still far faster than bad, so it is
unclear, never bad.

The endpoints are **apart** when the interval of bad/good sits below ``1 - threshold``; **not
apart** when it sits above that line, or the ratio is above it and the interval holds 1.0
(within noise, as compare says); otherwise unclear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

DEFAULT_THRESHOLD = 0.05
"""As ``changes``' minimum magnitude (engine.changepoints.DEFAULT_MIN_MAGNITUDE)."""

Verdict = Literal["good", "bad", "unclear"]
Apart = Literal["apart", "not-apart", "unclear"]


@dataclass(frozen=True, slots=True)
class Ratio:
    """A QPS ratio (median of one side over the other's) and its noise interval."""

    value: float
    low: float
    high: float

    def below(self, line: float) -> bool:
        return self.high < line

    def above(self, line: float) -> bool:
        return self.low > line


def judge(to_good: Ratio | None, to_bad: Ratio | None, threshold: float = DEFAULT_THRESHOLD) -> Verdict:
    """A commit's verdict from its ratio to the good endpoint and to the bad one (None: no
    interval yet, e.g. one run on each side)."""
    slower_than_good = to_good is not None and to_good.below(1 - threshold)
    faster_than_bad = to_bad is not None and to_bad.above(1 + threshold)
    near_good = to_good is not None and to_good.above(1 - threshold)
    if slower_than_good and not faster_than_bad:
        return "bad"
    if (near_good or faster_than_bad) and not slower_than_good:
        return "good"
    return "unclear"


def endpoints(bad_to_good: Ratio | None, threshold: float = DEFAULT_THRESHOLD) -> Apart:
    """Whether the bad endpoint is slower than the good one by more than the threshold."""
    if bad_to_good is None:
        return "unclear"
    if bad_to_good.below(1 - threshold):
        return "apart"
    if bad_to_good.above(1 - threshold):
        return "not-apart"
    if bad_to_good.value > 1 - threshold and bad_to_good.high >= 1:
        return "not-apart"
    return "unclear"
