"""Per-operation hardware metrics (docs/domain.md): vmstat and iostat averages divided by o/s."""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchdeck.engine.record_columns import columns_of

if TYPE_CHECKING:  # (six dataclasses, costly to create: compare needs none of them)
    from benchdeck.engine.records import IostatSample, SysbenchSummary, VmstatSample

SCAN_TESTS = ("scan",)


@dataclass(frozen=True, slots=True)
class PerOp:
    """cpu/o, cs/o, r/o, rKB/o, wKB/o and o/s of one run; ``None`` where no samples exist.

    ``cpu_us_o`` is CPU microseconds per operation (``cpu/o * ncpu * 1e4``), comparable across
    servers; it needs the host's CPU count.
    """

    ops: float
    cpu_o: float | None = None
    cs_o: float | None = None
    r_o: float | None = None
    rkb_o: float | None = None
    wkb_o: float | None = None
    cpu_us_o: float | None = None


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def _div(num: float | None, den: float) -> float | None:
    if num is None:
        return None
    if den == 0:
        return 0.0 if num == 0 else math.inf
    return num / den


def per_op(
    ops: float,
    vmstat: Sequence[VmstatSample] = (),
    iostat: Sequence[IostatSample] = (),
    ncpu: int | None = None,
) -> PerOp:
    """Per-op metrics from samples of one run; iostat rows must already be the run's device."""
    us, sy, cs = columns_of(vmstat, ("us", "sy", "cs"))
    r_s, rkb_s, wkb_s = columns_of(iostat, ("r_s", "rkb_s", "wkb_s"))
    cpu = _mean(list(map(operator.add, us, sy)))
    cpu_o = _div(cpu, ops)
    return PerOp(
        ops=ops,
        cpu_o=cpu_o,
        cs_o=_div(_mean(cs), ops),
        r_o=_div(_mean(r_s), ops),
        rkb_o=_div(_mean(rkb_s), ops),
        wkb_o=_div(_mean(wkb_s), ops),
        cpu_us_o=cpu_o * ncpu * 1e4 if cpu_o is not None and ncpu else None,
    )


def is_scan(workload: str) -> bool:
    """Scan steps read a whole table per event (``scan_range=100``, ``scan.warm_range=100``)."""
    test = workload.split("_range=", 1)[0]
    return test.split(".", 1)[0] in SCAN_TESTS


def run_qps(summary: SysbenchSummary, workload: str, table_size: int | None = None) -> float | None:
    """The QPS users read: ``queries: N (X per sec.)``; rows/s (table rows / avg latency) for scans."""
    if is_scan(workload):
        rows = table_size or _int_option(summary, "table-size")
        if rows and summary.lat_avg_ms:
            try:
                qps = rows / (summary.lat_avg_ms / 1000.0)
            except OverflowError:  # a table size of hundreds of digits
                return None
            return qps if math.isfinite(qps) else None
        return None
    if summary.qps is not None:
        return summary.qps
    return summary.eps


def _int_option(summary: SysbenchSummary, key: str) -> int | None:
    raw = summary.options.get(key) or summary.options.get(key.replace("-", "_"))
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None
