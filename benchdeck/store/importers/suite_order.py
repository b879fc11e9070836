"""When each run of a mytools folder ran, from the suite's fixed step order (the author's
``bench/sysbench.lua/all_small.sh``) and each run's length, around the folder's dated vacuum log.

The suite runs its steps one after another; between the writes (``read-write``) and the reads
that follow it vacuums/analyzes the tables and logs ``vac_my starts at <date>`` ... ``vac_my
done after 110 at <date>`` (``sb.o.myvac``, ``sb.o.pgvac``). So the steps before the vacuum end
where the next begins, back from its start; those after begin where the previous ended, from
its end. A run's length is its command line's ``--warmup-time`` + ``--time`` (read before
parsing, so runs stream in order). The order is today's script's: older trees ran some steps
elsewhere (mytools mar25.pg.workmem.c48, whose files kept their mtimes, ran scan after the
range steps): there the runs' ends fall a median 240 s from their sb.o's mtime (30 of 117
within 60 s, the worst 2.4 h), the date right, the order within a folder approximate.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

# all_small.sh, in order: the steps before the vacuum, then those after it.
BEFORE_VACUUM = (
    "point-query.warm", "scan.warmpre", "point-query.pre", "random-points.pre", "read-only.pre",
    "points-covered-pk.pre", "points-notcovered-pk.pre", "points-covered-si.pre",
    "points-notcovered-si.pre", "range-covered-pk.pre", "range-notcovered-pk.pre",
    "range-covered-si.pre", "range-notcovered-si.pre", "update-inlist", "update-index",
    "update-nonindex", "update-one", "update-zipf", "write-only", "read-write",
)  # fmt: skip
AFTER_VACUUM = (
    "scan.warm", "scan", "read-only", "read-only-simple", "read-only-sum", "read-only-order",
    "read-only-distinct", "read-only-count", "point-query", "random-points", "hot-points",
    "points-covered-pk", "points-notcovered-pk", "range-covered-pk", "range-notcovered-pk",
    "points-covered-si.warm", "points-covered-si", "points-notcovered-si", "range-covered-si",
    "range-notcovered-si", "delete", "insert",
)  # fmt: skip
_RANK = {s: i for i, s in enumerate((*BEFORE_VACUUM, *AFTER_VACUUM))}
_SECS = re.compile(r"(?a)--(warmup-time|time)=(\d+)")
SOURCE = "suite order"


@dataclass(frozen=True, slots=True)
class Vacuum:
    """The folder's vacuum: when it started and ended (its log's two dated lines)."""

    start: datetime
    end: datetime


def step_of(name: str) -> str:
    """``sb.o.read-only.range10.pk1.dop40`` -> ``read-only`` (the suite's step name)."""
    rest = name.removeprefix("sb.o.")
    return rest.split(".range", 1)[0]


def run_seconds(command_line: str) -> float:
    """--warmup-time + --time of a sysbench command line (0 when it says neither)."""
    return float(sum(int(v) for _, v in _SECS.findall(command_line)))


def order_key(name: str) -> tuple[int, int, str]:
    """Where a run file falls in the suite: known steps in their order (ranges ascending),
    unknown ones after them by name."""
    rank = _RANK.get(step_of(name), len(_RANK))
    rng = re.search(r"(?a)\.range(\d+)\.", name)
    return rank, int(rng.group(1)) if rng else 0, name


def schedule(names: list[str], seconds: list[float], vacuum: Vacuum) -> list[datetime]:
    """Each run's start, ``names`` in suite order with their lengths."""
    before = [i for i, n in enumerate(names) if step_of(n) in BEFORE_VACUUM]
    starts: dict[int, datetime] = {}
    t = vacuum.start
    for i in reversed(before):
        t -= timedelta(seconds=seconds[i])
        starts[i] = t
    t = vacuum.end
    for i in range(len(names)):
        if i not in starts:
            starts[i] = t
            t += timedelta(seconds=seconds[i])
    return [starts[i] for i in range(len(names))]
