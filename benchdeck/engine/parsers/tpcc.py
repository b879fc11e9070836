"""TPC-C-like client output (``python3 -m benchdeck.engine.families.tpcc.client --step run``).

The client prints its command line, ``dbms: <name> <version>``, one line per report interval::

    [ 1s ] thds: 2 tps: 210.00 tpmC: 5640.00 rollbacks: 1 retries: 0 | new_order 94 2.10 4.52 6.31 | ...

(after ``|``, per transaction type: its name, count in the interval, avg, p95 and p99 latency in
ms) and a summary block ending with ``elapsed: S s``; see :func:`TpccParser.feed` for its lines.

The headline figure is tpmC (New-Order transactions committed per minute; NOPM is the same
count): an interval maps to ``BenchInterval(tps=committed transactions/s, qps=tpmC,
reads=Order-Status + Stock-Level /s, writes=New-Order + Payment + Delivery /s,
other=rollbacks/s, errors_s=retries/s, latency_ms=p95 of New-Order)``; the summary's ``qps`` is
the run's tpmC, ``tps`` its committed transactions/s, latencies those of New-Order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchdeck.engine.families.tpcc.txns import NAMES
from benchdeck.engine.parsers.command import command_words
from benchdeck.engine.records import BenchInterval, SkippedLine, SysbenchSummary

_F = r"\d{1,15}\.\d{2}"
_N = r"\d{1,18}"
_HEAD = re.compile(
    rf"(?a)\[ (?P<t>\d{{1,12}}(?:\.\d{{1,6}})?)s \] thds: (?P<thds>\d{{1,9}}) tps: (?P<tps>{_F}) "
    rf"tpmC: (?P<tpmc>{_F}) rollbacks: (?P<rb>{_N}) retries: (?P<retries>{_N})"
)
_TXN = re.compile(rf"(?a)(?P<name>[a-z_]{{1,20}}) (?P<n>{_N}) (?P<avg>{_F}) (?P<p95>{_F}) (?P<p99>{_F})")
_SUMMARY_TXN = re.compile(
    rf"(?a)(?P<name>[a-z_]{{1,20}}): (?P<n>{_N}) avg (?P<avg>{_F}) p95 (?P<p95>{_F}) p99 (?P<p99>{_F}) "
    rf"max (?P<max>{_F}) ms rollbacks (?P<rb>{_N}) retries (?P<retries>{_N})"
)
_TOTAL = re.compile(rf"(?a)transactions: ({_N}) \(({_F}) per sec\.\)")
_FIGURE = re.compile(rf"(?a)(tpmC|NOPM): ({_F})")
_COUNT = re.compile(rf"(?a)(threads|warehouses|errors): ({_N})")
_ELAPSED = re.compile(rf"(?a)elapsed: ({_F}) s")
_DBMS = re.compile(r"(?a)dbms: (mariadb|mysql|postgres) (\S.*)")
_MESSAGE = re.compile(
    r"(?a)(ERROR|WARNING):|[\w.]*(Error|Exception)\b.*|Traceback \(most recent call last\):"
)
_PER_TYPE = ("count", "avg_ms", "p95_ms", "p99_ms", "max_ms", "rollbacks", "retries")
_READS, _WRITES = ("order_status", "stock_level"), ("new_order", "payment", "delivery")


@dataclass(frozen=True, slots=True)
class TxnStats:
    """One transaction type over an interval or the run: count (rollbacks included) and
    latency in ms (avg, p95, p99; max in the summary only)."""

    name: str
    count: int
    avg_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float | None = None
    rollbacks: int | None = None
    retries: int | None = None


@dataclass(frozen=True, slots=True)
class TpccInterval:
    """An interval line: the BenchInterval the store keeps, and each transaction type's figures."""

    bench: BenchInterval
    tpmc: float
    rollbacks: int
    retries: int
    txns: tuple[TxnStats, ...]


def parse_interval(line: str) -> TpccInterval | None:
    """One interval line; None if it is not one (or is malformed)."""
    head, *rest = line.strip().split(" | ")
    m = _HEAD.fullmatch(head)
    if m is None or len(rest) != len(NAMES):
        return None
    stats = []
    for name, part in zip(NAMES, rest, strict=True):
        t = _TXN.fullmatch(part)
        if t is None or t["name"] != name:
            return None
        stats.append(TxnStats(name, int(t["n"]), float(t["avg"]), float(t["p95"]), float(t["p99"])))
    t_s, by = float(m["t"]), {s.name: s for s in stats}
    tps, tpmc, rb = float(m["tps"]), float(m["tpmc"]), int(m["rb"])
    total = sum(s.count for s in stats)
    scale = tps / (total - rb) if total > rb else 0.0  # 1 / the interval's length: counts -> per second
    bench = BenchInterval(
        t=t_s,
        threads=int(m["thds"]),
        tps=tps,
        qps=tpmc,
        reads=sum(by[n].count for n in _READS) * scale,
        writes=sum(by[n].count for n in _WRITES) * scale,
        other=rb * scale,
        errors_s=int(m["retries"]) * scale,
        latency_ms=by["new_order"].p95_ms if by["new_order"].count else None,
        latency_pct=95.0 if by["new_order"].count else None,
    )
    return TpccInterval(bench, tpmc, rb, int(m["retries"]), tuple(stats))


class TpccParser:
    """Incremental parser (the runner's ``BenchParser``): ``feed`` lines, then ``summary()``.

    Every line is an interval, a recognised header or summary line, a message (``ERROR:``,
    Python errors) or in ``skipped`` with its reason: nothing is dropped silently.
    """

    def __init__(self) -> None:
        self.intervals: list[BenchInterval] = []
        self.details: list[TpccInterval] = []
        self.skipped: list[SkippedLine] = []
        self.messages: list[SkippedLine] = []
        self.txns: dict[str, TxnStats] = {}
        self.dbms: str | None = None
        self.server_version: str | None = None
        self.finished = False
        self._lineno = 0
        self._command: str | None = None
        self._options: dict[str, str] = {}
        self._counts: dict[str, int] = {}
        self._figures: dict[str, float] = {}
        self._total: tuple[int, float] | None = None
        self._elapsed: float | None = None

    def feed(self, line: str) -> BenchInterval | None:
        self._lineno += 1
        line = line.rstrip("\r\n")
        s = line.strip()
        if (iv := parse_interval(s)) is not None:
            self.details.append(iv)
            self.intervals.append(iv.bench)
            return iv.bench
        if not s or self._summary_line(s):
            pass
        elif _MESSAGE.match(s):
            self.messages.append(SkippedLine(self._lineno, line, "tpcc message"))
        elif self._command is None and "tpcc.client" in s:
            self._command = s
            words, _ = command_words(s)
            self._options = {k: v for w in words if w.startswith("--") for k, _, v in [w[2:].partition("=")]}
        else:
            reason = "malformed interval line" if s.startswith("[ ") else "unrecognised line"
            self.skipped.append(SkippedLine(self._lineno, line, reason))
        return None

    def _summary_line(self, s: str) -> bool:
        if m := _SUMMARY_TXN.fullmatch(s):
            if m["name"] not in NAMES:
                return False
            self.txns[m["name"]] = TxnStats(
                m["name"],
                int(m["n"]),
                float(m["avg"]),
                float(m["p95"]),
                float(m["p99"]),
                float(m["max"]),
                int(m["rb"]),
                int(m["retries"]),
            )
        elif m := _TOTAL.fullmatch(s):
            self._total = (int(m[1]), float(m[2]))
        elif m := _FIGURE.fullmatch(s):
            self._figures[m[1]] = float(m[2])
        elif m := _COUNT.fullmatch(s):
            self._counts[m[1]] = int(m[2])
        elif m := _ELAPSED.fullmatch(s):
            self._elapsed, self.finished = float(m[1]), True
        elif m := _DBMS.fullmatch(s):
            self.dbms, self.server_version = m[1], m[2]
        elif s.startswith("loaded warehouse "):
            pass
        else:
            return False
        return True

    def flush(self) -> None:
        """End of input (nothing is buffered)."""

    @property
    def tpmc(self) -> float | None:
        return self._figures.get("tpmC")

    def summary(self) -> SysbenchSummary:
        """qps: tpmC; tps: committed transactions/s; latency: New-Order's (None until read)."""
        no = self.txns.get("new_order")
        total = self._total
        return SysbenchSummary(
            threads=self._counts.get("threads"),
            transactions=total[0] if total else None,
            tps=total[1] if total else None,
            qps=self.tpmc,
            total_events=total[0] if total else None,
            total_time_s=self._elapsed,
            lat_avg_ms=no.avg_ms if no else None,
            lat_pct_ms=no.p95_ms if no else None,
            lat_pct=95.0 if no else None,
            lat_max_ms=no.max_ms if no else None,
            ignored_errors=sum(t.retries or 0 for t in self.txns.values()) if self.txns else None,
            command=self._command,
            options=dict(self._options),
            per_type={
                t.name: {k: float(v) for k in _PER_TYPE if (v := getattr(t, k)) is not None}
                for t in self.txns.values()
            },
        )
