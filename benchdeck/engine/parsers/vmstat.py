"""vmstat output (procps): columns found by header name; the since-boot first row is dropped."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from itertools import chain
from operator import itemgetter
from typing import Any

from benchdeck.engine.record_columns import RecordColumns, columns_of
from benchdeck.engine.records import SkippedLine, VmstatSample

# Columns every sample needs (``gu`` is optional); VmstatSample names ``in`` as ``in_``.
_REQUIRED = ("r", "b", "swpd", "free", "buff", "cache", "si", "so", "bi", "bo", "in", "cs",
             "us", "sy", "id", "wa", "st")  # fmt: skip
_BANNER = re.compile(r"(?a)-*procs-*")  # procs ---memory--- ---swap-- ...
_BANNER_PART = re.compile(r"(?a)-++[a-z]*+-*+")  # possessive: no backtracking
_TZ = re.compile(r"(?a)[A-Z]{2,6}|[+-]\d{2,4}")  # -t header's last column: UTC, CEST, +04
_DATE = re.compile(r"(?a)\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"(?a)\d{2}:\d{2}:\d{2}")


@dataclass(frozen=True, slots=True)
class VmstatResult:
    """Everything read from one vmstat output."""

    samples: tuple[VmstatSample, ...]
    skipped: tuple[SkippedLine, ...]
    dropped_since_boot: int


class VmstatParser:
    """Incremental vmstat parser; ``feed`` one line at a time.

    Every line ends up exactly once as a sample, as recognised (``recognised`` counts banners,
    headers, blank lines and the dropped since-boot row) or in ``skipped`` with a reason.
    """

    def __init__(self) -> None:
        self.samples: list[VmstatSample] = []
        self.skipped: list[SkippedLine] = []
        self.dropped_since_boot = 0
        self.recognised = 0
        self._lineno = 0
        self._columns: dict[str, int] | None = None  # column name -> index, from the header
        self._ncols = 0
        self._tz = False
        self._boot_row_pending = False
        self._pick: Callable[[list[str]], tuple[str, ...]] = tuple  # the fields' tokens, from the header

    def feed(self, line: str) -> VmstatSample | None:
        """Consume one line (without its newline); return the sample it yields, if any."""
        self._lineno += 1
        line = line.rstrip("\r\n")
        tokens = line.split()
        if tokens and self._columns is not None and tokens[0].isdigit():  # a row: no banner or header
            return self._data(line, tokens)
        if not tokens or (_BANNER.fullmatch(tokens[0]) and all(map(_BANNER_PART.fullmatch, tokens[1:]))):
            self.recognised += 1
            return None
        if tokens[0] == "r" and "b" in tokens and not any(map(_is_int, tokens)):
            self._header(line, tokens)
            return None
        if self._columns is None:
            self._skip(line, "no header yet")
            return None
        return self._data(line, tokens)

    def feed_many(self, lines: Iterable[str]) -> list[VmstatSample]:
        """:meth:`feed` for each line, the samples they yield: the same result, a row of the
        header's fields (no ``-t`` timestamp, not the since-boot row) in fewer steps."""
        out: list[VmstatSample] = []
        samples = self.samples
        for line in lines:
            tokens = line.split()
            if (
                len(tokens) == self._ncols
                and not self._tz
                and not self._boot_row_pending
                and self._columns is not None
                and (joined := "".join(tokens)).isascii()
                and joined.isdigit()
            ):  # as feed -> _data -> _row: digits only, so int() cannot fail
                self._lineno += 1
                sample = VmstatSample(len(samples), *map(int, self._pick(tokens)))  # type: ignore[arg-type]
                samples.append(sample)
                out.append(sample)
            elif (got := self.feed(line)) is not None:
                out.append(got)
        return out

    def _data(self, line: str, tokens: list[str]) -> VmstatSample | None:
        since_boot = self._boot_row_pending and _is_int(tokens[0])
        self._boot_row_pending &= not since_boot
        try:
            sample = self._row(tokens)
        except ValueError as exc:
            self._skip(line, str(exc) + (" (the since-boot row)" if since_boot else ""))
            return None
        if since_boot:
            self.dropped_since_boot += 1
            self.recognised += 1
            return None
        self.samples.append(sample)
        return sample

    def _header(self, line: str, tokens: list[str]) -> None:
        tz = bool(_TZ.fullmatch(tokens[-1]))
        names = tokens[:-1] if tz else tokens
        missing = [c for c in _REQUIRED if c not in names]
        if missing or len(set(names)) != len(names):
            reason = f"header lacks {', '.join(missing)}" if missing else "duplicate columns"
            self._skip(line, reason)
            return
        if self._columns is None:
            self._boot_row_pending = True  # vmstat's first row averages since boot
        self._columns = {name: i for i, name in enumerate(names)}
        self._ncols, self._tz = len(names), tz
        # VmstatSample's fields in its order (_REQUIRED's), then gu when the header has it
        self._pick = itemgetter(*(names.index(c) for c in (*_REQUIRED, *(("gu",) if "gu" in names else ()))))
        self.recognised += 1

    def _row(self, tokens: list[str]) -> VmstatSample:
        assert self._columns is not None
        timestamp = None
        if self._tz:
            if len(tokens) < 2 or not (_DATE.fullmatch(tokens[-2]) and _TIME.fullmatch(tokens[-1])):
                raise ValueError("no timestamp at the end of a -t row")
            timestamp, tokens = f"{tokens[-2]} {tokens[-1]}", tokens[:-2]
        if len(tokens) != self._ncols:
            raise ValueError(f"{len(tokens)} fields, header has {self._ncols}")
        joined = "".join(tokens)  # one check for the row: ASCII digits only
        if not (joined.isascii() and joined.isdigit()):
            bad = [t for t in tokens if not _is_int(t)]
            raise ValueError(f"non-numeric value {bad[0]!r}")
        values = map(int, self._pick(tokens))  # digits only: int() cannot fail
        return VmstatSample(len(self.samples), *values, timestamp=timestamp)  # type: ignore[arg-type, misc]

    def _skip(self, line: str, reason: str) -> None:
        self.skipped.append(SkippedLine(self._lineno, line, reason))


VMSTAT_FIELDS = tuple(f.name for f in fields(VmstatSample))


def plain_rows(lines: list[str]) -> tuple[RecordColumns[VmstatSample], list[SkippedLine]] | None:
    """What :meth:`VmstatParser.feed_many` gives for ``lines`` (an ASCII text's): the samples
    and the skipped lines, when every line after the since-boot row is a row of the header's
    fields, digits only, or a banner, header or blank line the parser read before it; those
    rows are read a few C calls for them all. None when the text is not so (then feed it)."""
    p = VmstatParser()
    head = 0
    while head < min(len(lines), 64) and (p._columns is None or p._boot_row_pending):
        p.feed(lines[head])
        head += 1
    if p._columns is None or p._boot_row_pending or p._tz:
        return None
    bad = {s.lineno for s in p.skipped}
    again = {line for n, line in enumerate(lines[: head - 1], 1) if n not in bad}  # read, not skipped
    rows = [line for line in lines[head:] if line not in again]
    tokens = list(map(str.split, rows))
    digits = "".join(chain.from_iterable(tokens))
    if not rows or set(map(len, tokens)) != {p._ncols} or not (digits.isascii() and digits.isdigit()):
        return None
    values = list(map(int, chain.from_iterable(map(p._pick, tokens))))
    width = len(values) // len(rows)  # the 17 columns, and gu when the header has it
    n, seq = len(rows), len(p.samples)
    columns: list[list[Any]] = [list(range(seq, seq + n)), *(values[i::width] for i in range(width))]
    columns += [[None] * n] * (len(VMSTAT_FIELDS) - len(columns))  # gu, timestamp
    before = columns_of(p.samples, VMSTAT_FIELDS)
    joined = [a + b for a, b in zip(before, columns, strict=True)]
    return RecordColumns(VmstatSample, VMSTAT_FIELDS, joined), list(p.skipped)


def _is_int(token: str) -> bool:
    return token.isascii() and token.isdigit()


def parse_vmstat(lines: Iterable[str]) -> VmstatResult:
    """Parse a whole vmstat output."""
    p = VmstatParser()
    for line in lines:
        p.feed(line)
    return VmstatResult(tuple(p.samples), tuple(p.skipped), p.dropped_since_boot)
