"""Import one sysbench run from files: its output, and optionally vmstat, iostat and sb.met output."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from benchdeck.store.db import Store
from benchdeck.store.importers.read_run import ImportError_, RunFiles, read_run
from benchdeck.store.importers.writer import RunWriter

__all__ = ["ImportError_", "ImportedRun", "RunFiles", "import_run_files"]


@dataclass(frozen=True, slots=True)
class ImportedRun:
    run_id: int
    qps: float
    skipped: int
    warnings: tuple[str, ...] = field(default=())
    explain_lines: int = 0


def import_run_files(store: Store, f: RunFiles, perf_stat: Path | None = None) -> ImportedRun:
    """Parse the files, then store run, samples, summary and raw files in one transaction;
    ``perf_stat`` is perf stat's human output taken during the run (its counter windows)."""
    parsed = read_run(f)
    warnings = parsed.warnings
    store_perf = None
    if perf_stat is not None:
        from benchdeck.store.importers.perf_files import read_perf_stat, store_perf_stat, warnings_of

        perf = read_perf_stat([perf_stat], parsed.run.started_at, parsed.summary.elapsed_s)
        warnings += tuple(warnings_of(perf, perf_stat.name))

        def store_perf(cur: duckdb.DuckDBPyConnection, ids: list[int]) -> None:
            store_perf_stat(cur, [(ids[0], perf)], "import")

    writer = RunWriter(store, in_transaction=store_perf)
    writer.add(parsed)
    (run_id,) = writer.flush()
    return ImportedRun(
        run_id=run_id,
        qps=parsed.qps,
        skipped=parsed.skipped_count,
        warnings=warnings,
        explain_lines=parsed.explain_lines,
    )
