"""The persisted queue: matrix order, server configs per (host, build), upgrade of older stores."""

from __future__ import annotations

from pathlib import Path

import duckdb

from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage import queue as q
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.schema import LATEST_VERSION, MIGRATIONS


def test_matrix_order_with_configs_per_host_and_build(tmp_path: Path) -> None:
    configs = {("a", "b1"): ("z11a", "z12a"), ("a", "b2"): (), ("c", "b2"): ("z12a",)}
    with Store.open(tmp_path / "q.duckdb") as store, store.transaction() as cur:
        qid = q.create_queue(cur, ["a", "c"], ["b1", "b2"], ["w1", "w2"], RunOptions(threads=4), configs)
        got = [(i.position, i.host, i.build, i.config, i.workload) for i in q.items(cur, qid)]
        first = q.next_item(cur, "c", qid)
    assert got == [
        (0, "a", "b1", "z11a", "w1"),
        (1, "a", "b1", "z11a", "w2"),
        (2, "a", "b1", "z12a", "w1"),
        (3, "a", "b1", "z12a", "w2"),
        # (a, b2) has none of the configs: left out; (c, b1) is not named: its default
        (4, "c", "b1", None, "w1"),
        (5, "c", "b1", None, "w2"),
        (6, "c", "b2", "z12a", "w1"),
        (7, "c", "b2", "z12a", "w2"),
    ]
    assert first is not None
    assert (first.build, first.config, first.workload, first.options["threads"]) == ("b1", None, "w1", 4)


def test_a_version_4_store_keeps_its_queue_and_gains_configs(tmp_path: Path) -> None:
    path = tmp_path / "v4.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)")
    for version, ddl in MIGRATIONS:
        if version <= 4:
            con.execute(ddl)
            con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
    con.execute("INSERT INTO queues (options) VALUES ('{}')")
    con.execute(
        "INSERT INTO queue_items (queue_id, position, host, build, workload) VALUES (1, 0, 'h', 'b', 'w')"
    )
    con.close()
    assert LATEST_VERSION >= 5
    with Store.open(path) as store:
        assert store.schema_version() == LATEST_VERSION
        [item] = q.items(store.cursor())
    assert (item.host, item.build, item.workload, item.status) == ("h", "b", "w", "pending")
    assert item.config is None
