"""RocksDB ``db_bench`` output: per-thread stats lines, result lines, histograms, progress.

Real output of Debian's db_bench 7.8 with stdout and stderr in one file, in the order it arrives:
the header (``RocksDB: version``) and the per-thread stats lines of ``--stats_interval_seconds``
come on stderr as they happen; the stdout block (options, ``DB path``, the result line and its
histogram) appears only when the benchmark ends (stdout is block-buffered, flushed per result).
Without ``--stats_interval_seconds`` db_bench prints ``... finished N ops`` progress joined by
``\\r`` (no newline), so one line can hold many progress segments and then a stdout line.

Live QPS: every thread prints its own stats line; one interval is one round of them, the sum of
the threads' interval rates. In ``*while*`` benchmarks thread 0 is the extra writer, which the
result line does not count either: pass the command (``argv``) so that the parser knows the
benchmarks and ``--threads`` (without it, rounds are learned from the output and each interval
is only emitted when the next round starts).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from benchdeck.engine.parsers.command import command_words, ends_command
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary

_N = r"\d{1,30}(?:\.\d{1,30})?"  # bounded: int() refuses very long digit strings
_STATS = re.compile(
    r"(?a)(?:\d{4}/\d\d/\d\d-\d\d:\d\d:\d\d\s+)?\.\.\. thread (?P<tid>\d{1,9}): "
    r"\((?P<iops>\d+),(?P<ops>\d+)\) ops and \((?P<irate>\d+\.\d),(?P<rate>\d+\.\d)\) ops/second "
    r"in \((?P<isecs>\d+\.\d+),(?P<secs>\d+\.\d+)\) seconds"
)
_RESULT = re.compile(
    r"(?a)(?P<name>[^\s:]+)\s+:\s+(?P<us>\d+\.\d+) micros/op (?P<ops>\d+) ops/sec"
    r"(?: (?P<secs>\d+\.\d+) seconds (?P<n>\d{1,30}) operations)?;"
    r"(?:\s+(?P<mbs>\d+\.\d) MB/s)?(?:\s+(?P<msg>\S.*))?"
)
_HIST_START = re.compile(r"(?a)Microseconds per (\w+):")
_HIST_COUNT = re.compile(rf"(?a)Count: \d+ Average: (?P<avg_us>{_N})\s+StdDev: \S+")
_HIST_MINMAX = re.compile(rf"(?a)Min: (?P<min_us>{_N})\s+Median: {_N}\s+Max: (?P<max_us>{_N})")
_HIST_PCT = re.compile(rf"(?a)Percentiles: P50: \S+ P75: \S+ P99: (?P<p99_us>{_N}) P99\.9: \S+ P99\.99: \S+")
_VERSION = re.compile(r"(?a)RocksDB:\s+version (\S+)")
_PROGRESS = re.compile(rf"(?a)\.\.\. finished \d+ ops|long op: {_N} micros")
# Recognised lines that carry nothing we keep: the header, option echoes, histogram rows and the
# DB stats dumps of --stats_per_interval.
_IGNORED = re.compile("(?a)" + "|".join((
    r"(Date|CPU|CPUCache|Keys|Values|Entries|Prefix|Keys per prefix|RawSize|FileSize|Write rate"
    r"|Read rate|Compression|Compression sampling rate|Memtablerep|Perf Level):\s+\S.*",
    r"Set seed to \d+ because --seed was 0", r"Initializing RocksDB Options from .*",
    r"Integrated BlobDB: .*", r"DB path: \[.*\]", r"-{20,}",
    r"WARNING: (Assertions are enabled|Optimization is disabled); benchmarks unnecessarily slow",
    r"WARNING: Optimization is disabled: benchmarks unnecessarily slow",
    rf"[\[(]\s*{_N},\s*{_N}\s*\]\s+\d+\s+{_N}%\s+{_N}%\s*#*",  # a histogram row
    r"\*\* .*(\*\*|:)", r"(Level|Priority)\s+Files\s+Size\s+Score .*",
    r"(L\d+|Sum|Int|High|Low|User|Bottom)\s+\d+/\d+\s+\d+\.\d+ [KMGTP]?B\s+.*",
    r"(Blob file count|Uptime\(secs\)|Stalls\(count\)|Write Stall \(count\)|Block cache .*?"
    r"|(Flush|AddFile)\([\w ]+\)|(Cumulative|Interval) (compaction|writes|WAL|stall)"
    r"|num-running-(compactions|flushes)|Estimated pending compaction bytes): .*",
)))  # fmt: skip
_MESSAGE = re.compile(
    r"(?a)(\w+ )?error: |(ERROR|FATAL|WARNING): |unknown benchmark '|(Invalid argument|IO error|Corruption"
    r"|Not implemented|Not supported|Operation aborted|Resource busy): |db_bench: .*Assertion .* failed"
    r"|terminate called after throwing|Segmentation fault|Aborted \(core dumped\)"
)
# Meta benchmarks that print no result line (they must not take a result's place).
NO_RESULT = frozenset({"stats", "levelstats", "memstats", "sstables", "resetstats", "heapprofile"})


def parse_command(tokens: str | Sequence[str]) -> tuple[str, dict[str, str]] | None:
    """A db_bench command (a shell line or an argv): (the command, its ``--key=value`` flags)."""
    if isinstance(tokens, str) and ("db_bench" not in tokens or "-" not in tokens):
        return None
    words, text = command_words(tokens)
    starts = [i for i, w in enumerate(words) if w.rsplit("/", 1)[-1].startswith("db_bench")]
    if not starts and isinstance(tokens, str):
        return None
    starts = starts or [0]  # an argv starts with the program, whatever its name
    options: dict[str, str] = {}
    for w in words[starts[0] + 1 :]:
        if ends_command(w):
            break
        if re.match(r"(?a)--?[A-Za-z]", w):
            key, eq, value = w.lstrip("-").partition("=")
            options[key] = value if eq else "true"
    return (text, options) if options else None


@dataclass(frozen=True, slots=True)
class DbBenchResult:
    """One result line (``seconds``/``operations`` are None in the older ``N ops/sec;`` format);
    latencies in microseconds from the ``--histogram`` block that follows, if any."""

    name: str
    micros_op: float
    ops_sec: float
    seconds: float | None = None
    operations: int | None = None
    mb_s: float | None = None
    message: str = ""
    avg_us: float | None = None
    min_us: float | None = None
    max_us: float | None = None
    p99_us: float | None = None


@dataclass(frozen=True, slots=True)
class _Tick:
    rate: float
    isecs: float
    secs: float


def _finite(*values: str) -> bool:
    return all(math.isfinite(float(v)) for v in values)


class DbBenchParser:
    """Incremental parser: ``feed`` one line at a time, read ``summary()`` / ``results`` at the end.

    Every line (each ``\\r`` segment counted once with its line) ends up once in ``recognised``,
    ``skipped`` or ``messages``; intervals are rounds of several lines. ``results`` maps each
    benchmark name to its ops/sec, ``result_list`` keeps every result line in order.
    """

    def __init__(self, argv: Sequence[str] | None = None) -> None:
        self.intervals: list[BenchInterval] = []
        self.skipped: list[SkippedLine] = []
        self.messages: list[SkippedLine] = []
        self.results: dict[str, float] = {}
        self.result_list: list[DbBenchResult] = []
        self.recognised = 0
        self.version: str | None = None
        self.command: str | None = None
        self.options: dict[str, str] = {}
        self._lineno = 0
        self._started = False
        self._hist: dict[str, float] | None = None  # the histogram block being read
        self._round: dict[int, _Tick] = {}
        self._latest: dict[int, _Tick] = {}
        self._learned: frozenset[int] | None = None
        self._offset = 0.0
        self._last_t = 0.0
        self._max_threads = 0
        if argv is not None and (cmd := parse_command(argv)) is not None:
            self.command, self.options = cmd

    # --- what the command tells -------------------------------------------------------------

    def _names(self) -> list[str]:
        raw = self.options.get("benchmarks", "")
        return [n for n in raw.split(",") if n and n not in NO_RESULT]

    def _current(self) -> str | None:
        names = self._names()
        return names[len(self.result_list)] if len(self.result_list) < len(names) else None

    def _threads(self) -> int | None:
        raw = self.options.get("threads", "")
        return int(raw) if raw.isascii() and raw.isdigit() and 0 < len(raw) < 7 and int(raw) > 0 else None

    def _has_writer(self) -> bool:
        name = self._current()
        return name is not None and "while" in name

    def _expected(self) -> frozenset[int] | None:
        n = self._threads() if self._current() is not None else None
        if n is None:
            return self._learned
        return frozenset(range(1, n + 1)) if self._has_writer() else frozenset(range(n))

    @property
    def ended(self) -> bool:
        """True once every benchmark of the command has printed its result line."""
        return bool(self._names()) and len(self.result_list) >= len(self._names())

    # --- lines ------------------------------------------------------------------------------

    def feed(self, line: str) -> BenchInterval | None:
        """Consume one line (without its newline); return the interval it completes, if any."""
        self._lineno += 1
        segments = line.rstrip("\r\n").split("\r")
        progress = [s for s in segments[:-1] if _PROGRESS.fullmatch(s.strip())]
        if len(progress) < len(segments) - 1:
            return self._feed(line.rstrip("\r\n"), line)  # not a progress chain: one line
        return self._feed(segments[-1], line)

    def _feed(self, seg: str, line: str) -> BenchInterval | None:
        s = seg.strip()
        if not s or _PROGRESS.fullmatch(s):
            self.recognised += 1
            return None
        if m := _STATS.fullmatch(s):
            self.recognised += 1
            self._started = True
            if not _finite(m["irate"], m["isecs"], m["secs"]):
                return None
            return self._tick(int(m["tid"]), _Tick(float(m["irate"]), float(m["isecs"]), float(m["secs"])))
        if (m := _RESULT.fullmatch(s)) and _finite(m["us"], m["ops"], m["secs"] or "0", m["mbs"] or "0"):
            self.recognised += 1
            self._started = True
            return self._result(m)
        if self._line(s):
            self.recognised += 1
        elif _MESSAGE.match(s):
            self.messages.append(SkippedLine(self._lineno, line, "db_bench message"))
        elif not self._started and (cmd := parse_command(s)) is not None:
            self.command, self.options = cmd
            self.recognised += 1
        else:
            self.skipped.append(SkippedLine(self._lineno, line, "unrecognised line"))
        return None

    def _line(self, s: str) -> bool:
        if m := _VERSION.fullmatch(s):
            self.version = m.group(1)
            return True
        if m := _HIST_START.fullmatch(s):
            if self.result_list and self.result_list[-1].avg_us is None and self._hist is None:
                self._hist = {}
            return True
        for pattern in (_HIST_COUNT, _HIST_MINMAX, _HIST_PCT):
            if m := pattern.fullmatch(s):
                if self._hist is not None and _finite(*m.groupdict().values()):
                    self._hist.update({k: float(v) for k, v in m.groupdict().items()})
                    if pattern is _HIST_PCT:
                        self._end_hist()
                return True
        return bool(_IGNORED.fullmatch(s))

    def _end_hist(self) -> None:
        h, self._hist = self._hist or {}, None
        if self.result_list and "avg_us" in h:
            r, g = self.result_list[-1], h.get
            r = replace(r, avg_us=g("avg_us"), min_us=g("min_us"))
            self.result_list[-1] = replace(r, max_us=g("max_us"), p99_us=g("p99_us"))

    # --- intervals --------------------------------------------------------------------------

    def _tick(self, tid: int, tick: _Tick) -> BenchInterval | None:
        self._hist = None
        if tid == 0 and self._has_writer():
            return None  # the extra writer thread: not counted by the result either
        out = None
        if tid in self._round:  # a thread reports again: the round is over
            if self._learned is None:
                self._learned = frozenset(self._round)
            out = self._close()
        self._round[tid] = tick
        self._latest[tid] = tick
        expected = self._expected()
        if out is None and expected is not None and expected <= self._round.keys():
            out = self._close()
        return out

    def _close(self) -> BenchInterval | None:
        """One interval from the round: fresh rates plus recent ones of threads not yet heard."""
        if not self._round:
            return None
        t = max(x.secs for x in self._round.values())
        ticks = dict(self._round)
        for tid, x in self._latest.items():
            if tid not in ticks and x.secs + 2 * max(x.isecs, 1.0) >= t:
                ticks[tid] = x
        self._round = {}
        self._max_threads = max(self._max_threads, len(ticks))
        qps = round(math.fsum(x.rate for x in ticks.values()), 1)
        t = max(round(self._offset + t, 6), self._last_t)
        self._last_t = t
        iv = BenchInterval(t=t, threads=len(ticks), tps=qps, qps=qps)
        self.intervals.append(iv)
        return iv

    def _result(self, m: re.Match[str]) -> BenchInterval | None:
        self._end_hist()
        iv = self._close()
        r = DbBenchResult(
            name=m["name"], micros_op=float(m["us"]), ops_sec=float(m["ops"]),
            seconds=float(m["secs"]) if m["secs"] else None,
            operations=int(m["n"]) if m["n"] else None,
            mb_s=float(m["mbs"]) if m["mbs"] else None, message=(m["msg"] or "").strip(),
        )  # fmt: skip
        self.result_list.append(r)
        self.results[r.name] = r.ops_sec
        self._offset = max(self._last_t, self._offset + (r.seconds or 0.0))
        self._last_t = self._offset
        self._round, self._latest, self._learned = {}, {}, None
        return iv

    def flush(self) -> BenchInterval | None:
        """End of input: a round still open becomes an interval."""
        self._end_hist()
        return self._close()

    def summary(self) -> SysbenchSummary:
        """The last result line as a summary: ``qps`` is its ops/sec (``results`` has them all)."""
        threads = self._threads() or self._max_threads or None
        if not self.result_list:
            return SysbenchSummary(threads=threads, command=self.command, options=dict(self.options))
        r = self.result_list[-1]
        us = 1000.0
        return SysbenchSummary(
            threads=threads, qps=r.ops_sec, total_time_s=r.seconds, total_events=r.operations,
            lat_avg_ms=(r.avg_us if r.avg_us is not None else r.micros_op) / us,
            lat_min_ms=r.min_us / us if r.min_us is not None else None,
            lat_max_ms=r.max_us / us if r.max_us is not None else None,
            lat_pct=99.0 if r.p99_us is not None else None,
            lat_pct_ms=r.p99_us / us if r.p99_us is not None else None,
            command=self.command, options=dict(self.options),
        )  # fmt: skip


def parse_dbbench_output(lines: Iterable[str], argv: Sequence[str] | None = None) -> DbBenchParser:
    """Parse a whole db_bench output (lines split on ``\\n`` only); the parser holds the results."""
    p = DbBenchParser(argv)
    for line in lines:
        p.feed(line)
    p.flush()
    return p
