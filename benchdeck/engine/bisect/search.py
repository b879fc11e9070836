"""Where a bisection stands: commits 0 (good) .. n (bad) along the first-parent line, each tested
one good, bad, skipped (it did not build) or unclear (still undecided at the repeat limit).

The culprit lies after the last good commit and at or before the first bad one; skipped and
unclear commits are stepped around, as ``git bisect skip`` does, so a culprit next to them is a
range of commits, never a guess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Mark = Literal["good", "bad", "skip", "unclear"]


@dataclass(frozen=True, slots=True)
class Search:
    """``n + 1`` commits, oldest first: 0 is the good endpoint and ``n`` the bad one."""

    n: int
    marks: Mapping[int, Mark]

    @property
    def bounds(self) -> tuple[int, int]:
        """(last good, first bad) positions: the culprit is in ``(lo, hi]``."""
        good = [i for i, m in self.marks.items() if m == "good"]
        bad = [i for i, m in self.marks.items() if m == "bad"]
        lo = max([0, *good])
        hi = min([self.n, *(b for b in bad if b > lo)])
        return lo, hi

    def candidates(self) -> list[int]:
        """Untested positions strictly between the bounds."""
        lo, hi = self.bounds
        return [i for i in range(lo + 1, hi) if i not in self.marks]

    def next(self) -> int | None:
        """The untested position nearest the middle of the bounds (the lower on a tie), or None
        when nothing is left to test."""
        lo, hi = self.bounds
        todo = self.candidates()
        return min(todo, key=lambda i: (abs(2 * i - (lo + hi)), i)) if todo else None

    def culprit(self) -> tuple[int, int]:
        """The first and last position of the culprit range (equal when it is one commit)."""
        lo, hi = self.bounds
        return lo + 1, hi

    def steps_left(self) -> int:
        """About how many more commits to test (halving the untested ones)."""
        todo = len(self.candidates())
        return math.ceil(math.log2(todo + 1)) if todo else 0

    def with_mark(self, i: int, mark: Mark) -> Search:
        return Search(self.n, {**self.marks, i: mark})
