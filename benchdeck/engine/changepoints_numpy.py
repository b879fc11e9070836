"""The Q statistic of :mod:`engine.changepoints` on numpy, for a big batch of long series.

Pure Python pays per (tau, kappa) cell; numpy pays its import (one BLAS thread) and then far
less per cell. :func:`engine.changepoints.detect` takes this window when asked
(``vectorised``, :func:`store.changes.analyse` decides from the batch's size). Both give the same
bits: these are the sums and the order of terms of the pure-Python window, as numpy adds them
(tests/changes/test_numpy_reference.py compares every candidate).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]


@functools.lru_cache(maxsize=512)
def _coefficients(size: int) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.bool_]]:
    """2/(n+m), the X and Y pair-sum coefficients, and kappa > tau, for a segment of ``size``."""
    taus = np.arange(1, size)[:, None]  # local split: X = [0, tau)
    kappas = np.arange(2, size + 1)[None, :]  # Y = [tau, kappa)
    n = taus.astype(np.float64)
    m = (kappas - taus).astype(np.float64)
    total = kappas.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        cx = np.where(n > 1, 2.0 * m / (total * (n - 1.0)), 0.0)
        cy = np.where(m > 1, 2.0 * n / (total * (m - 1.0)), 0.0)
    return 2.0 / total, cx, cy, m >= 1


def block_sums(x: FloatArray) -> FloatArray:
    """``S[i, j]``: the sum of ``|x[a] - x[b]|`` over a <= i, b <= j (leading axes are a batch)."""
    dist = np.abs(x[..., :, None] - x[..., None, :])
    out: FloatArray = dist.cumsum(axis=-2).cumsum(axis=-1)
    return out


def q_matrix(s: FloatArray) -> FloatArray:
    """Q(tau, kappa) of a segment from its :func:`block_sums` ``s`` (..., size, size): row
    tau - 1, column kappa - 2, 0 where kappa <= tau (see ``_Window.candidate`` in
    :mod:`engine.changepoints` for the formula and why the terms are summed in this order)."""
    size = s.shape[-1]
    two_total, cx, cy, valid = _coefficients(size)
    diag = np.diagonal(s, axis1=-2, axis2=-1)  # D(a + 1): the block [0, a] x [0, a]
    d_tau = diag[..., : size - 1, None]
    p_tk = s[..., : size - 1, 1:]
    within_x = d_tau / 2.0
    cross = p_tk - d_tau
    within_y = (diag[..., None, 1:] - 2.0 * p_tk + d_tau) / 2.0
    q: FloatArray = np.where(valid, two_total * cross - cx * within_x - cy * within_y, 0.0)
    return q


class NumpyWindow:
    """The Q statistic of every split of every segment of one window, from one prefix-sum table."""

    def __init__(self, x: Sequence[float], allowed: Sequence[bool]) -> None:
        xs = np.asarray(x, dtype=np.float64)
        # allowed[i]: a change may start at observation i (the first of a new point)
        self.allowed = np.asarray(allowed, dtype=bool)
        self.prefix = np.zeros((len(xs) + 1, len(xs) + 1))
        self.prefix[1:, 1:] = block_sums(xs)

    def candidate(self, start: int, end: int) -> tuple[int, float] | None:
        """The split ``tau`` in (start, end) that maximises Q over kappa, and that maximum (the
        first maximum in row order wins, as in Otava)."""
        size = end - start
        if size < 2:
            return None
        p = self.prefix[start : end + 1, start : end + 1]
        if start:
            p = p - p[0:1, :] - p[:, 0:1] + p[0, 0]  # prefix sums of the segment alone
        q = q_matrix(p[1:, 1:])
        allowed = self.allowed[start + 1 : end]
        if not allowed.all():
            if not allowed.any():
                return None
            q = np.where(allowed[:, None] & _coefficients(size)[3], q, -np.inf)
        flat = int(np.argmax(q))
        i, j = divmod(flat, size - 1)
        return start + i + 1, float(q[i, j])
