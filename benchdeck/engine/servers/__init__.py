"""Managed database servers: create a datadir, start, wait until ready, set up the benchmark
database and user, stop -- all through a Transport, so it works locally and over SSH.

    server = make_server(transport, ServerSpec(dbms="mariadb", datadir="/data/m/data", port=3307))
    if not await server.exists():
        await server.create()
    await server.start()
    await server.wait_ready()
    await server.setup_database()
    ...  # sysbench with server.sysbench_args()
    await server.stop()
"""

from __future__ import annotations

from benchdeck.engine.servers.base import ManagedServer, ServerError, ServerSpec
from benchdeck.engine.servers.mysql import MySQLServer
from benchdeck.engine.servers.postgres import PostgresServer
from benchdeck.engine.transport import Transport


def make_server(transport: Transport, spec: ServerSpec) -> ManagedServer:
    """The ManagedServer for ``spec.dbms`` on the host ``transport`` reaches."""
    if spec.dbms == "postgres":
        return PostgresServer(transport, spec)
    return MySQLServer(transport, spec)


__all__ = ["ManagedServer", "MySQLServer", "PostgresServer", "ServerError", "ServerSpec", "make_server"]
