"""The per-op tables the mytools scripts write: ``sb.met.<step>...`` files, and the same block
appended to the end of some ``sb.o.<step>...`` outputs::

    iostat, vmstat normalized by operation rate
    samp	r/s	rMB/s	w/s	wMB/s	r/o	rKB/o	wKB/o	o/s
    935	2.3	0.0	1763.3	165.5	0.000	0.000	0.869	194914.71

    samp	cs/s	cpu/s	cs/o	cpu/o
    979	1460137	51.4	7.491	0.000264

Columns are found by header name. ``o/s`` is the rate the author divided by: the QPS, except
for scans, where it is table rows per millisecond of average latency.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from benchdeck.engine.metrics import PerOp
from benchdeck.engine.records import SkippedLine

MET_TITLE = "iostat, vmstat normalized by operation rate"
_PER_OP = {"cpu/o": "cpu_o", "cs/o": "cs_o", "r/o": "r_o", "rKB/o": "rkb_o", "wKB/o": "wkb_o"}


@dataclass(frozen=True, slots=True)
class MetTable:
    """The figures of one sb.met block: header name -> value (``samp`` counts in ``samples``)."""

    values: dict[str, float]
    samples: tuple[int, ...]
    skipped: tuple[SkippedLine, ...] = ()

    def per_op(self, ncpu: int | None = None) -> PerOp | None:
        """The run's per-op metrics as the author computed them; None without an ``o/s``."""
        ops = self.values.get("o/s")
        if ops is None:
            return None
        fields = {attr: self.values.get(key) for key, attr in _PER_OP.items()}
        cpu_o = fields["cpu_o"]
        return PerOp(ops=ops, cpu_us_o=cpu_o * ncpu * 1e4 if cpu_o is not None and ncpu else None, **fields)


def _number(tok: str) -> float | None:
    try:
        v = float(tok)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def parse_met(lines: Iterable[str], first_lineno: int = 1) -> MetTable:
    """Read one sb.met block; lines that fit no header/values pair are returned as skipped."""
    values: dict[str, float] = {}
    samples: list[int] = []
    skipped: list[SkippedLine] = []
    header: list[str] | None = None
    for n, raw in enumerate(lines, first_lineno):
        line = raw.rstrip("\r\n")
        toks = line.split()
        if not toks or line.strip() == MET_TITLE:
            continue
        if toks[0] == "samp":
            header = toks
            continue
        nums = [_number(t) for t in toks]
        if header is None or len(toks) != len(header) or any(v is None for v in nums):
            skipped.append(SkippedLine(n, line, "unrecognised sb.met line"))
            continue
        for key, v in zip(header, nums, strict=True):
            assert v is not None
            if key == "samp":
                samples.append(int(v))
            else:
                values[key] = v
        header = None
    return MetTable(values, tuple(samples), tuple(skipped))


def split_met_tail(text: str) -> tuple[str, str | None]:
    """Split an sb.o output whose end is an appended sb.met block: (sysbench part, met block)."""
    at = text.rfind(MET_TITLE)
    if at < 0 or (at > 0 and text[at - 1] != "\n"):
        return text, None
    return text[:at], text[at:]
