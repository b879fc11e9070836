"""Import one sysbench run from files: its output, and optionally vmstat, iostat and sb.met output."""

from __future__ import annotations

from dataclasses import dataclass, field

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


def import_run_files(store: Store, f: RunFiles) -> ImportedRun:
    """Parse the files, then store run, samples, summary and raw files in one transaction."""
    parsed = read_run(f)
    writer = RunWriter(store)
    writer.add(parsed)
    (run_id,) = writer.flush()
    return ImportedRun(
        run_id=run_id,
        qps=parsed.qps,
        skipped=parsed.skipped_count,
        warnings=parsed.warnings,
        explain_lines=parsed.explain_lines,
    )
