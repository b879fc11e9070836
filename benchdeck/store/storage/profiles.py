"""CPU profiles in the store: save a run's ``ProfileWindow`` records, read them back, and gather
what CPU per query needs (the queries of each window, a cycles window's task-clock).

The capture (engine/profiling, perf record during a run) saves through :func:`append_profiles`
(source ``perf record -g``), the importers (folded stacks, perf script output, flamegraph.pl
SVGs) through :func:`save_imported_profile`: an imported profile is its own source, numbered
after the run's captured windows, never in their place. A run's profile is read from one
source: its captured windows when it has any, else its imported one (``source`` chooses).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from benchdeck.engine.profiling.cpu import ProfileError, SideProfile, queries_in_window, side_profile
from benchdeck.engine.profiling.records import ProfileWindow
from benchdeck.store.storage.captures import PROFILE_SOURCE, append_profiles

SOURCES = ("auto", "captured", "imported")


def save_profile_windows(
    cur: duckdb.DuckDBPyConnection, run_id: int, windows: Sequence[ProfileWindow], source: str
) -> int:
    """Store ``windows`` of run ``run_id`` as the capture does (store/storage/captures.py), saying where
    they came from (``source``: ``svg``, ``file`` ...); a window number already stored for the
    run is replaced (an import of the same file again). Returns the stacks stored."""
    if not windows:
        return 0
    numbers = [w.window for w in windows]
    for table in ("profile_windows", "profile_stacks"):
        cur.execute(
            f"DELETE FROM {table} WHERE run_id = ? AND list_contains(?::INTEGER[], window_no)",  # noqa: S608
            [run_id, numbers],
        )
    append_profiles(cur, [(run_id, windows)])
    cur.execute(
        "UPDATE profile_windows SET source = ? WHERE run_id = ? AND list_contains(?::INTEGER[], window_no)",
        [source, run_id, numbers],
    )
    return sum(len(w.stacks) for w in windows)


def captured_windows(cur: duckdb.DuckDBPyConnection, run_id: int) -> int:
    """How many windows the capture stored for run ``run_id`` (imports not counted)."""
    row = cur.execute(
        "SELECT count(*) FROM profile_windows WHERE run_id = ? AND source = ?", [run_id, PROFILE_SOURCE]
    ).fetchone()
    return int(row[0]) if row else 0


def save_imported_profile(
    cur: duckdb.DuckDBPyConnection, run_id: int, window: ProfileWindow, source: str
) -> int:
    """Store an imported profile of run ``run_id`` as its own source (``svg``, ``folded`` ...),
    numbered after the run's captured windows, which stay; an earlier import of the run is
    replaced. Returns the stacks stored."""
    cur.execute(
        "DELETE FROM profile_stacks WHERE run_id = $r AND window_no IN (SELECT window_no FROM "
        "profile_windows WHERE run_id = $r AND source <> $s)",
        {"r": run_id, "s": PROFILE_SOURCE},
    )
    cur.execute("DELETE FROM profile_windows WHERE run_id = ? AND source <> ?", [run_id, PROFILE_SOURCE])
    row = cur.execute("SELECT max(window_no) FROM profile_windows WHERE run_id = ?", [run_id]).fetchone()
    number = 0 if row is None or row[0] is None else int(row[0]) + 1
    numbered = ProfileWindow(number, window.seconds, window.event, window.frequency_hz, window.stacks,
                             window.start_s, window.target)  # fmt: skip
    return save_profile_windows(cur, run_id, [numbered], source)


def load_profile_windows(
    cur: duckdb.DuckDBPyConnection, run_id: int, source: str = "auto"
) -> list[ProfileWindow]:
    """The profile windows stored for run ``run_id`` from one source (``captured``, ``imported``,
    ``auto``: the captured ones when there are, else the imported), by window number."""
    rows = cur.execute(
        "SELECT window_no, seconds, event, frequency_hz, start_s, target, source = ? FROM profile_windows "
        "WHERE run_id = ? ORDER BY window_no",
        [PROFILE_SOURCE, run_id],
    ).fetchall()
    if source == "auto":
        source = "captured" if any(r[6] for r in rows) else "imported"
    heads = [r[:6] for r in rows if bool(r[6]) == (source == "captured")]
    by_window: dict[int, list[tuple[str, int]]] = {int(h[0]): [] for h in heads}
    for no, stack, n in cur.execute(
        "SELECT window_no, stack, samples FROM profile_stacks WHERE run_id = ? ORDER BY window_no, stack",
        [run_id],
    ).fetchall():
        by_window.setdefault(int(no), []).append((str(stack), int(n)))
    return [
        ProfileWindow(
            window=int(no),
            seconds=float(seconds),
            event=str(event),
            frequency_hz=None if hz is None else float(hz),
            stacks=tuple(by_window[int(no)]),
            start_s=None if start is None else float(start),
            target=str(target),
        )
        for no, seconds, event, hz, start, target in heads
    ]


def runs_with_profiles(cur: duckdb.DuckDBPyConnection, run_ids: Sequence[int]) -> list[int]:
    """Those of ``run_ids`` with a stored profile."""
    rows = cur.execute(
        "SELECT DISTINCT run_id FROM profile_windows WHERE list_contains(?::BIGINT[], run_id) ORDER BY 1",
        [list(run_ids)],
    ).fetchall()
    return [int(r[0]) for r in rows]


@dataclass(frozen=True, slots=True)
class ColumnRuns:
    """The finished runs of one build and workload on a host that have profiles."""

    host: str
    build: str
    workload: str
    run_ids: tuple[int, ...]


def column_runs(
    cur: duckdb.DuckDBPyConnection,
    host: str,
    build: str,
    workload: str,
    config: str | None = None,
    dop: int | None = None,
    cluster: str | None = None,
) -> ColumnRuns:
    """The finished runs of ``build`` running ``workload`` on ``host`` with a stored profile:
    its runs alone, or (``cluster``) its runs on that cluster, never both (issue 41)."""
    sql = (
        "SELECT DISTINCT r.run_id FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
        "JOIN workloads w USING (workload_id) JOIN profile_windows p ON p.run_id = r.run_id "
        "WHERE h.name = ? AND b.name = ? AND w.name = ? AND r.status = 'finished'"
    )
    params: list[object] = [host, build, workload]
    if config is not None:
        sql += " AND r.config = ?"
        params.append(config)
    if dop is not None:
        sql += " AND r.threads = ?"
        params.append(dop)
    if cluster is None:
        sql += " AND NOT EXISTS (SELECT 1 FROM run_clusters c WHERE c.run_id = r.run_id)"
    else:
        sql += " AND EXISTS (SELECT 1 FROM run_clusters c WHERE c.run_id = r.run_id AND c.cluster = ?)"
        params.append(cluster)
    rows = cur.execute(sql + " ORDER BY 1", params).fetchall()
    return ColumnRuns(host, build, workload, tuple(int(r[0]) for r in rows))


def profiled_workloads(
    cur: duckdb.DuckDBPyConnection, host: str, builds: Sequence[str], configs: Sequence[str | None]
) -> list[str]:
    """Workloads on ``host`` with a finished, profiled run of every one of ``builds`` (each
    under its config, None: any), by name."""
    found: set[str] | None = None
    for build, config in zip(builds, configs, strict=True):
        sql = (
            "SELECT DISTINCT w.name FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
            "JOIN workloads w USING (workload_id) "
            "WHERE h.name = ? AND b.name = ? AND r.status = 'finished' "
            "AND r.run_id IN (SELECT run_id FROM profile_windows)"
        )
        params: list[object] = [host, build]
        if config is not None:
            sql += " AND r.config = ?"
            params.append(config)
        names = {str(r[0]) for r in cur.execute(sql, params).fetchall()}
        found = names if found is None else found & names
    return sorted(found or ())


def _task_clock_ms(cur: duckdb.DuckDBPyConnection, run_id: int) -> dict[int, float]:
    rows = cur.execute(
        "SELECT window_no, value FROM counter_values WHERE run_id = ? AND event = 'task-clock' "
        "AND value IS NOT NULL",
        [run_id],
    ).fetchall()
    return {int(no): float(v) for no, v in rows}


def load_side(
    cur: duckdb.DuckDBPyConnection, label: str, run_ids: Sequence[int], source: str = "auto"
) -> SideProfile:
    """The runs' profile windows (of ``source``) merged into one side, each window with its
    queries (from the run's per-interval samples over it, else the run's QPS x its seconds; none
    for a window of unknown length: the side is then in shares)."""
    if not run_ids:
        raise ProfileError(f"{label}: no runs with a stored profile")
    windows: list[tuple[int, ProfileWindow, float, float | None]] = []
    for run_id in run_ids:
        stored = load_profile_windows(cur, run_id, source)
        if not stored:
            what = "" if source == "auto" else f" {source}"
            raise ProfileError(f"run {run_id} has no stored{what} profile")
        samples = [
            (float(t), None if q is None else float(q))
            for t, q in cur.execute(
                "SELECT t, qps FROM bench_samples WHERE run_id = ? ORDER BY t", [run_id]
            ).fetchall()
        ]
        row = cur.execute("SELECT qps FROM run_summary WHERE run_id = ?", [run_id]).fetchone()
        run_qps = None if row is None or row[0] is None else float(row[0])
        task = _task_clock_ms(cur, run_id)
        for w in stored:
            if w.seconds <= 0:
                windows.append((run_id, w, 0.0, None))  # how long perf recorded is unknown
                continue
            try:
                queries = queries_in_window(samples, w.start_s, w.seconds, run_qps)
            except ProfileError as exc:
                raise ProfileError(f"run {run_id} window {w.window}: {exc}") from None
            windows.append((run_id, w, queries, task.get(w.window)))
    return side_profile(label, windows)


def run_label(cur: duckdb.DuckDBPyConnection, run_id: int) -> str:
    """``build workload (run N)`` for a run; raises ProfileError when there is no such run."""
    row = cur.execute(
        "SELECT b.name, w.name FROM runs r JOIN builds b USING (build_id) "
        "JOIN workloads w USING (workload_id) WHERE r.run_id = ?",
        [run_id],
    ).fetchone()
    if row is None:
        raise ProfileError(f"no run {run_id}")
    return f"{row[0]} {row[1]} (run {run_id})"
