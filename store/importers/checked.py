"""Parsing an imported file into what the store can hold: the parser's records that fit the
store's columns (store.limits), and every line not used with its reason, in file order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from benchdeck.engine.parsers import IostatParser, SysbenchParser, VmstatParser
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary
from benchdeck.store.limits import feed_checked


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
        """``device``: only its rows are parsed and kept (other devices' rows are recognised)."""
        p = IostatParser(device)
        kept, bad = feed_checked(p.feed, text.splitlines())
        return cls(kept, _merge(p.skipped, bad))


def _merge(a: list[SkippedLine], b: list[SkippedLine]) -> list[SkippedLine]:
    return sorted([*a, *b], key=lambda sl: sl.lineno)
