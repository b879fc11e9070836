"""Live runs: remembering their remote processes and what is already stored, for reattaching."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from typing import Any

import duckdb

from benchdeck.engine.events import NodeProc, RemoteProc, RunStarted, StepStarted
from benchdeck.engine.planning.plan import Marks, RunPlan
from benchdeck.engine.profiling.capture import plan_from_dict as capture_from_dict
from benchdeck.store.storage.captures import capture_marks
from benchdeck.store.storage.dialect import insert_or_replace


@dataclass(frozen=True, slots=True)
class LiveRun:
    """A run whose remote processes may still be running (status ``running``)."""

    run_id: int
    host: str
    plan: RunPlan
    procs: tuple[RemoteProc, ...]
    nodes: tuple[NodeProc, ...] = ()


def save_started(cur: duckdb.DuckDBPyConnection, ev: RunStarted, plan: RunPlan) -> None:
    insert_or_replace(
        cur,
        "INSERT OR REPLACE INTO remote_runs (run_id, host, remote_dir, procs, plan, started_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [
            ev.run_id,
            ev.host,
            ev.remote_dir,
            json.dumps([*(asdict(p) for p in ev.procs), *(asdict(n) for n in ev.nodes)]),
            json.dumps(plan_to_dict(plan)),
            ev.started_at,
        ],
        "remote_runs",
        {"run_id": ev.run_id},
    )
    cur.execute(
        "UPDATE runs SET started_at = coalesce(started_at, ?), status = 'running' WHERE run_id = ?",
        [ev.started_at, ev.run_id],
    )


def save_step(cur: duckdb.DuckDBPyConnection, ev: StepStarted, plan: RunPlan) -> None:
    """A step before the measured part started: the run can be reattached from here on."""
    insert_or_replace(
        cur,
        "INSERT OR REPLACE INTO remote_runs (run_id, host, remote_dir, procs, plan, started_at) "
        "VALUES (?, ?, ?, ?, ?, NULL)",
        [ev.run_id, ev.host, ev.remote_dir, json.dumps([asdict(ev.proc)]), json.dumps(plan_to_dict(plan))],
        "remote_runs",
        {"run_id": ev.run_id},
    )
    cur.execute("UPDATE runs SET status = 'running' WHERE run_id = ?", [ev.run_id])


def plan_to_dict(plan: RunPlan) -> dict[str, Any]:
    """The plan as stored: passwords masked (the store file is not a secret store)."""
    return asdict(plan.redacted())


def plan_from_dict(d: dict[str, Any]) -> RunPlan:
    kw: dict[str, Any] = {}
    for f in fields(RunPlan):
        if f.name in d:
            v = d[f.name]
            kw[f.name] = capture_from_dict(v) if f.name == "capture" and v else _tuples(v)
    return RunPlan(**kw)


def _tuples(v: Any) -> Any:
    """JSON lists back to the tuples a frozen plan holds (argv, env pairs, files)."""
    return tuple(_tuples(x) for x in v) if isinstance(v, list) else v


def unfinished(cur: duckdb.DuckDBPyConnection, host: str | None = None) -> list[LiveRun]:
    """Runs that started remotely but never recorded an end: candidates for reattaching."""
    rows = cur.execute(
        "SELECT rr.run_id, rr.host, rr.plan, rr.procs FROM remote_runs rr JOIN runs r USING (run_id) "
        "WHERE r.status = 'running' AND ($host IS NULL OR rr.host = $host) ORDER BY rr.run_id",
        {"host": host},
    ).fetchall()
    return [
        LiveRun(
            run_id=int(rid),
            host=str(h),
            plan=plan_from_dict(json.loads(plan)),
            procs=tuple(RemoteProc(**p) for p in json.loads(procs) if "node" not in p),
            nodes=tuple(_node_proc(p) for p in json.loads(procs) if "node" in p),
        )
        for rid, h, plan, procs in rows
    ]


def _node_proc(d: dict[str, Any]) -> NodeProc:
    """A cluster run's node source, stored beside its processes (it has a ``node``)."""
    return NodeProc(**{k: _tuples(v) for k, v in d.items()})


def never_started(cur: duckdb.DuckDBPyConnection) -> list[int]:
    """Runs left 'running'/'queued' by ``benchdeck run`` with no remote processes recorded."""
    rows = cur.execute(
        "SELECT run_id FROM runs WHERE status IN ('running', 'queued') AND source = 'run' "
        "AND run_id NOT IN (SELECT run_id FROM remote_runs)"
    ).fetchall()
    return [int(r[0]) for r in rows]


def marks(cur: duckdb.DuckDBPyConnection, run_id: int) -> Marks:
    """High-water marks of the samples stored for a run."""
    row = cur.execute(
        "SELECT (SELECT max(t) FROM bench_samples WHERE run_id = $r), "
        "(SELECT max(seq) FROM vmstat_samples WHERE run_id = $r), "
        "(SELECT max(seq) FROM iostat_samples WHERE run_id = $r)",
        {"r": run_id},
    ).fetchone()
    bench_t, vm_seq, io_seq = row if row else (None, None, None)
    devices: frozenset[str] = frozenset()
    if io_seq is not None:
        devices = frozenset(
            r[0]
            for r in cur.execute(
                "SELECT device FROM iostat_samples WHERE run_id = ? AND seq = ?", [run_id, io_seq]
            ).fetchall()
        )
    return Marks(
        bench_t=bench_t,
        vm_seq=vm_seq,
        io_seq=io_seq,
        io_devices_at_seq=devices,
        capture_window=capture_marks(cur, run_id),
    )
