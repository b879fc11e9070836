"""Which parser reads a workload family's output (sysbench, db_bench, pgbench, Insert Benchmark,
TPC-C-like)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Protocol

from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary


class BenchParser(Protocol):
    """What the runner needs of a family's output parser (sysbench, db_bench, pgbench ...)."""

    skipped: list[SkippedLine]
    messages: list[SkippedLine]

    def feed(self, line: str) -> BenchInterval | None: ...
    def summary(self) -> SysbenchSummary: ...


_FAMILY_PARSERS = {
    "sysbench": ("benchdeck.engine.parsers.sysbench", "SysbenchParser"),
    "dbbench": ("benchdeck.engine.parsers.dbbench", "DbBenchParser"),
    "pgbench": ("benchdeck.engine.parsers.pgbench", "PgbenchParser"),
    "insertbench": ("benchdeck.engine.parsers.insertbench", "InsertBenchParser"),
    "tpcc": ("benchdeck.engine.parsers.tpcc", "TpccParser"),
}


def parser_for(family: str, argv: Sequence[str] = ()) -> BenchParser:
    """A fresh output parser for a workload family; some read the command (threads, steps)."""
    try:
        module, cls = _FAMILY_PARSERS[family]
    except KeyError:
        raise ValueError(
            f"unknown workload family {family!r} (known: {', '.join(_FAMILY_PARSERS)})"
        ) from None
    factory = getattr(importlib.import_module(module), cls)
    parser: BenchParser = factory(list(argv) or None) if family in ("dbbench", "pgbench") else factory()
    return parser
