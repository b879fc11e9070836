"""A cluster as the system under test: a primary the clients drive and replicas it feeds.

``spec``: what the inventory says of a cluster (nodes, replication kind, the lag limit);
``records``: what a run on a cluster streams besides the primary's samples (per-node vmstat and
iostat, each replica's lag, faults). Setting a cluster up, checking it and sampling its lag live
in the modules beside these.
"""
