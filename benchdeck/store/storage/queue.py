"""The persisted run queue: a matrix of (host, build, config, workload) items run in order per host."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchdeck.store.storage.dialect import insert_returning, lake_of, next_ids
from benchdeck.store.storage.following import local_base

if TYPE_CHECKING:  # (types only: Launch's ETA reads the queue's records before DuckDB loads)
    import duckdb

ITEM_STATUSES = ("pending", "running", "finished", "failed", "cancelled")


@dataclass(frozen=True, slots=True)
class QueueItem:
    item_id: int
    queue_id: int
    position: int
    host: str
    build: str
    workload: str
    status: str
    run_id: int | None
    options: dict[str, Any]
    config: str | None = None
    repeat_no: int | None = None  # which repeat of its cell (1-based); None: a queue without repeats
    threads: int | None = None  # the item's own dop in a sweep (also in options); None: the queue's


def create_queue(
    cur: duckdb.DuckDBPyConnection,
    hosts: Sequence[str],
    builds: Sequence[str],
    workloads: Sequence[str],
    options: Any,
    configs: Mapping[tuple[str, str], Sequence[str | None]] | None = None,
    threads: Sequence[int] = (),
    repeats: int = 1,
) -> int:
    """Persist the matrix; per host, builds in the given order, then their configs, then the
    thread counts, workloads in suite order. ``configs`` gives the configurations per (host,
    build) (an empty sequence leaves the pair out); a pair it does not name runs once with the
    build's default (None). ``threads`` (several dops) gives each item its own client threads
    (none: the options' own); ``repeats`` > 1 runs the whole matrix that many times, one repeat
    after the other (A B A B: a host's slow drift spreads over every build, not onto one)."""
    opts = asdict(options) if hasattr(options, "__dataclass_fields__") else dict(options)
    options_json = json.dumps(opts, sort_keys=True)
    qid = insert_returning(
        cur, "INSERT INTO queues (options) VALUES (?)", [options_json], "queue_id", "queue_id_seq"
    )
    rows = matrix_rows(hosts, builds, workloads, configs, threads, repeats)
    # A team store has no sequence defaults: its item ids come from the catalog, in one call.
    item_ids = next_ids(cur, "queue_item_id_seq", len(rows)) if lake_of(cur) is not None and rows else None
    for pos, (host, build, config, dop, wl, rep) in enumerate(rows):
        values = [qid, pos, host, build, wl, config, dop, rep]
        if item_ids is None:
            cur.execute(
                "INSERT INTO queue_items (queue_id, position, host, build, workload, config, threads, "
                "repeat_no) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                values,
            )
        else:
            cur.execute(
                "INSERT INTO queue_items (item_id, queue_id, position, host, build, workload, config, "
                "threads, repeat_no) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [item_ids[pos], *values],
            )
    return qid


MatrixRow = tuple[str, str, str | None, int | None, str, int | None]


def matrix_rows(
    hosts: Sequence[str],
    builds: Sequence[str],
    workloads: Sequence[str],
    configs: Mapping[tuple[str, str], Sequence[str | None]] | None = None,
    threads: Sequence[int] = (),
    repeats: int = 1,
) -> list[MatrixRow]:
    """(host, build, config, threads, workload, repeat_no) in run order: repeat outermost, so
    each host runs A B A B ...; ``threads`` None and ``repeat_no`` None when not asked for (the
    matrix a queue had before sweeps)."""
    dops: Sequence[int | None] = list(threads) or [None]
    return [
        (host, build, config, dop, wl, rep if repeats > 1 else None)
        for rep in range(1, repeats + 1)
        for host in hosts
        for build in builds
        for config in (configs or {}).get((host, build), (None,))
        for dop in dops
        for wl in workloads
    ]


_SELECT = (
    "SELECT i.item_id, i.queue_id, i.position, i.host, i.build, i.workload, i.status, i.run_id, q.options, "
    "i.config, i.threads, i.repeat_no "
    "FROM queue_items i JOIN queues q USING (queue_id) "
)


def _item(row: tuple[Any, ...]) -> QueueItem:
    item_id, queue_id, position, host, build, workload, status, run_id, options, config, dop, rep = row
    opts = json.loads(options)
    if dop is not None:  # a sweep: the item's own dop over the queue's
        opts["threads"] = dop
    return QueueItem(
        item_id, queue_id, position, host, build, workload, status, run_id, opts, config, rep, dop
    )


def items(cur: duckdb.DuckDBPyConnection, queue_id: int | None = None) -> list[QueueItem]:
    rows = cur.execute(
        _SELECT + "WHERE $q IS NULL OR i.queue_id = $q ORDER BY i.queue_id, i.position", {"q": queue_id}
    ).fetchall()
    return [_item(r) for r in rows]


def next_item(cur: duckdb.DuckDBPyConnection, host: str, queue_id: int | None = None) -> QueueItem | None:
    """The next pending item for ``host`` (oldest queue first), marked running."""
    item = peek_next(cur, host, queue_id)
    if item is not None:
        cur.execute("UPDATE queue_items SET status = 'running' WHERE item_id = ?", [item.item_id])
    return item


def peek_next(cur: duckdb.DuckDBPyConnection, host: str, queue_id: int | None = None) -> QueueItem | None:
    """The item ``next_item`` would return, without taking it."""
    row = cur.execute(
        _SELECT + "WHERE i.host = $h AND i.status = 'pending' AND ($q IS NULL OR i.queue_id = $q) "
        "ORDER BY i.queue_id, i.position LIMIT 1",
        {"h": host, "q": queue_id},
    ).fetchone()
    return _item(row) if row else None


def attach_run(cur: duckdb.DuckDBPyConnection, item_id: int, run_id: int) -> None:
    cur.execute("UPDATE queue_items SET run_id = ? WHERE item_id = ?", [run_id, item_id])


def finish_item(cur: duckdb.DuckDBPyConnection, item_id: int, status: str) -> None:
    if status not in ITEM_STATUSES:
        raise ValueError(f"unknown queue item status {status!r}")
    cur.execute("UPDATE queue_items SET status = ? WHERE item_id = ?", [status, item_id])


def finish_run_item(cur: duckdb.DuckDBPyConnection, run_id: int, status: str) -> None:
    """The queue item of run ``run_id``, still marked running, takes the run's end ``status``
    (a run reattached after a restart: its item is settled by what the run ended as, not by
    the run's row, which the writer may not have stored yet)."""
    if status not in ITEM_STATUSES:
        raise ValueError(f"unknown queue item status {status!r}")
    cur.execute("UPDATE queue_items SET status = ? WHERE run_id = ? AND status = 'running'", [status, run_id])


def settle_interrupted(cur: duckdb.DuckDBPyConnection) -> int:
    """After a restart: items marked running whose run ended take the run's status; items
    marked running that never got a run go back to pending. Returns the items changed."""
    if lake_of(cur) is not None:  # no RETURNING on a team store: count, then update
        return _settle_on_lake(cur)
    changed = cur.execute(
        "UPDATE queue_items SET status = r.status FROM runs r "
        "WHERE queue_items.run_id = r.run_id AND queue_items.status = 'running' "
        "AND r.status IN ('finished', 'failed', 'cancelled') RETURNING item_id"
    ).fetchall()
    reset = cur.execute(
        "UPDATE queue_items SET status = 'pending' "
        "WHERE status = 'running' AND run_id IS NULL RETURNING item_id"
    ).fetchall()
    return len(changed) + len(reset)


_SETTLE_ON_LAKE = (
    (
        "SELECT count(*) FROM queue_items i JOIN runs r USING (run_id) "
        "WHERE i.status = 'running' AND r.status IN ('finished', 'failed', 'cancelled')",
        "UPDATE queue_items SET status = r.status FROM runs r "
        "WHERE queue_items.run_id = r.run_id AND queue_items.status = 'running' "
        "AND r.status IN ('finished', 'failed', 'cancelled')",
    ),
    (
        "SELECT count(*) FROM queue_items WHERE status = 'running' AND run_id IS NULL",
        "UPDATE queue_items SET status = 'pending' WHERE status = 'running' AND run_id IS NULL",
    ),
)


def _settle_on_lake(cur: duckdb.DuckDBPyConnection) -> int:
    n = 0
    for count, update in _SETTLE_ON_LAKE:
        row = cur.execute(count).fetchone()
        if row and row[0]:
            cur.execute(update)
            n += int(row[0])
    return n


def pending_count(cur: duckdb.DuckDBPyConnection) -> int:
    """Queued runs of every queue still waiting to start."""
    row = cur.execute("SELECT count(*) FROM queue_items WHERE status = 'pending'").fetchone()
    return int(row[0]) if row else 0


def hosts_with_work(cur: duckdb.DuckDBPyConnection, queue_id: int | None = None) -> list[str]:
    rows = cur.execute(
        "SELECT DISTINCT host FROM queue_items WHERE status = 'pending' AND ($q IS NULL OR queue_id = $q) "
        "ORDER BY host",
        {"q": queue_id},
    ).fetchall()
    return [r[0] for r in rows]


def cancel_queue(cur: duckdb.DuckDBPyConnection, queue_id: int) -> tuple[int, list[int]]:
    """Cancel a queue: its pending items become cancelled. Returns how many, and the run ids
    of its items still running (for the caller to stop)."""
    if lake_of(cur) is not None:  # no RETURNING on a team store
        pending = cur.execute(
            "SELECT item_id FROM queue_items WHERE queue_id = ? AND status = 'pending'", [queue_id]
        ).fetchall()
        if pending:
            cur.execute(
                "UPDATE queue_items SET status = 'cancelled' WHERE queue_id = ? AND status = 'pending'",
                [queue_id],
            )
    else:
        pending = cur.execute(
            "UPDATE queue_items SET status = 'cancelled' WHERE queue_id = ? AND status = 'pending' "
            "RETURNING item_id",
            [queue_id],
        ).fetchall()
    running = cur.execute(
        "SELECT run_id FROM queue_items WHERE queue_id = ? AND status = 'running' AND run_id IS NOT NULL",
        [queue_id],
    ).fetchall()
    return len(pending), [int(r[0]) for r in running]


def queue_of_run(cur: duckdb.DuckDBPyConnection, run_id: int) -> int | None:
    row = cur.execute("SELECT queue_id FROM queue_items WHERE run_id = ?", [run_id]).fetchone()
    return int(row[0]) if row else None


def exists(cur: duckdb.DuckDBPyConnection, queue_id: int) -> bool:
    return cur.execute("SELECT 1 FROM queues WHERE queue_id = ?", [queue_id]).fetchone() is not None


@dataclass(frozen=True, slots=True)
class Position:
    """Where an item stands in its queue: ``k`` of ``n``; the host's items left after it."""

    k: int
    n: int
    left_on_host: list[QueueItem]
    done_s: list[float]  # how long this queue's finished runs on the host took, in seconds


def position(cur: duckdb.DuckDBPyConnection, item: QueueItem) -> Position:
    row = cur.execute(
        "SELECT count(*), count(*) FILTER (WHERE status NOT IN ('pending', 'running') OR item_id = $i) "
        "FROM queue_items WHERE queue_id = $q",
        {"q": item.queue_id, "i": item.item_id},
    ).fetchone()
    n, k = (int(row[0]), int(row[1])) if row else (1, 1)
    left = [
        _item(r)
        for r in cur.execute(
            _SELECT + "WHERE i.queue_id = $q AND i.host = $h AND i.status = 'pending' ORDER BY i.position",
            {"q": item.queue_id, "h": item.host},
        ).fetchall()
    ]
    done = cur.execute(
        "SELECT epoch(r.finished_at - r.created_at) FROM queue_items i JOIN runs r USING (run_id) "
        "WHERE i.queue_id = $q AND i.host = $h AND r.status = 'finished' AND r.finished_at IS NOT NULL",
        {"q": item.queue_id, "h": item.host},
    ).fetchall()
    return Position(k, n, left, [float(d[0]) for d in done if d[0] is not None])


def cancel_request(store_path: Path, queue_id: int) -> Path:
    """The file that asks the benchdeck running queue ``queue_id`` (holding the store's lock,
    so it cannot be written to) to take no more of its items."""
    store_path = local_base(store_path)
    return store_path.with_name(f"{store_path.name}.cancel-queue-{queue_id}")


def requested_cancels(store_path: Path) -> dict[int, Path]:
    """Queue ids with a pending :func:`cancel_request`, and their files."""
    store_path = local_base(store_path)
    out = {}
    for p in store_path.parent.glob(f"{store_path.name}.cancel-queue-*"):
        tail = p.name.rsplit("-", 1)[-1]
        if tail.isdigit():
            out[int(tail)] = p
    return out
