"""Import CPU profiles from files: one file attached to a run, or the flame graphs of a mytools
result tree attached to the runs they belong to.

A mytools tree keeps the author's flamegraph.pl SVGs beside (or apart from) the run folders:
``x.<build>.<config>.pk1/sb.perf.g.cycles.<test>.range100.pk1.all.svg`` (sysbench; often under
an ``all.svg/`` folder of its own; also ``.svg.gz``). Where a ``*.folded`` file or ``perf
script`` output (``*.perf.txt``) with the same stem is there too, it is read instead of the SVG
(exact stacks). The file names carry no dop, so a profile goes to the newest run of that host,
build, config and workload; a run that already has a profile is left alone (a re-import adds
nothing). The author records ``perf record -e cycles``: an SVG's "samples" are cycles (perf's
periods), so these profiles are in cycles per query (see engine/profiling/cpu.unit_of).

How long perf recorded comes from the author's run script (bench/sysbench.lua/run.sh): every
loop of its perf loop records ``perf record ... -- sleep 10`` (``perf_get_secs=10``) into
``sb.perf.g.<event>.<test>.<n>.svg``, and ``.all.svg`` is loops 1 to the last (``sb.perf.last.<test>``
holds its number; loop 0 is not drawn). So ``.all`` covers 10 s x the numbered files beside it,
else 10 s x ``sb.perf.last``; a numbered file, 10 s. Where neither says, the window's length is
unknown and the profile gives ratios only (engine/profiling/cpu.py), never a figure per query
from the run's whole length.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from benchdeck.engine.mytools_names import parse_mytools_suffix
from benchdeck.engine.profiling.folded import StackFormatError
from benchdeck.engine.profiling.profile_file import ReadProfile, read_profile
from benchdeck.engine.profiling.records import ProfileWindow
from benchdeck.store.importers.mytools_tree import split_run_dir
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.profiles import captured_windows, save_imported_profile

_SB_PERF = re.compile(
    r"^sb\.perf\.g\.(?P<event>[\w-]+)\.(?P<suffix>.+)\.all\.(?P<ext>svg|folded|perf\.txt)(?:\.gz)?$"
)
PERF_LOOP_SECONDS = 10.0  # run.sh's perf_get_secs: each loop's perf record -- sleep 10


class ProfileImportError(Exception):
    """A profile that cannot be attached (a one-line reason)."""


@dataclass
class TreeProfiles:
    """What :func:`import_tree_profiles` did."""

    imported: int = 0
    unknown_window: int = 0  # of the imported: how long perf recorded is unknown (ratios only)
    already: int = 0
    no_run: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ImportedProfile:
    """What :func:`import_profile_file` stored: its stacks, what the file held, its sampling
    and its window."""

    stacks: int
    kind: str
    event: str
    frequency_hz: float | None
    seconds: float  # 0: how long perf recorded is unknown (ratios only)
    beside: int  # the run's captured windows it was stored beside (0: none)


def read_stacks(path: Path, kind: str = "auto") -> ReadProfile:
    """What ``path`` holds (folded, perf-script or svg) and its folded stacks (``kind``: auto
    or one of them); ProfileImportError / StackFormatError (one line) for anything else."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProfileImportError(exc.strerror or str(exc)) from None
    return read_profile(data, kind, shlex.quote(path.name))


def import_profile_file(
    store: Store,
    run_id: int,
    path: Path,
    kind: str = "auto",
    event: str = "cpu-clock",
    frequency_hz: float | None = None,
    seconds: float | None = None,
    beside: bool = False,
) -> ImportedProfile:
    """Attach the profile in ``path`` to run ``run_id`` as its own source. ``seconds``: how long
    perf recorded (None: unknown, ratios only). A run with captured windows keeps them; without
    ``beside`` the import is refused there. A perf script file's own event (and a clock's
    frequency from its periods) stands over ``event`` (and a missing ``frequency_hz``)."""
    read = read_stacks(path, kind)
    event = read.event or event
    frequency_hz = frequency_hz or read.frequency_hz
    cur = store.cursor()
    row = cur.execute("SELECT status FROM runs WHERE run_id = ?", [run_id]).fetchone()
    if row is None:
        raise ProfileImportError(f"no run {run_id}")
    if row[0] in ("running", "queued"):  # its capture may still store windows
        raise ProfileImportError(f"run {run_id} is {row[0]}: import its profile when it has ended")
    captured = captured_windows(cur, run_id)
    if captured and not beside:
        raise ProfileImportError(
            f"run {run_id} has a captured profile ({captured} windows): give --beside to keep this "
            "file beside it as a profile of its own (the captured windows stay)"
        )
    if seconds is not None and seconds <= 0:
        raise ProfileImportError(f"--seconds must be above 0, not {seconds:g}")
    window = ProfileWindow(
        0, seconds or 0.0, event, frequency_hz, read.stacks, start_s=None, target=path.name
    )
    with store.transaction() as tx:
        n = save_imported_profile(tx, run_id, window, read.kind)
    return ImportedProfile(n, read.kind, event, frequency_hz, seconds or 0.0, captured)


def recorded_seconds(root: Path, path: Path, event: str, suffix: str) -> float:
    """How long perf recorded the ``.all`` profile ``path`` of the tree ``root`` (run.sh's
    loops: the numbered files beside it, else ``sb.perf.last`` in its folder or the run
    folder of its name; 0: unknown)."""
    stem = f"sb.perf.g.{event}.{suffix}."
    try:
        names = os.listdir(path.parent)
    except OSError:
        names = []
    loops = {n[len(stem) :].split(".", 1)[0] for n in names if n.startswith(stem)}
    loops = {n for n in loops if n.isdigit()}
    if loops:
        return PERF_LOOP_SECONDS * len(loops)
    for folder in (path.parent, root / path.parent.name):
        last = folder / f"sb.perf.last.{suffix}"
        try:
            text = last.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        if text.isdigit() and int(text) > 0:
            return PERF_LOOP_SECONDS * int(text)
    return 0.0


def _profile_files(root: Path) -> dict[tuple[str, str, str], tuple[Path, str, str]]:
    """(build, config, workload) -> the best file of it (folded, then perf script, then SVG),
    its event and its file name suffix (``<test>.range100.pk1``)."""
    rank = {"folded": 0, "perf.txt": 1, "svg": 2}
    found: dict[tuple[str, str, str], tuple[Path, str, str, int]] = {}
    for p in sorted(root.rglob("sb.perf.g.*")):
        m = _SB_PERF.match(p.name)
        parts = split_run_dir(p.parent.name)
        if m is None or parts is None:
            continue
        suffix = parse_mytools_suffix(m["suffix"])
        if suffix is None:
            continue
        key = (parts[0], parts[1], suffix.workload)
        r = rank[m["ext"]]
        if key not in found or r < found[key][3]:
            found[key] = (p, m["event"], m["suffix"], r)
    return {k: (p, ev, sfx) for k, (p, ev, sfx, _) in found.items()}


def import_tree_profiles(store: Store, root: Path, host: str) -> TreeProfiles:
    """Attach every flame graph (or folded/perf script file) of a mytools tree to its run."""
    result = TreeProfiles()
    cur = store.cursor()
    for (build, config, workload), (path, event, suffix) in sorted(_profile_files(root).items()):
        row = cur.execute(
            "SELECT r.run_id, EXISTS (SELECT 1 FROM profile_windows p WHERE p.run_id = r.run_id) "
            "FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
            "JOIN workloads w USING (workload_id) "
            "WHERE h.name = ? AND b.name = ? AND r.config = ? AND w.name = ? "
            "ORDER BY r.started_at DESC NULLS LAST, r.run_id DESC LIMIT 1",
            [host, build, config, workload],
        ).fetchone()
        if row is None:
            result.no_run.append(str(path))
            continue
        if row[1]:
            result.already += 1
            continue
        try:
            read = read_stacks(path, "auto")
        except (ProfileImportError, StackFormatError) as exc:
            result.failed.append(f"{path}: {exc}")
            continue
        seconds = recorded_seconds(root, path, event, suffix)
        window = ProfileWindow(
            0, seconds, read.event or event, read.frequency_hz, read.stacks, target=path.name
        )
        with store.transaction() as tx:
            save_imported_profile(tx, int(row[0]), window, read.kind)
        result.imported += 1
        if not seconds:
            result.unknown_window += 1
    return result
