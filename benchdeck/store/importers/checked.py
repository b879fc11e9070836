"""Parsing an imported file into what the store can hold: the parser's records that fit the
store's columns (store.limits), and every line not used with its reason, in file order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchdeck.engine.parsers import IostatParser, SysbenchParser, VmstatParser
from benchdeck.engine.parsers.iostat import other_devices
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary
from benchdeck.store.storage.limits import feed_checked, feed_checked_at


@dataclass(frozen=True, slots=True)
class Checked:
    """A parsed file: the records that fit the store, and every line not used, in order."""

    samples: list[Any]
    skipped: list[SkippedLine]
    summary: SysbenchSummary | None = None

    @property
    def intervals(self) -> list[BenchInterval]:
        return self.samples

    @classmethod
    def sysbench(cls, text: str | list[str]) -> Checked:
        p = SysbenchParser()
        kept, bad = feed_checked(p.feed, text.splitlines() if isinstance(text, str) else text)
        p.flush()
        return cls(kept, _merge(p.skipped, bad), p.summary())

    @classmethod
    def vmstat(cls, text: str) -> Checked:
        p = VmstatParser()
        kept, bad = feed_checked(p.feed, text.splitlines())
        return cls(kept, _merge(p.skipped, bad))

    @classmethod
    def iostat(cls, text: str, device: str | None = None) -> Checked:
        """``device``: only its rows are parsed and kept (other devices' rows are recognised).

        With ``device``, blank lines and the rows of the other devices the first reports list
        are passed over without a call (~2/3 of the lines of the author's 7-device hosts): the
        parser sees the lines that say something of the run, with their numbers."""
        p = IostatParser(device)
        lines = text.splitlines()
        if not device:
            kept, bad = feed_checked(p.feed, lines)
            return cls(kept, _merge(p.skipped, bad))
        others = other_devices(lines, device)
        numbered = [
            (n, line)
            for n, line in enumerate(lines, 1)
            if line and not line.isspace() and line.partition(" ")[0] not in others
        ]
        kept, bad = feed_checked_at(p.feed_at, numbered)
        return cls(kept, _merge(p.skipped, bad))


def _merge(a: list[SkippedLine], b: list[SkippedLine]) -> list[SkippedLine]:
    return sorted([*a, *b], key=lambda sl: sl.lineno)
