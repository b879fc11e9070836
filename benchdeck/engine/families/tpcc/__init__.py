"""benchdeck's TPC-C-like client: the nine TPC-C tables and the five-transaction mix, for
MariaDB/MySQL and PostgreSQL (``python3 -m benchdeck.engine.families.tpcc.client``).

TPC-C-like, not TPC-C: no keying or think time, scaled-down items and customers, not audited.
Workloads ``tpcc.wN`` (N warehouses); output read by :class:`engine.parsers.tpcc.TpccParser`.
"""
