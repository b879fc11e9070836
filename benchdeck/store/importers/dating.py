"""When an imported run ran: timestamps in its files, else the file's modification time.

Recognised stamps: ``date(1)`` output (``Fri Nov 21 04:38:01 AM UTC 2025``, as the mytools
scripts print it in their logs), ISO ``2025-11-21 04:38:01`` / ``2025-11-21T04:38:01`` (vmstat
``-t``, iostat with ``S_TIME_FORMAT=ISO``) and iostat's ``11/21/2025 04:38:01 AM``. Times are
kept as printed (wall clock), without a time zone.
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
