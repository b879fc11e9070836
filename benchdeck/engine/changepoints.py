"""Change points in a series: e-divisive means with a Student's t-test filter (Apache Otava's method).

The method of Matteson & James (e-divisive) as Fleming et al. ("Hunter", ICPE 2023) adapted it,
and as Apache Otava's ``compute_change_points`` runs it:

1. **Split**: windows of ``window`` observations, each half a window after the last (or at the
   last change point found). In a window, repeatedly take the split ``tau`` that maximises the
   energy-distance statistic Q(tau, kappa) over every segment between the change points found so
   far; keep it while a two-sided t-test of the two sides gives p <= ``10 * max_pvalue`` (weak
   change points); stop at the first that does not.
2. **Merge**: recompute each weak point's t-test against its neighbours, then drop the weakest
   (highest p-value, or if all pass, the smallest magnitude) until every point has
   p < ``max_pvalue`` and magnitude > ``min_magnitude``; after each drop, recompute the two
   neighbours.

The t-test is the one Otava runs: pooled variance from each side's population standard deviation
(``np.std``), ``n1 + n2 - 2`` degrees of freedom, p = 1 when both sides hold one value.
Magnitude is ``max(|after/before - 1|, |before/after - 1|)``.

Repeats: a point (a version) may hold several observations (repeated runs). Then the
observations are the series and ``groups`` says which point each belongs to: change points fall
only between points, and the t-test's variance is the observations' own spread, that is the
run-to-run noise between binaries and restarts. One run's per-second samples are *not* a
point's noise (they say how steady the run was, not how far two runs of the same build differ),
so nothing here takes them.

Pure Python, no numpy (its import was a quarter of ``changes``' CPU): the sums are numpy's
pairwise sums spelled out (:mod:`engine.changepoints_sums`) and Q's terms are added in the
order the numpy version added them, so every p-value and split is the same bits as before and
as Otava's (tests/changes/test_numpy_reference.py compares with that version, kept in the tests).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from benchdeck.engine.changepoints_sums import np_sum
from benchdeck.engine.student_t import two_sided_p

DEFAULT_MAX_PVALUE = 0.001
DEFAULT_MIN_MAGNITUDE = 0.05
DEFAULT_WINDOW = 50


@dataclass(frozen=True, slots=True)
class Options:
    """Thresholds of a detection; the defaults are Otava's p-value and a 5% minimum magnitude."""

    max_pvalue: float = DEFAULT_MAX_PVALUE
    min_magnitude: float = DEFAULT_MIN_MAGNITUDE
    window: int = DEFAULT_WINDOW
    otava_neighbours: bool = False
    """After dropping a point, recompute the two points *after* it, as Otava 0.8.0 does (its
    merge leaves the left neighbour's test stale, still split at the dropped point, which lets
    false changes through). Off: the left and right neighbours are recomputed. For the oracle."""

    def __post_init__(self) -> None:
        if not 0 < self.max_pvalue <= 1:
            raise ValueError(f"max p-value must be in (0, 1], not {self.max_pvalue}")
        if self.min_magnitude < 0:
            raise ValueError(f"minimum magnitude must be >= 0, not {self.min_magnitude}")
        if self.window < 2:
            raise ValueError(f"window must be at least 2, not {self.window}")


@dataclass(frozen=True, slots=True)
class TTest:
    """Both sides of a split and the probability that they have the same mean."""

    mean_before: float
    mean_after: float
    std_before: float
    std_after: float
    n_before: int
    n_after: int
    pvalue: float

    @property
    def change(self) -> float:
        """Relative change, after / before - 1 (0 when before is 0)."""
        return self.mean_after / self.mean_before - 1.0 if self.mean_before else 0.0

    @property
    def ratio(self) -> float:
        """after / before (``inf`` when before is 0 and after is not, 1 when both are 0)."""
        if self.mean_before:
            return self.mean_after / self.mean_before
        return 1.0 if not self.mean_after else math.inf

    @property
    def magnitude(self) -> float:
        """max(|after/before - 1|, |before/after - 1|): a halving and a doubling both give 1."""
        fwd = abs(self.mean_after / self.mean_before - 1.0) if self.mean_before else 0.0
        back = abs(self.mean_before / self.mean_after - 1.0) if self.mean_after else 0.0
        return max(fwd, back)


@dataclass(frozen=True, slots=True)
class ChangePoint:
    """A change between point ``index - 1`` and point ``index`` (indices of points, not runs)."""

    index: int
    test: TTest

    @property
    def pvalue(self) -> float:
        return self.test.pvalue

    @property
    def magnitude(self) -> float:
        return self.test.magnitude


def ttest(left: Sequence[float], right: Sequence[float]) -> TTest:
    """Otava's two-sided Student's t-test of two sides (population std, pooled variance).

    Means and standard deviations are numpy's ``mean`` and ``std``: the same sums in the same
    order (numpy's pairwise summation), so the same bits.
    """
    n1, n2 = len(left), len(right)
    if not n1 or not n2:
        raise ValueError("both sides of a split need at least one value")
    m1, s1 = _mean_std(left)
    m2, s2 = _mean_std(right)
    p = 1.0
    if n1 + n2 > 2:
        df = n1 + n2 - 2
        var = ((n1 - 1) * s1 * s1 + (n2 - 1) * s2 * s2) / df
        denom = math.sqrt(var * (1.0 / n1 + 1.0 / n2))
        diff = m1 - m2
        # a zero variance: any difference is certain, no difference is undefined (as in scipy)
        p = two_sided_p(diff / denom, df) if denom > 0 else (0.0 if diff else math.nan)
    return TTest(m1, m2, s1, s2, n1, n2, p)


def _mean_std(x: Sequence[float]) -> tuple[float, float]:
    n = len(x)
    mean = np_sum(x) / n
    if n < 2:
        return mean, 0.0
    sq = [(v - mean) * (v - mean) for v in x]
    return mean, math.sqrt(np_sum(sq) / n)


_Row = tuple[float, ...]


@functools.lru_cache(maxsize=512)
def _coefficients(size: int) -> tuple[_Row, tuple[_Row, ...], tuple[_Row, ...]]:
    """For a segment of ``size``: 2/(n+m) per kappa, and the X and Y pair-sum coefficients per
    (tau, kappa) (row tau - 1, column kappa - 2; 0 where a side holds one value)."""
    two_total = tuple(2.0 / float(k) for k in range(2, size + 1))
    cx, cy = [], []
    for tau in range(1, size):
        n = float(tau)
        rx, ry = [], []
        for kappa in range(2, size + 1):
            m, total = float(kappa - tau), float(kappa)
            rx.append(2.0 * m / (total * (n - 1.0)) if n > 1 else 0.0)
            ry.append(2.0 * n / (total * (m - 1.0)) if m > 1 else 0.0)
        cx.append(tuple(rx))
        cy.append(tuple(ry))
    return two_total, tuple(cx), tuple(cy)


def block_sums(x: Sequence[float]) -> list[list[float]]:
    """``S[i][j]``: the sum of ``|x[a] - x[b]|`` over a <= i, b <= j, summed as numpy's
    ``cumsum(axis=0).cumsum(axis=1)`` of the distance matrix (down the columns, then along rows)."""
    n = len(x)
    col = [0.0] * n
    out = []
    for a in range(n):
        xa = x[a]
        col = [c + abs(xa - xb) for c, xb in zip(col, x, strict=True)] if a else [abs(xa - xb) for xb in x]
        row = []
        acc = 0.0
        for j, c in enumerate(col):
            acc = acc + c if j else c
            row.append(acc)
        out.append(row)
    return out


class _Window:
    """The Q statistic of every split of every segment of one window, from one prefix-sum table."""

    def __init__(self, x: Sequence[float], allowed: Sequence[bool]) -> None:
        # allowed[i]: a change may start at observation i (the first of a new point)
        self.allowed = allowed
        n = len(x)
        self.prefix = [[0.0] * (n + 1)] + [[0.0, *row] for row in block_sums(x)]

    def _segment(self, start: int, end: int) -> list[list[float]]:
        """The block sums of ``x[start:end]`` alone: the numpy version's
        ``p - p[0:1, :] - p[:, 0:1] + p[0, 0]`` on the prefix table, without its first row and column."""
        rows = self.prefix[start + 1 : end + 1]
        if not start:
            return [r[1 : end + 1] for r in rows]
        top = self.prefix[start]
        corner = top[start]
        tops = top[start + 1 : end + 1]
        out = []
        for r in rows:
            left = r[start]
            out.append([((v - t) - left) + corner for v, t in zip(r[start + 1 : end + 1], tops, strict=True)])
        return out

    def candidate(self, start: int, end: int) -> tuple[int, float] | None:
        """The split ``tau`` in (start, end) that maximises Q(tau, kappa) over kappa, and that
        maximum; the first maximum in row order wins, as in Otava.

        Q for X = x[start:tau], Y = x[tau:kappa] (n and m values) is
        ``2/(n+m) * sum|X-Y| - 2m/((n+m)(n-1)) * sum_pairs|X-X'| - 2n/((n+m)(m-1)) * sum_pairs|Y-Y'|``
        (a term with a single value is 0). Like Otava's matrix, the cells with kappa <= tau hold 0
        (so they count when every Q is negative), or -inf when some split is not allowed. The
        terms are summed in this order on purpose: with exact ties (rounded values) a rearranged
        sum moves the argmax by a rounding error, away from Otava's.
        """
        size = end - start
        if size < 2:
            return None
        allowed = self.allowed[start + 1 : end]
        masked = not all(allowed)
        if masked and not any(allowed):
            return None
        s = self._segment(start, end)
        diag = [s[a][a] for a in range(size)]
        two_total, cx, cy = _coefficients(size)
        best_i, best = -1, -math.inf
        for i in range(size - 1):
            if masked and not allowed[i]:
                continue
            d = diag[i]
            wx = d / 2.0
            si, cxi, cyi = s[i], cx[i], cy[i]
            top = max(
                two_total[j] * (si[j + 1] - d) - cxi[j] * wx - cyi[j] * ((dj - 2.0 * si[j + 1] + d) / 2.0)
                for j, dj in zip(range(i, size - 1), diag[i + 1 :], strict=True)
            )
            if i and not masked and top < 0.0:
                top = 0.0  # the kappa <= tau cells of this row
            if top > best:
                best_i, best = i, top
        return start + best_i + 1, best


def _intervals(cps: Sequence[int], n: int) -> list[tuple[int, int]]:
    bounds = [0, *cps, n]
    return [(a, b) for a, b in itertools.pairwise(bounds) if a != b]


def _split_test(x: Sequence[float], index: int, cps: Sequence[int]) -> TTest:
    """The t-test of a change at ``index`` against its neighbouring change points ``cps``."""
    before = max((c for c in cps if c < index), default=0)
    after = min((c for c in cps if c > index), default=len(x))
    return ttest(x[before:index], x[index:after])


class _Candidates(Protocol):
    def candidate(self, start: int, end: int) -> tuple[int, float] | None: ...


def _detect_window(
    x: Sequence[float], allowed: Sequence[bool], max_p: float, window: Callable[..., _Candidates]
) -> list[int]:
    """Weak change points of one window (local indices, sorted)."""
    win = window(x, allowed)
    cps: list[int] = []
    seen: dict[tuple[int, int], tuple[int, float] | None] = {}  # a segment's candidate is fixed
    while True:
        best: tuple[int, float] | None = None
        for a, b in _intervals(cps, len(x)):
            if (a, b) not in seen:
                seen[a, b] = win.candidate(a, b)
            cand = seen[a, b]
            if cand is not None and (best is None or cand[1] > best[1]):
                best = cand
        if best is None:
            return cps
        test = _split_test(x, best[0], cps)
        if not test.pvalue <= max_p:
            return cps
        cps = sorted([*cps, best[0]])


def _weak_points(
    x: Sequence[float], allowed: Sequence[bool], window: int, max_p: float, vectorised: bool
) -> list[int]:
    make: Callable[..., _Candidates] = _Window
    if vectorised:
        from benchdeck.engine.changepoints_numpy import NumpyWindow

        make = NumpyWindow
    step = window // 2
    start = 0
    found: set[int] = set()
    while start < len(x):
        end = min(start + window, len(x))
        local = _detect_window(x[start:end], allowed[start:end], max_p, make)
        found.update(start + c for c in local)
        last = start + local[-1] if local else 0
        start = max(last, start + step)
    return sorted(found)


def _merge(x: Sequence[float], weak: list[int], opts: Options) -> list[tuple[int, TTest]]:
    max_p, min_mag = opts.max_pvalue, opts.min_magnitude
    cps = [(c, _split_test(x, c, weak)) for c in weak]
    while cps:
        weakest = max(range(len(cps)), key=lambda i: _nan_high(cps[i][1].pvalue))
        if cps[weakest][1].pvalue < max_p:
            weakest = min(range(len(cps)), key=lambda i: cps[i][1].magnitude)
            if cps[weakest][1].magnitude > min_mag:
                return cps
        del cps[weakest]
        indices = [c for c, _ in cps]
        for i in (weakest, weakest + 1) if opts.otava_neighbours else (weakest - 1, weakest):
            if 0 <= i < len(cps):
                cps[i] = (cps[i][0], _split_test(x, cps[i][0], indices))
    return cps


def _nan_high(p: float) -> float:
    return math.inf if math.isnan(p) else p


NUMPY_CELLS = 150_000
"""Above this many Q cells (sum over series of n * min(n, window)) a batch runs on numpy: about
where numpy's cheaper cells pay for its import (a host's archive stays pure Python; the
measures: docs/performance.md)."""


def worth_numpy(lengths: Iterable[int], window: int = DEFAULT_WINDOW) -> bool:
    """Whether series of these lengths are analysed faster on numpy, its import included."""
    return sum(n * min(n, window) for n in lengths) > NUMPY_CELLS


def first_pass_pvalue(max_pvalue: float) -> float:
    """The split step's looser threshold for weak change points (Otava's: 10x below 0.05)."""
    if max_pvalue < 0.05:
        return max_pvalue * 10
    if max_pvalue < 0.5:
        return max_pvalue * 2
    return max_pvalue


def detect(
    values: Sequence[float],
    groups: Sequence[int] | None = None,
    options: Options | None = None,
    *,
    vectorised: bool = False,
) -> list[ChangePoint]:
    """Change points of a series, in order.

    ``values`` are observations; ``groups`` (non-decreasing point indices from 0, one per
    observation) says which point each belongs to, so repeats of one version stay together.
    Without ``groups`` every observation is its own point. A returned ``index`` is a point
    index: the change happened between point ``index - 1`` and point ``index``.
    ``vectorised``: the Q statistic on numpy (:mod:`engine.changepoints_numpy`: the same bits;
    worth its import for a big batch, see :func:`worth_numpy`).
    """
    opts = options or Options()
    x = _floats(values)
    if not all(map(math.isfinite, x)):
        raise ValueError("a series holds only finite values")
    if groups is None:
        g = list(range(len(x)))
    else:
        g = [int(v) for v in groups]
        if len(g) != len(x):
            raise ValueError("one group per value")
        if any(b < a for a, b in itertools.pairwise(g)):
            raise ValueError("groups must not decrease")
    if len(x) < 3:
        return []
    allowed = [False, *(b != a for a, b in itertools.pairwise(g))]
    weak = _weak_points(x, allowed, opts.window, first_pass_pvalue(opts.max_pvalue), vectorised)
    merged = _merge(x, weak, opts)
    return [ChangePoint(g[i], t) for i, t in merged]


def split_test(
    values: Sequence[float], groups: Sequence[int] | None, bounds: tuple[int, int, int]
) -> TTest | None:
    """The t-test of points ``[lo, at)`` against ``[at, hi)`` (point indices) of another series.

    Used to ask whether a per-op metric moved where QPS changed. ``None`` when a side is empty.
    """
    x = _floats(values)
    g = range(len(x)) if groups is None else groups
    lo, at, hi = bounds
    left = [v for v, k in zip(x, g, strict=True) if lo <= k < at and math.isfinite(v)]
    right = [v for v, k in zip(x, g, strict=True) if at <= k < hi and math.isfinite(v)]
    if not left or not right:
        return None
    return ttest(left, right)


def _floats(values: Sequence[float]) -> list[float]:
    """The values as Python floats (a numpy array too, without importing numpy)."""
    try:
        return [float(v) for v in values]
    except TypeError:
        raise ValueError("a series is one-dimensional") from None
