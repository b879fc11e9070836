"""When an imported run ran: timestamps in its files, else the file's modification time.

Recognised stamps: ``date(1)`` output (``Fri Nov 21 04:38:01 AM UTC 2025``, as the mytools
scripts print it in their logs), ISO ``2025-11-21 04:38:01`` / ``2025-11-21T04:38:01`` (vmstat
``-t``, iostat with ``S_TIME_FORMAT=ISO``) and iostat's ``11/21/2025 04:38:01 AM``. Times are
kept as printed (wall clock), without a time zone.

A date line in a run's own output says when the run started, or when it ended: ``Done at
<date>``, and any date line after sysbench's final report, is an end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

_MONTH_NAMES = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec"
_MONTHS = {m: i for i, m in enumerate(_MONTH_NAMES.split(), 1)}
_DATE_CMD = re.compile(
    r"(?a)\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) "
    r"(\d{1,2}):(\d{2}):(\d{2})(?: ([AP]M))?(?: [A-Z][A-Za-z]{1,5}| [+-]\d{2,4})? (\d{4})\b"
)
_ISO = re.compile(r"(?a)\b(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})")
_US = re.compile(r"(?a)\b(\d{2})/(\d{2})/(\d{2,4}) (\d{2}):(\d{2}):(\d{2})(?: ([AP]M))?")


@dataclass(frozen=True, slots=True)
class Dated:
    """A run's start and end, and where they were read from (``vmstat``, ``mtime`` ...);
    None when the evidence is out of any date's range."""

    started_at: datetime | None
    finished_at: datetime | None
    source: str


_END_WORDS = re.compile(r"(?i)\b(?:done|end(?:ed|s)?|finish(?:ed|es)?|stop(?:ped|s)?|complete[ds]?)\b")
_REPORT = "SQL statistics:"  # sysbench's final report starts here: a date after it is an end
_EDGE = 4000  # characters of a run's output searched for a date line, at each end


@dataclass(frozen=True, slots=True)
class DateLine:
    """A line of a run's output that dates it: its number (1-based), the date, and whether
    it is the run's end (else its start)."""

    lineno: int
    at: datetime
    is_end: bool


def _hour(h: int, ampm: str | None) -> int:
    if ampm is None:
        return h
    return h % 12 + (12 if ampm == "PM" else 0)


def _make(y: int, mo: int, d: int, h: int, mi: int, s: int) -> datetime | None:
    try:
        return datetime(y, mo, d, h, mi, s)  # wall clock as printed, no time zone
    except ValueError:
        return None


def parse_stamp(text: str) -> datetime | None:
    """The first recognised date-and-time in ``text``; None if there is none."""
    found: list[tuple[int, datetime]] = []
    if m := _DATE_CMD.search(text):
        mon, day, h, mi, s, ampm, year = m.groups()
        dt = _make(int(year), _MONTHS[mon], int(day), _hour(int(h), ampm), int(mi), int(s))
        if dt:
            found.append((m.start(), dt))
    if m := _ISO.search(text):
        dt = _make(*(int(g) for g in m.groups()))
        if dt:
            found.append((m.start(), dt))
    if m := _US.search(text):
        mo, day, year, h, mi, s, ampm = m.groups()
        y = int(year) + (2000 if len(year) == 2 else 0)
        dt = _make(y, int(mo), int(day), _hour(int(h), ampm), int(mi), int(s))
        if dt:
            found.append((m.start(), dt))
    return min(found)[1] if found else None


def first_stamp(text: str) -> datetime | None:
    """The date of the first line of ``text`` that holds one (a ``date`` line of a monitor's
    output, as ``sb.ps`` starts with one); None if none does."""
    for line in text.splitlines():
        if t := parse_stamp(line):
            return t
    return None


def date_line(text: str) -> DateLine | None:
    """The first date line in the first or last 4000 characters of a run's output, numbered
    as in ``text``; an end when its words say so (``Done at``) or it follows the final report."""
    report = text.find(_REPORT)
    tail = max(_EDGE, len(text) - _EDGE)
    tail = text.find("\n", tail - 1) + 1 or len(text)  # from a line's start
    for start, part in ((0, text[:_EDGE]), (tail, text[tail:])):
        pos = start
        for line in part.splitlines(keepends=True):
            if t := parse_stamp(line):
                is_end = bool(_END_WORDS.search(line)) or 0 <= report < pos
                return DateLine(text.count("\n", 0, pos) + 1, t, is_end)
            pos += len(line)
    return None


def from_end(end: datetime, elapsed_s: float | None, source: str) -> Dated:
    return Dated(_plus(end, -(elapsed_s or 0.0)), end, source)


def _plus(t: datetime, seconds: float) -> datetime | None:
    try:
        return t + timedelta(seconds=seconds)
    except (OverflowError, ValueError):  # an elapsed time past year 9999 (a damaged file)
        return None


def from_start(start: datetime, elapsed_s: float | None, source: str) -> Dated:
    return Dated(start, _plus(start, elapsed_s or 0.0), source)


def from_mtime(path: Path, elapsed_s: float | None, mtime: float | None = None) -> Dated:
    """The file was last written when the run ended: its mtime (``mtime``: a tar member's),
    less the run's length; undated when the mtime is out of a date's range (``touch -d @1e12``)."""
    try:
        st = path.stat().st_mtime if mtime is None else mtime
        end = datetime.fromtimestamp(st, tz=UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return Dated(None, None, "undated")
    return Dated(_plus(end, -(elapsed_s or 0.0)), end, "mtime")
