"""The folders of a mytools result tree: finding ``x.<build>.<config>.pk<N>`` folders (and
packed ``.tar.gz`` ones), listing a folder's run outputs in suite order, and the facts its
helper files hold (the table size, the vacuum's dates, profile-only folders)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise
from pathlib import Path

from benchdeck.engine.mytools_names import ResultSuffix, parse_mytools_suffix
from benchdeck.engine.parsers import parse_command
from benchdeck.engine.parsers.iostat import other_devices
from benchdeck.store.importers import suite_order, tar_members
from benchdeck.store.importers.dating import parse_stamp
from benchdeck.store.importers.read_run import Members
from benchdeck.store.importers.suite_order import Vacuum
from benchdeck.store.storage.raw import compress

_RUN_DIR = re.compile(r"^x\.(?P<build>[^.]+)\.(?P<config>[^/]+?)\.pk(?P<pk>\d+)$")
_PACKED = re.compile(r"^(x\..+\.pk\d+)\.(?:tar\.gz|tgz)$")
_ROCKS_DIR = re.compile(r"^x\.(?P<build>\d+\.\d+\.\d+)\.(?P<config>[^/]+?)\.pk(?P<pk>\d+)$")
_INSERTING = re.compile(r"(?a)Inserting (\d+) records into")
_HEAD = 4096  # bytes of a helper file read for its command line or date


@dataclass(frozen=True, slots=True)
class Folder:
    path: Path
    build_name: str
    config: str
    runs: tuple[tuple[Path, ResultSuffix], ...]
    met_only: int  # sb.met files without their sb.o
    svgs: int = 0  # flame graphs and sb.pmp stacks: the profile import's, not this one's
    stacks: int = 0
    label: str = ""  # where the folder is, as the user gave it (a packed one: its tarball)
    has_io: bool = False
    names: frozenset[str] = frozenset()  # the files in it (no stat per sb.vm/sb.io/sb.met asked)
    members: Members | None = None  # a packed folder's files, in memory

    def has(self, name: str) -> bool:
        """Whether the folder lists ``name`` (a link loop too: reading it says what is wrong)."""
        if self.members is not None:
            return self.members.has(name)
        return name in self.names

    def mtimes_are_evidence(self, seconds: list[float | None]) -> bool:
        """Whether the run outputs' mtimes can say when they ran: distinct, and no two closer
        than half the later run's length (``seconds``, in ``runs`` order), as on a disk where
        the runs were written one after the other. A copy or checkout gives them one mtime
        (or a few: 39 runs on 2 mtimes in one folder of the packed mar25 tree; 15 of its 18
        folders pass). Not their order: that is what is in doubt (mar25 ran some
        steps in another order than ``suite_order``)."""
        if self.members is not None:
            ts = [self.members.mtimes.get(out.name, 0.0) for out, _ in self.runs]
        else:
            try:
                ts = [out.stat().st_mtime for out, _ in self.runs]
            except OSError:
                return False
        ends = sorted(zip(ts, seconds, strict=True), key=lambda r: r[0])
        return all(b - a > 0.5 * (s or 0.0) and b > a for (a, _), (b, s) in pairwise(ends))

    def head(self, name: str, tail: bool = False) -> str:
        """A helper file's first 4 KB (``tail``: and its last 4 KB), as text."""
        if self.members is None:
            return _head_and_tail(self.path / name) if tail else head(self.path / name)
        data = self.members.data.get(name, b"")
        data = data[:_HEAD] + b"\n" + data[max(_HEAD, len(data) - _HEAD) :] if tail else data[:_HEAD]
        return data.decode("utf-8", errors="replace")


def split_run_dir(name: str) -> tuple[str, str] | None:
    """``x.my8028_rel_o2nofp.z11a_c32r128.pk1`` -> ``("my8028_rel_o2nofp", "z11a_c32r128")``."""
    m = _ROCKS_DIR.match(name) or _RUN_DIR.match(name)
    return (m.group("build"), m.group("config")) if m else None


def _walk(root: Path) -> Iterator[os.DirEntry[str]]:
    """Every entry under ``root``, by name; symbolic links to folders are not followed (a link
    loop, or a link to ``/``, is not walked into). os.scandir: no stat per entry, no Path
    objects for the thousands of files a folder holds."""
    stack = [str(root)]
    while stack:
        d = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # unreadable: its folders are not found, the rest is
        for e in entries:
            yield e
            if _is_dir(e, follow=False):
                stack.append(e.path)


def _is_dir(e: os.DirEntry[str], follow: bool = True) -> bool:
    try:
        return e.is_dir(follow_symlinks=follow)
    except OSError:  # a link loop
        return False


def find_run_dirs(root: Path) -> list[Path]:
    return sorted(Path(e.path) for e in _walk(root) if split_run_dir(e.name) and _is_dir(e))


def find_packed(root: Path) -> list[Path]:
    """``x.<build>.<config>.pk<N>.tar.gz`` files: result folders as the author packs them."""
    return sorted(
        Path(e.path) for e in _walk(root) if (m := _PACKED.match(e.name)) and split_run_dir(m.group(1))
    )


def read_folder(d: Path, label: str = "", members: Members | None = None) -> Folder:
    """The folder's runs in suite order; ``members``: a packed folder's files (``d`` names it)."""
    parts = split_run_dir(d.name)
    assert parts is not None
    runs: list[tuple[Path, ResultSuffix]] = []
    outs: set[str] = set()
    mets: list[str] = []
    svgs = stacks = 0
    has_io = False
    names = sorted(members.mtimes if members is not None else os.listdir(d))
    for name in names:
        svgs += name.endswith(".svg")
        stacks += name.startswith("sb.pmp.")
        has_io |= name.startswith("sb.io.")
        if name.startswith("sb.met."):
            mets.append(name.removeprefix("sb.met."))
        if not name.startswith("sb.o."):
            continue
        suffix = parse_mytools_suffix(name.removeprefix("sb.o."))
        if suffix is None or suffix.dop is None:
            continue  # sb.o.myvac*, prepare steps and other helper outputs
        runs.append((d / name, suffix))
        outs.add(name.removeprefix("sb.o."))
    met_only = sum(1 for m in mets if m not in outs and (s := parse_mytools_suffix(m)) and s.dop)
    runs.sort(key=lambda r: suite_order.order_key(r[0].name))  # as the suite ran them
    return Folder(
        d, parts[0], parts[1], tuple(runs), met_only, svgs, stacks, label or str(d), has_io, frozenset(names),
        members,
    )  # fmt: skip


def _kept(name: str, iostat: bool) -> int:
    """How much of a packed member an import reads (bytes; -1: all): run outputs, vmstat,
    sb.met, iostat when a device is given (else its head: the devices it lists), the heads of
    prepare outputs and of sb.ps (its first date); helper logs whole."""
    if name.startswith(("sb.o.", "sb.vm.", "sb.met.")) or (iostat and name.startswith("sb.io.")):
        return -1
    if name.startswith(("sb.ps.", "sb.io.")):
        return _HEAD
    return _HEAD if name.startswith("sb.prepare.") and not name.startswith("sb.prepare.met.") else 0


def read_packed(tarball: Path, iostat: bool) -> list[Folder]:
    """The ``x.*`` folders of a packed tarball, their files read into memory in one pass of the
    stream (no temporary folder; ISA-L's inflate, forward seeks only: ``tar_members``); only
    regular files are read, so no link or device in it reaches anything. Raises OSError /
    tarfile.TarError / EOFError / isal's IsalError."""
    data: dict[str, dict[str, bytes]] = {}
    zstd: dict[str, dict[str, bytes]] = {}  # iostat: 3/4 of the bytes, held compressed
    mtimes: dict[str, dict[str, float]] = {}
    not_files: dict[str, dict[str, str]] = {}  # a run's vmstat/iostat/sb.met that is a link ...

    def use(members: Iterator[tar_members.Member]) -> None:
        for d in (data, zstd, mtimes, not_files):
            d.clear()  # (called again from the start when tarfile reads the tarball instead)
        for path, mtime, what, read in members:
            folder, _, name = path.rpartition("/")
            if not split_run_dir(folder.rpartition("/")[2]):
                continue
            if what:
                if name.startswith(("sb.o.", "sb.vm.", "sb.io.", "sb.met.")):  # said, as a folder's would be
                    not_files.setdefault(folder, {})[name] = what
                    if name.startswith("sb.o."):  # a run's output: the run is listed, and refused
                        mtimes.setdefault(folder, {})[name] = mtime
                continue
            mtimes.setdefault(folder, {})[name] = mtime
            if n := _kept(name, iostat):
                got = read(n)
                if name.startswith("sb.io.") and n < 0:  # (else its head: the devices)
                    zstd.setdefault(folder, {})[name] = compress(got)
                else:
                    data.setdefault(folder, {})[name] = got

    tar_members.members(tarball, use)
    return [
        read_folder(
            tarball / d,
            f"{tarball}/{d}",
            Members(data.get(d, {}), mtimes[d], zstd.get(d, {}), not_files.get(d, {})),
        )
        for d in sorted(mtimes)
    ]


def head(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(_HEAD).decode("utf-8", errors="replace")
    except OSError:
        return ""


def folder_table_size(f: Folder) -> int | None:
    """Rows per table from the folder's prepare output (``sb.prepare.*``): its sysbench command
    line (``--table-size=N``), else sysbench's ``Inserting N records into`` line."""
    for name in sorted(f.names):
        if not name.startswith("sb.prepare.") or name.startswith("sb.prepare.met."):
            continue
        text = f.head(name)
        for line in text.splitlines():
            if (cmd := parse_command(line)) and (n := cmd[1].get("table-size", "")).isdigit():
                return int(n)
        if m := _INSERTING.search(text):
            return int(m.group(1))
    return None


def folder_devices(f: Folder) -> frozenset[str]:
    """The devices the folder's first iostat file reports (its first 4 KB: the first reports)."""
    first = next((n for n in sorted(f.names) if n.startswith("sb.io.")), None)
    return other_devices(f.head(first).splitlines(), "") if first else frozenset()


def folder_vacuum(f: Folder) -> Vacuum | None:
    """The folder's vacuum from its helper logs: the earliest date printed on an "... at <date>"
    line (``vac_my starts at Fri Nov 21 04:38:01 AM UTC 2025``) and the "done ... at <date>"
    one after it; other dates in them (server variables, monitor output) say nothing about
    when the runs ran."""
    starts: list[datetime] = []
    ends: list[datetime] = []
    for name in f.names:
        helper = name.startswith("sb.prepare.") and not name.startswith("sb.prepare.met.")
        helper |= name.startswith("sb.o.") and parse_mytools_suffix(name.removeprefix("sb.o.")) is None
        if not helper:
            continue
        text = f.head(name, tail=not name.startswith("sb.prepare."))
        dated = [(line, t) for line in text.splitlines() if " at " in line
                 and (t := parse_stamp(line.split(" at ", 1)[1]))]  # fmt: skip
        if dated:
            starts.append(dated[0][1])
            ends += [t for line, t in dated[1:] if " done " in line]
    if not starts:
        return None
    start = min(starts)
    return Vacuum(start, min((t for t in ends if t >= start), default=start))


def _head_and_tail(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD)
            size = fh.seek(0, 2)
            fh.seek(max(len(head), size - _HEAD))
            return (head + b"\n" + fh.read()).decode("utf-8", errors="replace")
    except OSError:
        return ""


def profile_only(folders: list[Folder]) -> list[str]:
    """One line for the folders holding flame graphs or sb.pmp stacks and no run output: what
    is there and what benchdeck does with it (the profile import's hook replaces this)."""
    bare = [f for f in folders if not f.runs and (f.svgs or f.stacks)]
    if not bare:
        return []
    svgs, stacks = sum(f.svgs for f in bare), sum(f.stacks for f in bare)
    what = " and ".join(x for x in (f"{svgs} flame graph SVG(s)" if svgs else "",
                                     f"{stacks} sb.pmp stack file(s)" if stacks else "") if x)  # fmt: skip
    return [
        f"{len(bare)} folder(s) hold {what} and no sysbench output (e.g. {bare[0].label}): no runs to "
        "import there; flame graphs and stacks belong to a run's CPU profile, imported with the run "
        "they were taken of"
    ]
