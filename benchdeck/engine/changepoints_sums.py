"""numpy's float64 sums in pure Python, bit for bit: the change-point code without numpy.

``changes`` imported numpy (a large share of the command's CPU) for sums over series of 8-50
values. Its t-test must stay bit-identical to Apache Otava's (``np.mean``, ``np.std``), and those
are numpy's pairwise sums, not ``math.fsum`` nor a left-to-right ``sum``. numpy's
``pairwise_sum`` (numpy/_core/src/umath/loops_utils.h.src): under 8 values a loop from -0.0; up
to 128, eight accumulators over strides of 8 combined as ``((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))``,
then the tail; above, the two halves (the first a multiple of 8) summed apart.
``np.add.reduce`` starts from the identity 0.0; ``np.add.reduceat`` from each slice's first
value (tests/changes/test_numpy_sums.py checks both against numpy on random lists).
"""

from __future__ import annotations

from collections.abc import Sequence

_BLOCK = 128


def _pairwise(a: Sequence[float], lo: int, n: int) -> float:
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= _BLOCK:
        r0, r1, r2, r3, r4, r5, r6, r7 = a[lo : lo + 8]
        stop = lo + n - n % 8
        for j in range(lo + 8, stop, 8):
            r0 += a[j]
            r1 += a[j + 1]
            r2 += a[j + 2]
            r3 += a[j + 3]
            r4 += a[j + 4]
            r5 += a[j + 5]
            r6 += a[j + 6]
            r7 += a[j + 7]
        res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        for k in range(stop, lo + n):
            res += a[k]
        return res
    half = n // 2
    half -= half % 8
    return _pairwise(a, lo, half) + _pairwise(a, lo + half, n - half)


def np_sum(a: Sequence[float]) -> float:
    """``float(np.add.reduce(np.asarray(a, dtype=np.float64)))``: also np.sum and np.mean's sum."""
    return 0.0 + _pairwise(a, 0, len(a))


def np_sum_at(a: Sequence[float], lo: int, hi: int) -> float:
    """One slice ``a[lo:hi]`` (not empty) of ``np.add.reduceat``: its first value plus the rest."""
    return a[lo] + _pairwise(a, lo + 1, hi - lo - 1)
