"""The value ranges of the store's columns, checked where parsed records become rows.

A record with a value its column cannot hold (a vmstat counter past 2^63, a CPU percentage past
2^31, a non-finite rate) is not a DuckDB conversion error: its line is skipped, with the reason,
like any other line a parser could not use.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields
from itertools import compress
from operator import attrgetter
from typing import Any, TypeVar

from benchdeck.engine.record_columns import RecordColumns
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, VmstatSample

INT32_MAX = 2**31 - 1  # INTEGER columns
INT64_MAX = 2**63 - 1  # BIGINT columns

_VM_BIGINT = ("r", "b", "swpd", "free", "buff", "cache", "si", "so", "bi", "bo", "in_", "cs")
_INT_COLUMNS: dict[type, dict[str, int]] = {
    BenchInterval: {"threads": INT32_MAX},
    VmstatSample: {"seq": INT32_MAX, **dict.fromkeys(_VM_BIGINT, INT64_MAX)}
    | dict.fromkeys(("us", "sy", "id", "wa", "st", "gu"), INT32_MAX),
    IostatSample: {"seq": INT32_MAX},
}
_NAMES = {"in_": "in"}

R = TypeVar("R")


def show_int(v: int) -> str:
    """An integer for a message: a huge one by its size (str() refuses past 4,300 digits)."""
    return str(v) if v.bit_length() < 200 else f"a {v.bit_length()}-bit number"


def int_problem(name: str, value: int | None, top: int, low: int = 0) -> str | None:
    """Why ``value`` does not fit a column that holds ``low..top`` (None: it fits)."""
    if value is None or low <= value <= top:
        return None
    return f"{name} {show_int(value)} is out of range (the store holds {low}..{top})"


def fit_int(value: int | None, name: str, top: int, warnings: list[str]) -> int | None:
    """``value`` if a column holding ``0..top`` can take it, else None and a warning (a run's
    setting: the raw file keeps it)."""
    if why := int_problem(name, value, top):
        warnings.append(f"{why}; not stored as a column (the raw file keeps it)")
        return None
    return value


def path_problem(path: os.PathLike[str] | str) -> str | None:
    """Why a file's name cannot be stored (VARCHAR is UTF-8): a name in another encoding."""
    text = os.fspath(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(text).decode("utf-8", "backslashreplace")
        return f"{shown}: name is not valid UTF-8; rename it to import it"
    return None


def record_problem(record: Any) -> str | None:
    """Why a parsed record cannot become a row (None: it can)."""
    fits = _FITS.get(type(record))
    if (fits is not None and fits(record)) or _plainly_fits(record):
        return None
    for name, top in _INT_COLUMNS.get(type(record), {}).items():
        if why := int_problem(_NAMES.get(name, name), getattr(record, name), top):
            return why
    for name in _field_names(type(record)):
        v = getattr(record, name)
        if isinstance(v, float) and not math.isfinite(v):
            return f"{_NAMES.get(name, name)} is not a finite number"
    return None


def _plainly_fits(record: Any) -> bool:
    """True when every number of ``record`` is an int in 0..INT32_MAX (the narrowest column
    any record field has) or a finite float, the rest None or text: what nearly every row is.
    Anything else goes the long way (one check per field, with its reason); this one is ~4x
    cheaper for a vmstat or iostat row, and its checks run in C (map, set, min, max), not a
    Python-level test per field."""
    vals: Sequence[Any] = _getter(type(record))(record)
    kinds = set(map(type, vals))
    if not kinds <= _PLAIN:
        return False  # bools, numpy numbers, ...: the long way
    if kinds & _OTHER:
        vals = list(compress(vals, map(_NUMS.__contains__, map(type, vals))))
    return not vals or (min(vals) >= 0 and max(vals) <= INT32_MAX and math.isfinite(sum(vals)))


_PLAIN = {int, float, str, type(None)}
_OTHER = {str, type(None)}
_NUMS = {int, float}
_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {}


def _getter(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    """A record type's fields as a tuple, one C call per record."""
    if (get := _GETTERS.get(cls)) is None:
        names = _field_names(cls)
        one = attrgetter(*names)
        get = _GETTERS[cls] = one if len(names) > 1 else (lambda r: (one(r),))
    return get


_VM_INTS = attrgetter("seq", *_VM_BIGINT, "us", "sy", "id", "wa", "st")
_IO_FLOATS = attrgetter(
    "r_s", "w_s", "rkb_s", "wkb_s", "rrqm_s", "wrqm_s", "r_await", "w_await", "aqu_sz", "util"
)


def _vm_fits(r: VmstatSample) -> bool:
    """A vmstat row as the parser makes it (ints in 0..INT32_MAX): fits. False: not that plain."""
    ints = _VM_INTS(r)
    gu, ts = r.gu, r.timestamp
    if set(map(type, ints)) != {int} or min(ints) < 0 or max(ints) > INT32_MAX:
        return False
    return (gu is None or (gu.__class__ is int and 0 <= gu <= INT32_MAX)) and (
        ts is None or ts.__class__ is str
    )


def _io_fits(r: IostatSample) -> bool:
    """An iostat row with every column (finite floats; a DOUBLE holds any): fits. False: not that plain."""
    seq, dev, ts = r.seq, r.device, r.timestamp
    if not (seq.__class__ is int and 0 <= seq <= INT32_MAX and dev.__class__ is str):
        return False
    nums = _IO_FLOATS(r)
    return (
        set(map(type, nums)) == {float} and math.isfinite(sum(nums)) and (ts is None or ts.__class__ is str)
    )


# The two records an import makes by the million, checked in fewer steps than _plainly_fits's
# (mar25: ~0.4 of 14 CPU-s); a record they do not call plain goes on to _plainly_fits.
_FITS: dict[type, Callable[[Any], bool]] = {VmstatSample: _vm_fits, IostatSample: _io_fits}

_NONE = type(None)


def columns_fit(rows: RecordColumns[Any], record: type) -> bool:
    """Whether :func:`record_problem` finds nothing in any of ``rows`` (``record`` s), decided
    on their columns (~0.5 of ~12 CPU-s of mar25's import checked record by record): ints in
    their columns' ranges, floats finite, text as text. False: check them one by one."""
    tops = _INT_COLUMNS.get(record, {})
    for name in _field_names(record):
        col = rows.column(name)
        kinds = set(map(type, col)) - {_NONE}
        values = col if _NONE not in kinds and None not in col else [v for v in col if v is not None]
        if not values:
            continue
        if name in tops:
            if kinds != {int} or min(values) < 0 or max(values) > tops[name]:
                return False
        elif kinds != {str} and (kinds != {float} or not all(map(math.isfinite, values))):
            return False
    return True


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """A record type's fields, once per type (dataclasses.fields per record was half of an
    iostat import's CPU)."""
    if (names := _FIELD_NAMES.get(cls)) is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


def feed_checked_at(
    feed_at: Callable[[int, str], Any], numbered: Iterable[tuple[int, str]]
) -> tuple[list[Any], list[SkippedLine]]:
    """:func:`feed_checked` for some lines of a text, each with its number (the parser's
    ``feed_at`` takes the number: the lines passed over are counted, not fed)."""
    kept: list[Any] = []
    out: list[SkippedLine] = []
    for n, line in numbered:
        for rec in feed_at(n, line):
            if why := record_problem(rec):
                out.append(SkippedLine(n, line, why))
            else:
                kept.append(rec)
    return kept, out


_SEQ = (list, tuple)  # built once: ``list | tuple`` is a new object per call


def feed_checked(feed: Callable[[str], Any], lines: Iterable[str]) -> tuple[list[Any], list[SkippedLine]]:
    """Feed ``lines`` to a parser's ``feed``; the records that fit the store, and the lines of
    those that do not (numbered from 1, as the parsers number them)."""
    kept: list[Any] = []
    out: list[SkippedLine] = []
    for n, line in enumerate(lines, 1):
        got = feed(line)
        if got is None:
            continue
        for rec in got if isinstance(got, _SEQ) else (got,):
            if why := record_problem(rec):
                out.append(SkippedLine(n, line, why))
            else:
                kept.append(rec)
    return kept, out


def fit_records(records: Sequence[R]) -> tuple[list[R], list[SkippedLine]]:
    """For rows arriving without their lines (a live run): the records that fit, and the
    others as skipped lines (line number 0, the record as text)."""
    kept: list[R] = []
    out: list[SkippedLine] = []
    for rec in records:
        if why := record_problem(rec):
            out.append(SkippedLine(0, _record_text(rec), why))
        else:
            kept.append(rec)
    return kept, out


def _record_text(rec: Any) -> str:
    parts = []
    for f in fields(rec):
        v = getattr(rec, f.name)
        parts.append(f"{f.name}={show_int(v) if isinstance(v, int) else v}")
    return " ".join(parts)
