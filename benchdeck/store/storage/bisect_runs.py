"""The status and QPS of runs a bisect session took (read back when it resumes)."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb


def run_results(
    cur: duckdb.DuckDBPyConnection, run_ids: Sequence[int]
) -> dict[int, tuple[str, float | None]]:
    """run id -> (status, qps) of the runs that exist."""
    if not run_ids:
        return {}
    rows = cur.execute(
        "SELECT r.run_id, r.status, s.qps FROM runs r LEFT JOIN run_summary s USING (run_id) "
        "WHERE list_contains(?, r.run_id)",
        [list(run_ids)],
    ).fetchall()
    return {int(rid): (str(status), float(qps) if qps is not None else None) for rid, status, qps in rows}
