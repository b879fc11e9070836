"""Reaching hosts: run commands, start detached processes, read their output files.

``make_transport(spec)`` picks :class:`SSHTransport` or :class:`LocalTransport`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchdeck.engine.transport.base import CommandResult, DetachedProcess, HostSpec, Transport
from benchdeck.engine.transport.errors import (
    AuthFailed,
    CommandTimeout,
    ConnectionLost,
    HostKeyError,
    HostUnreachable,
    TransportError,
)
from benchdeck.engine.transport.local import LocalTransport

if TYPE_CHECKING:
    from benchdeck.engine.transport.ssh import SSHTransport


def __getattr__(name: str) -> Any:
    """``SSHTransport`` loads asyncssh (a long import), so it is imported on first use only."""
    if name == "SSHTransport":
        from benchdeck.engine.transport.ssh import SSHTransport

        return SSHTransport
    raise AttributeError(name)


def make_transport(spec: HostSpec, **ssh_options: Any) -> SSHTransport | LocalTransport:
    """The transport a spec asks for; ``ssh_options`` go to :class:`SSHTransport`."""
    if spec.transport == "local":
        return LocalTransport(spec)
    from benchdeck.engine.transport.ssh import SSHTransport

    return SSHTransport(spec, **ssh_options)


__all__ = [
    "AuthFailed",
    "CommandResult",
    "CommandTimeout",
    "ConnectionLost",
    "DetachedProcess",
    "HostKeyError",
    "HostSpec",
    "HostUnreachable",
    "LocalTransport",
    "SSHTransport",
    "Transport",
    "TransportError",
    "make_transport",
]
