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


def fmt_hw(key: str, v: float | None) -> str:
    """Absolute per-op values as the posts print them (zero as ``0``)."""
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf"
    if v == 0:
        return "0"
    if key == "o/s":
        return f"{v:.0f}"
    if key == "cpu/o":
        return f"{v:.6f}"
    if key in ("r/o", "rKB/o", "wKB/o"):  # the author's o.met prints these without trailing zeros
        return f"{v:.3f}".rstrip("0").rstrip(".")
    return f"{v:.3f}"
