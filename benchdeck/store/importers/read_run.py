"""Read one run's files (sysbench output, vmstat, iostat, mytools sb.met) into a :class:`ParsedRun`.

Pure reading and parsing, no store: the result is written by :class:`~store.importers.writer.
RunWriter`, many runs per transaction. The files themselves travel along zstd-compressed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path

from benchdeck.engine.builds import Build
from benchdeck.engine.metrics import PerOp, is_scan, per_op, run_qps
from benchdeck.engine.parsers.explain import LINE, ZONE_END, ZONE_START, find_explain
from benchdeck.engine.parsers.mytools_met import MetTable, parse_met, split_met_tail
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, SysbenchSummary, VmstatSample
from benchdeck.store.importers.checked import Checked
from benchdeck.store.importers.dating import Dated, date_line, from_end, from_mtime, from_start, parse_stamp
from benchdeck.store.importers.identity import content_key
from benchdeck.store.storage.db import StoreError
from benchdeck.store.storage.limits import INT32_MAX, INT64_MAX, fit_int, int_problem, path_problem
from benchdeck.store.storage.raw import compress, decompress
from benchdeck.store.storage.runs import NewRun, RunSummary

_NCPU = re.compile(r"(?am)^\s*(\d+) CPUs?\s*$")
_IOSTAT_NCPU = re.compile(r"\((\d+) CPU\)")


class ImportError_(StoreError):
    """A file that cannot be imported, with the reason; nothing was written."""


@dataclass(frozen=True, slots=True)
class Members:
    """A packed folder's files read from its tarball into memory, by name (no temporary folder:
    writing the files out cost more CPU than parsing them), and their mtimes."""

    data: dict[str, bytes]
    mtimes: Mapping[str, float]
    zstd: dict[str, bytes] = field(default_factory=dict)
    """Members held compressed as the store keeps raw files (iostat files are most of a packed
    folder; held plain, they took the import's peak memory past its target)."""

    not_files: Mapping[str, str] = field(default_factory=dict)
    """Members that are not regular files (a link ...), by name: what each is; never read."""

    def has(self, name: str) -> bool:
        return name in self.data or name in self.zstd or name in self.not_files

    def get(self, name: str) -> bytes | None:
        if (plain := self.data.get(name)) is not None:
            return plain
        return decompress("zstd", z) if (z := self.zstd.get(name)) is not None else None

    def take(self, name: str) -> bytes | None:
        """Give a member up once its run has read it (memory shrinks as the runs are read); its
        compressed bytes if it was held so (the raw file's, not compressed again)."""
        self.data.pop(name, None)
        return self.zstd.pop(name, None)


@dataclass(frozen=True, slots=True)
class RunFiles:
    """The files of one run and what the user says about it.

    ``met`` is a mytools ``sb.met.*`` file: the author's own per-op figures, used when there
    is no vmstat/iostat output. ``table_size`` (rows per table) makes a scan step's QPS
    (rows/s) when the sysbench command line does not say it. ``dated`` is when the run ran as
    the caller worked it out, used when the files hold no date (and their mtimes are no evidence).
    """

    host: str
    build: Build
    workload: str
    sysbench: Path
    config: str = ""
    vmstat: Path | None = None
    iostat: Path | None = None
    device: str | None = None
    threads: int | None = None
    source: str = "import"
    met: Path | None = None
    table_size: int | None = None
    dated: datetime | None = None
    dated_source: str = ""
    clock: datetime | None = None
    clock_source: str = ""
    """When the run started by a clock read beside its output (a mytools folder's ``sb.ps``
    starts with a ``date`` line): ranked with the files' own timestamps, before ``dated``."""
    source_path: str | None = None
    """Where the output was read, when not ``sysbench`` itself (a packed folder's member)."""
    members: Members | None = None
    """The files' bytes when they are a packed folder's members (the paths name them)."""
    mtime_evidence: bool = True
    leave_out_unreadable: bool = False
    """A vmstat/iostat/sb.met file that cannot be read (a link loop, a folder) is left out
    with a line (``ParsedRun.left_out``), not the whole run (a tree's files, not the user's)."""
    """False: the output's mtime says nothing of when it ran (its folder's files share one)."""


@dataclass(frozen=True, slots=True)
class RawBlob:
    """A raw file, compressed, ready for ``raw_files``."""

    kind: str
    name: str
    size: int
    data: bytes


@dataclass(frozen=True, slots=True)
class ParsedRun:
    """Everything one run's files say, ready to be written."""

    run: NewRun
    summary: RunSummary
    finished_at: datetime | None
    dated_from: str
    intervals: tuple[BenchInterval, ...]
    vmstat: Sequence[VmstatSample]  # a RecordColumns when the parser read the rows as columns
    iostat: Sequence[IostatSample]
    skipped: tuple[tuple[str, tuple[SkippedLine, ...]], ...]
    raw: tuple[RawBlob, ...]
    lines: int
    explain_lines: int
    ncpu: int | None = None
    warnings: tuple[str, ...] = field(default=())
    left_out: tuple[str, ...] = field(default=())
    """The run's vmstat/iostat/sb.met files that could not be read, each with its reason
    (``RunFiles.leave_out_unreadable``): the run is stored without them."""

    @property
    def qps(self) -> float:
        assert self.summary.qps is not None
        return self.summary.qps

    @property
    def skipped_count(self) -> int:
        return sum(len(rows) for _, rows in self.skipped)


def read_bytes(path: Path) -> bytes:
    """A file's bytes, or :class:`ImportError_` with a one-line reason."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise ImportError_(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ImportError_(f"{path}: is a directory, not a file") from None
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror})") from None


def run_bytes(f: RunFiles, path: Path) -> bytes:
    """One of the run's files: a packed folder's member, else the file on disk."""
    if f.members is None:
        return read_bytes(path)
    if (data := f.members.get(path.name)) is None:
        raise ImportError_(f"{path}: {f.members.not_files.get(path.name, 'no such member')}")
    return data


def _extra(f: RunFiles, path: Path | None, left_out: list[str]) -> bytes | None:
    """A vmstat/iostat/sb.met file of the run; None (and why in ``left_out``) when it cannot be
    read and the caller would have the run without it."""
    if path is None:
        return None
    try:
        return run_bytes(f, path)
    except ImportError_ as exc:
        if not f.leave_out_unreadable:
            raise
        left_out.append(f"{exc}: run {f.sysbench.name} stored without it")
        return None


def _resolved(path: Path) -> str:
    """The absolute path, links resolved where they can be (a link loop: as given)."""
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):  # RuntimeError: "Symlink loop from ..." (Python 3.11)
        return str(path.absolute())


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def _int(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def _head_lines(text: str, n: int = 5) -> list[str]:
    """The first ``n`` lines, however long they are (a 1 MB password on the command line)."""
    lines: list[str] = []
    pos = 0
    while len(lines) < n and pos <= len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        lines.append(text[pos:end])
        pos = end + 1
    return lines


def _ncpu(sb_text: str, io_text: str) -> int | None:
    for line in _head_lines(sb_text):
        if m := _NCPU.search(line):
            return int(m.group(1))
    for line in _head_lines(io_text):
        if m := _IOSTAT_NCPU.search(line):
            return int(m.group(1))
    return None


@dataclass(frozen=True, slots=True)
class _SysbenchText:
    lines: list[str]
    explain: int
    gap_after: int  # lines fed before the EXPLAIN block (its own lines are not fed)
    total: int  # lines of the text, EXPLAIN output included


def _sysbench_lines(body: str) -> _SysbenchText:
    """The lines for the sysbench parser, without the scripts' EXPLAIN output."""
    span = find_explain(body)
    if span is not None:
        lines = body[: span.start].splitlines() + body[span.end :].splitlines()
        return _SysbenchText(lines, span.count, span.first, len(lines) + span.count)
    lines = body.splitlines()
    try:  # something else inside the start-up zone: take the EXPLAIN lines one by one
        a = lines.index(ZONE_START)
        b = lines.index(ZONE_END, a)
    except ValueError:
        return _SysbenchText(lines, 0, len(lines), len(lines))
    if not any(line.startswith(("explain: for ", "table ")) for line in lines[a:b]):
        return _SysbenchText(lines, 0, len(lines), len(lines))
    n = 0
    for i in range(a + 1, b):
        if LINE.fullmatch(lines[i]):
            lines[i] = ""  # read as a blank line: numbering stays right
            n += 1
    return _SysbenchText(lines, n, len(lines), len(lines))


def _renumber(rows: tuple[SkippedLine, ...], after: int, by: int) -> tuple[SkippedLine, ...]:
    if not by:
        return rows
    return tuple(replace(r, lineno=r.lineno + by) if r.lineno > after else r for r in rows)


def _scan_error(f: RunFiles) -> ImportError_:
    return ImportError_(
        f"{f.sysbench}: scan step {f.workload}: its QPS is rows/s (table rows / average latency) "
        "and the table size is unknown: give --table-size N (rows per table)"
    )


def _dated(
    f: RunFiles,
    sb_text: str,
    vm: Sequence[VmstatSample],
    io: Sequence[IostatSample],
    elapsed: float | None,
) -> tuple[Dated, int | None]:
    """When the run ran, and the number of the sysbench output's line that said so (if one
    did). The run's own clocks first: the first vmstat/iostat timestamp, the clock the caller
    read beside it (a mytools folder's ``sb.ps``), a date line in the sysbench output (``Done
    at <date>``: its end), the output file's mtime when it is evidence (a copy's is not); then
    the date the caller worked out (the suite's order around a folder's vacuum log); else
    undated (NULL, as when even the mtime is out of range: a fuzzed file)."""
    for source, stamp in (
        ("vmstat", vm[0].timestamp if vm else None),
        ("iostat", io[0].timestamp if io else None),
    ):
        if stamp and (t := parse_stamp(stamp)):
            return from_start(t, elapsed, source), None
    if f.clock is not None:
        return from_start(f.clock, elapsed, f.clock_source or "clock"), None
    if line := date_line(sb_text):  # outside the EXPLAIN block: its head and tail
        dated = from_end if line.is_end else from_start
        return dated(line.at, elapsed, "sysbench"), line.lineno
    if f.mtime_evidence:
        mtime = f.members.mtimes.get(f.sysbench.name) if f.members else None
        if (by_mtime := from_mtime(f.sysbench, elapsed, mtime)).started_at is not None or f.dated is None:
            return by_mtime, None
    if f.dated is not None:
        return from_start(f.dated, elapsed, f.dated_source or "folder"), None
    return Dated(None, None, "undated"), None


def read_run(f: RunFiles, key: str | None = None) -> ParsedRun:
    """Read and parse the files of one run; raises :class:`ImportError_` with a one-line reason.
    ``key``: the sysbench output's :func:`content_key` when the caller has it (not hashed again)."""
    for path in (f.sysbench, f.vmstat, f.iostat, f.met):
        if path is not None and (why := path_problem(path.absolute())):
            raise ImportError_(why)
    if f.iostat and not f.device:
        raise ImportError_(f"{f.iostat}: iostat needs --device (the benchmark's storage device)")
    if why := int_problem("threads", f.threads, INT32_MAX):
        raise ImportError_(f"{f.sysbench}: {why}")
    sb_bytes = run_bytes(f, f.sysbench)
    left_out: list[str] = []
    vm_bytes, io_bytes, met_bytes = (_extra(f, path, left_out) for path in (f.vmstat, f.iostat, f.met))
    zipped: dict[str, bytes | None] = {}
    if f.members is not None:  # read once: the packed folder's memory shrinks as its runs are read
        for path in (f.sysbench, f.vmstat, f.iostat, f.met):
            if path is not None:
                zipped[path.name] = f.members.take(path.name)
    sb_text = _text(sb_bytes)
    body, met_tail = split_met_tail(sb_text)

    text = _sysbench_lines(body)
    sb = Checked.sysbench(text.lines)
    s = sb.summary or SysbenchSummary()
    fitted: list[str] = []  # out-of-range values: a warning and NULL (the raw file keeps them)
    table_size = f.table_size or fit_int(_int(s.options.get("table-size")), "table-size", INT64_MAX, fitted)
    qps = run_qps(s, f.workload, table_size)
    if qps is None:
        if is_scan(f.workload) and s.lat_avg_ms and not table_size:
            raise _scan_error(f)
        raise ImportError_(f"{f.sysbench}: no final sysbench summary with a QPS figure (interrupted run?)")
    skipped: list[tuple[str, tuple[SkippedLine, ...]]] = [
        ("sysbench", _renumber(tuple(sb.skipped), text.gap_after, text.explain))
    ]
    lines = text.total

    met: MetTable | None = None
    if met_bytes is not None:
        met_text = _text(met_bytes)
        met = parse_met(met_text.splitlines())
        lines += met_text.count("\n")
        skipped.append(("met", met.skipped))
    elif met_tail is not None:
        first = body.count("\n") + 1
        met = parse_met(met_tail.splitlines(), first_lineno=first)
        lines += met_tail.count("\n")
        skipped.append(("met", met.skipped))

    vm = Checked.vmstat(_text(vm_bytes)) if vm_bytes is not None else None
    io_text = _text(io_bytes) if io_bytes is not None else ""
    io = Checked.iostat(io_text, f.device) if io_bytes is not None else None
    dev_rows: Sequence[IostatSample] = ()
    if io is not None:
        dev_rows = io.samples
        if not dev_rows:
            seen = sorted({r.device for r in Checked.iostat(io_text).samples})
            raise ImportError_(
                f"{f.iostat}: no rows for device {f.device!r} (devices seen: {', '.join(seen) or 'none'})"
            )
        skipped.append(("iostat", tuple(io.skipped)))
        lines += io.newlines if io.newlines is not None else io_text.count("\n")
    if vm is not None:
        skipped.append(("vmstat", tuple(vm.skipped)))
        lines += vm_bytes.count(b"\n") if vm_bytes else 0

    ncpu = fit_int(_ncpu(sb_text, io_text), "CPU count", INT32_MAX, fitted)
    threads = f.threads or fit_int(s.threads or _int(s.options.get("threads")), "threads", INT32_MAX, fitted)
    tables = fit_int(_int(s.options.get("tables")), "tables", INT32_MAX, fitted)
    metrics: PerOp | None
    source: str | None
    ops: float | None = None
    if vm is not None or io is not None:
        metrics, source = per_op(qps, vm.samples if vm else (), dev_rows, ncpu), "computed"
    elif met is not None and (metrics := met.per_op(ncpu)) is not None:
        source, ops = "imported", metrics.ops
    else:
        metrics, source = None, None

    dated, date_lineno = _dated(f, sb_text, vm.samples if vm else (), dev_rows, s.total_time_s)
    if date_lineno is not None:  # the line that dated the run is read, not unparsed
        skipped[0] = (skipped[0][0], tuple(r for r in skipped[0][1] if r.lineno != date_lineno))
    raw = [RawBlob("sysbench", f.sysbench.name, len(sb_bytes), compress(sb_bytes))]
    for kind, path, data in (("vmstat", f.vmstat, vm_bytes), ("iostat", f.iostat, io_bytes),
                             ("met", f.met, met_bytes)):  # fmt: skip
        if path is not None and data is not None:
            raw.append(RawBlob(kind, path.name, len(data), zipped.get(path.name) or compress(data)))

    kept = tuple((src, rows) for src, rows in skipped if rows)
    n_skipped = sum(len(rows) for _, rows in kept)
    warnings = (
        *fitted,
        *((f"{n_skipped} unparsed line(s) kept in the store (skipped_lines)",) if n_skipped else ()),
    )
    return ParsedRun(
        run=NewRun(
            host=f.host,
            build=f.build,
            workload=f.workload,
            source=f.source,
            config=f.config,
            threads=threads,
            tables=tables,
            table_size=table_size,
            device=f.device if io_bytes is not None or not f.iostat else None,
            source_path=f.source_path or _resolved(f.sysbench),
            command=s.command,
            params=dict(s.options),
            status="finished",
            started_at=dated.started_at,
            content_key=key or content_key(sb_bytes),
            dated_from=dated.source,
        ),
        summary=RunSummary.of(
            s, qps, metrics, (len(sb.intervals), len(vm.samples) if vm else 0, len(dev_rows)), source, ops
        ),
        finished_at=dated.finished_at,
        dated_from=dated.source,
        intervals=tuple(sb.intervals),
        vmstat=vm.samples if vm else (),
        iostat=dev_rows,  # the benchmark's device only: loop0, md0 ... say nothing of it
        skipped=kept,
        raw=tuple(raw),
        lines=lines,
        explain_lines=text.explain,
        ncpu=ncpu,
        warnings=warnings,
        left_out=tuple(left_out),
    )
