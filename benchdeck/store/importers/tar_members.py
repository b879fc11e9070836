"""The members of a packed folder's tarball, one pass over its inflated stream: the usual ustar
headers (a file, a folder, a link, one 512-byte block each) read here, ~2x faster than tarfile's
TarInfo per member; a tarball with anything else (long names, pax or sparse headers, base-256
numbers, a checksum that is not the usual sum, a short read) read again whole by tarfile."""

from __future__ import annotations

import struct
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, cast

from isal import igzip

# isal's igzip.open is untyped (its stubs cover the C modules only): typed here once.
_gzip_open = cast("Callable[[Path, str], BinaryIO]", igzip.open)

Read = Callable[[int], bytes]  # the member's first n bytes (-1: all of them)
Member = tuple[str, float, str, Read]  # name, mtime, what it is if not a regular file ("" if it is)

_SUM = struct.Struct("148B8x356B").unpack_from  # the header's bytes but its checksum field
_PLAIN = (b"0", b"\0", b"5", b"1", b"2")  # file, file (old), folder, hard link, symbolic link


class _Unusual(Exception):
    """A header this reader leaves to tarfile."""


def members(tarball: Path, use: Callable[[Iterator[Member]], None]) -> None:
    """Hand ``use`` the tarball's members in order, then read on to the gzip trailer (its CRC
    and length checked: a damaged copy raises). ``use`` is called again from the start, with
    tarfile's members, when the tarball holds a header this reader does not read: it must
    start afresh each time. Raises OSError / tarfile.TarError / EOFError / isal's IsalError."""
    try:
        with _gzip_open(tarball, "rb") as gz:
            use(_plain(gz))
            gz.read()
        return
    except _Unusual:
        pass
    with _gzip_open(tarball, "rb") as gz, tarfile.open(fileobj=gz, mode="r:") as tar:
        use(
            (m.name.rstrip("/"), float(m.mtime), "" if m.isfile() else _what(m), _extract(tar, m))
            for m in tar
        )
        gz.read()


def _plain(gz: BinaryIO) -> Iterator[Member]:
    read, seek = gz.read, gz.seek
    while len(h := read(512)) == 512 and h.count(0) != 512:  # (a block of zeros: the end)
        kind = h[156:157]
        if kind not in _PLAIN or h[345] or _number(h[148:156]) != 256 + sum(_SUM(h)):
            raise _Unusual
        name = h[:100].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        regular = kind in (b"0", b"\0")
        if regular and name.endswith("/"):
            raise _Unusual  # an old-style folder, or a file named so
        size = _number(h[124:136]) if regular else 0
        left = [size]

        def take(n: int, left: list[int] = left) -> bytes:
            got = read(left[0] if n < 0 else min(n, left[0]))
            if len(got) < (left[0] if n < 0 else min(n, left[0])):
                raise _Unusual  # cut short: tarfile says so its way
            left[0] -= len(got)
            return got

        yield name.rstrip("/"), float(_number(h[136:148])), _kind(kind, h), take
        if rest := left[0] + (-size % 512):
            seek(rest, 1)
    if len(h) != 512:
        raise _Unusual  # no end block: tarfile's way of ending


def _number(field: bytes) -> int:
    """An octal header number, as tarfile reads one (up to a NUL, spaces around)."""
    try:
        return int(field.split(b"\0", 1)[0].strip() or b"0", 8)
    except ValueError:
        raise _Unusual from None  # base-256 or damaged


def _kind(kind: bytes, h: bytes) -> str:
    if kind in (b"0", b"\0"):
        return ""
    if kind in (b"1", b"2"):
        link = h[157:257].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        how = "a hard" if kind == b"1" else "a symbolic"
        return f"{how} link to {link} in the tarball, not followed"
    return "not a regular file in the tarball"


def _extract(tar: tarfile.TarFile, m: tarfile.TarInfo) -> Read:
    def read(n: int) -> bytes:
        fh = tar.extractfile(m)
        return fh.read(n) if fh else b""

    return read


def _what(m: tarfile.TarInfo) -> str:
    if m.issym():
        return f"a symbolic link to {m.linkname} in the tarball, not followed"
    if m.islnk():
        return f"a hard link to {m.linkname} in the tarball, not followed"
    return "not a regular file in the tarball"
