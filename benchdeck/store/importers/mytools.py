"""Import result trees written by the post author's scripts (mdcallag/mytools).

A tree holds ``x.<build>.<config>.pk<N>/`` folders; each has ``sb.o.<test>.range<R>.pk<N>.dop<D>``
(sysbench output, command line first) with ``sb.vm.*`` (vmstat), ``sb.io.*`` (iostat) and
``sb.met.*`` (the scripts' own per-op table) beside it, and helper outputs: ``sb.prepare.*``
(the load: its command line says the table size) and ``sb.o.myvac`` / ``sb.o.pgvac`` (dated logs).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import tarfile
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import cast

from isal import isal_zlib

from benchdeck.engine.builds import BuildNameError, parse_build_name
from benchdeck.store.importers.folder_dates import folder_dates
from benchdeck.store.importers.identity import content_key, known_keys
from benchdeck.store.importers.mytools_tree import (
    Folder,
    find_packed,
    find_run_dirs,
    folder_devices,
    folder_table_size,
    profile_only,
    read_folder,
    read_packed,
)
from benchdeck.store.importers.perf_files import attach_mytools_perf
from benchdeck.store.importers.read_run import ImportError_, ParsedRun, RunFiles, read_run, run_bytes
from benchdeck.store.importers.writer import RunWriter
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.limits import path_problem

ISAL_ERROR = cast("type[Exception]", isal_zlib.error)  # (isal's stubs declare an instance, not a class)

READ_THREADS = 2
READ_AHEAD = 8  # runs read ahead of the one being stored
TRIM_EVERY = 64  # runs: glibc's free pages given back (see _trim; every 16: ~0.4 CPU-s more on mar25)


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
    already_in: dict[str, int] = field(default_factory=dict)  # folder -> runs already stored
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped_lines: int = 0
    files_with_skipped: int = 0
    explain_lines: int = 0
    lines: int = 0
    imported_per_op: int = 0
    perf_runs: int = 0
    perf_windows: int = 0
    unordered_mtimes: list[str] = field(default_factory=list)  # folders whose mtimes say nothing
    devices_added: int = 0  # runs already stored, given the --device's rows and r/o, rKB/o, wKB/o
    devices: set[str] = field(default_factory=set)  # the devices the iostat files report


def import_mytools_tree(
    store: Store,
    root: Path,
    host: str,
    device: str | None = None,
    progress: Callable[[ImportProgress], None] | None = None,
    table_size: int | None = None,
) -> MytoolsImport:
    """Import every run of every ``x.*`` folder under ``root`` (packed ``x.*.tar.gz`` ones too:
    each one's files are read into memory while its runs are stored), a few runs per transaction.

    A run whose sysbench output is already stored (from any path, or earlier in this tree) is
    counted in ``already``, not stored again; with ``device``, one stored without a device gets
    that device's iostat rows and r/o, rKB/o, wKB/o (``devices_added``). ``table_size`` is used
    for scan steps when neither the run's command line nor the folder's prepare output says it.
    """
    if not root.is_dir():
        raise ImportError_(f"{root}: not a directory")
    dirs, packed = find_run_dirs(root), find_packed(root)
    if not dirs and not packed:
        raise ImportError_(f"{root}: no x.<build>.<config>.pk<N> result folders found")
    result = MytoolsImport()
    folders: list[Folder] = []
    for d in dirs:
        if why := path_problem(d.absolute()):  # e.g. a name that is not UTF-8: say so, go on
            result.failed.append(why)
        else:
            folders.append(read_folder(d))
    total = sum(len(f.runs) for f in folders)
    with store.transaction() as cur:
        known = known_keys(cur)
        no_device = {int(r) for (r,) in cur.execute(_NO_DEVICE_SQL).fetchall()} if device else set()

    def written(batch: list[tuple[int, ParsedRun]]) -> None:
        for _, p in batch:
            result.skipped_lines += p.skipped_count
            result.files_with_skipped += p.skipped_count > 0
            result.imported_per_op += p.summary.per_op_source == "imported"

    writer = RunWriter(store, on_written=written)
    pipe = _Pipeline(result, writer, known, progress, total, no_device)
    result.devices = {d for f in folders for d in folder_devices(f)}
    with _import_settings(store), _fewer_collections():
        pipe.run(_jobs(folders, host, device, table_size))
        packed_runs = 0
        for i, tarball in enumerate(packed, 1):  # one at a time: memory holds one packed folder's files
            inner = _packed(tarball, device is not None, result)
            # the total counts the packed folders read so far and guesses the rest alike: counting
            # first was a second pass through every tarball (~3 of 16 CPU-s on the mar25 tree)
            packed_runs += sum(len(f.runs) for f in inner)
            pipe.total = total + packed_runs + round(packed_runs / i * (len(packed) - i))
            pipe.run(_jobs(inner, host, device, table_size))
            result.devices |= {d for f in inner for d in folder_devices(f)}
            folders += [replace(f, members=None) for f in inner]  # the warnings' facts, not the bytes
            del inner  # before the next one is read: one packed folder's bytes in memory
        writer.flush()
    if store.lake is None:
        store.cursor().execute("CHECKPOINT")
    result.run_ids = writer.run_ids
    perf = attach_mytools_perf(store, host, root)  # sb.perf.hw.* files: store/importers/perf_files.py
    result.perf_runs, result.perf_windows = perf.runs, perf.windows
    result.warnings += perf.warnings
    if progress:
        progress(ImportProgress(pipe.done, pipe.done, "", len(writer.run_ids), result.lines))
    _warn(result, folders, device)
    return result


# DuckDB settings while a tree is written to a store file (a team store has no WAL, and its
# own server): what they were is put back after.
_SETTINGS = {
    # A checkpoint per 64 MB of WAL instead of DuckDB's 16 MB: the blob blocks of the raw files
    # are rewritten less often (a smaller store, less time), and what waits in memory for a
    # checkpoint stays bounded (a much larger threshold held the whole tree in memory).
    "checkpoint_threshold": "64MB",
    # One thread: the inserts are small (16 runs), and DuckDB's worker threads cost more CPU
    # than they save (the same wall time).
    "threads": "1",
    # The written blocks need not stay cached (they are on disk): the limit that lowered the
    # peak memory without costing CPU (lower, blocks are read back).
    "memory_limit": "96MB",
}


@contextlib.contextmanager
def _import_settings(store: Store) -> Iterator[None]:
    if store.lake is not None:
        yield
        return
    before = {k: store.cursor().execute(f"SELECT current_setting('{k}')").fetchone() for k in _SETTINGS}
    for k, v in _SETTINGS.items():
        store.cursor().execute(f"SET {k} = '{v}'")  # the constants above
    try:
        yield
    finally:
        for k, row in before.items():  # as DuckDB printed it ('16.0 MiB')
            store.cursor().execute(f"SET {k} = '{row[0]}'" if row else f"RESET {k}")


_GC_THRESHOLD = (50_000, 50, 50)
_gc_lock = threading.Lock()
_gc_depth = [0]  # imports under way in this process: the last one out puts the collector back
_gc_before: list[tuple[tuple[int, int, int], bool]] = []  # the thresholds, and whether we froze


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """Python's cyclic collector less often while a tree is read: an import makes millions of
    short-lived records (no cycles), and at the default threshold (700) the collector walked
    them ~0.8 of ~14 CPU-s (mar25). What was there before is frozen (never walked meanwhile)
    unless the caller froze its own already; the thresholds (and what was frozen here) are put
    back after."""
    with _gc_lock:
        if _gc_depth[0] == 0:
            froze = gc.get_freeze_count() == 0
            _gc_before.append((gc.get_threshold(), froze))
            if froze:
                gc.freeze()
            gc.set_threshold(*_GC_THRESHOLD)
        _gc_depth[0] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_depth[0] -= 1
            if _gc_depth[0] == 0:
                threshold, froze = _gc_before.pop()
                gc.set_threshold(*threshold)
                if froze:
                    gc.unfreeze()


def _trim() -> None:
    """Give glibc's free heap pages back every few runs: packed members and parsed runs (large
    blocks) freed by other threads leave the heap fragmented (glibc raises its mmap threshold
    after the first large free). A fixed mmap threshold would lower the peak further but slows
    the import (docs/performance.md)."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _packed(tarball: Path, iostat: bool, result: MytoolsImport) -> list[Folder]:
    try:
        return read_packed(tarball, iostat)
    except (OSError, tarfile.TarError, EOFError, ISAL_ERROR) as exc:
        result.failed.append(f"{tarball}: cannot read the packed folder ({exc})")
        return []


@dataclass(frozen=True, slots=True)
class _Job:
    """One run file of the tree, in order: to read (``files``), or failed."""

    label: str
    folder: str
    files: RunFiles | None = None
    failed: str | None = None


def _jobs(folders: list[Folder], host: str, device: str | None, table_size: int | None) -> Iterator[_Job]:
    for f in folders:
        try:
            build = parse_build_name(f.build_name)
        except BuildNameError as exc:
            for i, (_, suffix) in enumerate(f.runs):
                why = f"{f.label}: {exc}" if i == 0 else ""
                yield _Job(f"{f.build_name} {suffix.workload}", f.label, failed=why)
            continue
        size = folder_table_size(f) or table_size
        for (out, suffix), dates in zip(f.runs, folder_dates(f), strict=True):
            label = f"{f.build_name} {suffix.workload} dop{suffix.dop}"
            rest = out.name.removeprefix("sb.o.")
            vm, io, met = (f.path / f"sb.{k}.{rest}" for k in ("vm", "io", "met"))
            has = {p: f.has(p.name) for p in (vm, io, met)}
            use_io = has[io] and device is not None
            files = RunFiles(
                host=host,
                build=build,
                workload=suffix.workload,
                sysbench=out,
                config=f.config,
                vmstat=vm if has[vm] else None,
                iostat=io if use_io else None,
                device=device if use_io else None,
                threads=suffix.dop,
                source="mytools",
                met=met if has[met] else None,
                table_size=size,
                source_path=f"{f.label}/{out.name}" if f.label != str(f.path) else None,
                members=f.members,
                leave_out_unreadable=True,
            )
            yield _Job(label, f.label, dates.on(files))


_ALREADY = "already"


def _read(files: RunFiles, known: dict[str, int], no_device: set[int]) -> ParsedRun | str:
    """The run parsed, or why not; :data:`_ALREADY` when its output is stored already (only
    its sysbench file read: a stored run costs a hash, not a parse), unless it is stored
    without a device (``no_device``) and has the iostat file of the device given."""
    key = None
    try:
        key = content_key(run_bytes(files, files.sysbench))
        if key in known and (files.iostat is None or known[key] not in no_device):
            return _ALREADY
    except ImportError_:
        pass  # read_run says why, in one line
    try:
        return read_run(files, key)
    except ImportError_ as exc:
        return str(exc)


_NO_DEVICE_SQL = """
SELECT r.run_id FROM runs r JOIN run_summary s USING (run_id)
WHERE r.device IS NULL AND s.r_o IS NULL AND r.source <> 'run'
"""


class _Pipeline:
    """Read runs a few files ahead on a second thread (file reads, zstd and DuckDB release the
    GIL), store them in order; shared by the tree's folders and each packed one."""

    def __init__(
        self,
        result: MytoolsImport,
        writer: RunWriter,
        known: dict[str, int],
        progress: Callable[[ImportProgress], None] | None,
        total: int,
        no_device: set[int],
    ):
        self.result, self.writer, self.known = result, writer, known
        self.no_device = no_device  # stored runs that a read with --device gives device rows to
        self.progress, self.total, self.done = progress, total, 0

    def run(self, jobs: Iterable[_Job]) -> None:
        ahead: deque[tuple[_Job, Future[ParsedRun | str] | None]] = deque()
        with ThreadPoolExecutor(max_workers=READ_THREADS) as pool:
            for job in chain(jobs, [None]):
                if job is not None:
                    fut = pool.submit(_read, job.files, self.known, self.no_device) if job.files else None
                    ahead.append((job, fut))
                    if len(ahead) < READ_AHEAD:
                        continue
                while ahead and (job is None or len(ahead) >= READ_AHEAD):
                    head, fut = ahead.popleft()
                    self._take(head, fut.result() if fut is not None else None)

    def _fill(self, run: ParsedRun) -> None:
        """A stored run read again for the device given: its device rows added, once."""
        self.result.failed += run.left_out
        run_id = self.known[run.run.content_key or ""]
        if run.iostat and run_id in self.no_device:
            self.no_device.discard(run_id)
            self.writer.fill(run_id, run)
            self.result.devices_added += 1

    def _take(self, job: _Job, outcome: ParsedRun | str | None) -> None:
        result = self.result
        self.done += 1
        if self.done % TRIM_EVERY == 0:
            _trim()
        if job.failed is not None:  # one line per folder whose build name is unknown
            if job.failed:
                result.failed.append(job.failed)
        elif outcome == _ALREADY or (
            isinstance(outcome, ParsedRun) and outcome.run.content_key in self.known
        ):  # stored before, or a copy of a run earlier in this tree
            result.already += 1
            result.already_in[job.folder] = result.already_in.get(job.folder, 0) + 1
            if isinstance(outcome, ParsedRun):
                self._fill(outcome)
        elif isinstance(outcome, str):
            result.failed.append(outcome)
        elif outcome is not None:
            undated = outcome.dated_from == "undated" and job.files and not job.files.mtime_evidence
            if undated and job.folder not in result.unordered_mtimes:
                result.unordered_mtimes.append(job.folder)  # said once, for the folders it cost a date
            result.failed += outcome.left_out  # a file the run is stored without: "skipped:"
            result.lines += outcome.lines
            result.explain_lines += outcome.explain_lines
            if outcome.run.content_key:
                self.known[outcome.run.content_key] = -1  # stored with this batch
            self.writer.add(outcome)
        if self.progress:
            self.progress(
                ImportProgress(self.done, self.total, job.label, len(self.writer.run_ids), result.lines)
            )


def _warn(result: MytoolsImport, folders: list[Folder], device: str | None) -> None:
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
    if device is None and any(f.has_io for f in folders):
        seen = f" (devices in them: {', '.join(sorted(result.devices))})" if result.devices else ""
        result.warnings.append(
            f"iostat files found but not used{seen}: give --device to get r/o, rKB/o, wKB/o "
            "(an import again with --device adds them to the runs already stored)"
        )
    if result.already:
        where = max(result.already_in.items(), key=lambda kv: kv[1])
        result.warnings.append(
            f"{result.already} run(s) skipped as already stored (the same sysbench output, from "
            f"any path) in {len(result.already_in)} folder(s), e.g. {where[0]} ({where[1]})"
        )
    result.warnings += profile_only(folders)
    if n := len(result.unordered_mtimes):
        result.warnings.append(
            f"{n} folder(s) whose run files' mtimes are not when they ran (one mtime, or closer "
            f"together than the runs last: a copy or checkout), e.g. {result.unordered_mtimes[0]}: "
            "their runs with no "
            "timestamp, date line or vacuum log are stored undated, not dated by mtime"
        )
