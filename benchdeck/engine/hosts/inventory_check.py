"""Files the inventory names that are not there: key files (on this machine), and each build's
``basedir``, ``config_file`` and ``configs`` files (on its host). Found by ``hosts list`` (what
this machine can see) and ``hosts check`` (over the host's transport), not only at run time;
each is a :class:`ConfigError` line ``FILE:LINE: KEY: ...``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from benchdeck.engine.hosts.inventory import ConfigError, HostConfig, Inventory
from benchdeck.engine.hosts.inventory_keys import KeyPath, dotted, key_lines
from benchdeck.engine.transport.base import Transport, sh


@dataclass(frozen=True, slots=True)
class NamedPath:
    """A path the inventory names at ``where``; ``local``: on this machine, not on the host."""

    host: str
    where: KeyPath
    path: str
    local: bool


def named_paths(host: HostConfig) -> list[NamedPath]:
    at: KeyPath = ("hosts", host.name)
    out = [NamedPath(host.name, (*at, "key"), k, True) for k in host.spec.key_files]
    on_this_machine = host.transport == "local"
    for i, b in enumerate(host.builds.values()):
        bat = (*at, "builds", i)
        for key, value in (("basedir", b.basedir), ("config_file", b.config_file)):
            if value:
                out.append(NamedPath(host.name, (*bat, key), value, on_this_machine))
        for name, file in b.configs.items():
            out.append(NamedPath(host.name, (*bat, "configs", name), file, on_this_machine))
    return out


class _Lines:
    """Config line numbers, read once from the inventory's file."""

    def __init__(self, inv: Inventory) -> None:
        self.path = inv.path
        try:
            self.lines = key_lines(inv.path.read_text()) if inv.from_file else {}
        except (OSError, UnicodeDecodeError):
            self.lines = {}

    def error(self, where: KeyPath, message: str) -> ConfigError:
        for n in range(len(where), 0, -1):
            if where[:n] in self.lines:
                return ConfigError(self.path, self.lines[where[:n]], dotted(where), message)
        return ConfigError(self.path, None, dotted(where), message)


def _message(p: NamedPath) -> str:
    where = "on this machine" if p.local else f"on host {p.host}"
    return f"{p.path} does not exist {where}"


def missing_here(inv: Inventory, hosts: list[HostConfig] | None = None) -> list[ConfigError]:
    """Named paths on this machine that do not exist (no host is contacted)."""
    lines = _Lines(inv)
    return [
        lines.error(p.where, _message(p))
        for h in (hosts if hosts is not None else inv.hosts.values())
        for p in named_paths(h)
        if p.local and not os.path.exists(os.path.expanduser(p.path))
    ]


# Prints each argument that does not exist on the host (a leading ~/ is the login's home).
_MISSING = (
    'for o; do p=$o; case $p in "~/"*) p="$HOME/${p#??}";; esac; [ -e "$p" ] || printf "%s\\n" "$o"; done'
)


async def missing_on_host(inv: Inventory, host: HostConfig, transport: Transport) -> list[ConfigError]:
    """Named paths on ``host`` that do not exist there, asked over its transport."""
    wanted = [p for p in named_paths(host) if not p.local]
    if not wanted:
        return []
    result = await transport.run(sh(_MISSING, *(p.path for p in wanted)), timeout=30)
    absent = {p for p in wanted if p.path in set(result.stdout.splitlines())}
    lines = _Lines(inv)
    return [lines.error(p.where, _message(p)) for p in wanted if p in absent]
