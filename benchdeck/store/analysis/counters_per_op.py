"""Counters per operation: each perf stat counter divided by the queries of its own window, and
the ratios perf users read, per compared cell (workload, dop, column).

A window's queries are the run's per-second QPS samples (``bench_samples``: the sample at t is
the rate over (t - 1, t]) integrated over the window's [start_s, start_s + seconds]; a window
without a start, or one the samples cover for less than 90% of its length (an imported run
whose perf files cannot be placed on the run's clock, a run without per-second samples or with
samples further apart, such as sysbench --report-interval=10), uses
the run's QPS x the window's length. A cell's value of a counter is the sum of the counter over
every window of the cell's runs that counted it divided by the queries of those windows (a
mean weighted by queries), ``windows`` how many windows that is. A counter no window counted
is None, never 0, and says why (``missing``): ``not supported`` when every window said perf's
``<not supported>`` (the CPU or VM has no such counter: every hardware event on a VM without a
PMU), else ``not counted`` (perf's ``<not counted>``: it could not schedule the counter).

Ratios, from the per-operation values (the author's groups count instructions and L1-icache
misses in different windows, so a ratio of one window's counts would not exist):

- ``ipc`` = instructions / cycles (perf's "insn per cycle");
- ``branch-miss-pct`` = 100 x branch-misses / branches (perf's "of all branches");
- ``l1i-mpki`` = 1,000 x L1-icache-load-misses / instructions (misses per 1,000 instructions,
  the figure of the MariaDB post: ~10% of instructions missed the L1 instruction cache);
- ``cache-miss-pct`` = 100 x cache-misses / cache-references (perf's "of all cache refs").

Names follow perf-list(1); the author's ``.raw`` files use the same ``*-pct`` names.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import duckdb

from benchdeck.engine.relative import relative

COVERED = 0.9  # share of a window the per-second samples must cover to count its queries

RATIOS: tuple[tuple[str, tuple[str, ...], tuple[str, ...], float], ...] = (
    # (name, numerator events, denominator events, factor); the first event a cell has is used
    ("ipc", ("instructions",), ("cycles",), 1.0),
    ("branch-miss-pct", ("branch-misses",), ("branches",), 100.0),
    ("l1i-mpki", ("L1-icache-load-misses", "L1-icache-loads-misses"), ("instructions",), 1000.0),
    ("cache-miss-pct", ("cache-misses",), ("cache-references",), 100.0),
)
RATIO_NAMES = tuple(r[0] for r in RATIOS)
ORDER = (
    "cpu-clock", "task-clock", "cycles", "bus-cycles", "instructions", "branches", "branch-misses",
    "cache-references", "cache-misses", "stalled-cycles-frontend", "stalled-cycles-backend",
    "L1-dcache-loads", "L1-dcache-load-misses", "L1-icache-loads", "L1-icache-load-misses",
    "L1-icache-loads-misses", "dTLB-loads", "dTLB-load-misses", "iTLB-loads", "iTLB-load-misses",
    "L1-dcache-stores", "dTLB-stores", "dTLB-store-misses", "LLC-loads", "LLC-load-misses",
    "LLC-stores", "LLC-store-misses", "LLC-prefetches", "context-switches", "cpu-migrations",
    "migrations", "page-faults", "faults", "minor-faults", "major-faults", "alignment-faults",
)  # fmt: skip
"""perf's events in the order the author's groups list them; others follow by name."""

SOFTWARE = frozenset(
    ("cpu-clock", "task-clock", "context-switches", "cpu-migrations", "migrations", "page-faults",
     "faults", "minor-faults", "major-faults", "alignment-faults", "emulation-faults")
)  # fmt: skip
"""The kernel's software events (perf-list(1)): cpu/o and cs/o say the first three from vmstat,
and faults per query are tiny counts whose ratios swing (x0.08 from 0.0001 to 0.00001), so
Triage ranks the hardware counters and the ratios only."""


NOT_SUPPORTED = "not supported"
NOT_COUNTED = "not counted"
NO_RATIO = "no ratio"  # a ratio whose denominator is 0


@dataclass(frozen=True, slots=True)
class CounterValue:
    """One counter of one cell: per operation (or the ratio), how many windows it comes from,
    and, when ``value`` is None, why (:data:`NOT_SUPPORTED`, :data:`NOT_COUNTED`, :data:`NO_RATIO`)."""

    value: float | None
    windows: int
    unit: str = ""
    missing: str = ""


@dataclass(frozen=True, slots=True)
class CounterRow:
    """One row of ``compare --table counters``: a workload, dop, column and counter."""

    workload: str
    dop: int | None
    column: str
    """The column's label (the base's or one of ``columns``)."""
    counter: str
    value: float | None
    rel: float | None
    """``value`` / the base's value at the same workload and dop."""
    windows: int
    unit: str = ""
    missing: str = ""
    """Why ``value`` is None (CounterValue.missing); empty when there is one."""

    @property
    def is_ratio(self) -> bool:
        return self.counter in RATIO_NAMES


_RunSums = dict[str, tuple[str, float | None, float | None, int, int]]
"""One run's counters: event -> (unit, sum of counted values, their windows' queries, windows,
windows that said <not supported>)."""


_PER_RUN_SQL = f"""
WITH ids AS (SELECT CAST(unnest(string_split($ids, ',')) AS BIGINT) AS id),
w AS (SELECT run_id, window_no, start_s, seconds FROM counter_windows SEMI JOIN ids ON run_id = id),
o AS (
    SELECT w.run_id, w.window_no,
           sum(s.qps * (least(s.t, w.start_s + w.seconds) - greatest(s.t - 1, w.start_s))) AS queries,
           sum(least(s.t, w.start_s + w.seconds) - greatest(s.t - 1, w.start_s)) AS covered
    FROM w JOIN bench_samples s
      ON s.run_id = w.run_id AND s.t > w.start_s AND s.t - 1 < w.start_s + w.seconds
    WHERE s.qps IS NOT NULL AND isfinite(s.qps)
    GROUP BY ALL
),
q AS (
    SELECT w.run_id, w.window_no,
           CASE WHEN o.covered >= {COVERED} * w.seconds THEN o.queries ELSE rs.qps * w.seconds END AS queries
    FROM w LEFT JOIN o USING (run_id, window_no) LEFT JOIN run_summary rs ON rs.run_id = w.run_id
)
SELECT v.run_id, v.event, any_value(v.unit),
       sum(v.value) FILTER (WHERE v.value IS NOT NULL AND q.queries > 0),
       sum(q.queries) FILTER (WHERE v.value IS NOT NULL AND q.queries > 0),
       count(*) FILTER (WHERE v.value IS NOT NULL AND q.queries > 0),
       count(*) FILTER (WHERE v.value IS NULL AND v.status = 'not supported')
FROM counter_values v JOIN q USING (run_id, window_no)
GROUP BY v.run_id, v.event
"""  # noqa: S608 - COVERED is this module's constant; the run ids are a parameter


def per_op(
    cur: duckdb.DuckDBPyConnection, cells: dict[tuple[str, int | None, str], Sequence[int]]
) -> dict[tuple[str, int | None, str], dict[str, CounterValue]]:
    """Per cell (workload, dop, label -> its run ids): every counter per operation and the
    ratios; cells whose runs have no counter windows are left out."""
    ids = sorted({i for runs in cells.values() for i in runs})
    try:
        if not ids or cur.execute("SELECT 1 FROM counter_windows LIMIT 1").fetchone() is None:
            return {}  # most stores have no counters: a one-row probe instead of the query
    except duckdb.CatalogException:
        return {}  # a team store made before migration 12 (lakes do not follow migrations)
    sums: dict[int, _RunSums] = {}
    params = {"ids": ",".join(map(str, ids))}  # one parameter, a string: see compare._joined
    for run_id, event, unit, total, queries, n, unsupported in cur.execute(_PER_RUN_SQL, params).fetchall():
        sums.setdefault(int(run_id), {})[event] = (unit or "", total, queries, int(n), int(unsupported))
    out: dict[tuple[str, int | None, str], dict[str, CounterValue]] = {}
    for key, runs in cells.items():
        of_cell = [sums[r] for r in runs if r in sums]
        if of_cell:
            out[key] = _cell_values(of_cell)
    return out


def _cell_values(runs: Sequence[_RunSums]) -> dict[str, CounterValue]:
    vals: dict[str, CounterValue] = {}
    for event in sorted({e for r in runs for e in r}, key=_order):
        total = queries = 0.0
        windows = unsupported = 0
        unit = ""
        for r in runs:
            if event not in r:
                continue
            unit, t, q, n, u = r[event]
            unsupported += u
            if n and t is not None and q:
                total, queries, windows = total + t, queries + q, windows + n
        if windows:
            vals[event] = CounterValue(total / queries, windows, unit)
        else:
            vals[event] = CounterValue(None, 0, unit, NOT_SUPPORTED if unsupported else NOT_COUNTED)
    return {**ratios(vals), **vals}


def ratios(vals: dict[str, CounterValue]) -> dict[str, CounterValue]:
    """The ratios (:data:`RATIOS`) of one cell's per-operation values, where both sides exist
    in the cell; ``windows`` is the smaller of the two sides'."""
    out: dict[str, CounterValue] = {}
    plain = {_plain(e): v for e, v in vals.items()}
    plain.update(vals)  # an event as perf names it plainly wins over a qualified one
    for name, nums, dens, factor in RATIOS:
        num = next((plain[e] for e in nums if e in plain), None)
        den = next((plain[e] for e in dens if e in plain), None)
        if num is None or den is None:
            continue
        if num.value is not None and den.value:
            value = factor * num.value / den.value
            out[name] = CounterValue(value, min(num.windows, den.windows))
        else:  # a side not counted (its reason), or a zero denominator
            missing = num.missing if num.value is None else den.missing if den.value is None else NO_RATIO
            out[name] = CounterValue(None, 0, missing=missing)
    return out


def _plain(event: str) -> str:
    """``cycles:u`` / ``cpu_core/cycles/`` (a modifier, a hybrid CPU's PMU) -> ``cycles``."""
    if event.count("/") == 2 and event.endswith("/"):
        event = event.split("/")[1]
    return event.split(":", 1)[0]


def _row_order(name: str) -> tuple[int, int, str]:
    """The ratios first (in :data:`RATIOS`' order), then the events (:func:`_order`)."""
    if name in RATIO_NAMES:
        return (0, RATIO_NAMES.index(name), "")
    return (1, *_order(name))


def _order(event: str) -> tuple[int, str]:
    return (ORDER.index(event) if event in ORDER else len(ORDER), event)


def counter_rows(
    values: dict[tuple[str, int | None, str], dict[str, CounterValue]],
    keys: Sequence[tuple[str, int | None]],
    base: str,
    columns: Collection[str],
) -> tuple[CounterRow, ...]:
    """One row per workload and dop (``keys``' order), column (the base first) and counter (the
    ratios first, then the events) of the cells that have counters."""
    rows: list[CounterRow] = []
    for wl, d in keys:
        base_vals = values.get((wl, d, base), {})
        labels = [lab for lab in (base, *columns) if (wl, d, lab) in values]
        names: dict[str, None] = {}
        for lab in labels:
            names.update(dict.fromkeys(values[(wl, d, lab)]))
        order = sorted(
            names,
            key=lambda n: (n not in RATIO_NAMES, RATIO_NAMES.index(n) if n in RATIO_NAMES else 0, _order(n)),
        )
        for lab in labels:
            mine = values[(wl, d, lab)]
            for name in order:
                v = mine.get(name)
                if v is None:
                    continue
                b = base_vals.get(name)
                rel = (
                    relative(v.value, b.value)
                    if b is not None and v.value is not None and b.value is not None
                    else None
                )
                rows.append(CounterRow(wl, d, lab, name, v.value, rel, v.windows, v.unit, v.missing))
    return tuple(rows)
