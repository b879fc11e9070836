"""Transport errors: one-line, user-facing messages (no tracebacks for user mistakes)."""

from __future__ import annotations


class TransportError(Exception):
    """Base class of every error the transport layer raises on purpose."""


class HostUnreachable(TransportError):
    """The host could not be reached (DNS, refused, timed out, no route)."""


class AuthFailed(TransportError):
    """The server rejected every key / agent identity we offered."""


class ConnectionLost(TransportError):
    """An established connection dropped while a command was running.

    The command may or may not have run to completion on the host; the next call
    reconnects on its own.
    """


class CommandTimeout(TransportError):
    """A foreground command did not finish within its timeout (it has been killed)."""


class HostKeyError(TransportError):
    """The server's host key is unknown or differs from the one in known_hosts.

    Never auto-accepted: the message names the key and the explicit command that trusts it.
    The attributes let a CLI show or trust the offered key without parsing the message.
    """

    def __init__(
        self,
        *,
        name: str,
        host: str,
        port: int,
        key_type: str,
        fingerprint: str,
        openssh_line: str,
        known_hosts: str,
        changed: bool,
    ) -> None:
        self.name = name
        self.host = host
        self.port = port
        self.key_type = key_type
        self.fingerprint = fingerprint
        self.openssh_line = openssh_line
        self.known_hosts = known_hosts
        self.changed = changed
        where = f"{host} port {port}"
        offered = f"{key_type} {fingerprint}"
        if changed:
            entry = host if port == 22 else f"[{host}]:{port}"
            msg = (
                f"HOST KEY CHANGED for {name!r} ({where}): it offered {offered}, but "
                f"{known_hosts} holds a different key (this may be an attack); if the change "
                f"is expected, remove the old entry (ssh-keygen -R '{entry}' -f {known_hosts}) "
                f"and run: benchdeck hosts trust {name}"
            )
        else:
            msg = (
                f"unknown host key for {name!r} ({where}): {offered} is not in {known_hosts}; "
                f"if that fingerprint is right, run: benchdeck hosts trust {name}"
            )
        super().__init__(msg)
