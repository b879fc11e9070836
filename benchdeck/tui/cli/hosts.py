"""``benchdeck hosts``: list the inventory, check hosts (facts into the store), trust host keys.

Registered on the root group by ``tui.cli`` (``cli.add_command(hosts_group)``). ``tui.cli``
is imported lazily here, so either module may be imported first; so is the engine, so
registering this group does not slow down the other commands.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:  # engine imports are deferred: asyncssh's import would slow every other command
    from benchdeck.engine.hosts.facts import HostFacts
    from benchdeck.engine.hosts.inventory import ConfigError, HostConfig, Inventory
    from benchdeck.engine.hosts.python_check import PythonCheck
    from benchdeck.engine.transport import HostKeyError
    from benchdeck.tui.cli.context import Ctx


def _fail(message: str, code: int = 1) -> NoReturn:
    from benchdeck.tui.cli.context import fail

    fail(" ".join(message.split()), code)


def _inventory() -> Inventory:
    """The inventory from ``$BENCHDECK_INVENTORY`` (set by ``--inventory``) or the default file."""
    from benchdeck.engine.hosts.inventory import ConfigError
    from benchdeck.engine.hosts.inventory_file import load_inventory

    try:
        return load_inventory(None)
    except ConfigError as exc:
        _fail(str(exc))


def _select(inv: Inventory, names: Sequence[str]) -> list[HostConfig]:
    from benchdeck.engine.hosts.inventory import ConfigError

    if not names:
        return list(inv.hosts.values())
    try:
        return [inv.host(n) for n in dict.fromkeys(names)]
    except ConfigError as exc:
        raise click.UsageError(str(exc).removeprefix(f"{inv.path}: ")) from None


@click.group("hosts")
def hosts_group() -> None:
    """The host inventory (benchdeck.toml): list hosts, check them, trust their host keys."""


@hosts_group.command("list")
def list_cmd() -> None:
    """Name, address, transport and builds of every host."""
    inv = _inventory()
    if not inv.from_file:
        click.echo(f"benchdeck: no config file at {inv.path}: only the local host", err=True)
    from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS

    rows = [("NAME", "ADDRESS", "TRANSPORT", "BUILDS")]
    for h in inv.hosts.values():
        builds = list(h.builds)
        if h.transport == "local":  # what Launch offers there: the built-in SQLite builds too
            builds += [f"{b} (built-in)" for b in BUILTIN_BUILDS if b not in h.builds]
        rows.append((h.name, h.address, h.transport, ", ".join(builds) or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[3])
    from benchdeck.engine.hosts.inventory_check import missing_here

    for problem in missing_here(inv):  # what this machine can see; hosts check asks the hosts
        click.echo(f"benchdeck: warning: {problem}", err=True)


async def _facts(inv: Inventory, host: HostConfig) -> tuple[HostFacts, list[ConfigError], PythonCheck | None]:
    """The host's facts, the files its builds name that it does not have, and (a remote host)
    the interpreter its shipped clients run with."""
    from benchdeck.engine.hosts.facts import gather_facts
    from benchdeck.engine.hosts.inventory_check import missing_on_host
    from benchdeck.engine.hosts.python_check import probe_python
    from benchdeck.engine.transport import make_transport

    transport = make_transport(host.spec)
    try:
        facts = await gather_facts(transport)
        py = None if host.transport == "local" else await probe_python(transport, host.python)
        return facts, await missing_on_host(inv, host, transport), py
    finally:
        await transport.close()


async def _check_all(
    inv: Inventory, hosts: list[HostConfig]
) -> list[tuple[HostFacts, list[ConfigError], PythonCheck | None] | BaseException]:
    return await asyncio.gather(*(_facts(inv, h) for h in hosts), return_exceptions=True)


@hosts_group.command("check")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.pass_obj
def check_cmd(obj: Ctx, names: tuple[str, ...]) -> None:
    """Connect to hosts (all by default) at once, store their facts, name missing tools."""
    from benchdeck.engine.hosts.facts import describe, missing_tools
    from benchdeck.engine.hosts.inventory_check import missing_here
    from benchdeck.engine.hosts.python_check import python_lines
    from benchdeck.engine.transport import TransportError
    from benchdeck.store.storage.runs import save_host_facts

    inv = _inventory()
    hosts = _select(inv, names)
    problems = missing_here(inv, hosts)  # key files and local hosts' files, by file:line
    for problem in problems:
        click.echo(f"benchdeck: {problem}", err=True)
    failed = len(problems)
    results = asyncio.run(_check_all(inv, hosts))
    good: list[tuple[HostConfig, HostFacts, PythonCheck | None]] = []
    for host, res in zip(hosts, results, strict=True):
        if isinstance(res, TransportError | OSError):
            failed += 1
            reason = " ".join(str(res).split()) or type(res).__name__
            click.echo(f"benchdeck: {host.name}: {reason}", err=True)
        elif isinstance(res, BaseException):
            raise res
        else:
            facts, absent, py = res
            for problem in absent:
                click.echo(f"benchdeck: {problem}", err=True)
            failed += len(absent)
            if py is not None and py.version is None:  # its clients cannot run at all
                failed += 1
                click.echo(f"benchdeck: {python_lines(host.name, py)[0]}", err=True)
            good.append((host, facts, py))
    if good:
        with obj.open_store() as store, store.transaction() as cur:
            for host, facts, _ in good:
                save_host_facts(cur, host.name, facts.as_dict())
    for host, facts, py in good:
        click.echo(f"{host.name}: {describe(facts)}")
        _devices(host, facts)
        for tool, package in missing_tools(facts):
            click.echo(f"  {host.name}: {tool} is missing: apt-get install -y {package}")
        if py is not None and py.version is not None:
            for line in python_lines(host.name, py):
                click.echo(line)
    if failed:
        sys.exit(1)


async def _offered_key(host: HostConfig) -> HostKeyError | None:
    """The key the host offers if known_hosts does not trust it yet; None if it does.

    Connecting the way ``hosts check`` does makes the trusted entry the one that check
    looks up (also for ``ssh = alias`` hosts whose HostName/Port come from ~/.ssh/config).
    """
    from benchdeck.engine.transport import AuthFailed, HostKeyError, SSHTransport

    transport = SSHTransport(host.spec, connect_timeout=15)
    try:
        await transport.connect()
    except HostKeyError as exc:
        return exc
    except AuthFailed:
        return None  # the host key was accepted before authentication
    finally:
        await transport.close()
    return None


@hosts_group.command("trust")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Trust the key without asking.")
def trust_cmd(name: str, yes: bool) -> None:
    """Show a host's SSH host key and add it to known_hosts once you confirm."""
    from benchdeck.engine.transport import SSHTransport, TransportError, hostkeys

    host = _select(_inventory(), [name])[0]
    if host.transport == "local":
        raise click.UsageError(f"host {name} uses the local transport: it has no host key to trust")
    try:
        offered = asyncio.run(_offered_key(host))
    except TransportError as exc:
        _fail(f"{name}: {exc}")
    known_hosts = SSHTransport(host.spec).known_hosts_path
    if offered is None:
        click.echo(f"{name}: host key already trusted in {known_hosts}")
        return
    if offered.changed:
        _fail(str(offered))
    where = offered.host if offered.port == hostkeys.DEFAULT_PORT else f"{offered.host} port {offered.port}"
    click.echo(f"{name}: {where} offers {offered.key_type} key {offered.fingerprint}")
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("not asking without a terminal: check the fingerprint, then add --yes")
        click.confirm(f"Trust it (add to {offered.known_hosts})?", default=False, abort=True)
    line = hostkeys.trust(offered.known_hosts, offered.host, offered.port, offered.openssh_line)
    click.echo(f"{name}: added to {offered.known_hosts}: {line.split()[0]} {offered.key_type}")


def _devices(host: HostConfig, facts: HostFacts) -> None:
    """The host's block devices (what ``device =`` may name), and whether its device is one."""
    disks = [d for d in facts.disks or () if d.parent is None or d.type == "disk"]
    names = [d.name for d in disks]
    shown = [f"{d.name} ({d.model})" if d.model else d.name for d in disks]
    click.echo(f"  {host.name}: devices: {', '.join(shown) or 'none found'}")
    if facts.disks is not None and host.device and host.device not in {d.name for d in facts.disks}:
        click.echo(
            f"  {host.name}: device {host.device} (inventory) does not exist there: runs get no iostat "
            f"metrics (devices: {', '.join(names) or 'none'})"
        )


@hosts_group.command("forget")
@click.argument("name")
def forget_cmd(name: str) -> None:
    """Remove a host's key from known_hosts (after a reinstall, before trusting the new one)."""
    from benchdeck.engine.transport import SSHTransport, hostkeys

    host = _select(_inventory(), [name])[0]
    if host.transport == "local":
        raise click.UsageError(f"host {name} uses the local transport: it has no host key to forget")
    transport = SSHTransport(host.spec)
    address, port, _ = transport.address
    known_hosts = transport.known_hosts_path
    entry = hostkeys.entry_host(address, port)
    removed = hostkeys.forget(known_hosts, address, port)
    if removed:
        click.echo(f"{name}: removed {removed} key(s) of {entry} from {known_hosts}")
    else:
        click.echo(f"{name}: no key of {entry} in {known_hosts}")
