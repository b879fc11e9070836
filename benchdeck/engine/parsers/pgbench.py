"""pgbench output: ``--progress`` lines (stderr) and the final report (stdout), PostgreSQL 9.5 to 15+.

Progress: ``progress: 1.0 s, 1234.5 tps, lat 0.810 ms stddev 0.120, 0 failed`` (15 adds
``N failed`` and, with ``--max-tries`` > 1, ``N retried, M retries``; ``--rate`` adds ``lag X ms``
and ``--latency-limit`` ``N skipped``). With ``--progress-timestamp`` the time is a Unix epoch;
the interval's ``t`` is then counted from the first report (which gets t = 0).

The report's ``tps`` is the run's throughput: ``(without initial connection time)`` (14+) or
``(excluding connections establishing)`` (before 14, printed after the ``including`` line).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from benchdeck.engine.parsers.command import command_words, ends_command
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary

_F = r"\d{1,20}(?:\.\d{1,20})?"
_NAN = r"-?nan|NaN|-?inf"
_PROGRESS = re.compile(
    rf"(?a)progress: (?P<t>{_F}) s, (?P<tps>{_F}) tps, lat (?P<lat>{_F}|{_NAN}) ms stddev (?:{_F}|{_NAN})"
    rf"(?:, (?P<failed>\d{{1,20}}) failed)?(?:, lag (?:{_F}|{_NAN}) ms)?(?:, \d{{1,20}} skipped)?"
    r"(?:, \d{1,20} retried, \d{1,20} retries)?"
)
_MESSAGE = re.compile(
    r"(?a)pgbench: (error|fatal|warning|hint|detail|log): |(ERROR|FATAL|WARNING|NOTICE|DETAIL|HINT): "
    r"|client \d+ aborted |Run was aborted|connection to database .* failed|could not connect to server"
)
_CONTINUATION = re.compile(r"(?a)\t.*|LINE \d+: .*|\s+\^\s*")  # lines that follow an error message
_IGNORED = re.compile("(?a)" + "|".join((
    r"starting vacuum(?: \S+)?\.\.\.end\.", r"dropping old tables\.\.\.", r"creating tables\.\.\.",
    r"generating data \(\w+-side\)\.\.\.", r"vacuuming\.\.\.", r"creating (primary|foreign) keys\.\.\.",
    r"creating tables \(with \w+ partitions\)\.\.\.", r"done(?: in .*)?\.?",
    rf"\d+ of \d+ tuples \(\d+%\) (?:done|of \w+ done) \(elapsed {_F} s, remaining {_F} s\)",
    r"NOTICE:\s+table \"pgbench_\w+\" does not exist, skipping",
    r"(partition method|partitions|batch size|maximum number of tries"
    r"|number of (transactions (skipped|retried)|serialization failures|deadlock failures)"
    r"|total number of retries|number of transactions above the .* latency limit"
    r"|rate limit schedule lag)\s*[:=].*", r"script statistics:",
    r"SQL script \d+: .*", r"- (weight|\d+ transactions|latency|statement latencies) .*",
    r"statement latencies in milliseconds(?: and (?:failures|retries))?:",
)))  # fmt: skip
_STATEMENT = re.compile(rf"(?a)\s*{_F}(?:\s+\d+){{0,2}}\s+\S.*")  # a -r per-statement row
_SUMMARY = re.compile(r"(?a)(?P<label>[a-z][a-z ]*[a-z]|tps)\s*(?:=|:)\s*(?P<value>\S.*)")
# report label -> the pgbench long option it echoes
_OPTION_LABELS = {
    "scaling factor": "scale", "query mode": "protocol", "number of clients": "client",
    "number of threads": "jobs", "number of transactions per client": "transactions",
}  # fmt: skip
_SHORT = {
    "c": "client", "j": "jobs", "T": "time", "t": "transactions", "s": "scale", "M": "protocol",
    "P": "progress", "R": "rate", "L": "latency-limit", "h": "host", "p": "port", "U": "username",
    "b": "builtin", "f": "file", "D": "define", "F": "fillfactor", "I": "init-steps",
}  # fmt: skip
_SHORT_FLAGS = {
    "n": "no-vacuum", "r": "report-per-command", "i": "initialize", "C": "connect", "l": "log",
    "v": "vacuum-all", "q": "quiet", "d": "debug",
}  # fmt: skip
_LONG_ARGS = {*_SHORT.values(), "partitions", "partition-method", "max-tries", "aggregate-interval",
              "log-prefix", "random-seed", "sampling-rate", "tablespace", "index-tablespace"}  # fmt: skip
# the built-in scripts: report names and shorthand flags -> the name ``-b`` takes
_BUILTINS = {"TPC-B (sort of)": "tpcb-like", "select only": "select-only", "simple update": "simple-update"}
_BUILTIN_FLAGS = {"S": "select-only", "N": "simple-update", "select-only": "select-only",
                  "skip-some-updates": "simple-update"}  # fmt: skip


def parse_command(tokens: str | Sequence[str]) -> tuple[str, dict[str, str]] | None:
    """A pgbench command (shell line or argv): (the command, its options by long name)."""
    if isinstance(tokens, str) and "pgbench" not in tokens:
        return None
    words, text = command_words(tokens)
    starts = [i for i, w in enumerate(words) if w.rsplit("/", 1)[-1] == "pgbench"]
    if not starts and isinstance(tokens, str):
        return None
    opts: dict[str, str] = {}
    rest = words[(starts or [0])[0] + 1 :]
    i = 0
    while i < len(rest):
        w = rest[i]
        i += 1
        if ends_command(w):
            break
        if w.startswith("--") and len(w) > 2:
            key, eq, value = w[2:].partition("=")
            if key in _BUILTIN_FLAGS and not eq:
                key, value = "builtin", _BUILTIN_FLAGS[key]
            elif key in _LONG_ARGS and not eq and i < len(rest):
                value, i = rest[i], i + 1  # "--client 4"
            elif not eq:
                value = "on"
            opts[key] = value
        elif w.startswith("-") and len(w) > 1:
            for j, ch in enumerate(w[1:]):
                if ch in _SHORT:
                    value = w[j + 2 :] or (rest[i] if i < len(rest) else "")
                    i += 0 if w[j + 2 :] else 1
                    opts[_SHORT[ch]] = value
                    break
                if ch in _BUILTIN_FLAGS:
                    opts["builtin"] = _BUILTIN_FLAGS[ch]
                else:
                    opts[_SHORT_FLAGS.get(ch, ch)] = "on"
        else:
            opts.setdefault("dbname", w)
    return (text, opts) if opts else None


class PgbenchParser:
    """Incremental parser: ``feed`` one line at a time (live tailing), read ``summary()`` at end.

    Every line ends up exactly once as an interval, as recognised, in ``skipped`` or in
    ``messages`` (pgbench errors and their continuation lines). ``aborted`` is set when pgbench
    says the run was aborted (its report is then incomplete).
    """

    def __init__(self, argv: Sequence[str] | None = None) -> None:
        self.intervals: list[BenchInterval] = []
        self.skipped: list[SkippedLine] = []
        self.messages: list[SkippedLine] = []
        self.recognised = 0
        self.version: str | None = None
        self.aborted = False
        self.ended = False
        self.connection_ms: float | None = None
        self.lat_stddev_ms: float | None = None
        self.failed: int | None = None
        self.command: str | None = None
        self.options: dict[str, str] = {}
        self._lineno = 0
        self._started = False
        self._in_message = False
        self._in_statements = False
        self._t0: float | None = None  # first --progress-timestamp epoch
        self._last_t = 0.0
        self._v: dict[str, float | int] = {}
        self._tps_incl: float | None = None
        if argv is not None and (cmd := parse_command(argv)) is not None:
            self.command, self.options = cmd

    def _clients(self) -> int:
        raw = self.options.get("client", "1" if self.command else "0")
        return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 10 else 0

    def feed(self, line: str) -> BenchInterval | None:
        """Consume one line (without its newline); return the interval it completes, if any."""
        self._lineno += 1
        line = line.rstrip("\r\n")
        s = line.strip()
        if m := _PROGRESS.fullmatch(s):
            self._started, self._in_message, self._in_statements = True, False, False
            return self._interval(m)
        if self._in_statements and _STATEMENT.fullmatch(line):
            self.recognised += 1
            return None
        self._in_statements = False
        if _MESSAGE.match(s) and not _IGNORED.fullmatch(s):
            self.messages.append(SkippedLine(self._lineno, line, "pgbench message"))
            self.aborted = self.aborted or "aborted" in s
            self._in_message = True
            return None
        if self._in_message and _CONTINUATION.fullmatch(line):
            self.messages.append(SkippedLine(self._lineno, line, "pgbench message"))
            return None
        self._in_message = False
        if not s or self._line(s):
            self.recognised += 1
        elif not self._started and (cmd := parse_command(s)) is not None:
            self.command, self.options = cmd
            self.recognised += 1
        else:
            reason = "malformed progress line" if s.startswith("progress:") else "unrecognised line"
            self.skipped.append(SkippedLine(self._lineno, line, reason))
        return None

    def _interval(self, m: re.Match[str]) -> BenchInterval | None:
        t, tps, lat = float(m["t"]), float(m["tps"]), m["lat"]
        if not (math.isfinite(t) and math.isfinite(tps)):
            self.skipped.append(SkippedLine(self._lineno, m.string, "malformed progress line"))
            return None
        if t > 1e8:  # --progress-timestamp: an epoch
            self._t0 = t if self._t0 is None else self._t0
            t = round(t - self._t0, 3)
        latency = float(lat) if re.fullmatch(_F, lat) and tps > 0 else None
        dt = t - self._last_t
        errors = int(m["failed"]) / dt if m["failed"] and dt > 0 else 0.0
        self._last_t = t
        iv = BenchInterval(t=t, threads=self._clients(), tps=tps, latency_ms=latency, errors_s=errors)
        self.intervals.append(iv)
        return iv

    def _line(self, s: str) -> bool:
        if m := re.fullmatch(r"(?a)pgbench \((?:PostgreSQL\) )?(\d[\w.]*)(?: .*)?\)?", s):
            self.version = m.group(1)
            return True
        if _IGNORED.fullmatch(s):
            if s.startswith("statement latencies") or s.startswith("- statement latencies"):
                self._in_statements = True
            return True
        m = _SUMMARY.fullmatch(s)
        if m is None:
            return False
        self._started = True
        label, value = m["label"], m["value"].strip()
        if label in _OPTION_LABELS:
            self.options.setdefault(_OPTION_LABELS[label], value)
            return True
        if label == "transaction type":
            if builtin := re.fullmatch(r"<builtin: (.*)>", value):
                self.options.setdefault("builtin", _BUILTINS.get(builtin[1], builtin[1]))
            else:
                self.options.setdefault("file", value)
            return True
        if label == "duration":
            d = re.fullmatch(rf"(?a)({_F}) s", value)
            if d:
                self._v["total_time_s"] = float(d[1])
            return d is not None
        if label == "tps":
            return self._tps(value)
        return self._number(label, value)

    def _tps(self, value: str) -> bool:
        m = re.fullmatch(rf"(?a)({_F}) \((without initial connection time|excluding connections establishing"
                         r"|including connections establishing)\)", value)  # fmt: skip
        if m is None:
            return False
        if m[2].startswith("including"):
            self._tps_incl = float(m[1])
        else:
            self._v["tps"] = float(m[1])
            self.ended = True
        return True

    def _number(self, label: str, value: str) -> bool:
        if label == "number of transactions actually processed":
            m = re.fullmatch(r"(?a)(\d{1,20})(?:/\d{1,20})?", value)
            if m:
                self._v["transactions"] = int(m[1])
            return m is not None
        if label in ("latency average", "initial connection time"):
            m = re.fullmatch(rf"(?a)({_F}) ms", value)
            if m and label == "latency average":
                self._v["lat_avg_ms"] = float(m[1])
            elif m:
                self.connection_ms = float(m[1])
            return m is not None
        if label == "latency stddev":
            m = re.fullmatch(rf"(?a)({_F}) ms", value)
            self.lat_stddev_ms = float(m[1]) if m else None
            return m is not None
        if label == "number of failed transactions":
            m = re.fullmatch(rf"(?a)(\d{{1,20}}) \({_F}%\)", value)
            if m:
                self.failed = int(m[1])
            return m is not None
        return False

    def summary(self) -> SysbenchSummary:
        """The report: ``tps`` (and ``eps``, the rate the runner reads) without connection time."""
        tps = self._v.get("tps", self._tps_incl)
        txn = self._v.get("transactions")
        clients = self.options.get("client", "")
        return SysbenchSummary(
            threads=int(clients) if clients.isascii() and clients.isdigit() and len(clients) < 10 else None,
            transactions=int(txn) if txn is not None else None,
            total_events=int(txn) if txn is not None else None,
            tps=float(tps) if tps is not None else None, eps=float(tps) if tps is not None else None,
            ignored_errors=self.failed, total_time_s=self._v.get("total_time_s"),
            lat_avg_ms=self._v.get("lat_avg_ms"), command=self.command, options=dict(self.options),
        )  # fmt: skip


def parse_pgbench_output(lines: Iterable[str], argv: Sequence[str] | None = None) -> PgbenchParser:
    """Parse a whole pgbench output; the parser holds intervals, summary and messages."""
    p = PgbenchParser(argv)
    for line in lines:
        p.feed(line)
    return p
