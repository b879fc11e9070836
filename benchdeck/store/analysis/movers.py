"""When a per-op metric has moved: one floor per metric, the rule Triage and ``changes`` share.

A ratio of two values too small to matter is noise, not a move: on the built-in SQLite runs
r/o is 1.9e-6 against 1.0e-4 (both print as ``0``, the ratio as ``x0.02``), and a read-only
MySQL step writes 0.006 KB/op of background writes against 0 (``wKB/o x0.00`` or ``xinf``
ranked first). Below its floor a value counts as the floor, so two values under it give a
ratio of 1 (no move) and a value rising from 0 gives a finite ratio against the floor (never
``inf``). The floors sit under the smallest moves the posts report (scan's wKB/o 0.035 ->
0.052 KB/op in "MySQL 8.0.40 does not fix the regressions", tests/changes/post_series.py) and
at or above what prints as ``0`` or one last digit (store/reports/compare_report.py's ``fmt_hw``):
"""

from __future__ import annotations

import math

PER_OP_FLOOR: dict[str, float] = {
    "cpu/o": 1e-6,  # printed with 6 decimals: below it a value prints as 0.000000 or 0.000001
    "cs/o": 0.01,  # one context switch per 100 operations
    "r/o": 0.01,  # one storage read per 100 operations
    "rKB/o": 0.01,  # 10 bytes read per operation
    "wKB/o": 0.01,  # 10 bytes written per operation (a read-only step's 0.006 is under it)
}
"""metric -> the smallest value that counts (the README's "Triage" and "Where did it change")."""


def mover_ratio(metric: str, value: float | None, base: float | None) -> float | None:
    """``value / base`` with each held at least at the metric's floor; None when there is no
    move to show: a value missing or NaN, or both under the floor."""
    if value is None or base is None or math.isnan(value) or math.isnan(base):
        return None
    floor = PER_OP_FLOOR.get(metric, 0.0)
    if value < floor and base < floor:
        return None
    if math.isinf(value) or math.isinf(base):
        return None
    return max(value, floor) / max(base, floor) if max(base, floor) > 0 else None
