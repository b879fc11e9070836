"""What goes wrong with a cluster, as one line a user can act on."""

from __future__ import annotations


class ClusterError(RuntimeError):
    """A cluster is not fit to run on (or cannot be set up): one line naming the node and why,
    e.g. ``cluster loop3: node r1 (local:3407): replication stopped: Error 1062 ...``."""
