"""Read-side queries the clients list from: runs, hosts, builds."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (the app's first frame lists runs read elsewhere: it need not load DuckDB)
    import duckdb

from benchdeck.store.storage.dialect import lake_of


def list_hosts(cur: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in cur.execute("SELECT name FROM hosts ORDER BY name").fetchall()]


def list_builds(
    cur: duckdb.DuckDBPyConnection, host: str | None = None, config: str | None = None
) -> list[str]:
    """Builds with finished runs (on ``host``, with ``config`` if given), oldest version first."""
    rows = cur.execute(
        "SELECT DISTINCT b.name, b.version_key FROM builds b JOIN runs r ON r.build_id = b.build_id "
        "JOIN hosts h ON h.host_id = r.host_id WHERE r.status = 'finished' "
        "AND ($host IS NULL OR h.name = $host) AND ($config IS NULL OR r.config = $config) "
        "ORDER BY b.version_key, b.name",
        {"host": host, "config": config},
    ).fetchall()
    return [r[0] for r in rows]


def has_cluster_runs(cur: duckdb.DuckDBPyConnection) -> bool:
    """The store has runs on a cluster (issue 41; a team store made before migration 14: none)."""
    import duckdb  # (loaded by now: ``cur`` is one of its cursors)

    try:
        row = cur.execute("SELECT EXISTS (SELECT 1 FROM run_clusters)").fetchone()
    except duckdb.CatalogException:
        return False
    return bool(row and row[0])


# --- Run history, tags, deletion and time series (used by the TUI's Runs and Triage screens) ---

# Tables keyed by run_id that hold what was recorded for a run; ``runs`` itself is deleted last.
_RUN_DATA_TABLES = (
    "run_records",
    "bench_samples",
    "vmstat_samples",
    "iostat_samples",
    "skipped_lines",
    "raw_files",
    "run_summary",
    "remote_runs",
    "run_clusters",  # a run on a cluster (issue 41): its nodes and what was sampled of them
    "cluster_nodes",
    "replica_lag",
    "node_vmstat_samples",
    "node_iostat_samples",
    "node_faults",
)


@dataclass(frozen=True, slots=True)
class RunFilter:
    """What the run history shows: all fields optional; ``workload`` matches a substring."""

    host: str | None = None
    build: str | None = None
    workload: str | None = None
    since: date | None = None
    until: date | None = None
    tag: str | None = None
    limit: int = 1000
    config: str | None = None
    status: str | None = None
    workload_glob: str | None = None
    """Workload names matching this glob, in any case (``read-only_range=10`` only that one;
    ``read-only*``)."""


@dataclass(frozen=True, slots=True)
class HistoryRow:
    run_id: int
    host: str
    build: str
    config: str
    workload: str
    threads: int | None
    status: str
    qps: float | None
    created_at: datetime
    tags: tuple[str, ...]
    error: str | None = None
    """Why the run failed (or was cancelled), as the engine said."""
    cluster: str | None = None
    """The cluster the run ran on (its primary is ``host``); None: the server alone."""
    lag_limit_s: float | None = None
    lag_max_s: float | None = None
    """The largest lag of the cluster's replicas during the run (store/storage/cluster_summary.py)."""
    over_limit: bool | None = None
    """A replica fell behind past ``lag_limit_s`` (None: no cluster, or no lag measured)."""
    faults: int = 0
    """Nodes that stopped replicating or went away during the run."""

    @property
    def flag(self) -> str:
        """``lag > 10 s; 1 fault(s)``: what lists show of a cluster run that fell behind."""
        parts = [f"lag > {self.lag_limit_s:g} s"] if self.over_limit and self.lag_limit_s is not None else []
        parts += [f"{self.faults} fault(s)"] if self.faults else []
        return "; ".join(parts)

    @property
    def reason(self) -> str | None:
        """The first line of :attr:`error` (None without one): what lists show."""
        first = self.error.strip().splitlines()[0] if self.error and self.error.strip() else ""
        return first or None

    @property
    def when(self) -> str:
        """The run's date as lists show it (``YYYY-MM-DD HH:MM``)."""
        at = self.created_at  # (isoformat: strftime's text at a third of the cost, from year 1000)
        return at.isoformat(" ", "minutes")[:16] if at.year >= 1000 else at.strftime("%Y-%m-%d %H:%M")


_HISTORY_WHERE = (
    "WHERE ($host IS NULL OR h.name = $host) AND ($build IS NULL OR b.name = $build) "
    "AND ($wl IS NULL OR contains(lower(w.name), lower($wl))) "
    "AND ($wl_glob IS NULL OR lower(w.name) GLOB lower($wl_glob)) "
    "AND ($since IS NULL OR r.created_at >= CAST($since AS DATE)) "
    "AND ($until IS NULL OR r.created_at < CAST($until AS DATE) + INTERVAL 1 DAY) "
    "AND ($tag IS NULL OR list_contains(r.tags, $tag)) "
    "AND ($config IS NULL OR r.config = $config OR ($config = 'default' AND r.config = '')) "
    "AND ($status IS NULL OR r.status = $status) "
)


_HISTORY_SELECT = (
    "SELECT r.run_id, h.name, b.name, r.config, w.name, r.threads, r.status, s.qps, "
    "r.created_at, r.tags, r.error, "
    "c.cluster, c.lag_limit_s, c.lag_max_s, c.over_limit, coalesce(c.faults, 0) "
    "FROM runs r JOIN hosts h ON h.host_id = r.host_id "
    "JOIN builds b ON b.build_id = r.build_id "
    "JOIN workloads w ON w.workload_id = r.workload_id LEFT JOIN run_summary s ON s.run_id = r.run_id "
    "LEFT JOIN run_clusters c ON c.run_id = r.run_id "
)


def _history_params(f: RunFilter) -> dict[str, Any]:
    return {
        "host": f.host,
        "build": f.build,
        "wl": f.workload or None,
        "wl_glob": f.workload_glob,
        "since": f.since,
        "until": f.until,
        "tag": f.tag or None,
        "config": f.config,
        "status": f.status,
    }


def count_runs(cur: duckdb.DuckDBPyConnection, f: RunFilter | None = None) -> int:
    """How many runs match ``f`` (its ``limit`` aside)."""
    row = cur.execute(
        "SELECT count(*) FROM runs r JOIN hosts h ON h.host_id = r.host_id "  # noqa: S608 (constants)
        "JOIN builds b ON b.build_id = r.build_id JOIN workloads w ON w.workload_id = r.workload_id "
        + _HISTORY_WHERE,
        _history_params(f or RunFilter()),
    ).fetchone()
    return int(row[0]) if row else 0


def run_history(cur: duckdb.DuckDBPyConnection, f: RunFilter | None = None) -> list[HistoryRow]:
    """Runs matching ``f``, newest first by when they ran (an imported run by its own date,
    not the import's: issue 24), then by id (``until`` is inclusive)."""
    f = f or RunFilter()
    rows = cur.execute(
        _HISTORY_SELECT + _HISTORY_WHERE + "ORDER BY r.created_at DESC, r.run_id DESC LIMIT $limit",
        _history_params(f) | {"limit": f.limit},
    ).fetchall()
    return [_history_row(r) for r in rows]


def run_history_after(
    cur: duckdb.DuckDBPyConnection, f: RunFilter, after: int, *, down_to: int | None = None
) -> list[HistoryRow]:
    """The page of runs matching ``f`` that follows run ``after`` in :func:`run_history`'s order
    (newest first): at most ``f.limit`` of them, or with ``down_to`` every one down to that run
    id (inclusive; no limit). Keyset on the order's key (created_at, run_id) of run ``after``:
    no OFFSET to skip over."""
    limit = f.limit if down_to is None else None
    rows = cur.execute(
        _HISTORY_SELECT  # noqa: S608 (constants)
        + _HISTORY_WHERE
        + "AND (r.created_at, r.run_id) < (SELECT (created_at, run_id) FROM runs WHERE run_id = $after) "
        "AND ($down_to IS NULL OR (r.created_at, r.run_id) >= "
        "(SELECT (created_at, run_id) FROM runs WHERE run_id = $down_to)) "
        "ORDER BY r.created_at DESC, r.run_id DESC LIMIT $limit",
        _history_params(f) | {"after": after, "down_to": down_to, "limit": limit},
    ).fetchall()
    return [_history_row(r) for r in rows]


def _history_row(r: tuple[Any, ...]) -> HistoryRow:
    """A row of :data:`_HISTORY_SELECT` (or its first 11 columns: no cluster)."""
    cluster = r[11:16] if len(r) >= 16 else (None, None, None, None, 0)
    return HistoryRow(
        run_id=int(r[0]),
        host=r[1],
        build=r[2],
        config=r[3],
        workload=r[4],
        threads=r[5],
        status=r[6],
        qps=r[7],
        created_at=r[8],
        tags=tuple(r[9] or ()),
        error=r[10],
        cluster=cluster[0],
        lag_limit_s=cluster[1],
        lag_max_s=cluster[2],
        over_limit=cluster[3],
        faults=int(cluster[4]),
    )


def normalise_tags(tags: Sequence[str]) -> list[str]:
    """Trimmed, non-empty, first occurrence kept, in the given order."""
    return list(dict.fromkeys(t.strip() for t in tags if t.strip()))


def set_tags(cur: duckdb.DuckDBPyConnection, run_id: int, tags: Sequence[str]) -> list[str]:
    """Replace a run's tags; returns the tags stored. Raises ``KeyError`` for an unknown run."""
    clean = normalise_tags(tags)
    _require_run(cur, run_id)
    cur.execute("UPDATE runs SET tags = ? WHERE run_id = ?", [clean, run_id])
    return clean


def delete_run(cur: duckdb.DuckDBPyConnection, run_id: int) -> bool:
    """Delete a run with its samples, summary, raw files, skipped lines and remote_runs row, in
    one transaction (``cur`` must not be inside one). Returns False if the run did not exist."""
    if lake_of(cur) is not None:  # no RETURNING; another writer's commit may clash: again
        return _delete_retried_on_lake(cur, run_id)
    cur.execute("BEGIN TRANSACTION")
    try:
        for table in _RUN_DATA_TABLES:
            cur.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])  # noqa: S608 (our constants)
        gone = cur.execute("DELETE FROM runs WHERE run_id = ? RETURNING run_id", [run_id]).fetchall()
        cur.execute("COMMIT")
    except BaseException:
        cur.execute("ROLLBACK")
        raise
    return bool(gone)


def _delete_retried_on_lake(cur: duckdb.DuckDBPyConnection, run_id: int) -> bool:
    """The delete, rolled back and done again while another writer's commits clash with it (as
    the other team-store writes are); still clashing after that, one line (lake_session.Conflict)."""
    import duckdb

    from benchdeck.store.storage.lake import is_conflict, retry_conflicts
    from benchdeck.store.storage.lake_session import Conflict, conflict_line

    try:
        return retry_conflicts(lambda: _delete_run_on_lake(cur, run_id))
    except duckdb.Error as exc:
        if is_conflict(exc):
            raise Conflict(conflict_line(exc)) from None
        raise


def _delete_run_on_lake(cur: duckdb.DuckDBPyConnection, run_id: int) -> bool:
    import duckdb  # (at run time: the module imports it for type checking only, for start-up)

    cur.execute("BEGIN TRANSACTION")
    try:
        gone = cur.execute("SELECT run_id FROM runs WHERE run_id = ?", [run_id]).fetchall()
        for table in (*_RUN_DATA_TABLES, "runs"):
            cur.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])  # noqa: S608 (our constants)
        cur.execute("COMMIT")
    except BaseException:
        with suppress(duckdb.Error):  # (a failed COMMIT has ended it already)
            cur.execute("ROLLBACK")
        raise
    return bool(gone)


def _require_run(cur: duckdb.DuckDBPyConnection, run_id: int) -> None:
    if not cur.execute("SELECT 1 FROM runs WHERE run_id = ?", [run_id]).fetchone():
        raise KeyError(f"run {run_id} does not exist")


def busiest_host(cur: duckdb.DuckDBPyConnection) -> str | None:
    """The host with the most finished runs (the first one to compare on)."""
    row = cur.execute(
        "SELECT h.name FROM runs r JOIN hosts h ON h.host_id = r.host_id WHERE r.status = 'finished' "
        "GROUP BY h.name ORDER BY count(*) DESC, h.name LIMIT 1"
    ).fetchone()
    return str(row[0]) if row else None


def list_configs(cur: duckdb.DuckDBPyConnection, host: str) -> list[str]:
    """Configs with finished runs on ``host``, the one with most runs first."""
    rows = cur.execute(
        "SELECT r.config FROM runs r JOIN hosts h ON h.host_id = r.host_id "
        "WHERE h.name = ? AND r.status = 'finished' GROUP BY 1 ORDER BY count(*) DESC, 1",
        [host],
    ).fetchall()
    return [r[0] for r in rows]


def list_dops(cur: duckdb.DuckDBPyConnection, host: str, config: str | None = None) -> list[int | None]:
    """Concurrency levels (threads) with finished runs on ``host`` (with ``config`` if given),
    ``None`` (unknown) first."""
    return sorted(dop_counts(cur, host, config), key=lambda d: -1 if d is None else d)


def dop_counts(cur: duckdb.DuckDBPyConnection, host: str, config: str | None = None) -> dict[int | None, int]:
    """Finished runs per concurrency level on ``host`` (with ``config`` if given), most first."""
    rows = cur.execute(
        "SELECT r.threads, count(*) FROM runs r JOIN hosts h ON h.host_id = r.host_id "
        "WHERE h.name = $host AND r.status = 'finished' AND ($config IS NULL OR r.config = $config) "
        "GROUP BY 1 ORDER BY 2 DESC, 1 NULLS FIRST",
        {"host": host, "config": config},
    ).fetchall()
    return {r[0]: int(r[1]) for r in rows}


def latest_run(
    cur: duckdb.DuckDBPyConnection,
    *,
    host: str,
    build: str,
    workload: str,
    dop: int | None = None,
    config: str | None = None,
) -> int | None:
    """The newest finished run of ``build`` and ``workload`` on ``host`` (for its time series)."""
    row = cur.execute(
        "SELECT r.run_id FROM runs r JOIN hosts h ON h.host_id = r.host_id "
        "JOIN builds b ON b.build_id = r.build_id JOIN workloads w ON w.workload_id = r.workload_id "
        "WHERE h.name = $host AND b.name = $build AND w.name = $wl AND r.status = 'finished' "
        "AND ($dop IS NULL OR r.threads = $dop) AND ($config IS NULL OR r.config = $config) "
        "ORDER BY r.run_id DESC LIMIT 1",
        {"host": host, "build": build, "wl": workload, "dop": dop, "config": config},
    ).fetchone()
    return int(row[0]) if row else None


@dataclass(frozen=True, slots=True)
class RunSeries:
    """A run's samples over time: QPS by second, vmstat and iostat (one device) by sample."""

    run: HistoryRow
    device: str | None
    t: list[float] = field(default_factory=list)
    qps: list[float | None] = field(default_factory=list)
    vm_seq: list[int] = field(default_factory=list)
    vm: dict[str, list[float | None]] = field(default_factory=dict)
    io_seq: list[int] = field(default_factory=list)
    io: dict[str, list[float | None]] = field(default_factory=dict)


VM_SERIES = ("us", "sy", "id", "wa", "cs")
IO_SERIES = ("r_s", "w_s", "rkb_s", "wkb_s")


def run_series(cur: duckdb.DuckDBPyConnection, run_id: int) -> RunSeries:
    """The time series of one run; iostat rows are the run's device (else its busiest one)."""
    found = cur.execute(
        "SELECT r.run_id, h.name, b.name, r.config, w.name, r.threads, r.status, s.qps, r.created_at, "
        "r.tags, r.error, r.device FROM runs r JOIN hosts h ON h.host_id = r.host_id "
        "JOIN builds b ON b.build_id = r.build_id JOIN workloads w ON w.workload_id = r.workload_id "
        "LEFT JOIN run_summary s ON s.run_id = r.run_id WHERE r.run_id = ?",
        [run_id],
    ).fetchone()
    if found is None:
        raise KeyError(f"run {run_id} does not exist")
    run = _history_row(found)
    bench = cur.execute("SELECT t, qps FROM bench_samples WHERE run_id = ? ORDER BY t", [run_id]).fetchall()
    vm = cur.execute(
        "SELECT seq, us, sy, id, wa, cs FROM vmstat_samples WHERE run_id = ? ORDER BY seq", [run_id]
    ).fetchall()
    device = found[11] or _busiest_device(cur, run_id)
    io = cur.execute(
        "SELECT seq, r_s, w_s, rkb_s, wkb_s FROM iostat_samples WHERE run_id = ? AND device = ? ORDER BY seq",
        [run_id, device],
    ).fetchall()
    return RunSeries(
        run=run,
        device=device,
        t=[r[0] for r in bench],
        qps=[r[1] for r in bench],
        vm_seq=[r[0] for r in vm],
        vm={k: [r[i] for r in vm] for i, k in enumerate(VM_SERIES, 1)},
        io_seq=[r[0] for r in io],
        io={k: [r[i] for r in io] for i, k in enumerate(IO_SERIES, 1)},
    )


def _busiest_device(cur: duckdb.DuckDBPyConnection, run_id: int) -> str | None:
    row = cur.execute(
        "SELECT device FROM iostat_samples WHERE run_id = ? GROUP BY device "
        "ORDER BY sum(coalesce(r_s, 0) + coalesce(w_s, 0)) DESC, device LIMIT 1",
        [run_id],
    ).fetchone()
    return str(row[0]) if row else None


@dataclass(frozen=True, slots=True)
class BuildRow:
    """A build in the store, with where and how often it ran."""

    name: str
    dbms: str
    version: str
    fork: str
    variant: str
    hosts: tuple[str, ...]
    runs: int
    finished: int
    last_run: datetime | None


def build_rows(cur: duckdb.DuckDBPyConnection, host: str | None = None) -> list[BuildRow]:
    """Every build (with runs on ``host`` if given), oldest version first."""
    rows = cur.execute(
        "SELECT b.name, b.dbms, b.version, b.fork, b.variant, list(DISTINCT h.name ORDER BY h.name), "
        "count(r.run_id), count(r.run_id) FILTER (WHERE r.status = 'finished'), max(r.created_at) "
        "FROM builds b LEFT JOIN runs r ON r.build_id = b.build_id "
        "LEFT JOIN hosts h ON h.host_id = r.host_id "
        "GROUP BY ALL HAVING $host IS NULL OR list_contains(list(h.name), $host) "
        "ORDER BY min(b.version_key), b.name",
        {"host": host},
    ).fetchall()
    return [
        BuildRow(r[0], r[1], r[2], r[3], r[4], tuple(h for h in r[5] if h), int(r[6]), int(r[7]), r[8])
        for r in rows
    ]
