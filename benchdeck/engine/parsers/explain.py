"""The EXPLAIN output the mytools Lua scripts print on purpose while sysbench starts its threads.

Between ``Initializing worker threads...`` and ``Threads started!`` each thread announces its
statement and one thread prints the plan of it for every table (MySQL/MariaDB tab-separated
rows, MySQL's tree format, PostgreSQL plans); threads write concurrently, so announcements may
run together on one line::

    explain: for index_updates :: explain UPDATE sbtest%u SET k=k+1 WHERE id=%u
    for index_updates                    (or "for: sum_ranges")
    table 1 : explain UPDATE sbtest1 SET k=k+1 WHERE id=3518075
    <TAB>1	UPDATE	sbtest1	null	range	PRIMARY	PRIMARY	4	const	1	100.00
    <TAB>Index Scan using sbtest1_pkey on sbtest1  (cost=0.43..8.45 rows=1 width=121)
        -> Covering index range scan on sbtest1 using k_1 over (...)

Older scripts (March 2025 trees) print PostgreSQL plans' top node without indent:
``Index Scan using sbtest1_pkey on sbtest1  (cost=0.43..8.45 rows=1 width=121)``; a plan node
is known by its ``  (cost=`` estimate.

It is the scripts' output, not sysbench's: recognised here so it is kept with the run's raw
file instead of being reported line by line as unparsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ZONE_START = "Initializing worker threads..."
ZONE_END = "Threads started!"
_LINE = (
    r"explain: for \S+ :: explain [^\n]*|for:? \S+|table \d+ : explain [^\n]*|[\t ][^\n]*|"
    r"[A-Z][^\n]*  \(cost=\d[^\n]*|"
)
LINE = re.compile(_LINE)
"""One line of the EXPLAIN output (blank lines included)."""
_BLOCK = re.compile(rf"(?:(?:{_LINE})\n)*")


@dataclass(frozen=True, slots=True)
class ExplainSpan:
    """Lines ``first`` .. ``first + count - 1`` (0-based) of a text are EXPLAIN output:
    characters ``start`` .. ``end`` of it (``end`` just after the block's last newline)."""

    first: int
    count: int
    start: int
    end: int


def find_explain(text: str) -> ExplainSpan | None:
    """The EXPLAIN block of a sysbench output, when every line of the start-up zone is one.

    Returns None when there is no such zone, or when some line in it is something else (the
    caller then reads the zone line by line, e.g. with :data:`LINE`).
    """
    head = f"\n{ZONE_START}\n"
    a = text.find(head)
    if a < 0:
        return None
    start = a + len(head)
    end = text.find(f"\n{ZONE_END}\n", start - 1)
    if end < 0:
        return None
    end += 1  # keep the zone's last newline in it
    if text.find(" explain ", start, end) < 0 or not _BLOCK.fullmatch(text, start, end):
        return None
    first = text.count("\n", 0, start)
    return ExplainSpan(first=first, count=text.count("\n", start, end), start=start, end=end)
