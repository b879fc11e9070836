"""How a ratio is printed (rQPS, per-op ratios): the one rule every renderer follows, so a colour is
decided on the value shown. A leaf: ``changes`` prints ratios without loading compare."""

from __future__ import annotations

import math

RATIO_DECIMALS = 2


def shown_ratio(v: float | None) -> float | None:
    """The value a ratio is printed as (``0.9506`` -> ``0.95``): what colours are decided on."""
    if v is None or not math.isfinite(v):
        return v
    return float(f"{v:.{RATIO_DECIMALS}f}")


def fmt_ratio(v: float | None) -> str:
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf"
    if math.isnan(v):
        return "nan"
    return f"{v:.{RATIO_DECIMALS}f}"
