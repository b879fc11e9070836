"""sysbench output: interval lines (text, CSV, JSON hooks) and the final summary (1.0 and 1.1)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from benchdeck.engine.parsers.command import command_words, ends_command
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary

_F = r"\d+\.\d{2}"  # sysbench prints every rate with %4.2f: exactly two decimals
_TEXT_TPS = re.compile(
    rf"(?a)\[ (?P<t>\d+(?:\.\d+)?)s \] thds: (?P<thds>\d+) tps: (?P<tps>{_F}) qps: (?P<qps>{_F}) "
    rf"\(r/w/o: (?P<r>{_F})/(?P<w>{_F})/(?P<o>{_F})\) lat \(ms,(?P<pct>\d+)%\): (?P<lat>{_F}) "
    rf"err/s:? (?P<err>{_F}) reconn/s: (?P<rec>{_F})"
)  # "err/s:?": sysbench.report_default (the Lua copy) prints "err/s 0.00" without the colon
_TEXT_EPS = re.compile(
    rf"(?a)\[ (?P<t>\d+(?:\.\d+)?)s \] thds: (?P<thds>\d+) eps: (?P<tps>{_F}) "
    rf"lat \(ms,(?P<pct>\d+)%\): (?P<lat>{_F})"
)
_CSV = re.compile(rf"(?a)(\d+),(\d+),({_F}),({_F}),({_F}),({_F}),({_F}),({_F}),({_F}),({_F})")
_JSON_KEYS = ("time", "threads", "tps", "qps", "latency", "errors", "reconnects")
_QPS_KEYS = ("total", "reads", "writes", "other")
_JSON_INNER = re.compile(r'(?a)"\w+":\s*(\d+(\.\d+)?,?|\{)|\},?')

# Recognised lines that carry nothing we keep (banners, option echoes, other tests' lines).
_IGNORED = re.compile("(?a)" + "|".join((
    r"\d+ CPUs?", r"Running the test with following options:", r"Threads started!",
    r"(Report intermediate results every|Report checkpoint\(s\) at|Initializing|Warming up for"
    r"|Warmup time:|Target transaction rate:|Creating table|Creating a secondary index on"
    r"|Inserting \d+ records into|Dropping table|total time taken by event execution:) .*",
    r"Validation checks: on\.", r"Prime numbers limit: \d+", r"Done\.?",
    r"Running memory speed test with the following options:",
    r"(block size|total size|operation|scope): .*",
    r"\d+\.\d{2} MiB transferred \(\d+\.\d{2} MiB/sec\)",
    r"(Time|Event) limit exceeded, exiting\.\.\.",
    r"\[ \d+(?:\.\d+)?s \] (queue length: \d+,? concurrency: \d+|\d+\.\d{2} MiB/sec)",
    r"Latency histogram \(values are in milliseconds\)", r"value\s+-+ distribution -+\s+count",
    r"\d+\.\d+ \|\**\s+\d+",  # a histogram row
    r"(events|execution time) \(avg/stddev\):\s+\S+", r"percentile stats:\s+disabled",
    r"\[\s*", r"\]\s*",  # the report_json array's brackets
)))  # fmt: skip
_MESSAGE = re.compile(r"(?a)(FATAL|ALERT|ERROR|WARNING|Ignoring error)\b|\(last message repeated")
_SECTIONS = {
    "SQL statistics:": "sql", "queries performed:": "sql", "General statistics:": "general",
    "Throughput:": "general", "CPU speed:": "general", "Latency (ms):": "latency",
    "Threads fairness:": "fairness",
}  # fmt: skip
_RATE = re.compile(r"(?a)(\d+)\s+\((\d+(?:\.\d+)?) per sec(?:ond|\.)\)")
_LABEL = re.compile(r"(?a)([A-Za-z/() ,-]+?|\d+th percentile):\s+(\S.*)")
_SECONDS = re.compile(r"(?a)(\d+(?:\.\d+)?)s")
_NUMBER = re.compile(r"(?a)\d+(\.\d+)?")
_INT_FIELDS = {  # (section, label) -> summary field
    ("sql", "read"): "reads", ("sql", "write"): "writes", ("sql", "other"): "other",
    ("sql", "total"): "queries_total", ("general", "total number of events"): "total_events",
}  # fmt: skip
_FLOAT_FIELDS = {
    ("general", "events/s (eps)"): "eps", ("general", "events per second"): "eps",
    ("latency", "min"): "lat_min_ms", ("latency", "avg"): "lat_avg_ms",
    ("latency", "max"): "lat_max_ms", ("latency", "sum"): "lat_sum_ms",
}  # fmt: skip
_RATE_FIELDS = {  # label -> (count field, per-second field)
    "transactions": ("transactions", "tps"), "queries": ("queries", "qps"),
    "ignored errors": ("ignored_errors", None), "reconnects": ("reconnects", None),
}  # fmt: skip
_COMMANDS = frozenset({"run", "prepare", "cleanup", "help", "prewarm", "warmup"})
_INT_MAX = 2**63 - 1  # sysbench counts in 64 bits: a larger number is not its output


class OutOfRange(ValueError):
    """A number no sysbench prints (past 64 bits, or a rate too large for a float)."""


def _int(text: str) -> int:
    if len(text) > 19 or int(text) > _INT_MAX:
        raise OutOfRange(f"number out of range ({len(text)} digits)")
    return int(text)


def _float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise OutOfRange(f"number out of range ({len(text)} characters)")
    return v


def _plain_number(v: Any) -> bool:
    if isinstance(v, int) and not isinstance(v, bool) and not 0 <= v <= _INT_MAX:
        return False  # before isfinite: a 400-digit int overflows a float
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v >= 0


def _json_interval(obj: Any) -> BenchInterval | None:
    if not isinstance(obj, dict) or any(k not in obj for k in _JSON_KEYS):
        return None
    qps = obj["qps"]
    if not isinstance(qps, dict) or any(k not in qps for k in _QPS_KEYS):
        return None
    vals = [obj[k] for k in _JSON_KEYS if k != "qps"] + [qps[k] for k in _QPS_KEYS]
    if not all(_plain_number(v) for v in vals) or not float(obj["threads"]).is_integer():
        return None
    return BenchInterval(
        t=float(obj["time"]), threads=int(obj["threads"]), tps=float(obj["tps"]),
        qps=float(qps["total"]), reads=float(qps["reads"]), writes=float(qps["writes"]),
        other=float(qps["other"]), latency_ms=float(obj["latency"]),
        errors_s=float(obj["errors"]), reconnects_s=float(obj["reconnects"]),
    )  # fmt: skip


def parse_interval(line: str) -> BenchInterval | None:
    """Parse one interval line (text, eps, CSV or one-line JSON); None if it is not one.

    The CSV and JSON hooks do not say which percentile ``latency`` is: ``latency_pct`` is None.
    ``--percentile=0`` prints ``lat (ms,0%): 0.00``: that latency is reported as None.
    Raises :class:`OutOfRange` for an interval line holding a number sysbench cannot print.
    """
    s = line.strip()
    if m := _TEXT_TPS.fullmatch(s) or _TEXT_EPS.fullmatch(s):
        g = m.groupdict()
        pct = _float(g["pct"])
        sql = g.get("qps") is not None
        return BenchInterval(
            t=_float(g["t"]), threads=_int(g["thds"]), tps=_float(g["tps"]),
            qps=_float(g["qps"]) if sql else None, reads=_float(g["r"]) if sql else None,
            writes=_float(g["w"]) if sql else None, other=_float(g["o"]) if sql else None,
            latency_ms=_float(g["lat"]) if pct > 0 else None,
            latency_pct=pct if pct > 0 else None,
            errors_s=_float(g["err"]) if sql else 0.0, reconnects_s=_float(g["rec"]) if sql else 0.0,
        )  # fmt: skip
    if m := _CSV.fullmatch(s):
        t, thds, tps, qps, r, w, o, lat, err, rec = m.groups()
        return BenchInterval(
            t=_float(t), threads=_int(thds), tps=_float(tps), qps=_float(qps), reads=_float(r),
            writes=_float(w), other=_float(o), latency_ms=_float(lat), errors_s=_float(err),
            reconnects_s=_float(rec),
        )  # fmt: skip
    if s.startswith("{") and s.rstrip(",").endswith("}"):
        try:
            return _json_interval(json.loads(s.rstrip(",")))
        except (ValueError, RecursionError):  # deep nesting raises RecursionError
            return None
    return None


def parse_command(line: str) -> tuple[str, dict[str, str]] | None:
    """A shell command line running sysbench: (the line, its ``--key=value`` options + ``test``)."""
    if "sysbench" not in line or "--" not in line:
        return None
    tokens, _ = command_words(line)
    starts = [i for i, t in enumerate(tokens) if t.rsplit("/", 1)[-1] == "sysbench"]
    if not starts:
        return None
    options: dict[str, str] = {}
    for tok in tokens[starts[0] + 1 :]:
        if ends_command(tok):
            break
        if tok.startswith("--") and len(tok) > 2:
            key, eq, value = tok[2:].partition("=")
            options[key] = value if eq else "on"  # sysbench reads a bare --flag as on
        elif tok.endswith(".lua"):
            options.setdefault("test", tok.rsplit("/", 1)[-1].removesuffix(".lua"))
        elif tok not in _COMMANDS and not tok.startswith("-"):
            options.setdefault("test", tok)
    if not any(t.startswith("--") for t in tokens[starts[0] + 1 :]):
        return None
    return line.strip(), options


@dataclass(frozen=True, slots=True)
class SysbenchResult:
    """Everything read from one sysbench output."""

    summary: SysbenchSummary
    intervals: tuple[BenchInterval, ...]
    skipped: tuple[SkippedLine, ...]
    messages: tuple[SkippedLine, ...] = ()


class SysbenchParser:
    """Incremental parser: ``feed`` one line at a time (live tailing), read ``summary()`` at end.

    Every line ends up exactly once as an interval, as recognised (``recognised`` counts them),
    in ``skipped`` (unknown or garbled) or in ``messages`` (sysbench FATAL/WARNING lines).
    """

    def __init__(self) -> None:
        self.intervals: list[BenchInterval] = []
        self.skipped: list[SkippedLine] = []
        self.messages: list[SkippedLine] = []
        self.recognised = 0
        self._lineno = 0
        self._started = False
        self._section = ""
        self._json: list[tuple[int, str]] = []  # lines of a JSON report being read
        self._depth = 0
        self._values: dict[str, Any] = {}

    def feed(self, line: str) -> BenchInterval | None:
        """Consume one line (without its newline); return the interval it completes, if any."""
        self._lineno += 1
        line = line.rstrip("\r\n")
        if self._json:
            return self._feed_json(line)
        return self._feed(line)

    def _feed(self, line: str) -> BenchInterval | None:
        s = line.strip()
        if not s:
            self.recognised += 1
            return None
        if s == "{":
            self._json, self._depth = [(self._lineno, line)], 1
            self.recognised += 1
            return None
        try:
            iv = parse_interval(s)
            known = iv is None and self._summary_line(s)
        except OutOfRange as exc:
            self.skipped.append(SkippedLine(self._lineno, line, str(exc)))
            return None
        if iv is not None:
            self._started = True
            self.intervals.append(iv)
            return iv
        if known:
            self._started = True
            self.recognised += 1
        elif _MESSAGE.match(s):
            self.messages.append(SkippedLine(self._lineno, line, "sysbench message"))
        elif not self._started and (cmd := parse_command(s)) is not None:
            self._values["command"], self._values["options"] = cmd
            self.recognised += 1
        else:
            reason = "malformed interval line" if s.startswith("[ ") else "unrecognised line"
            self.skipped.append(SkippedLine(self._lineno, line, reason))
        return None

    def _feed_json(self, line: str) -> BenchInterval | None:
        s = line.strip()
        depth = self._depth + s.endswith("{") - s.startswith("}")
        if depth == 0 and s in ("}", "},"):
            text = "\n".join(t for _, t in self._json) + "\n}"
            buffered, self._json = self._json, []
            try:
                iv = _json_interval(json.loads(text))
            except (ValueError, RecursionError):
                iv = None
            if iv is None:
                self._abort_json(buffered, (self._lineno, line))
                return None
            self.intervals.append(iv)
            self._started = True
            return iv
        if 0 < depth < 3 and len(self._json) < 20 and _JSON_INNER.fullmatch(s):
            self._depth = depth
            self._json.append((self._lineno, line))
            self.recognised += 1
            return None
        self._abort_json(self._json)
        return self._feed(line)

    def _abort_json(self, buffered: list[tuple[int, str]], *extra: tuple[int, str]) -> None:
        """An unfinished or invalid JSON report: its lines go to ``skipped`` after all."""
        self.recognised -= len(buffered)
        for n, text in [*buffered, *extra]:
            self.skipped.append(SkippedLine(n, text, "incomplete JSON interval report"))
        self._json, self._depth = [], 0

    def flush(self) -> None:
        """End of input: a JSON report still open is incomplete."""
        self._abort_json(self._json)

    def _summary_line(self, s: str) -> bool:
        v = self._values
        if s in _SECTIONS:
            self._section = _SECTIONS[s]
            if self._section == "latency":  # a new report (checkpoint or final) starts over
                v.pop("lat_pct", None)
                v.pop("lat_pct_ms", None)
            return True
        if m := re.fullmatch(r"(?a)sysbench (\d\S*)(?: \(.*\))?", s):
            v["sysbench_version"] = m.group(1)
            return True
        if m := re.fullmatch(r"(?a)Number of threads: (\d+)", s):
            v["threads"] = _int(m.group(1))
            return True
        if m := re.fullmatch(r"(?a)Total operations: (\d+) \(\s*(\d+\.\d+) per second\)", s):
            v.setdefault("eps", _float(m.group(2)))  # the memory test's events per second
            return True
        if _IGNORED.fullmatch(s):
            return True
        m = _LABEL.fullmatch(s)
        if m is None:
            return False
        label, value = m.group(1).strip(), m.group(2).strip()
        key = (self._section, label)
        if key in _INT_FIELDS and value.isascii() and value.isdigit():
            v[_INT_FIELDS[key]] = _int(value)
        elif key in _FLOAT_FIELDS and _NUMBER.fullmatch(value):
            v[_FLOAT_FIELDS[key]] = _float(value)
        elif self._section == "general" and label in ("total time", "time elapsed"):
            if not (t := _SECONDS.fullmatch(value)):
                return False
            v["total_time_s"] = _float(t.group(1))
        elif self._section == "sql" and label in _RATE_FIELDS:
            if not (r := _RATE.fullmatch(value)):
                return False
            count_field, rate_field = _RATE_FIELDS[label]
            count, rate = _int(r.group(1)), _float(r.group(2))
            v[count_field] = count
            if rate_field:
                v[rate_field] = rate
        elif self._section == "latency" and label.endswith("th percentile"):
            if not _NUMBER.fullmatch(value) or not label[0].isdigit():
                return False
            pct, ms = _float(label.split("th")[0]), _float(value)
            if "lat_pct" not in v and 0 < pct <= 100:  # keep the first of several percentiles
                v["lat_pct"], v["lat_pct_ms"] = pct, ms
        else:
            return False
        return True

    def summary(self) -> SysbenchSummary:
        """The summary so far; ``eps`` falls back to total events / total time."""
        v = dict(self._values)
        v["options"] = dict(v.get("options", {}))
        if v.get("eps") is None and v.get("total_events") and v.get("total_time_s"):
            eps = v["total_events"] / v["total_time_s"]
            v["eps"] = eps if math.isfinite(eps) else None
        return SysbenchSummary(**v)


def parse_sysbench_output(lines: Iterable[str]) -> SysbenchResult:
    """Parse a whole sysbench output (an iterable of lines, newlines optional)."""
    p = SysbenchParser()
    for line in lines:
        p.feed(line)
    p.flush()
    return SysbenchResult(p.summary(), tuple(p.intervals), tuple(p.skipped), tuple(p.messages))
