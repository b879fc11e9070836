"""Parsing an imported file into what the store can hold: the parser's records that fit the
store's columns (store.limits), and every line not used with its reason, in file order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchdeck.engine.parsers import IostatParser, SysbenchParser, VmstatParser
from benchdeck.engine.parsers.iostat import other_devices, repeated_reports
from benchdeck.engine.parsers.vmstat import plain_rows
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, SysbenchSummary, VmstatSample
from benchdeck.store.storage.limits import columns_fit, feed_checked, feed_checked_at, record_problem


@dataclass(frozen=True, slots=True)
class Checked:
    """A parsed file: the records that fit the store, and every line not used, in order."""

    samples: Sequence[Any]
    skipped: list[SkippedLine]
    summary: SysbenchSummary | None = None
    newlines: int | None = field(default=None, compare=False)
    """``text.count("\\n")`` when the parse had it for free (a file split on \\n alone)."""

    @property
    def intervals(self) -> Sequence[BenchInterval]:
        return self.samples

    @classmethod
    def sysbench(cls, text: str | list[str]) -> Checked:
        p = SysbenchParser()
        kept, bad = feed_checked(p.feed, text.splitlines() if isinstance(text, str) else text)
        p.flush()
        return cls(kept, _merge(p.skipped, bad), p.summary())

    @classmethod
    def vmstat(cls, text: str) -> Checked:
        lines = split_lines(text)
        plain = plain_rows(lines) if text.isascii() else None
        if plain is not None and columns_fit(plain[0], VmstatSample):
            return cls(*plain)
        p = VmstatParser()
        samples = p.feed_many(lines)
        if not any(map(record_problem, samples)):  # as in iostat
            return cls(samples, _merge(p.skipped, []))
        p = VmstatParser()
        kept, bad = feed_checked(p.feed, lines)
        return cls(kept, _merge(p.skipped, bad))

    @classmethod
    def iostat(cls, text: str, device: str | None = None) -> Checked:
        """``device``: only its rows are parsed and kept (other devices' rows are recognised).

        With ``device``, blank lines and the rows of the other devices the first reports list
        are passed over without a call (~2/3 of the lines of the author's 7-device hosts): the
        parser sees the lines that say something of the run, with their numbers."""
        p = IostatParser(device)
        lines, newlines = _split_counted(text)
        if not device:
            kept, bad = feed_checked(p.feed, lines)
            return cls(kept, _merge(p.skipped, bad))
        others = other_devices(lines, device)
        if text.isascii() and (repeated := repeated_reports(lines, device, others)) is not None:
            rows, skipped = repeated
            if columns_fit(rows, IostatSample):
                return cls(rows, skipped, newlines=newlines)
        numbered = [
            (n, line)
            for n, line in enumerate(lines, 1)
            if line and not line.isspace() and line.partition(" ")[0] not in others
        ]
        samples = p.feed_many_at(numbered)
        if not any(map(record_problem, samples)):  # every row fits the store: nothing to match to its line
            return cls(samples, _merge(p.skipped, []))
        p = IostatParser(device)  # a value the store cannot hold: again, each record with its line
        kept, bad = feed_checked_at(p.feed_at, numbered)
        return cls(kept, _merge(p.skipped, bad))


_OTHER_BREAKS = ("\r", "\v", "\f", "\x1c", "\x1d", "\x1e")  # str.splitlines' line ends in ASCII, but \n


def split_lines(text: str) -> list[str]:
    """``text.splitlines()``; an ASCII text that ends its lines with ``\\n`` alone is split on
    it, ~3x faster (splitlines looks for every Unicode line end)."""
    return _split_counted(text)[0]


def _split_counted(text: str) -> tuple[list[str], int | None]:
    """:func:`split_lines`, and ``text.count("\\n")`` when it split on it (else None)."""
    if not text.isascii() or any(c in text for c in _OTHER_BREAKS):
        return text.splitlines(), None
    lines = text.split("\n")
    newlines = len(lines) - 1
    if lines[-1] == "":  # splitlines gives no empty line after the last line end (or for "")
        lines.pop()
    return lines, newlines


def _merge(a: list[SkippedLine], b: list[SkippedLine]) -> list[SkippedLine]:
    return sorted([*a, *b], key=lambda sl: sl.lineno)
