"""Insert Benchmark output (``python3 -m benchdeck.engine.families.insertbench.client``): intervals,
summary, SLA.

The client prints its effective command line first, then ``dbms: <name> <server version>``,
one line per report interval and a summary block ending with ``elapsed: S s``::

    [ 1s ] step: qr100 thds: 3 ips: 100.00 dps: 100.00 qps: 2339.00 lat (ms,95%): 0.96 max_ins_lag_s: 0.00
    step: qr100 | threads: 3 | inserts: 200 (100.00 per sec.) | deletes: 200 (100.00 per sec.)
    queries: 4917 (2458.50 per sec.) | errors: 0 | latency (ms): avg 0.39 p95 0.89 max 5.24
    sla: ok (background rate 100/s sustained at 100.0/s) | elapsed: 2.00 s

(one line per ``|``-separated item; ``indexed: N (X per sec.)`` in l.x; ``sla:`` only when a
background rate was asked for).

The figure users read (``qps`` of intervals and summary) depends on the step: inserts/s for the
load steps l.i0, l.i1, l.i2; rows indexed/s for l.x (table rows / seconds to create the three
indexes; an interval is credited 1/3 of the rows for each index finished in it); queries/s for
qrN/qpN. An interval maps to ``BenchInterval(tps=qps=that figure, reads=queries/s,
writes=inserts/s, other=deletes/s, latency_ms=p95 of the step's main operation)``.
"""

from __future__ import annotations

import re

from benchdeck.engine.families.insertbench.steps import step_kind
from benchdeck.engine.parsers.command import command_words, ends_command
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary

_F = r"\d{1,15}\.\d{2}"
_INTERVAL = re.compile(
    rf"(?a)\[ (?P<t>\d{{1,12}}(?:\.\d{{1,6}})?)s \] step: (?P<step>\S{{1,40}}) thds: (?P<thds>\d{{1,9}}) "
    rf"ips: (?P<ips>{_F}) dps: (?P<dps>{_F}) qps: (?P<qps>{_F})(?: ixps: (?P<ixps>{_F}))? "
    rf"lat \(ms,(?P<pct>\d{{1,3}})%\): (?P<lat>{_F}) max_ins_lag_s: (?P<lag>{_F})"
)
_COUNT = re.compile(rf"(?a)(inserts|deletes|queries|indexed): (\d{{1,18}}) \(({_F}) per sec\.\)")
_LATENCY = re.compile(rf"(?a)latency \(ms\): avg ({_F}) p95 ({_F}) max ({_F})")
_SLA = re.compile(
    r"(?a)sla: (ok|failed) \(background rate (\d{1,15}(?:\.\d{1,15})?)/s sustained at (\d{1,15}\.\d)/s\)"
)
_SIMPLE = re.compile(r"(?a)(step|threads|errors): (\S{1,40})")
_ELAPSED = re.compile(rf"(?a)elapsed: ({_F}) s")
_DBMS = re.compile(r"(?a)dbms: (mariadb|mysql|postgres) (\S.*)")
_MESSAGE = re.compile(
    r"(?a)(ERROR|WARNING):|[\w.]*(Error|Exception)\b.*|Traceback \(most recent call last\):|.*: error: "
)
# The client's module by its tail: outputs recorded before the namespace move say
# "-m engine.insertbench.client", later ones "-m benchdeck.engine.families.insertbench.client".
_CLIENT = ("insertbench.client", "insertbench/client.py")


def parse_command(line: str) -> tuple[str, dict[str, str]] | None:
    """The client's command line: (the line, its options); ``--flag`` is "on", ``--no-flag`` "off"."""
    if not any(c in line for c in _CLIENT):
        return None
    tokens, _ = command_words(line)
    starts = [i for i, t in enumerate(tokens) if t.endswith(_CLIENT)]
    if not starts:
        return None
    options: dict[str, str] = {}
    rest = tokens[starts[0] + 1 :]
    for i, tok in enumerate(rest):
        if ends_command(tok):
            break
        if not tok.startswith("--") or len(tok) < 3:
            continue
        key, eq, value = tok[2:].partition("=")
        if eq:
            options[key] = value
        elif i + 1 < len(rest) and not rest[i + 1].startswith("-"):
            options[key] = rest[i + 1]
        elif key.startswith("no-"):
            options[key[3:]] = "off"
        else:
            options[key] = "on"
    return line.strip(), options


def main_rate_key(step: str) -> str:
    """Which rate is the step's QPS: ``ips`` (loads), ``ixps`` (l.x) or ``qps`` (query steps)."""
    kind = step_kind(step)
    return "ixps" if kind == "index" else "qps" if kind == "query" else "ips"


def parse_interval(line: str) -> BenchInterval | None:
    """One report line of the client; None if it is not one."""
    m = _INTERVAL.fullmatch(line.strip())
    if m is None:
        return None
    g = m.groupdict()
    key = main_rate_key(g["step"])
    if g.get(key) is None:  # an l.x step name without the ixps field
        return None
    main, pct = float(g[key]), float(g["pct"])
    return BenchInterval(
        t=float(g["t"]), threads=int(g["thds"]), tps=main, qps=main, reads=float(g["qps"]),
        writes=float(g["ips"]), other=float(g["dps"]),
        latency_ms=float(g["lat"]) if main > 0 and pct > 0 else None, latency_pct=pct if pct > 0 else None,
    )  # fmt: skip


class InsertBenchParser:
    """Incremental parser (the runner's ``BenchParser``): ``feed`` lines, then ``summary()``.

    Every line is an interval, recognised (``recognised`` counts them), in ``skipped`` or in
    ``messages`` (``ERROR:`` lines, Python errors, and the ``sla:`` result). ``sla_failed`` is
    True once ``sla: failed`` was read; ``finished`` once the summary's last line was read.
    """

    END_MARK = "elapsed: "  # the summary's last line starts with this

    def __init__(self) -> None:
        self.intervals: list[BenchInterval] = []
        self.skipped: list[SkippedLine] = []
        self.messages: list[SkippedLine] = []
        self.recognised = 0
        self.sla_failed = False
        self.sla: tuple[bool, float, float] | None = None  # (ok, target rows/s, achieved rows/s)
        self.dbms: str | None = None
        self.server_version: str | None = None
        self.finished = False
        self._lineno = 0
        self._command: str | None = None
        self._options: dict[str, str] = {}
        self._step: str | None = None
        self._counts: dict[str, tuple[int, float]] = {}
        self._latency: tuple[float, float, float] | None = None
        self._threads: int | None = None
        self._errors: int | None = None
        self._elapsed: float | None = None

    def feed(self, line: str) -> BenchInterval | None:
        """Consume one line (without its newline); return the interval it is, if any."""
        self._lineno += 1
        line = line.rstrip("\r\n")
        s = line.strip()
        if (iv := parse_interval(s)) is not None:
            self.intervals.append(iv)
            return iv
        if not s or self._summary_line(s):
            self.recognised += 1
        elif m := _SLA.fullmatch(s):
            ok = m.group(1) == "ok"
            self.sla = (ok, float(m.group(2)), float(m.group(3)))
            self.sla_failed = self.sla_failed or not ok
            self.messages.append(SkippedLine(self._lineno, line, "SLA " + ("met" if ok else "failure")))
        elif _MESSAGE.match(s):
            self.messages.append(SkippedLine(self._lineno, line, "insertbench message"))
        elif self._command is None and not self.intervals and (cmd := parse_command(s)) is not None:
            self._command, self._options = cmd
            self.recognised += 1
        else:
            reason = "malformed interval line" if s.startswith("[ ") else "unrecognised line"
            self.skipped.append(SkippedLine(self._lineno, line, reason))
        return None

    def _summary_line(self, s: str) -> bool:
        if m := _COUNT.fullmatch(s):
            self._counts[m.group(1)] = (int(m.group(2)), float(m.group(3)))
        elif m := _LATENCY.fullmatch(s):
            avg, p95, mx = (float(x) for x in m.groups())
            self._latency = (avg, p95, mx)
        elif m := _ELAPSED.fullmatch(s):
            self._elapsed, self.finished = float(m.group(1)), True
        elif m := _DBMS.fullmatch(s):
            self.dbms, self.server_version = m.group(1), m.group(2)
        elif (m := _SIMPLE.fullmatch(s)) is not None:
            key, value = m.groups()
            if key == "step":
                self._step = value
            elif value.isascii() and value.isdigit():
                setattr(self, f"_{key}", int(value))
            else:
                return False
        else:
            return False
        return True

    @property
    def step(self) -> str | None:
        return self._step or self._options.get("step")

    def flush(self) -> None:
        """End of input (nothing is buffered; kept for symmetry with the sysbench parser)."""

    def summary(self) -> SysbenchSummary:
        """The summary so far: ``qps`` is the step's figure (None until the summary block is read)."""
        step = self.step
        key = {"ips": "inserts", "ixps": "indexed", "qps": "queries"}[main_rate_key(step or "")]
        main = self._counts.get(key)
        lat = self._latency

        def count(name: str) -> int | None:
            return self._counts[name][0] if name in self._counts else None

        return SysbenchSummary(
            threads=self._threads, reads=count("queries"), writes=count("inserts"), other=count("deletes"),
            queries=main[0] if main else None, qps=main[1] if main else None,
            transactions=main[0] if main else None, tps=main[1] if main else None,
            total_events=main[0] if main else None, total_time_s=self._elapsed,
            lat_avg_ms=lat[0] if lat else None, lat_pct_ms=lat[1] if lat else None,
            lat_pct=95.0 if lat else None, lat_max_ms=lat[2] if lat else None,
            ignored_errors=self._errors, command=self._command, options=dict(self._options),
        )  # fmt: skip
