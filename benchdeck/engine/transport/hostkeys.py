"""Host keys: look at a server's key, trust it explicitly, forget it. Never auto-accept.

The CLI's ``benchdeck hosts trust NAME`` is :func:`fetch_host_key` followed by :func:`trust`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import os
from pathlib import Path

import asyncssh

from benchdeck.engine.transport.errors import HostKeyError, HostUnreachable, TransportError

DEFAULT_PORT = 22


class KeyRecorder(asyncssh.SSHClient):
    """An asyncssh client that remembers the host key offered when known_hosts lacks it."""

    def __init__(self) -> None:
        self.offered: tuple[str, str, int, asyncssh.SSHKey] | None = None

    def validate_host_public_key(self, host: str, addr: str, port: int, key: asyncssh.SSHKey) -> bool:
        self.offered = (host, addr, port, key)
        return False  # never auto-accept


def default_known_hosts() -> str:
    return str(Path("~/.ssh/known_hosts").expanduser())


def entry_host(hostname: str, port: int) -> str:
    """The host field OpenSSH and asyncssh look up: ``host`` on 22, else ``[host]:port``."""
    return hostname if port == DEFAULT_PORT else f"[{hostname}]:{port}"


def describe_key(key: asyncssh.SSHKey) -> tuple[str, str, str]:
    """``(key type, SHA256 fingerprint, "type base64" line without comment)``."""
    line = " ".join(key.export_public_key("openssh").decode().split()[:2])
    return key.get_algorithm(), key.get_fingerprint("sha256"), line


def load_known_hosts(path: str) -> asyncssh.SSHKnownHosts:
    """Parse a known_hosts file; a missing file trusts nothing (it is never 'no checking')."""
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        text = ""
    except OSError as exc:
        raise TransportError(f"cannot read known_hosts {path}: {exc.strerror}") from None
    try:
        return asyncssh.import_known_hosts(text)
    except (ValueError, asyncssh.KeyImportError) as exc:
        raise TransportError(f"cannot parse known_hosts {path}: {exc}") from None


async def fetch_host_key_async(hostname: str, port: int = DEFAULT_PORT) -> tuple[str, str, str]:
    """Ask the server for its host key (no authentication): ``(type, fingerprint, line)``."""
    try:
        key = await asyncio.wait_for(asyncssh.get_server_host_key(hostname, port), 15)
    except (OSError, TimeoutError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or "timed out"
        raise HostUnreachable(f"cannot reach {hostname} port {port}: {reason}") from None
    except asyncssh.Error as exc:
        raise TransportError(f"{hostname} port {port}: {exc.reason}") from None
    if key is None:
        raise TransportError(f"{hostname} port {port} did not present a host key")
    return describe_key(key)


def fetch_host_key(hostname: str, port: int = DEFAULT_PORT) -> tuple[str, str, str]:
    """Blocking :func:`fetch_host_key_async` for the CLI (not from inside an event loop)."""
    return asyncio.run(fetch_host_key_async(hostname, port))


def trust(known_hosts_path: str, hostname: str, port: int, openssh_line: str) -> str:
    """Append ``[host]:port type base64`` to known_hosts (created 0600 in a 0700 dir).

    Returns the line; does nothing if that exact entry is already there.
    """
    fields = openssh_line.split()
    if len(fields) < 2:
        raise ValueError(f"not an OpenSSH public key line: {openssh_line!r}")
    asyncssh.import_public_key(" ".join(fields[:2]))  # validates; raises KeyImportError
    line = f"{entry_host(hostname, port)} {fields[0]} {fields[1]}"
    path = Path(known_hosts_path).expanduser()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    existing = path.read_text() if path.exists() else ""
    if line in existing.splitlines():
        return line
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a") as fh:
        if existing and not existing.endswith("\n"):
            fh.write("\n")
        fh.write(line + "\n")
    return line


def _matches(pattern_field: str, name: str) -> bool:
    if pattern_field.startswith("|1|"):
        try:
            _, _, salt, digest = pattern_field.split("|")
            mac = hmac.new(base64.b64decode(salt), name.encode(), hashlib.sha1).digest()
            return hmac.compare_digest(mac, base64.b64decode(digest))
        except ValueError:
            return False
    return name in pattern_field.split(",")


def forget(known_hosts_path: str, hostname: str, port: int) -> int:
    """Remove every entry naming exactly this host/port (plain or hashed); returns the count."""
    path = Path(known_hosts_path).expanduser()
    if not path.exists():
        return 0
    name = entry_host(hostname, port)
    kept, removed = [], 0
    for line in path.read_text().splitlines(keepends=True):
        fields = line.split()
        marker = 1 if fields and fields[0].startswith("@") else 0
        if len(fields) > marker and _matches(fields[marker], name):
            removed += 1
        else:
            kept.append(line)
    if removed:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text("".join(kept))
        tmp.chmod(0o600)
        tmp.replace(path)
    return removed


def host_key_error(
    name: str,
    known: asyncssh.SSHKnownHosts,
    known_path: str,
    host: str,
    addr: str,
    port: int,
    key: asyncssh.SSHKey,
) -> HostKeyError:
    """The error for an offered key that known_hosts does not trust (unknown or changed)."""
    key_type, fingerprint, line = describe_key(key)
    lookup_port = None if port == DEFAULT_PORT else port
    changed = bool(known.match(host, addr, lookup_port)[0])
    return HostKeyError(
        name=name,
        host=host,
        port=port,
        key_type=key_type,
        fingerprint=fingerprint,
        openssh_line=line,
        known_hosts=known_path,
        changed=changed,
    )


async def pinned_key_mismatch(
    name: str, known: asyncssh.SSHKnownHosts, known_path: str, hostname: str, port: int
) -> HostKeyError | None:
    """After a refused handshake: is it because known_hosts pins key types the server
    no longer has? (asyncssh only accepts the pinned types, as OpenSSH does.)"""
    pinned = known.match(hostname, "", None if port == DEFAULT_PORT else port)[0]
    if not pinned:
        return None
    try:
        key_type, fingerprint, line = await fetch_host_key_async(hostname, port)
    except TransportError:
        return None
    if line in {describe_key(k)[2] for k in pinned}:
        return None
    return HostKeyError(
        name=name,
        host=hostname,
        port=port,
        key_type=key_type,
        fingerprint=fingerprint,
        openssh_line=line,
        known_hosts=known_path,
        changed=True,
    )
