"""The posts' post-write step: settle the database after a sysbench write step, before reads."""

from __future__ import annotations

from benchdeck.engine.catalogue import family_of
from benchdeck.engine.dispatch.table import WorkloadError, post_write_sql, step_for
from benchdeck.engine.planning.build_conn import SQL_DBMS, external_client, server_spec
from benchdeck.engine.running.session import Session
from benchdeck.engine.servers import ServerError, make_server


def needs_post_write(done: str, following: str | None) -> bool:
    """The posts' post-write step: after a sysbench write step, before read steps follow."""
    if following is None or family_of(done) != "sysbench" or family_of(following) != "sysbench":
        return False
    try:
        return step_for(done).writes and not step_for(following).writes
    except WorkloadError:
        return False


async def post_write(
    session: Session,
    host_name: str,
    build_name: str,
    tables: int,
    wait_s: int = 60,
    config: str | None = None,
) -> str:
    """Settle the database after writes (InnoDB: flush dirty pages, analyze; PostgreSQL:
    VACUUM ANALYZE) through the build's SQL client; returns what was done, for the log."""
    host = session.inventory.host(host_name)
    build = host.builds.get(build_name)
    if build is not None:
        build = build.with_config(config)
    if build is None or build.build.dbms not in SQL_DBMS:
        return "post-write: nothing to do for this build"
    transport = await session.transport(host_name)
    dbms = "postgres" if build.build.dbms == "postgres" else "mysql"
    if build.managed:
        server = make_server(
            transport, server_spec(build, await session.remote_path(host_name, host.workdir))
        )
        await server.locate()
        client = tuple(server.client_argv())
    else:
        client = external_client(build, dbms)
    statements = post_write_sql(build.build.dbms, tables, wait_s)
    argv = [*client, "-v", "ON_ERROR_STOP=1", "-f", "-"] if dbms == "postgres" else list(client)
    res = await transport.run(argv, stdin="".join(f"{s};\n" for s in statements), timeout=wait_s + 900)
    if not res.ok:
        lines = (res.stderr or res.stdout).strip().splitlines()
        raise ServerError(f"post-write step failed: {lines[-1] if lines else res.exit_status}")
    return f"post-write: {len(statements)} statements ({statements[0].split()[0]} ...) done"
