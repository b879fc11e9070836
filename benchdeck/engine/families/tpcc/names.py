"""TPC-C-like workload names: ``tpcc.wN`` runs the mix on N warehouses (a leaf: the catalogue imports it)."""

from __future__ import annotations

import re

DEFAULT_SECONDS = 60  # a run's measured time without --time
_WORKLOAD = re.compile(r"(?a)tpcc\.w([1-9]\d{0,4})")


def warehouses_of(workload: str) -> int | None:
    """``tpcc.w4`` -> 4; None for any other name."""
    m = _WORKLOAD.fullmatch(workload)
    return int(m.group(1)) if m else None
