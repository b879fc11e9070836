"""Import CPU profiles from files: one file attached to a run, or the flame graphs of a mytools
result tree attached to the runs they belong to.

A mytools tree keeps the author's flamegraph.pl SVGs beside (or apart from) the run folders:
``x.<build>.<config>.pk1/sb.perf.g.cycles.<test>.range100.pk1.all.svg`` (sysbench; often under
an ``all.svg/`` folder of its own). Where a ``*.folded`` file or ``perf script`` output
(``*.perf.txt``) with the same stem is there too, it is read instead of the SVG (exact stacks).
The file names carry no dop, so a profile goes to the newest run of that host, build, config
and workload; a run that already has a profile is left alone (a re-import adds nothing).
The author records ``perf record -e cycles``: an SVG's "samples" are cycles (perf's periods), so
these profiles are in cycles per query (see engine/profiling/cpu.unit_of). The files do not say
how long perf recorded: the profile is taken to cover the run (its elapsed seconds x its QPS
queries). Where the author recorded a fixed part of each step, both sides of a comparison are
off by the same factor: their ratio and the order of the functions hold, not the absolute
cycles per query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from benchdeck.engine.mytools_names import parse_mytools_suffix
from benchdeck.engine.profiling.folded import (
    StackFormatError,
    parse_flamegraph_svg,
    parse_folded,
    parse_perf_script,
)
from benchdeck.engine.profiling.records import ProfileWindow
from benchdeck.store.importers.mytools_tree import split_run_dir
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.profiles import save_profile_windows

_SB_PERF = re.compile(r"^sb\.perf\.g\.(?P<event>[\w-]+)\.(?P<suffix>.+)\.all\.(?P<ext>svg|folded|perf\.txt)$")


class ProfileImportError(Exception):
    """A profile that cannot be attached (a one-line reason)."""


@dataclass
class TreeProfiles:
    """What :func:`import_tree_profiles` did."""

    imported: int = 0
    already: int = 0
    no_run: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def read_stacks(path: Path, kind: str = "auto") -> tuple[tuple[str, int], ...]:
    """The folded stacks in ``path`` (``kind``: folded, perf-script, svg or auto)."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ProfileImportError(exc.strerror or str(exc)) from None
    if kind == "auto":
        head = text.lstrip()[:200]
        kind = (
            "svg"
            if head.startswith("<")
            else "folded"
            if re.match(r"^[^\n]* \d+\s*$", head.split("\n", 1)[0])
            else "perf-script"
        )
    reader = {"folded": parse_folded, "perf-script": parse_perf_script, "svg": parse_flamegraph_svg}[kind]
    stacks = reader(text)
    if not stacks:
        raise ProfileImportError("no stacks in the file")
    return stacks


def _run_seconds(store: Store, run_id: int) -> float:
    row = (
        store.cursor()
        .execute(
            "SELECT s.elapsed_s FROM runs r LEFT JOIN run_summary s USING (run_id) WHERE r.run_id = ?",
            [run_id],
        )
        .fetchone()
    )
    if row is None:
        raise ProfileImportError(f"no run {run_id}")
    if row[0] is None or row[0] <= 0:
        raise ProfileImportError(f"run {run_id} has no elapsed time: give --seconds")
    return float(row[0])


def import_profile_file(
    store: Store,
    run_id: int,
    path: Path,
    kind: str = "auto",
    event: str = "cpu-clock",
    frequency_hz: float | None = None,
    seconds: float | None = None,
) -> int:
    """Attach the profile in ``path`` to run ``run_id`` as its window 0; returns its stacks."""
    stacks = read_stacks(path, kind)
    secs = seconds if seconds is not None else _run_seconds(store, run_id)
    window = ProfileWindow(0, secs, event, frequency_hz, stacks, start_s=None, target=path.name)
    source = "svg" if path.suffix == ".svg" else "file"
    with store.transaction() as cur:
        return save_profile_windows(cur, run_id, [window], source)


def _profile_files(root: Path) -> dict[tuple[str, str, str], tuple[Path, str]]:
    """(build, config, workload) -> the best file of it (folded, then perf script, then SVG)."""
    rank = {"folded": 0, "perf.txt": 1, "svg": 2}
    found: dict[tuple[str, str, str], tuple[Path, str, int]] = {}
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
        if key not in found or r < found[key][2]:
            found[key] = (p, m["event"], r)
    return {k: (p, ev) for k, (p, ev, _) in found.items()}


def import_tree_profiles(store: Store, root: Path, host: str) -> TreeProfiles:
    """Attach every flame graph (or folded/perf script file) of a mytools tree to its run."""
    result = TreeProfiles()
    cur = store.cursor()
    for (build, config, workload), (path, event) in sorted(_profile_files(root).items()):
        row = cur.execute(
            "SELECT r.run_id, s.elapsed_s, "
            "EXISTS (SELECT 1 FROM profile_windows p WHERE p.run_id = r.run_id) "
            "FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
            "JOIN workloads w USING (workload_id) LEFT JOIN run_summary s USING (run_id) "
            "WHERE h.name = ? AND b.name = ? AND r.config = ? AND w.name = ? "
            "ORDER BY r.started_at DESC NULLS LAST, r.run_id DESC LIMIT 1",
            [host, build, config, workload],
        ).fetchone()
        if row is None:
            result.no_run.append(str(path))
            continue
        if row[2]:
            result.already += 1
            continue
        if not row[1]:
            result.failed.append(f"{path}: run {row[0]} has no elapsed time to count its queries by")
            continue
        try:
            stacks = read_stacks(path, "auto")
        except (ProfileImportError, StackFormatError) as exc:
            result.failed.append(f"{path}: {exc}")
            continue
        window = ProfileWindow(0, float(row[1]), event, None, stacks, target=path.name)
        with store.transaction() as tx:
            save_profile_windows(tx, int(row[0]), [window], "svg" if path.suffix == ".svg" else "file")
        result.imported += 1
    return result
