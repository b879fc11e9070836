"""A packed folder's members read by store/importers/tar_members: the same names, dates, kinds and
bytes as tarfile reads, in every tar format tarfile writes (the usual headers read by its own
reader, the rest by tarfile), and the same errors."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from isal import igzip

from benchdeck.store.importers import tar_members

LONG = "x.pg1023_o2nofp.x10a_wm16_c32r128.pk1/" + "sb.o." + "point-query.range100." * 5 + "dop1"


def _add(tar: tarfile.TarFile, name: str, data: bytes = b"", **kw: object) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = len(data), 1_700_000_000
    for k, v in kw.items():
        setattr(info, k, v)
    tar.addfile(info, io.BytesIO(data) if data else None)


def _tarball(path: Path, fmt: int, long: bool) -> Path:
    with tarfile.open(path, "w:gz", format=fmt) as tar:
        _add(tar, "x.a.b.pk1", type=tarfile.DIRTYPE)
        _add(tar, "x.a.b.pk1/sb.o.scan.pk1.dop1", b"line\n" * 300)  # over a block: partial reads
        _add(tar, "x.a.b.pk1/sb.vm.scan.pk1.dop1", b"")
        _add(tar, "x.a.b.pk1/sb.io.scan.pk1.dop1", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        _add(
            tar,
            "x.a.b.pk1/sb.met.scan.pk1.dop1",
            type=tarfile.LNKTYPE,
            linkname="x.a.b.pk1/sb.o.scan.pk1.dop1",
        )
        _add(tar, "x.a.b.pk1/sb.ps.scan.pk1.dop1", b"ps\n" * 2000)
        if long:
            _add(tar, LONG, b"long\n")
    return path


def _read(tarball: Path, n: int) -> list[tuple[str, float, str, bytes]]:
    got: list[tuple[str, float, str, bytes]] = []

    def use(members: Iterator[tar_members.Member]) -> None:
        got.clear()
        got.extend((name, mtime, what, b"" if what else read(n)) for name, mtime, what, read in members)

    tar_members.members(tarball, use)
    return got


def _tarfile(tarball: Path, n: int) -> list[tuple[str, float, str, bytes]]:
    def data(tar: tarfile.TarFile, m: tarfile.TarInfo) -> bytes:
        fh = tar.extractfile(m) if m.isfile() else None
        return fh.read(n) if fh else b""

    with tarfile.open(tarball, "r:gz") as tar:
        return [
            (m.name, float(m.mtime), "" if m.isfile() else tar_members._what(m), data(tar, m)) for m in tar
        ]


@pytest.mark.parametrize(
    ("fmt", "long"),
    [
        (tarfile.USTAR_FORMAT, False),  # (a long ustar name: the prefix case below)
        (tarfile.GNU_FORMAT, False),
        (tarfile.GNU_FORMAT, True),  # a ././@LongLink header
        (tarfile.PAX_FORMAT, False),
        (tarfile.PAX_FORMAT, True),  # a pax header
    ],
)
@pytest.mark.parametrize("n", [-1, 10, 4096])
def test_the_members_are_tarfiles_in_every_format(tmp_path: Path, fmt: int, long: bool, n: int) -> None:
    tarball = _tarball(tmp_path / "t.tar.gz", fmt, long)
    got = _read(tarball, n)
    assert got == _tarfile(tarball, n)
    assert (
        "x.a.b.pk1/sb.io.scan.pk1.dop1",
        1.7e9,
        "a symbolic link to /etc/passwd in the tarball, not followed",
        b"",
    ) in got
    assert len(got) == 6 + long
    with igzip.open(tarball, "rb") as gz:  # which reader read it: its own unless a long name
        if long:
            with pytest.raises(tar_members._Unusual):
                list(tar_members._plain(gz))
        else:
            assert len(list(tar_members._plain(gz))) == 6


def test_a_ustar_prefix_name_is_read_by_tarfile(tmp_path: Path) -> None:
    with tarfile.open(tarball := tmp_path / "t.tar.gz", "w:gz", format=tarfile.USTAR_FORMAT) as tar:
        _add(tar, "x" * 120 + "/x.a.b.pk1/sb.o.scan.pk1.dop1", b"data")  # name split at a slash
    assert _read(tarball, -1) == _tarfile(tarball, -1)
    assert _read(tarball, -1)[0][0].startswith("x" * 120 + "/")


def test_a_tar_cut_short_inside_a_whole_gzip_fails_as_tarfile_says(tmp_path: Path) -> None:
    whole = _tarball(tmp_path / "whole.tar.gz", tarfile.GNU_FORMAT, False)
    inner = gzip.decompress(whole.read_bytes())
    (cut := tmp_path / "cut.tar.gz").write_bytes(gzip.compress(inner[: 512 * 3]))  # inside sb.o's bytes
    with pytest.raises(tarfile.ReadError, match="unexpected end of data"):
        _read(cut, -1)
    with pytest.raises(tarfile.ReadError, match="unexpected end of data"):
        _tarfile(cut, -1)
