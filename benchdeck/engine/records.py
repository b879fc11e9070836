"""Typed records produced by the output parsers (pure data, no behaviour)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class BenchInterval:
    """One sysbench ``--report-interval`` line (or an ``eps:`` line of cpu/memory tests).

    ``t`` is seconds since the start of the measured phase, as sysbench prints it.
    ``qps`` and the read/write/other split are ``None`` for eps-only tests.
    """

    t: float
    threads: int
    tps: float
    qps: float | None = None
    reads: float | None = None
    writes: float | None = None
    other: float | None = None
    latency_ms: float | None = None
    latency_pct: float | None = None
    errors_s: float = 0.0
    reconnects_s: float = 0.0


@dataclass(frozen=True, slots=True)
class SysbenchSummary:
    """The final report of a sysbench run (1.0 ``General statistics`` or 1.1 ``Throughput``)."""

    sysbench_version: str | None = None
    threads: int | None = None
    reads: int | None = None
    writes: int | None = None
    other: int | None = None
    queries_total: int | None = None
    transactions: int | None = None
    tps: float | None = None
    queries: int | None = None
    qps: float | None = None
    ignored_errors: int | None = None
    reconnects: int | None = None
    eps: float | None = None
    total_time_s: float | None = None
    total_events: int | None = None
    lat_min_ms: float | None = None
    lat_avg_ms: float | None = None
    lat_max_ms: float | None = None
    lat_pct_ms: float | None = None
    lat_pct: float | None = None
    lat_sum_ms: float | None = None
    command: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    # Per operation type, figures by name (the TPC-C-like family: each transaction type's count,
    # avg/p95/p99/max ms, rollbacks, retries); stored under the run's params "transactions".
    per_type: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class VmstatSample:
    """One vmstat data row (the since-boot first row is never a sample).

    ``seq`` counts samples from 0; ``timestamp`` is set with ``vmstat -t``.
    ``gu`` (guest CPU, procps >= 4) is ``None`` when the column is absent.
    """

    seq: int
    r: int
    b: int
    swpd: int
    free: int
    buff: int
    cache: int
    si: int
    so: int
    bi: int
    bo: int
    in_: int
    cs: int
    us: int
    sy: int
    id: int
    wa: int
    st: int
    gu: int | None = None
    timestamp: str | None = None


@dataclass(frozen=True, slots=True)
class IostatSample:
    """One iostat ``-x`` device row of one report (``seq`` counts reports from 0)."""

    seq: int
    device: str
    r_s: float
    w_s: float
    rkb_s: float
    wkb_s: float
    rrqm_s: float | None = None
    wrqm_s: float | None = None
    r_await: float | None = None
    w_await: float | None = None
    aqu_sz: float | None = None
    util: float | None = None
    timestamp: str | None = None


@dataclass(frozen=True, slots=True)
class SkippedLine:
    """A line a parser could not use: kept with its number and the reason, never dropped."""

    lineno: int
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What a run ran on, captured when it ran: enough to explain why two runs differ.

    ``host_facts`` is a JSON text (:meth:`engine.hostfacts.HostFacts.as_dict`); command lines
    have their passwords masked; ``notes`` says what could not be captured, and why.
    """

    host_facts: str | None = None
    dbms_version: str | None = None
    variables: tuple[tuple[str, str], ...] = ()
    config_files: tuple[tuple[str, str], ...] = ()  # (path, content)
    binary_version: str | None = None
    git_commit: str | None = None
    commands: tuple[tuple[str, str], ...] = ()  # (step, command line)
    notes: tuple[str, ...] = ()
