"""Read-side queries the clients list from: runs, hosts, builds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import duckdb


@dataclass(frozen=True, slots=True)
class RunRow:
    run_id: int
    host: str
    build: str
    config: str
    workload: str
    threads: int | None
    status: str
    qps: float | None
    created_at: datetime


def list_runs(cur: duckdb.DuckDBPyConnection, host: str | None = None, limit: int = 500) -> list[RunRow]:
    rows = cur.execute(
        "SELECT r.run_id, h.name, b.name, r.config, w.name, r.threads, r.status, s.qps, r.created_at "
        "FROM runs r JOIN hosts h ON h.host_id = r.host_id JOIN builds b ON b.build_id = r.build_id "
        "JOIN workloads w ON w.workload_id = r.workload_id LEFT JOIN run_summary s ON s.run_id = r.run_id "
        "WHERE ($host IS NULL OR h.name = $host) ORDER BY r.run_id DESC LIMIT $limit",
        {"host": host, "limit": limit},
    ).fetchall()
    return [RunRow(*r) for r in rows]


def list_hosts(cur: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in cur.execute("SELECT name FROM hosts ORDER BY name").fetchall()]


def list_builds(cur: duckdb.DuckDBPyConnection, host: str | None = None) -> list[str]:
    """Builds with finished runs (on ``host`` if given), oldest version first."""
    rows = cur.execute(
        "SELECT DISTINCT b.name, b.version_key FROM builds b JOIN runs r ON r.build_id = b.build_id "
        "JOIN hosts h ON h.host_id = r.host_id WHERE r.status = 'finished' "
        "AND ($host IS NULL OR h.name = $host) ORDER BY b.version_key, b.name",
        {"host": host},
    ).fetchall()
    return [r[0] for r in rows]
