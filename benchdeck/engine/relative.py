"""A value relative to a base, as the posts print rQPS and per-op ratios. A leaf: ``compare``
needs it without engine/metrics.py's records (creating a record class is a start-up cost)."""

from __future__ import annotations

import math


def relative(value: float | None, base: float | None) -> float | None:
    """value / base, with the posts' conventions: 0/0 -> 1, x/0 -> inf."""
    if value is None or base is None:
        return None
    if base == 0:
        return 1.0 if value == 0 else math.inf
    return value / base
