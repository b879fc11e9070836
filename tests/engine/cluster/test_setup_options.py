"""What setup decides without a server: each node's options per replication kind, Galera's port
rules, and reading the SQL clients' output."""

from __future__ import annotations

import pytest

from benchdeck.engine.cluster import galera_setup, mariadb_setup
from benchdeck.engine.cluster.cluster_nodes import parse_batch, parse_csv
from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.spec import ClusterKind, ClusterNode, ClusterSpec


def cluster(kind: ClusterKind, *ports: int, hosts: tuple[str, ...] = ()) -> ClusterSpec:
    names = ["p", *(f"r{i}" for i in range(1, len(ports)))]
    return ClusterSpec(
        "c",
        kind,
        tuple(
            ClusterNode(n, hosts[i] if hosts else "local", "primary" if i == 0 else "replica", port)
            for i, (n, port) in enumerate(zip(names, ports, strict=True))
        ),
    )


def test_mariadb_nodes_get_their_server_id_binlog_and_semisync_side() -> None:
    c = cluster("semisync", 3406, 3407)
    primary, replica = dict(mariadb_setup.options(c, 0)), dict(mariadb_setup.options(c, 1))
    assert (primary["server_id"], replica["server_id"]) == ("1", "2")
    assert primary["log_bin"] == replica["log_bin"] == "binlog"
    assert "read_only" not in primary
    assert replica["read_only"] == "ON"
    assert "rpl_semi_sync_master_enabled" not in primary  # enabled once the replicas follow
    assert replica["rpl_semi_sync_slave_enabled"] == "ON"
    assert "rpl_semi_sync_slave_enabled" not in dict(mariadb_setup.options(cluster("async", 1, 2), 1))


def test_galera_ports_and_members() -> None:
    opts = dict(galera_setup.options(cluster("galera", 4000, 4004, 4010), 1))
    assert opts["wsrep_cluster_address"] == "gcomm://127.0.0.1:4001,127.0.0.1:4005,127.0.0.1:4011"
    assert (
        opts["wsrep_provider_options"]
        == "gmcast.listen_addr=tcp://127.0.0.1:4005;ist.recv_addr=127.0.0.1:4006"
    )
    assert opts["wsrep_sst_receive_address"] == "127.0.0.1:4007"
    assert opts["wsrep_node_name"] == "r1"


@pytest.mark.parametrize(
    ("c", "words"),
    [
        (
            cluster("galera", 4000, 4002),
            "nodes p and r1 on local: a Galera node uses its port and the 3 above it",
        ),
        (cluster("galera", 4000, None), "node r1: a Galera node needs a port of its own"),  # type: ignore[arg-type]
        (cluster("galera", 4000, 4004, hosts=("a", "b")), "Galera on one host only (nodes on a, b)"),
        (cluster("galera", 65533, 4000), "node p: cannot use 127.0.0.1:65533..65536"),
    ],
)
def test_galera_refuses_what_it_cannot_set_up(c: ClusterSpec, words: str) -> None:
    with pytest.raises(ClusterError) as exc:
        galera_setup.check_galera(c)
    assert words in str(exc.value)


def test_the_clients_output_is_read_back_exactly() -> None:
    batch = "Master_Host\tLast_SQL_Error\n127.0.0.1\tError 'a\\tb\\nc' on \\\\x\n"
    assert parse_batch(batch) == [{"Master_Host": "127.0.0.1", "Last_SQL_Error": "Error 'a\tb\nc' on \\x"}]
    assert parse_batch("") == []
    assert parse_csv('application_name,state\nr1,"stream,ing"\n') == [
        {"application_name": "r1", "state": "stream,ing"}
    ]


async def test_setup_refuses_mixed_and_unsupported_clusters_before_touching_a_host() -> None:
    from pathlib import Path

    from benchdeck.engine.cluster.setup import cluster_nodes
    from benchdeck.engine.hosts.inventory_file import parse_inventory
    from benchdeck.engine.transport import Transport

    async def connect(host: str) -> Transport:
        raise AssertionError(f"connected to {host}")

    def inventory(far_managed: str, build: str = "ma1011_rel") -> str:
        return (
            f'[hosts.local]\ntransport = "local"\n[[hosts.local.builds]]\nname = "{build}"\nmanaged = true\n'
            f'[hosts.far]\nhostname = "10.0.0.9"\n[[hosts.far.builds]]\nname = "{build}"\n{far_managed}'
            '[clusters.c]\nkind = "async"\n'
            '[[clusters.c.nodes]]\nname = "p"\nhost = "local"\nrole = "primary"\n'
            '[[clusters.c.nodes]]\nname = "r1"\nhost = "far"\n'
        )

    inv = parse_inventory(inventory(""), Path("/i.toml"))
    with pytest.raises(
        ClusterError,
        match=r"node r1 is not managed \(build ma1011_rel on far\) but node p is: a cluster's nodes are all",
    ):
        await cluster_nodes(connect, inv, inv.clusters["c"], "ma1011_rel", None)
    inv = parse_inventory(inventory("managed = true\n", "my8040_rel"), Path("/i.toml"))
    with pytest.raises(ClusterError, match="cannot set up async replication of mysql yet"):
        await cluster_nodes(connect, inv, inv.clusters["c"], "my8040_rel", None)
