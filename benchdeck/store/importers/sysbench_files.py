"""Import one sysbench run from files: its output, and optionally vmstat, iostat and sb.met output."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from benchdeck.store.importers.folder_dates import file_dates
from benchdeck.store.importers.identity import content_key, known_keys
from benchdeck.store.importers.read_run import ImportError_, RunFiles, read_bytes, read_run
from benchdeck.store.importers.writer import RunWriter
from benchdeck.store.storage.db import Store

__all__ = ["ImportError_", "ImportedRun", "RunFiles", "import_run_files"]


@dataclass(frozen=True, slots=True)
class ImportedRun:
    run_id: int
    qps: float
    skipped: int
    warnings: tuple[str, ...] = field(default=())
    explain_lines: int = 0
    already: bool = False
    """The same sysbench output was stored before (``run_id`` is that run): nothing added."""


def import_run_files(store: Store, f: RunFiles, perf_stat: Path | None = None) -> ImportedRun:
    """Parse the files, then store run, samples, summary and raw files in one transaction;
    ``perf_stat`` is perf stat's human output taken during the run (its counter windows).

    A file already stored (by ``import mytools`` or an earlier import, from any path) is
    recognised by its content and not stored again; a file of a mytools folder is dated as
    ``import mytools`` dates it (its sb.ps clock, its mtime when that is evidence, the suite's
    order around the folder's vacuum log) when it holds no timestamps itself.
    """
    key = content_key(read_bytes(f.sysbench))
    with store.transaction() as cur:
        known = known_keys(cur)
    if key in known:
        return ImportedRun(run_id=known[key], qps=float("nan"), skipped=0, already=True)
    if f.dated is None and (dates := file_dates(f.sysbench)) is not None:
        f = dates.on(f)
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
