"""A run's build as it runs on one node of a cluster: the node's port, a datadir of its own."""

from __future__ import annotations

from dataclasses import replace

from benchdeck.engine.cluster.spec import ClusterNode, ClusterSpec
from benchdeck.engine.hosts.inventory import BuildConfig


def node_build(build: BuildConfig, cluster: ClusterSpec, node: ClusterNode) -> BuildConfig:
    """``build`` (as the node's host describes it) on ``node``: its port when the node names one.

    A managed node's server lives in its own datadir (:func:`node_datadir_name`), so nodes of
    one cluster on one host never share one.
    """
    return replace(build, port=node.port) if node.port is not None else build


def node_datadir_name(build: BuildConfig, cluster: ClusterSpec, node: ClusterNode) -> str:
    """``ma1011_rel.c1@loop3.r1``: the server directory name of ``build`` on a cluster's node
    (the primary's too: a cluster's primary is another server than the build run alone)."""
    base = build.name + (f".{build.config}" if build.config else "")
    return f"{base}@{cluster.name}.{node.name}"
