"""The numpy e-divisive that engine/changepoints.py replaced (issue 29), kept as its oracle.

The method is engine/changepoints.py's (see its docstring); here every sum is numpy's (``np.add.
reduce`` on arrays) and the Q statistic is engine/changepoints_numpy.py's window (the old code,
moved there), so the plain-Python code can be held to the bits it replaced.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from benchdeck.engine.changepoints import (  # the records and trivial helpers: the same code
    ChangePoint,
    Options,
    TTest,
    _intervals,
    _nan_high,
    first_pass_pvalue,
)
from benchdeck.engine.changepoints_numpy import NumpyWindow
from benchdeck.engine.student_t import two_sided_p

FloatArray = NDArray[np.float64]


def ttest(left: FloatArray, right: FloatArray) -> TTest:
    """Otava's two-sided Student's t-test of two sides (population std, pooled variance).

    Means and standard deviations are numpy's ``mean`` and ``std`` spelled out (the same sums in
    the same order, so the same bits), without their per-call overhead.
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


def _mean_std(x: FloatArray) -> tuple[float, float]:
    n = len(x)
    mean = float(_SUM(x)) / n
    if n < 2:
        return mean, 0.0
    d = x - mean
    return mean, math.sqrt(float(_SUM(d * d)) / n)


_SUM = np.add.reduce


_Window = NumpyWindow


def _split_test(x: FloatArray, index: int, cps: Sequence[int]) -> TTest:
    """The t-test of a change at ``index`` against its neighbouring change points ``cps``."""
    before = max((c for c in cps if c < index), default=0)
    after = min((c for c in cps if c > index), default=len(x))
    return ttest(x[before:index], x[index:after])


def _detect_window(x: FloatArray, allowed: NDArray[np.bool_], max_p: float) -> list[int]:
    """Weak change points of one window (local indices, sorted)."""
    win = _Window(x, allowed)
    cps: list[int] = []
    while True:
        best: tuple[int, float] | None = None
        for a, b in _intervals(cps, len(x)):
            cand = win.candidate(a, b)
            if cand is not None and (best is None or cand[1] > best[1]):
                best = cand
        if best is None:
            return cps
        test = _split_test(x, best[0], cps)
        if not test.pvalue <= max_p:
            return cps
        cps = sorted([*cps, best[0]])


def _weak_points(x: FloatArray, allowed: NDArray[np.bool_], window: int, max_p: float) -> list[int]:
    step = window // 2
    start = 0
    found: set[int] = set()
    while start < len(x):
        end = min(start + window, len(x))
        local = _detect_window(x[start:end], allowed[start:end], max_p)
        found.update(start + c for c in local)
        last = start + local[-1] if local else 0
        start = max(last, start + step)
    return sorted(found)


def _merge(x: FloatArray, weak: list[int], opts: Options) -> list[tuple[int, TTest]]:
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


def detect(
    values: Sequence[float] | FloatArray,
    groups: Sequence[int] | None = None,
    options: Options | None = None,
) -> list[ChangePoint]:
    """Change points of a series, in order.

    ``values`` are observations; ``groups`` (non-decreasing point indices from 0, one per
    observation) says which point each belongs to, so repeats of one version stay together.
    Without ``groups`` every observation is its own point. A returned ``index`` is a point
    index: the change happened between point ``index - 1`` and point ``index``.
    """
    opts = options or Options()
    x = np.asarray(values, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError("a series is one-dimensional")
    if not np.isfinite(x).all():
        raise ValueError("a series holds only finite values")
    if groups is None:
        g = np.arange(len(x))
    else:
        g = np.asarray(groups, dtype=np.int64)
        if len(g) != len(x):
            raise ValueError("one group per value")
        if len(g) and (np.diff(g) < 0).any():
            raise ValueError("groups must not decrease")
    if len(x) < 3:
        return []
    allowed = np.ones(len(x), dtype=bool)
    allowed[1:] = g[1:] != g[:-1]
    allowed[0] = False
    weak = _weak_points(x, allowed, opts.window, first_pass_pvalue(opts.max_pvalue))
    merged = _merge(x, weak, opts)
    return [ChangePoint(int(g[i]), t) for i, t in merged]


def split_test(
    values: Sequence[float] | FloatArray, groups: Sequence[int] | None, bounds: tuple[int, int, int]
) -> TTest | None:
    """The t-test of points ``[lo, at)`` against ``[at, hi)`` (point indices) of another series.

    Used to ask whether a per-op metric moved where QPS changed. ``None`` when a side is empty.
    """
    x = np.asarray(values, dtype=np.float64)
    g = np.arange(len(x)) if groups is None else np.asarray(groups, dtype=np.int64)
    lo, at, hi = bounds
    keep = np.isfinite(x)
    left = x[keep & (g >= lo) & (g < at)]
    right = x[keep & (g >= at) & (g < hi)]
    if not len(left) or not len(right):
        return None
    return ttest(left, right)
