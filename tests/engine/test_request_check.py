"""Requests checked against the inventory and the catalogue before anything is stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.engine.dispatch.request_check import RequestError, check_requests
from benchdeck.engine.hosts.inventory import Inventory
from benchdeck.engine.hosts.inventory_file import parse_inventory

INVENTORY = """
[hosts.dell32]
hostname = "dell32.example"

[[hosts.dell32.builds]]
name = "my8040_rel_o2nofp"
config = "z11a_c32r128"
configs = { z12a_c32r128 = "/etc/z12a.cnf" }

[[hosts.dell32.builds]]
name = "pg174_o2nofp"

[[hosts.dell32.builds]]
name = "9.7.2"
"""


@pytest.fixture
def inv(tmp_path: Path) -> Inventory:
    return parse_inventory(INVENTORY, tmp_path / "benchdeck.toml")


def check(inv: Inventory, build: str, workload: str, config: str | None = None, host: str = "dell32") -> None:
    check_requests(inv, [host], [build], [config], [workload])


def test_known_names_pass(inv: Inventory) -> None:
    check(inv, "my8040_rel_o2nofp", "update-index_range=100", "z12a_c32r128")
    check(inv, "my8040_rel_o2nofp", "point-query_range=50")  # any range, not only the suites'
    check(inv, "pg174_o2nofp", "pgbench.tpcb-like")
    check(inv, "pg174_o2nofp", "qp1000")
    check(inv, "9.7.2", "readwhilewriting.iodir")
    check(inv, "sqlite", "point-query_range=100")


@pytest.mark.parametrize(
    ("build", "workload", "config", "host", "message"),
    [
        ("my8040_rel_o2nofp", "point-query_range=100", None, "dell3",
         "unknown host 'dell3' (known: dell32); did you mean 'dell32'?"),
        ("my8040_rel_o2nofx", "point-query_range=100", None, "dell32",
         "unknown build 'my8040_rel_o2nofx' on host dell32 (known: 9.7.2, my8040_rel_o2nofp, pg174_o2nofp, "
         "sqlite, sqlite-sync); did you mean 'my8040_rel_o2nofp'?"),
        ("my8040_rel_o2nofp", "point-query_range=100", "z13a_c32r128", "dell32",
         "unknown config 'z13a_c32r128' of build(s) my8040_rel_o2nofp (known: z11a_c32r128, z12a_c32r128)"),
        ("pg174_o2nofp", "pgbench.select", None, "dell32",
         "unknown workload 'pgbench.select' (known: pgbench.select-only, pgbench.simple-update, "
         "pgbench.tpcb-like); did you mean 'pgbench.select-only'?"),
        ("9.7.2", "readww.byrz", None, "dell32",
         "unknown workload 'readww.byrz': db_bench workloads are STEP.SETUP"),
        ("9.7.2", "point-query_range=100", None, "dell32",
         "sysbench needs a MySQL, MariaDB or PostgreSQL build"),
        ("sqlite", "update-one_range=100", None, "dell32",
         "unknown built-in workload 'update-one_range=100'"),
        ("my8040_rel_o2nofp", "points-covered-pk", None, "dell32",
         "workload 'points-covered-pk' needs _range=N (the IN-list length)"),
        ("my8040_rel_o2nofp", "point-query.prex_range=100", None, "dell32",
         "unknown variant 'prex'"),
    ],
)  # fmt: skip
def test_typos_name_the_known_names(
    inv: Inventory, build: str, workload: str, config: str | None, host: str, message: str
) -> None:
    with pytest.raises(RequestError) as err:
        check(inv, build, workload, config, host)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_a_name_without_its_range_is_stored_with_the_range_it_runs_with(inv: Inventory) -> None:
    """Issue 25 item 4: ``run --workload point-query`` was stored as ``point-query`` and never
    compared with the ``point-query_range=100`` runs."""
    one = check_requests
    assert one(inv, ["dell32"], ["sqlite"], [None], ["point-query"]) == ["point-query_range=100"]
    assert one(inv, ["dell32"], ["sqlite"], [None], ["read-write"]) == ["read-write_range=10"]
    assert one(inv, ["dell32"], ["my8040_rel_o2nofp"], [None], ["read-write", "l.i0"]) == [
        "read-write_range=100",
        "l.i0",
    ]
    with pytest.raises(RequestError, match="runs as read-write_range=10 or read-write_range=100"):
        one(inv, ["dell32"], ["my8040_rel_o2nofp", "sqlite"], [None], ["read-write"])
