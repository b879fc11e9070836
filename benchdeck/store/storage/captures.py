"""Counter windows, folded CPU profiles and capture gaps of runs (engine/profiling), written in
one insert per table for all the runs of a flush (store/storage/bulk.py)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from benchdeck.engine.profiling.records import CounterWindow, ProfileWindow
from benchdeck.engine.profiling.stream import CaptureGap
from benchdeck.store.storage import bulk

COUNTERS_SOURCE = "perf stat -x,"
PROFILE_SOURCE = "perf record -g"


def append_counters(
    cur: duckdb.DuckDBPyConnection, runs: Sequence[tuple[int, Sequence[CounterWindow]]]
) -> int:
    wins = [(rid, w) for rid, ws in runs for w in ws]
    if not wins:
        return 0
    n = bulk.insert_columns(cur, "counter_windows", _window_columns(wins, COUNTERS_SOURCE))
    vals = [(rid, w.window, r) for rid, w in wins for r in w.readings]
    if vals:
        n += bulk.insert_columns(
            cur,
            "counter_values",
            {
                "run_id": ("BIGINT", [v[0] for v in vals]),
                "window_no": ("INTEGER", [v[1] for v in vals]),
                "event": ("VARCHAR", [v[2].event for v in vals]),
                "value": ("DOUBLE", [v[2].value for v in vals]),
                "unit": ("VARCHAR", [v[2].unit for v in vals]),
                "running_pct": ("DOUBLE", [v[2].running_pct for v in vals]),
                "status": ("VARCHAR", [v[2].status for v in vals]),
            },
        )
    return n


def append_profiles(
    cur: duckdb.DuckDBPyConnection, runs: Sequence[tuple[int, Sequence[ProfileWindow]]]
) -> int:
    wins = [(rid, w) for rid, ws in runs for w in ws]
    if not wins:
        return 0
    columns = {
        **_window_columns(wins, PROFILE_SOURCE),
        "event": ("VARCHAR", [w.event for _, w in wins]),
        "frequency_hz": ("DOUBLE", [w.frequency_hz for _, w in wins]),
        "samples": ("BIGINT", [sum(s for _, s in w.stacks) for _, w in wins]),
    }
    n = bulk.insert_columns(cur, "profile_windows", columns)
    stacks = [(rid, w.window, st, s) for rid, w in wins for st, s in w.stacks]
    if stacks:
        n += bulk.insert_columns(
            cur,
            "profile_stacks",
            {
                "run_id": ("BIGINT", [v[0] for v in stacks]),
                "window_no": ("INTEGER", [v[1] for v in stacks]),
                "stack": ("VARCHAR", [v[2] for v in stacks]),
                "samples": ("BIGINT", [v[3] for v in stacks]),
            },
        )
    return n


def _window_columns(
    wins: Sequence[tuple[int, CounterWindow | ProfileWindow]], source: str
) -> dict[str, tuple[str, list[Any]]]:
    """The columns counter and profile windows share."""
    return {
        "run_id": ("BIGINT", [r for r, _ in wins]),
        "window_no": ("INTEGER", [w.window for _, w in wins]),
        "start_s": ("DOUBLE", [w.start_s for _, w in wins]),
        "seconds": ("DOUBLE", [w.seconds for _, w in wins]),
        "target": ("VARCHAR", [w.target for _, w in wins]),
        "source": ("VARCHAR", [source] * len(wins)),
    }


def append_gaps(cur: duckdb.DuckDBPyConnection, runs: Sequence[tuple[int, Sequence[CaptureGap]]]) -> int:
    gaps = [(rid, g) for rid, gs in runs for g in gs]
    if not gaps:
        return 0
    return bulk.insert_columns(
        cur,
        "capture_gaps",
        {
            "run_id": ("BIGINT", [r for r, _ in gaps]),
            "kind": ("VARCHAR", [g.kind for _, g in gaps]),
            "window_no": ("INTEGER", [g.window for _, g in gaps]),
            "start_s": ("DOUBLE", [g.start_s for _, g in gaps]),
            "reason": ("VARCHAR", [g.reason for _, g in gaps]),
        },
    )


def capture_marks(cur: duckdb.DuckDBPyConnection, run_id: int) -> tuple[tuple[str, int], ...]:
    """The highest window number stored per capture kind (windows and gaps), for reattaching."""
    rows = cur.execute(
        "SELECT kind, max(w) FROM ("
        " SELECT 'counters' AS kind, window_no AS w FROM counter_windows WHERE run_id = $r"
        " UNION ALL SELECT 'cpu', window_no FROM profile_windows WHERE run_id = $r"
        " UNION ALL SELECT kind, window_no FROM capture_gaps WHERE run_id = $r"
        ") GROUP BY kind ORDER BY kind",
        {"r": run_id},
    ).fetchall()
    return tuple((str(k), int(w)) for k, w in rows)
