"""``benchdeck server list | stop``: the managed servers benchdeck left running on the hosts.

What runs where is recorded on each host (:mod:`engine.servers.state`), so these commands see
servers started by any benchdeck process, whatever store it used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import click

from benchdeck.engine.dispatch.request_check import RequestError, check_host
from benchdeck.engine.hosts.inventory import Inventory
from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.running.run_dirs import busy_reason
from benchdeck.engine.running.session import Session
from benchdeck.engine.servers import ServerError, make_server
from benchdeck.engine.servers import state as server_state
from benchdeck.engine.transport import TransportError


@click.group("server")
def server_group() -> None:
    """Managed database servers benchdeck started (recorded on each host)."""


def _hosts(inv: Inventory, hosts: Sequence[str]) -> list[str]:
    try:
        for h in hosts:
            check_host(inv, h)
    except RequestError as exc:
        raise click.UsageError(str(exc)) from None
    return list(hosts) or sorted(inv.hosts)


@server_group.command("list")
@click.option("--host", "hosts", multiple=True, help="Only this host (repeat); default: every host.")
def list_cmd(hosts: Sequence[str]) -> None:
    """One line per managed server: host, build (config), DBMS, port, pid, state, datadir."""
    inv = load_inventory(None)
    names = _hosts(inv, hosts)

    async def go() -> tuple[list[str], bool]:
        session = Session(inv)
        lines, ok = [], True
        try:
            for host in names:
                try:
                    t = await session.transport(host)
                    workdir = await session.remote_path(host, inv.host(host).workdir)
                    for r in await server_state.read_all(t, workdir):
                        alive = r.pid is not None and await t.is_alive(r.pid)
                        state = "running" if alive else "not running (stale record)"
                        lines.append(
                            f"{host}  {r.label}  {r.dbms}  port {r.port}  pid {r.pid}  {state}  {r.datadir}"
                        )
                except (TransportError, OSError) as exc:
                    lines.append(f"{host}  unreachable: {exc}")
                    ok = False
        finally:
            await session.close()
        return lines, ok

    lines, ok = asyncio.run(go())
    for line in lines:
        click.echo(line)
    if not lines:
        click.echo("no managed servers")
    if not ok:
        raise SystemExit(1)


@server_group.command("stop")
@click.argument("host")
@click.argument("build", required=False)
def stop_cmd(host: str, build: str | None) -> None:
    """Stop the managed servers on HOST (only BUILD's, if given) and forget them."""
    inv = load_inventory(None)
    _hosts(inv, [host])

    async def go() -> list[str]:
        session = Session(inv)
        try:
            t = await session.transport(host)
            workdir = await session.remote_path(host, inv.host(host).workdir)
            records = await server_state.read_all(t, workdir)
            chosen = [r for r in records if build is None or r.build == build]
            if build is not None and not chosen:
                known = ", ".join(r.label for r in records) or "none"
                raise click.UsageError(f"no managed server of build {build} on {host} (servers: {known})")
            if chosen:
                why = await busy_reason(t, host, f"{workdir}/runs")
                if why is not None:
                    raise click.ClickException(why)
            done = []
            for r in chosen:
                server = make_server(t, r.spec())
                if await server.is_running():
                    await server.stop()
                    done.append(f"stopped {r.label} on {host} (port {r.port}, pid {r.pid})")
                else:
                    done.append(f"forgot {r.label} on {host} (port {r.port}): it was not running")
                await server_state.remove(t, workdir, r.port)
            return done
        finally:
            await session.close()

    try:
        done = asyncio.run(go())
    except (ServerError, TransportError) as exc:
        msg = exc.message if isinstance(exc, ServerError) else str(exc)
        raise click.ClickException(" ".join(msg.split())) from None
    for line in done:
        click.echo(line)
    if not done:
        click.echo(f"no managed servers on {host}")
