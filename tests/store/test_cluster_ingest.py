"""A run on a cluster in the store (issue 41): the engine's ClusterPlanned and ClusterBatch events
fed into a real Store through the EventSink; every row once, also when a reattached run's nodes
are read again; the run's summary (lag max/p95, the over-limit flag, per-node per-op figures)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.cluster.records import LagSample, NodeFault, NodeIostat, NodeVmstat
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.events import ClusterBatch, ClusterPlanned, RunFailed, RunFinished, VmstatBatch
from benchdeck.engine.metrics import PerOp
from benchdeck.engine.records import IostatSample, SysbenchSummary, VmstatSample
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.ingest import EventSink
from benchdeck.store.storage.runs import NewRun, create_run

NOW = datetime(2026, 11, 29, 11, 0, 0)
LOOP3 = ClusterSpec(
    "loop3",
    "async",
    (
        ClusterNode("p", "local", "primary"),
        ClusterNode("r1", "local", port=3407),
        ClusterNode("r2", "far", port=3408),
    ),
    lag_limit_s=5.0,
)


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def vm(seq: int, us: int, sy: int, cs: int) -> VmstatSample:
    return VmstatSample(seq, 1, 0, 0, 1000, 10, 100, 0, 0, 0, 0, 500, cs, us, sy, 100 - us - sy, 0, 0)


def io(seq: int, device: str, r_s: float, wkb_s: float) -> IostatSample:
    return IostatSample(seq, device, r_s=r_s, w_s=1.0, rkb_s=r_s * 4, wkb_s=wkb_s)


def lag(node: str, t: float, s: float | None, state: str = "ok") -> LagSample:
    return LagSample(node, t, s, behind_trx=None if s is None else int(s * 10), state=state)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "s.duckdb")


def _run(store: Store) -> int:
    with store.transaction() as cur:
        return create_run(cur, NewRun("local", parse_build_name("ma1011_rel"), "insert_range=100", "run"))


def _rows(store: Store, sql: str) -> list[tuple[object, ...]]:
    return store.con.execute(sql).fetchall()


def _batch(rid: int, seconds: range) -> ClusterBatch:
    """What the engine samples of loop3 in ``seconds``: r1 falls behind 1 s a second, r2 keeps up."""
    return ClusterBatch(
        rid,
        lag=tuple(x for t in seconds for x in (lag("r1", float(t), float(t)), lag("r2", float(t), 0.0))),
        vm=tuple(
            NodeVmstat(n, vm(t, u, 10, c)) for t in seconds for n, u, c in (("p", 30, 900), ("r2", 10, 300))
        ),
        io=tuple(NodeIostat("r2", io(t, d, 2.0, 80.0)) for t in seconds for d in ("sda", "sdb")),
    )


def test_cluster_rows_are_stored_once_in_batches(store: Store) -> None:
    rid = _run(store)
    clock = Clock()
    sink = EventSink(store, batch_time=0.5, batch_rows=10_000, clock=clock)
    sink.handle(ClusterPlanned(rid, LOOP3))
    assert _rows(store, "SELECT node, host, role, port FROM cluster_nodes ORDER BY node") == [
        ("p", "local", "primary", None),
        ("r1", "local", "replica", 3407),
        ("r2", "far", "replica", 3408),
    ]
    assert _rows(store, "SELECT cluster, kind, lag_limit_s FROM run_clusters") == [("loop3", "async", 5.0)]
    sink.handle(_batch(rid, range(3)))
    assert _rows(store, "SELECT count(*) FROM replica_lag") == [(0,)], "batched: not due yet"
    clock.t = 1.0
    sink.handle(_batch(rid, range(3, 4)))
    assert _rows(store, "SELECT count(*) FROM replica_lag") == [(8,)]
    assert _rows(store, "SELECT count(*) FROM node_vmstat_samples") == [(8,)]
    assert _rows(store, "SELECT count(*) FROM node_iostat_samples") == [(8,)]
    # the same seconds sent again (a reconnect reads a file from its start): nothing twice
    clock.t = 2.0
    sink.handle(_batch(rid, range(4)))
    sink.handle(ClusterPlanned(rid, LOOP3))
    assert _rows(store, "SELECT count(*) FROM replica_lag") == [(8,)]
    assert _rows(store, "SELECT count(*) FROM cluster_nodes") == [(3,)]
    assert _rows(
        store, "SELECT t, lag_s, behind_trx, state FROM replica_lag WHERE node = 'r1' ORDER BY t"
    ) == [
        (0.0, 0.0, 0, "ok"),
        (1.0, 1.0, 10, "ok"),
        (2.0, 2.0, 20, "ok"),
        (3.0, 3.0, 30, "ok"),
    ]


def test_a_reattached_run_stores_its_nodes_rows_once(store: Store) -> None:
    """A new sink (a later benchdeck reattaching) gets the nodes' rows from their start again,
    the fault too: only the seconds after the stored ones are added."""
    rid = _run(store)
    first = EventSink(store, batch_time=0, clock=Clock())
    first.handle(ClusterPlanned(rid, LOOP3))
    fault = NodeFault("r1", 2.5, "stopped", "Slave_SQL_Running: No (Error 1062)")
    first.handle(_batch(rid, range(3)))
    first.handle(ClusterBatch(rid, faults=(fault,)))
    first.close()
    again = EventSink(store, batch_time=0, clock=Clock())
    again.handle(_batch(rid, range(5)))
    again.handle(ClusterBatch(rid, faults=(fault, NodeFault("r1", 4.0, "back", "replicating"))))
    again.close()
    assert _rows(
        store, "SELECT node, count(*), count(DISTINCT t) FROM replica_lag GROUP BY node ORDER BY node"
    ) == [
        ("r1", 5, 5),
        ("r2", 5, 5),
    ]
    assert _rows(store, "SELECT node, count(*) FROM node_vmstat_samples GROUP BY node ORDER BY node") == [
        ("p", 5),
        ("r2", 5),
    ]
    assert _rows(store, "SELECT count(*), count(DISTINCT (seq, device)) FROM node_iostat_samples") == [
        (10, 10)
    ]
    assert _rows(store, "SELECT node, t, kind, reason FROM node_faults ORDER BY t") == [
        ("r1", 2.5, "stopped", "Slave_SQL_Running: No (Error 1062)"),
        ("r1", 4.0, "back", "replicating"),
    ]


def test_a_finished_cluster_run_gets_lag_and_per_node_figures(store: Store) -> None:
    rid = _run(store)
    sink = EventSink(store, batch_time=0, clock=Clock())
    sink.handle(ClusterPlanned(rid, LOOP3))
    sink.handle(ClusterBatch(rid, lag=(lag("r2", -1.0, 99.0),)))  # before the measured phase: not counted
    sink.handle(_batch(rid, range(21)))  # r1's lag: 0..20 s
    sink.handle(ClusterBatch(rid, faults=(NodeFault("r2", 21.0, "gone", "connection refused"),)))
    # the run's own vmstat rows (the primary's host): p's node rows are used, not these
    sink.handle(VmstatBatch(rid, tuple(vm(t, 50, 10, 5000) for t in range(21))))
    sink.handle(RunFinished(rid, SysbenchSummary(qps=1000.0), 1000.0, PerOp(ops=1000.0, cpu_o=0.06), NOW))
    nodes = _rows(
        store,
        "SELECT node, lag_max_s, lag_p95_s, lag_samples, cpu_o, cs_o, r_o, rkb_o, wkb_o "
        "FROM cluster_nodes ORDER BY node",
    )
    assert nodes == [
        ("p", None, None, 0, pytest.approx(0.04), pytest.approx(0.9), None, None, None),
        ("r1", 20.0, pytest.approx(19.0), 21, None, None, None, None, None),
        ("r2", 0.0, 0.0, 21, pytest.approx(0.02), pytest.approx(0.3), 0.002, 0.008, 0.08),
    ]
    run = _rows(
        store,
        "SELECT cluster, lag_max_s, lag_p95_s, over_limit, faults, cpu_o, cs_o, wkb_o FROM run_clusters",
    )
    # p and r1 share host "local" (r1 has no samples): the sum is local's (p's) + far's (r2's)
    assert run == [
        ("loop3", 20.0, pytest.approx(19.0), True, 1, pytest.approx(0.06), pytest.approx(1.2), 0.08)
    ]


def test_a_cluster_run_within_its_limit_is_not_flagged_and_a_failed_one_keeps_its_lag(store: Store) -> None:
    ok, failed = _run(store), _run(store)
    sink = EventSink(store, batch_time=0, clock=Clock())
    for rid in (ok, failed):
        sink.handle(ClusterPlanned(rid, LOOP3))
        sink.handle(ClusterBatch(rid, lag=tuple(lag("r1", float(t), t / 10) for t in range(10))))
    sink.handle(RunFinished(ok, SysbenchSummary(qps=10.0), 10.0, None, NOW))
    sink.handle(RunFailed(failed, "sysbench exited 1", NOW))
    got = _rows(store, "SELECT run_id, lag_max_s, over_limit, cpu_o FROM run_clusters ORDER BY run_id")
    assert got == [(ok, 0.9, False, None), (failed, 0.9, False, None)]


def test_a_run_without_a_cluster_has_no_cluster_rows(store: Store) -> None:
    rid = _run(store)
    sink = EventSink(store, batch_time=0, clock=Clock())
    sink.handle(RunFinished(rid, SysbenchSummary(qps=10.0), 10.0, None, NOW))
    assert _rows(store, "SELECT count(*) FROM run_clusters") == [(0,)]
    assert _rows(store, "SELECT status FROM runs") == [("finished",)]


def test_deleting_a_cluster_run_deletes_its_cluster_rows(store: Store) -> None:
    from benchdeck.store.storage.run_lists import delete_run

    rid, other = _run(store), _run(store)
    sink = EventSink(store, batch_time=0, clock=Clock())
    for r in (rid, other):
        sink.handle(ClusterPlanned(r, LOOP3))
        sink.handle(_batch(r, range(2)))
        sink.handle(ClusterBatch(r, faults=(NodeFault("r1", 1.0, "stopped", "x"),)))
    assert delete_run(store.cursor(), rid)
    tables = ("run_clusters", "cluster_nodes", "replica_lag", "node_vmstat_samples", "node_iostat_samples")
    for table in (*tables, "node_faults"):
        assert _rows(store, f"SELECT DISTINCT run_id FROM {table}") == [(other,)], table


def test_a_node_value_no_column_can_hold_is_a_skipped_line_not_a_failed_flush(store: Store) -> None:
    rid = _run(store)
    sink = EventSink(store, batch_time=0, clock=Clock())
    sink.handle(ClusterPlanned(rid, LOOP3))
    huge = vm(1, 10, 10, 300)
    sink.handle(
        ClusterBatch(
            rid,
            lag=(lag("r1", 0.0, 1.0), LagSample("r1", 1.0, 2.0, behind_bytes=2**70)),
            vm=(
                NodeVmstat("r2", vm(0, 10, 10, 300)),
                NodeVmstat("r2", replace(huge, us=2**40)),
            ),
        )
    )
    assert _rows(store, "SELECT node, t FROM replica_lag") == [("r1", 0.0)]
    assert _rows(store, "SELECT node, seq FROM node_vmstat_samples") == [("r2", 0)]
    got = _rows(store, "SELECT source, reason FROM skipped_lines ORDER BY source")
    assert got == [
        (
            "lag r1",
            "behind_bytes 1180591620717411303424 is out of range (the store holds 0..9223372036854775807)",
        ),
        ("vmstat r2", "us 1099511627776 is out of range (the store holds 0..2147483647)"),
    ]


def test_a_runs_cluster_reads_back_as_planned(store: Store) -> None:
    """What a reattach hands the app again (its node tabs and lag chart): the cluster as stored."""
    from benchdeck.store.storage.cluster_rows import load_cluster

    rid, alone = _run(store), _run(store)
    sink = EventSink(store, batch_time=0)
    sink.handle(ClusterPlanned(rid, LOOP3))
    sink.close()
    with store.reading() as cur:
        assert load_cluster(cur, rid) == LOOP3
        assert load_cluster(cur, alone) is None
