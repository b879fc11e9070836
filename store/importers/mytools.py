"""Import result trees written by the post author's scripts (mdcallag/mytools).

A tree holds ``x.<build>.<config>.pk<N>/`` folders; each has ``sb.o.<test>.range<R>.pk<N>.dop<D>``
(sysbench output, command line first) with ``sb.vm.*`` (vmstat), ``sb.io.*`` (iostat) and
``sb.met.*`` (the scripts' own per-op table) beside it, and helper outputs: ``sb.prepare.*``
(the load: its command line says the table size) and ``sb.o.myvac`` / ``sb.o.pgvac`` (dated logs).
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from pathlib import Path

from benchdeck.engine.builds import BuildNameError, parse_build_name
from benchdeck.engine.catalogue import ResultSuffix, parse_mytools_suffix
from benchdeck.engine.parsers import parse_command
from benchdeck.store.db import Store
from benchdeck.store.importers.dating import parse_stamp
from benchdeck.store.importers.perf_files import attach_mytools_perf
from benchdeck.store.importers.read_run import ImportError_, ParsedRun, RunFiles, read_run
from benchdeck.store.importers.writer import RunWriter
from benchdeck.store.limits import path_problem

_RUN_DIR = re.compile(r"^x\.(?P<build>[^.]+)\.(?P<config>[^/]+?)\.pk(?P<pk>\d+)$")
_ROCKS_DIR = re.compile(r"^x\.(?P<build>\d+\.\d+\.\d+)\.(?P<config>[^/]+?)\.pk(?P<pk>\d+)$")
_INSERTING = re.compile(r"(?a)Inserting (\d+) records into")
_HEAD = 4096  # bytes of a helper file read for its command line or date
READ_THREADS = 2
READ_AHEAD = 8  # runs read ahead of the one being stored


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """Where an import is: ``done`` of ``total`` run files handled, the last one's label."""

    done: int
    total: int
    label: str
    imported: int
    lines: int


@dataclass
class MytoolsImport:
    """What an import of a tree did: new runs, runs already present, files it could not use."""

    run_ids: list[int] = field(default_factory=list)
    already: int = 0
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped_lines: int = 0
    files_with_skipped: int = 0
    explain_lines: int = 0
    lines: int = 0
    imported_per_op: int = 0
    perf_runs: int = 0
    perf_windows: int = 0


@dataclass(frozen=True, slots=True)
class _Folder:
    path: Path
    build_name: str
    config: str
    runs: tuple[tuple[Path, ResultSuffix], ...]
    met_only: int  # sb.met files without their sb.o


def split_run_dir(name: str) -> tuple[str, str] | None:
    """``x.my8028_rel_o2nofp.z11a_c32r128.pk1`` -> ``("my8028_rel_o2nofp", "z11a_c32r128")``."""
    m = _ROCKS_DIR.match(name) or _RUN_DIR.match(name)
    return (m.group("build"), m.group("config")) if m else None


def find_run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("x.*") if p.is_dir() and split_run_dir(p.name))


def _folder(d: Path) -> _Folder:
    parts = split_run_dir(d.name)
    assert parts is not None
    runs: list[tuple[Path, ResultSuffix]] = []
    outs: set[str] = set()
    mets: list[str] = []
    for p in sorted(d.iterdir()):
        name = p.name
        if name.startswith("sb.met."):
            mets.append(name.removeprefix("sb.met."))
        if not name.startswith("sb.o."):
            continue
        suffix = parse_mytools_suffix(name.removeprefix("sb.o."))
        if suffix is None or suffix.dop is None:
            continue  # sb.o.myvac*, prepare steps and other helper outputs
        runs.append((p, suffix))
        outs.add(name.removeprefix("sb.o."))
    met_only = sum(1 for m in mets if m not in outs and (s := parse_mytools_suffix(m)) and s.dop)
    return _Folder(d, parts[0], parts[1], tuple(runs), met_only)


def _head(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return ""


def folder_table_size(d: Path) -> int | None:
    """Rows per table from the folder's prepare output (``sb.prepare.*``): its sysbench command
    line (``--table-size=N``), else sysbench's ``Inserting N records into`` line."""
    for p in sorted(d.glob("sb.prepare.*")):
        if p.name.startswith("sb.prepare.met."):
            continue
        text = _head(p)
        for line in text.splitlines():
            if (cmd := parse_command(line)) and (n := cmd[1].get("table-size", "")).isdigit():
                return int(n)
        if m := _INSERTING.search(text):
            return int(m.group(1))
    return None


def folder_date(d: Path) -> tuple[datetime, str] | None:
    """The earliest date the folder's helper logs print on an "... at <date>" line
    (``vac_my starts at Fri Nov 21 04:38:01 AM UTC 2025``, ``Run for nt 8 at ...``); other
    dates in them (server variables, monitor output) say nothing about when the runs ran."""
    found: list[tuple[datetime, str]] = []
    for p in d.iterdir():
        name = p.name
        helper = name.startswith("sb.prepare.") and not name.startswith("sb.prepare.met.")
        helper |= name.startswith("sb.o.") and parse_mytools_suffix(name.removeprefix("sb.o.")) is None
        if not helper:
            continue
        for line in _head(p).splitlines():
            if " at " in line and (t := parse_stamp(line.split(" at ", 1)[1])):
                found.append((t, name))
                break
    return min(found) if found else None


def import_mytools_tree(
    store: Store,
    root: Path,
    host: str,
    device: str | None = None,
    progress: Callable[[ImportProgress], None] | None = None,
    table_size: int | None = None,
) -> MytoolsImport:
    """Import every run of every ``x.*`` folder under ``root``, many runs per transaction.

    ``table_size`` is used for scan steps when neither the run's command line nor the folder's
    prepare output says it.
    """
    if not root.is_dir():
        raise ImportError_(f"{root}: not a directory")
    dirs = find_run_dirs(root)
    if not dirs:
        raise ImportError_(f"{root}: no x.<build>.<config>.pk<N> result folders found")
    result = MytoolsImport()
    folders: list[_Folder] = []
    for d in dirs:
        if why := path_problem(d.absolute()):  # e.g. a name that is not UTF-8: say so, go on
            result.failed.append(why)
        else:
            folders.append(_folder(d))
    total = sum(len(f.runs) for f in folders)
    known = _imported_paths(store, host)

    def written(batch: list[tuple[int, ParsedRun]]) -> None:
        for _, p in batch:
            result.skipped_lines += p.skipped_count
            result.files_with_skipped += p.skipped_count > 0
            result.imported_per_op += p.summary.per_op_source == "imported"

    writer = RunWriter(store, on_written=written)
    # One checkpoint at the end instead of one per 16 MB of WAL: the blob blocks of the raw
    # files are then written once (~10% smaller store, less time). A team store has no WAL.
    file = store.lake is None
    if file:
        store.cursor().execute("SET checkpoint_threshold = '1GB'")
    try:
        _import_folders(_jobs(folders, known, host, device, table_size), result, writer, progress, total)
    finally:
        if file:
            store.cursor().execute("RESET checkpoint_threshold")
    writer.flush()
    if file:
        store.cursor().execute("CHECKPOINT")
    result.run_ids = writer.run_ids
    perf = attach_mytools_perf(store, host, root)  # sb.perf.hw.* files: store/importers/perf_files.py
    result.perf_runs, result.perf_windows = perf.runs, perf.windows
    result.warnings += perf.warnings
    if progress:
        progress(ImportProgress(total, total, "", len(writer.run_ids), result.lines))
    _warn(result, folders, device)
    return result


@dataclass(frozen=True, slots=True)
class _Job:
    """One run file of the tree, in order: to read (``files``), already stored, or failed."""

    label: str
    files: RunFiles | None = None
    failed: str | None = None


def _jobs(
    folders: list[_Folder], known: set[str], host: str, device: str | None, table_size: int | None
) -> Iterator[_Job]:
    for f in folders:
        try:
            build = parse_build_name(f.build_name)
        except BuildNameError as exc:
            for i, (_, suffix) in enumerate(f.runs):
                yield _Job(f"{f.build_name} {suffix.workload}", failed=f"{f.path}: {exc}" if i == 0 else "")
            continue
        size = folder_table_size(f.path) or table_size
        dated = folder_date(f.path)
        for out, suffix in f.runs:
            label = f"{f.build_name} {suffix.workload} dop{suffix.dop}"
            if str(out.resolve()) in known:
                yield _Job(label)
                continue
            rest = out.name.removeprefix("sb.o.")
            vm, io, met = (f.path / f"sb.{k}.{rest}" for k in ("vm", "io", "met"))
            use_io = io.is_file() and device is not None
            yield _Job(
                label,
                RunFiles(
                    host=host,
                    build=build,
                    workload=suffix.workload,
                    sysbench=out,
                    config=f.config,
                    vmstat=vm if vm.is_file() else None,
                    iostat=io if use_io else None,
                    device=device if use_io else None,
                    threads=suffix.dop,
                    source="mytools",
                    met=met if met.is_file() else None,
                    table_size=size,
                    dated=dated[0] if dated else None,
                    dated_source=f"folder {dated[1]}" if dated else "",
                ),
            )


def _read(files: RunFiles) -> ParsedRun | str:
    try:
        return read_run(files)
    except ImportError_ as exc:
        return str(exc)


def _import_folders(
    jobs: Iterator[_Job],
    result: MytoolsImport,
    writer: RunWriter,
    progress: Callable[[ImportProgress], None] | None,
    total: int,
) -> None:
    """Read runs a few files ahead on a second thread (file reads, zstd and DuckDB release the
    GIL), store them in order."""
    done = 0
    ahead: deque[tuple[_Job, Future[ParsedRun | str] | None]] = deque()
    with ThreadPoolExecutor(max_workers=READ_THREADS) as pool:
        for job in chain(jobs, [None]):
            if job is not None:
                ahead.append((job, pool.submit(_read, job.files) if job.files else None))
                if len(ahead) < READ_AHEAD:
                    continue
            while ahead and (job is None or len(ahead) >= READ_AHEAD):
                head, fut = ahead.popleft()
                done += 1
                outcome = fut.result() if fut is not None else None
                if head.failed is not None:  # one line per folder whose build name is unknown
                    if head.failed:
                        result.failed.append(head.failed)
                elif head.files is None:
                    result.already += 1
                elif isinstance(outcome, str):
                    result.failed.append(outcome)
                elif outcome is not None:
                    result.lines += outcome.lines
                    result.explain_lines += outcome.explain_lines
                    writer.add(outcome)
                if progress:
                    progress(ImportProgress(done, total, head.label, len(writer.run_ids), result.lines))


def _warn(result: MytoolsImport, folders: list[_Folder], device: str | None) -> None:
    if result.skipped_lines:
        result.warnings.append(
            f"{result.skipped_lines} unparsed line(s) in {result.files_with_skipped} file(s) "
            "kept in the store (skipped_lines)"
        )
    met_only = [f for f in folders if f.met_only]
    if met_only:
        n = sum(f.met_only for f in met_only)
        result.warnings.append(
            f"{n} sb.met file(s) without their sb.o output (e.g. in {met_only[0].path.name}) "
            "not imported: no sysbench output, no QPS"
        )
    if device is None and any(next(f.path.glob("sb.io.*"), None) for f in folders):
        result.warnings.append("iostat files found but not used: give --device to get r/o, rKB/o, wKB/o")


def _imported_paths(store: Store, host: str) -> set[str]:
    with store.reading() as cur:
        rows = cur.execute(
            "SELECT r.source_path FROM runs r JOIN hosts h ON h.host_id = r.host_id "
            "WHERE h.name = ? AND r.source_path IS NOT NULL",
            [host],
        ).fetchall()
    return {r[0] for r in rows}
