"""``[clusters.NAME]`` in the inventory: parsed into ClusterSpecs; each mistake is one
``FILE:LINE: KEY: message`` line; a build is checked against a cluster when a run names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchdeck.engine.cluster.errors import ClusterError
from benchdeck.engine.cluster.inventory_clusters import check_cluster_build, cluster_named
from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.hosts.inventory import ConfigError
from benchdeck.engine.hosts.inventory_file import parse_inventory

HOSTS = """\
[hosts.local]
transport = "local"
[[hosts.local.builds]]
name = "ma1011_rel"
managed = true
[[hosts.local.builds]]
name = "pg15_rel"
managed = true
[hosts.far]
hostname = "10.0.0.9"
[[hosts.far.builds]]
name = "pg15_rel"
port = 5433
"""
LOOP3 = """\
[clusters.loop3]
kind = "async"
lag_limit_s = 2.5
[[clusters.loop3.nodes]]
name = "p"
host = "local"
role = "primary"
port = 3406
[[clusters.loop3.nodes]]
name = "r1"
host = "local"
port = 3407
[[clusters.loop3.nodes]]
name = "r2"
host = "local"
port = 3408
"""


def test_a_cluster_loads_with_its_nodes_roles_and_ports() -> None:
    inv = parse_inventory(HOSTS + LOOP3, Path("/i.toml"))
    c = inv.clusters["loop3"]
    assert c == ClusterSpec(
        "loop3",
        "async",
        (
            ClusterNode("p", "local", "primary", 3406),
            ClusterNode("r1", "local", "replica", 3407),
            ClusterNode("r2", "local", "replica", 3408),
        ),
        2.5,
    )
    assert c.primary.name == "p"
    assert [r.name for r in c.replicas] == ["r1", "r2"]
    assert cluster_named(inv, "loop3") is c
    assert parse_inventory(HOSTS, Path("/i.toml")).clusters == {}


def _node(name: str, host: str = "local", role: str = "replica", port: str = "") -> str:
    return f'[[clusters.c.nodes]]\nname = "{name}"\nhost = "{host}"\nrole = "{role}"\n' + (
        f"port = {port}\n" if port else ""
    )


PRIMARY = _node("p", role="primary", port="3406")
CLUSTER = '[clusters.c]\nkind = "async"\n'
AT = HOSTS.count("\n")  # HOSTS's last line: a case's line 1 is AT + 1


@pytest.mark.parametrize(
    ("text", "line", "key", "words"),
    [
        (
            '[clusters.c]\nkind = "ring"\n' + PRIMARY,
            2,
            "clusters.c.kind",
            'unknown kind "ring" (expected one of async,',
        ),
        ("[clusters.c]\n" + PRIMARY, 1, "clusters.c", "missing key kind"),
        (CLUSTER, 1, "clusters.c.nodes", "expected [[clusters.c.nodes]] tables"),
        (CLUSTER + "lag_limit_s = 0\n" + PRIMARY, 3, "clusters.c.lag_limit_s", "out of range: 0"),
        (
            CLUSTER + 'lag_limit_s = "5s"\n' + PRIMARY,
            3,
            "clusters.c.lag_limit_s",
            "expected a number of seconds",
        ),
        (
            CLUSTER + "lagg = 3\n",
            3,
            "clusters.c.lagg",
            "unknown key (expected one of kind, lag_limit_s, nodes)",
        ),
        (
            CLUSTER + PRIMARY + _node("r", host="nowhere"),
            10,
            "clusters.c.nodes[1].host",
            "unknown host nowhere",
        ),
        (CLUSTER + PRIMARY + _node("p", port="3407"), 9, "clusters.c.nodes[1].name", "duplicate node p"),
        (
            CLUSTER + PRIMARY + _node("r", port="3406"),
            12,
            "clusters.c.nodes[1].port",
            "node p on host local has port 3406",
        ),
        (CLUSTER + _node("a") + _node("b", port="2"), 3, "clusters.c.nodes", "exactly one node with role"),
        (CLUSTER + PRIMARY + _node("q", role="primary", port="1"), 3, "clusters.c.nodes", "(found: p, q)"),
        (CLUSTER + PRIMARY, 3, "clusters.c.nodes", 'at least one node with role = "replica"'),
        (
            CLUSTER + PRIMARY + _node("r", role="leader", port="1"),
            11,
            "clusters.c.nodes[1].role",
            'got "leader"',
        ),
        (CLUSTER + PRIMARY + _node("r.1", port="1"), 9, "clusters.c.nodes[1].name", "no '.'"),
        ('[clusters."a.b"]\nkind = "async"\n' + PRIMARY, 1, 'clusters."a.b"', "a cluster name is"),
        (CLUSTER + '[[clusters.c.nodes]]\nhost = "local"\n', 3, "clusters.c.nodes[0]", "missing key name"),
        (
            CLUSTER + '[[clusters.c.nodes]]\nname = "p"\nhost = "local"\nport = "x"\n',
            6,
            "clusters.c.nodes[0].port",
            "expected an integer",
        ),
    ],
)
def test_each_mistake_is_one_line_naming_file_line_and_key(
    text: str, line: int, key: str, words: str
) -> None:
    path = Path("/i.toml")
    with pytest.raises(ConfigError) as exc:
        parse_inventory(HOSTS + text, path)
    assert str(exc.value).startswith(f"{path}:{AT + line}: {key}: "), str(exc.value)
    assert words in str(exc.value)
    assert "\n" not in str(exc.value)


def test_clusters_must_be_a_table() -> None:
    with pytest.raises(ConfigError, match=r"^/i.toml:1: clusters: expected a table of clusters"):
        parse_inventory("clusters = 3\n" + HOSTS, Path("/i.toml"))


def test_two_nodes_on_one_host_without_ports_clash() -> None:
    text = HOSTS + CLUSTER + _node("p", role="primary") + _node("r")
    with pytest.raises(ConfigError, match=r"nodes\[1\]\.port: node p on host local has the build's port"):
        parse_inventory(text, Path("/i.toml"))


def test_a_run_names_a_build_the_cluster_can_run() -> None:
    inv = parse_inventory(HOSTS + LOOP3, Path("/i.toml"))
    loop3 = inv.clusters["loop3"]
    builds = check_cluster_build(inv, loop3, "ma1011_rel")
    assert {n: b.port for n, b in builds.items()} == {"p": 3406, "r1": 3407, "r2": 3408}
    with pytest.raises(
        ClusterError, match=r"kind async is not for postgres \(build pg15_rel; postgres clusters: streaming\)"
    ):
        check_cluster_build(inv, loop3, "pg15_rel")
    with pytest.raises(ClusterError, match="node p: host local has no build my8028_rel"):
        check_cluster_build(inv, loop3, "my8028_rel")
    with pytest.raises(ClusterError, match=r"unknown cluster nope \(clusters: loop3\)"):
        cluster_named(inv, "nope")


def test_a_port_clash_only_the_build_shows_is_found_when_a_run_names_it() -> None:
    # r on 'far' has no port of its own: the build's 5433 there; p on local gets the default 5432.
    text = HOSTS + '[clusters.c]\nkind = "streaming"\n' + _node("p", role="primary") + _node("r", host="far")
    inv = parse_inventory(text, Path("/i.toml"))
    assert {n: b.port for n, b in check_cluster_build(inv, inv.clusters["c"], "pg15_rel").items()} == {
        "p": None,
        "r": 5433,
    }
    clash = text + _node("r2", host="far", port="5433")
    inv = parse_inventory(clash, Path("/i.toml"))
    with pytest.raises(ClusterError, match="nodes r and r2 both use port 5433 on far"):
        check_cluster_build(inv, inv.clusters["c"], "pg15_rel")


def test_the_example_inventory_has_a_cluster() -> None:
    from benchdeck.engine.hosts.inventory_file import load_inventory

    example = Path(__file__).resolve().parents[3] / "docs" / "benchdeck.example.toml"
    loop3 = load_inventory(example).clusters["loop3"]
    assert (loop3.kind, loop3.primary.name, [r.port for r in loop3.replicas]) == ("async", "p", [3407, 3408])
