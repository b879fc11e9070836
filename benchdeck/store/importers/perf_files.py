"""perf stat files beside imported runs: the mytools ``sb.perf.hw.<step>.<n>`` files of a tree,
and ``import sysbench --perf-stat FILE``, stored as counter windows of their run.

The author's run script writes round ``<n>`` of its perf stat loop to ``sb.perf.hw.<step>.<n>``
(seven 10-second windows, one event group each; ``<step>`` is the ``sb.o.<step>.dop<D>`` name
without its dop) and, after the run, ``.raw`` and ``.sorted`` copies of the same numbers
(``grep_perfstat.sh``): those are ignored, the human output has everything they have. Windows
are numbered across the rounds in order (round 1's first window is 1). A window is placed on the
run's clock (``start_s``) from its ``# started on`` line when the run has a start time and the
result falls inside the run; else it stays None and its queries come from the run's QPS
(store/analysis/counters_per_op.py). The files themselves are kept in ``raw_files`` (kind ``perf_stat``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

from benchdeck.engine.profiling.perf_stat_text import parse_perf_stat_text
from benchdeck.engine.profiling.records import CounterWindow
from benchdeck.store.importers.read_run import ImportError_
from benchdeck.store.storage import bulk
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.raw import compress

RAW_KIND = "perf_stat"
_DOP = re.compile(r"\.dop\d+$")


@dataclass(frozen=True, slots=True)
class PerfStatRead:
    """The windows of one run's perf stat files, and what could not be used."""

    windows: tuple[CounterWindow, ...]
    files: tuple[tuple[str, bytes], ...]
    skipped_lines: int = 0
    incomplete: int = 0


@dataclass
class PerfImport:
    """What attaching perf files to runs did."""

    runs: int = 0
    windows: int = 0
    warnings: list[str] = field(default_factory=list)


def round_files(sb_o: Path, listing: dict[Path, list[str]] | None = None) -> list[Path]:
    """``sb.perf.hw.<step>.<n>`` beside ``sb.o.<step>.dop<D>``, by round ``n`` (not ``.raw``/
    ``.sorted``). ``listing`` keeps each folder's perf file names: a folder is listed once, not
    once per run (the author's folders hold thousands of files)."""
    listing = {} if listing is None else listing
    folder = sb_o.parent
    if folder not in listing:
        try:
            listing[folder] = [n for n in os.listdir(folder) if n.startswith("sb.perf.hw.")]
        except OSError:
            listing[folder] = []
    prefix = f"sb.perf.hw.{_DOP.sub('', sb_o.name.removeprefix('sb.o.'))}."
    found: list[tuple[int, Path]] = []
    for name in listing[folder]:
        n = name.removeprefix(prefix)
        if name.startswith(prefix) and n.isdigit():  # "1.raw", "1.sorted": his derived copies
            found.append((int(n), folder / name))
    return [p for _, p in sorted(found)]


def read_perf_stat(
    paths: Sequence[Path], started_at: datetime | None = None, elapsed_s: float | None = None
) -> PerfStatRead:
    """Every window of ``paths`` in order, numbered from 1, placed on the run's clock when it
    can be (see the module's docstring); raises :class:`ImportError_` for an unreadable file or
    one with no window at all."""
    windows: list[CounterWindow] = []
    files: list[tuple[str, bytes]] = []
    skipped = incomplete = 0
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ImportError_(f"{path}: cannot read: {exc.strerror or exc}") from None
        got = parse_perf_stat_text(data.decode("utf-8", errors="replace"), first_window=len(windows) + 1)
        for w, when in zip(got.windows, got.started, strict=True):
            windows.append(_placed(w, when, started_at, elapsed_s))
        files.append((path.name, data))
        skipped += len(got.skipped)
        incomplete += got.incomplete
    if not windows:
        raise ImportError_(
            f"{paths[-1]}: no perf stat window in it "
            "(perf stat's own output expected, as `perf stat -o FILE` writes it)"
        )
    return PerfStatRead(tuple(windows), tuple(files), skipped, incomplete)


def _placed(
    w: CounterWindow, when: datetime | None, started_at: datetime | None, elapsed_s: float | None
) -> CounterWindow:
    if when is None or started_at is None:
        return w
    start = (when - started_at).total_seconds()
    if start < 0 or (elapsed_s is not None and start + w.seconds > elapsed_s + 1):
        return w  # not on this run's clock (another time zone, a date from the file's mtime)
    return CounterWindow(w.window, w.seconds, w.readings, start, w.target)


def save_counter_windows(
    cur: duckdb.DuckDBPyConnection, run_id: int, windows: Sequence[CounterWindow], source: str
) -> None:
    """Insert ``windows`` of ``run_id`` into counter_windows / counter_values (migration 12)."""
    _save_windows(cur, [(run_id, w) for w in windows], source)


def _save_windows(
    cur: duckdb.DuckDBPyConnection, windows: Sequence[tuple[int, CounterWindow]], source: str
) -> None:
    values = [(run_id, w.window, r) for run_id, w in windows for r in w.readings]
    bulk.insert_columns(
        cur,
        "counter_windows",
        {
            "run_id": ("BIGINT", [run_id for run_id, _ in windows]),
            "window_no": ("INTEGER", [w.window for _, w in windows]),
            "start_s": ("DOUBLE", [w.start_s for _, w in windows]),
            "seconds": ("DOUBLE", [w.seconds for _, w in windows]),
            "target": ("VARCHAR", [w.target for _, w in windows]),
            "source": ("VARCHAR", [source] * len(windows)),
        },
    )
    bulk.insert_columns(
        cur,
        "counter_values",
        {
            "run_id": ("BIGINT", [run_id for run_id, _, _ in values]),
            "window_no": ("INTEGER", [n for _, n, _ in values]),
            "event": ("VARCHAR", [r.event for _, _, r in values]),
            "value": ("DOUBLE", [r.value for _, _, r in values]),
            "unit": ("VARCHAR", [r.unit for _, _, r in values]),
            "running_pct": ("DOUBLE", [r.running_pct for _, _, r in values]),
            "status": ("VARCHAR", [r.status for _, _, r in values]),
        },
    )


def store_perf_stat(
    cur: duckdb.DuckDBPyConnection, reads: Sequence[tuple[int, PerfStatRead]], source: str
) -> None:
    """Runs' windows and the files they came from (raw_files, kind ``perf_stat``), one insert
    per table for all of them (an ``INSERT`` per file made a tree's attach slow)."""
    _save_windows(cur, [(run_id, w) for run_id, read in reads for w in read.windows], source)
    files = [(run_id, name, data) for run_id, read in reads for name, data in read.files]
    bulk.insert_columns(
        cur,
        "raw_files",
        {
            "run_id": ("BIGINT", [run_id for run_id, _, _ in files]),
            "kind": ("VARCHAR", [RAW_KIND] * len(files)),
            "name": ("VARCHAR", [name for _, name, _ in files]),
            "codec": ("VARCHAR", ["zstd"] * len(files)),
            "size": ("BIGINT", [len(data) for _, _, data in files]),
            "data": ("BLOB", [compress(data) for _, _, data in files]),
        },
    )


def warnings_of(read: PerfStatRead, where: str) -> list[str]:
    out = []
    if read.incomplete:
        out.append(f"{read.incomplete} perf stat window(s) cut off before their end in {where}: not stored")
    if read.skipped_lines:
        out.append(
            f"{read.skipped_lines} line(s) of perf stat output not understood in {where}: kept in raw_files"
        )
    return out


_RUNS_SQL = """
SELECT r.run_id, r.source_path, r.started_at, s.elapsed_s
FROM runs r JOIN hosts h ON h.host_id = r.host_id LEFT JOIN run_summary s ON s.run_id = r.run_id
WHERE h.name = $host AND r.source = 'mytools' AND starts_with(r.source_path, $root)
  AND NOT EXISTS (SELECT 1 FROM counter_windows c WHERE c.run_id = r.run_id)
ORDER BY r.run_id
"""


def attach_mytools_perf(store: Store, host: str, root: Path) -> PerfImport:
    """Store the ``sb.perf.hw.*`` files of every run of ``root`` on ``host`` that has no counter
    windows yet (so a tree imported before, or an import stopped half way, gets them too), all
    in one transaction."""
    result = PerfImport()
    prefix = str(root.resolve()).rstrip("/") + "/"
    with store.reading() as cur:
        runs = cur.execute(_RUNS_SQL, {"host": host, "root": prefix}).fetchall()
    found: list[tuple[int, PerfStatRead]] = []
    listing: dict[Path, list[str]] = {}
    for run_id, source_path, started_at, elapsed_s in runs:
        paths = round_files(Path(source_path), listing)
        if not paths:
            continue
        try:
            read = read_perf_stat(paths, started_at, elapsed_s)
        except ImportError_ as exc:
            result.warnings.append(str(exc))
            continue
        result.warnings += warnings_of(read, paths[0].parent.name + "/" + paths[0].name.rsplit(".", 1)[0])
        if read.windows:
            found.append((int(run_id), read))
    if found:
        with store.transaction() as cur:
            store_perf_stat(cur, found, "mytools")
    result.runs = len(found)
    result.windows = sum(len(r.windows) for _, r in found)
    return result
