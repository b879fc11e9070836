"""Small questions the clients ask the store: a count, a name, a host's facts, a median."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the app's start-up path counts runs: it need not load DuckDB itself)
    import duckdb


def count_all_runs(cur: duckdb.DuckDBPyConnection) -> int:
    """Every run the store holds, whatever its status (an empty store opens on Launch)."""
    row = cur.execute("SELECT count(*) FROM runs").fetchone()
    return int(row[0]) if row else 0


def runs_state(cur: duckdb.DuckDBPyConnection) -> tuple[int, int, int]:
    """What changes when anyone adds, ends, tags or deletes a run: (runs, the newest run id, a
    hash over every run's id, status and tags). One scan of three columns of ``runs``."""
    row = cur.execute(
        "SELECT count(*), coalesce(max(run_id), 0), "
        "coalesce(bit_xor(hash(run_id, status, tags)), 0) FROM runs"
    ).fetchone()
    return (int(row[0]), int(row[1]), int(row[2])) if row else (0, 0, 0)


def hosts_by_runs(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """Hosts with runs, the one with the most runs first."""
    rows = cur.execute(
        "SELECT h.name FROM hosts h JOIN runs r USING (host_id) "
        "GROUP BY h.name ORDER BY count(*) DESC, h.name"
    ).fetchall()
    return [str(r[0]) for r in rows]


def host_workloads(cur: duckdb.DuckDBPyConnection, host: str) -> set[str]:
    """Workloads with any run on ``host``."""
    rows = cur.execute(
        "SELECT DISTINCT w.name FROM runs r JOIN hosts h USING (host_id) "
        "JOIN workloads w USING (workload_id) WHERE h.name = ?",
        [host],
    ).fetchall()
    return {str(r[0]) for r in rows}


def host_facts_json(cur: duckdb.DuckDBPyConnection, host: str) -> str | None:
    """The facts the last ``benchdeck hosts check`` stored for ``host`` (JSON), if any."""
    row = cur.execute("SELECT facts FROM hosts WHERE name = ?", [host]).fetchone()
    return str(row[0]) if row and row[0] else None


def median_finished_qps(cur: duckdb.DuckDBPyConnection, host: str, build: str, workload: str) -> float | None:
    """Median QPS of the finished runs of ``build`` running ``workload`` on ``host`` (Live's base)."""
    row = cur.execute(
        "SELECT median(s.qps) FROM runs r JOIN hosts h USING (host_id) "
        "JOIN builds b USING (build_id) JOIN workloads w USING (workload_id) "
        "JOIN run_summary s USING (run_id) "
        "WHERE h.name = ? AND b.name = ? AND w.name = ? AND r.status = 'finished'",
        [host, build, workload],
    ).fetchone()
    return float(row[0]) if row and row[0] is not None else None


def run_build(cur: duckdb.DuckDBPyConnection, run_id: int) -> str | None:
    """The build name of run ``run_id`` (None: no such run)."""
    row = cur.execute(
        "SELECT b.name FROM runs r JOIN builds b USING (build_id) WHERE r.run_id = ?", [run_id]
    ).fetchone()
    return str(row[0]) if row else None


def run_setup(cur: duckdb.DuckDBPyConnection, run_id: int) -> tuple[str, int | None]:
    """A run's server config (``""``: the default) and concurrency, for its summary line."""
    row = cur.execute("SELECT coalesce(config, ''), threads FROM runs WHERE run_id = ?", [run_id]).fetchone()
    return (str(row[0]), row[1]) if row else ("", None)


def count_samples(cur: duckdb.DuckDBPyConnection, run_id: int) -> int:
    """Interval samples of the benchmark stored for run ``run_id``."""
    row = cur.execute("SELECT count(*) FROM bench_samples WHERE run_id = ?", [run_id]).fetchone()
    return int(row[0]) if row else 0


def run_status(cur: duckdb.DuckDBPyConnection, run_id: int) -> str | None:
    """The status of run ``run_id`` (``finished``, ``cancelled`` ...); None: no such run."""
    row = cur.execute("SELECT status FROM runs WHERE run_id = ?", [run_id]).fetchone()
    return str(row[0]) if row else None


def median_setup_s(cur: duckdb.DuckDBPyConnection, host: str, last: int) -> float | None:
    """Median set-up of the ``last`` finished runs benchdeck started on ``host``: wall time
    (queued to finished) less the seconds measured; None when it has none."""
    row = cur.execute(
        "SELECT median(greatest(epoch(r.finished_at - r.created_at) - s.t, 0)) FROM ("
        "  SELECT r.run_id, r.created_at, r.finished_at FROM runs r JOIN hosts h USING (host_id)"
        "  WHERE h.name = ? AND r.source = 'run' AND r.status = 'finished' AND r.finished_at IS NOT NULL"
        "  ORDER BY r.run_id DESC LIMIT ?) r "
        "JOIN (SELECT run_id, max(t) AS t FROM bench_samples GROUP BY run_id) s USING (run_id)",
        [host, last],
    ).fetchone()
    return float(row[0]) if row and row[0] is not None else None
