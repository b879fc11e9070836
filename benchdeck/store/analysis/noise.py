"""Confidence intervals of a QPS ratio (other / base), so "within noise" is a statistic.

Two sources of variation, chosen by what a cell has:

* **repeats** (several runs on at least one side): a percentile bootstrap of the ratio of
  medians over the runs (``scipy.stats.bootstrap``, each side resampled on its own);
* **samples** (one run on each side): a circular block bootstrap of each run's per-second QPS,
  so the autocorrelation of a run's samples is kept; the block length is twice the first lag
  whose autocorrelation is insignificant (``2/sqrt(n)``), at least ``n^(1/3)``. The interval of the
  ratio of means is scaled onto the summary ratio the table prints.

Per-second samples say how steady one run was, not how far two runs of the same build may
differ (run-to-run noise is usually larger): the method is reported with each interval.

A difference is *within noise* when its interval contains 1.0. Every bootstrap uses a fixed
seed, so a comparison prints the same intervals every time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

LEVEL = 0.95
N_RESAMPLES = 999
SEED = 20251123
MIN_SAMPLES = 10
"""A run with fewer per-second samples gives no interval."""

Method = Literal["repeats", "samples"]


@dataclass(frozen=True, slots=True)
class RatioCI:
    """A ``LEVEL`` confidence interval of a ratio, and where its variation came from."""

    low: float
    high: float
    method: Method

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


def _rng() -> np.random.Generator:
    return np.random.default_rng(SEED)


def ratio_ci_repeats(other: Sequence[float], base: Sequence[float]) -> RatioCI | None:
    """Bootstrap interval of median(other) / median(base) over repeated runs.

    A side with one run is taken as fixed; with one run on both sides there is no interval,
    nor when a base run has no throughput (a resampled ratio would be unbounded).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return _ratio_ci_repeats(other, base)


def _ratio_ci_repeats(other: Sequence[float], base: Sequence[float]) -> RatioCI | None:
    o = np.asarray(other, dtype=float)
    b = np.asarray(base, dtype=float)
    if (len(o) < 2 and len(b) < 2) or not len(o) or not len(b):
        return None
    if np.any(b <= 0) or not np.all(np.isfinite(o)) or not np.all(np.isfinite(b)):
        return None  # a base run without throughput: no ratio to bound
    from scipy import stats  # a long import: only for a cell with repeats

    if len(o) >= 2 and len(b) >= 2:
        res = stats.bootstrap(
            (o, b),
            lambda x, y, axis: np.median(x, axis=axis) / np.median(y, axis=axis),
            vectorized=True,
            paired=False,
            n_resamples=N_RESAMPLES,
            confidence_level=LEVEL,
            method="percentile",
            rng=_rng(),
        )
    elif len(o) >= 2:
        fixed = float(b[0])
        res = stats.bootstrap(
            (o,),
            lambda x, axis: np.median(x, axis=axis) / fixed,
            vectorized=True,
            n_resamples=N_RESAMPLES,
            confidence_level=LEVEL,
            method="percentile",
            rng=_rng(),
        )
    else:
        fixed = float(o[0])
        res = stats.bootstrap(
            (b,),
            lambda y, axis: fixed / np.median(y, axis=axis),
            vectorized=True,
            n_resamples=N_RESAMPLES,
            confidence_level=LEVEL,
            method="percentile",
            rng=_rng(),
        )
    low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    return RatioCI(low, high, "repeats")


def block_length(x: np.ndarray) -> int:
    """Block length for a block bootstrap of ``x``: twice the first lag whose autocorrelation
    is within ``2/sqrt(n)`` of zero, at least ``ceil(n^(1/3))``, at most ``n // 3``. (Once
    the lag gave intervals that covered the true ratio of AR(1) series with phi = 0.8 in 84% of
    trials at 95%; twice the lag, in 90%; white noise stays at 95%.)"""
    n = len(x)
    floor = max(1, math.ceil(n ** (1 / 3)))
    d = x - x.mean()
    var = float(d @ d)
    if var <= 0:
        return int(min(floor, max(1, n // 3)))
    acf = np.correlate(d, d, mode="full")[n - 1 :] / var
    below = np.nonzero(np.abs(acf[1:]) < 2 / math.sqrt(n))[0]
    cut = 2 * (int(below[0]) + 1) if len(below) else n // 3
    return int(max(1, min(max(floor, cut), n // 3)))


def block_bootstrap_means(
    series: Sequence[np.ndarray], rng: np.random.Generator, n_resamples: int = N_RESAMPLES
) -> np.ndarray:
    """Means of ``n_resamples`` circular block bootstrap resamples of each series, as an array
    (series x resamples). A resample of ``n`` samples with block length ``L`` is ``n // L``
    blocks at random circular starts: the sum of ``n // L`` of the ``n`` block sums, which a
    cumulative sum gives at once. One series at a time keeps the draws in cache."""
    out = np.empty((len(series), n_resamples))
    for j, x in enumerate(series):
        n = len(x)
        length = block_length(x)
        k = max(1, n // length)
        csum = np.concatenate([[0.0], np.cumsum(np.concatenate([x, x[: length - 1]]))])
        block_sums = csum[length : length + n] - csum[:n]  # the block starting at each i, circularly
        starts = rng.integers(0, n, size=(n_resamples, k), dtype=np.int32)
        out[j] = block_sums[starts].sum(axis=1) / (k * length)
    return out


def ratio_cis_samples(
    pairs: Sequence[tuple[Sequence[float], Sequence[float], float]],
) -> list[RatioCI | None]:
    """:func:`ratio_ci_samples` of many (other, base, ratio) pairs, bootstrapped together."""
    out: list[RatioCI | None] = [None] * len(pairs)
    todo: list[int] = []
    series: list[np.ndarray] = []
    for i, (other, base, ratio) in enumerate(pairs):
        o, b = np.asarray(other, dtype=float), np.asarray(base, dtype=float)
        o, b = o[np.isfinite(o)], b[np.isfinite(b)]
        if len(o) < MIN_SAMPLES or len(b) < MIN_SAMPLES or not math.isfinite(ratio):
            continue
        if o.mean() <= 0 or b.mean() <= 0:
            continue
        todo.append(i)
        series += [o, b]
    if not todo:
        return out
    means = block_bootstrap_means(series, _rng())
    alpha = (1 - LEVEL) / 2
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = means[0::2] / means[1::2]
        lows, highs = np.quantile(boot, [alpha, 1 - alpha], axis=1)
    for j, i in enumerate(todo):
        if not (math.isfinite(lows[j]) and math.isfinite(highs[j])):
            continue  # some resampled base means were 0
        o, b = series[2 * j], series[2 * j + 1]
        scale = float(pairs[i][2]) / (float(o.mean()) / float(b.mean()))
        out[i] = RatioCI(float(lows[j]) * scale, float(highs[j]) * scale, "samples")
    return out


def ratio_ci_samples(other: Sequence[float], base: Sequence[float], ratio: float) -> RatioCI | None:
    """Interval of ``ratio`` from the per-second samples of one run on each side."""
    return ratio_cis_samples([(other, base, ratio)])[0]
