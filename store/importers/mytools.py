"""Import result trees written by the post author's scripts (mdcallag/mytools).

A tree holds ``x.<build>.<config>.pk<N>/`` folders; each has ``sb.o.<test>.range<R>.pk<N>.dop<D>``
(sysbench output, command line first) with ``sb.vm.*`` (vmstat) and ``sb.io.*`` (iostat) beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from engine.builds import BuildNameError, parse_build_name
from engine.catalogue import parse_mytools_suffix
from store.db import Store
from store.importers.sysbench_files import ImportError_, RunFiles, import_run_files
from store.limits import path_problem

_RUN_DIR = re.compile(r"^x\.(?P<build>[^.]+)\.(?P<config>[^/]+?)\.pk(?P<pk>\d+)$")
_ROCKS_DIR = re.compile(r"^x\.(?P<build>\d+\.\d+\.\d+)\.(?P<config>[^/]+?)\.pk(?P<pk>\d+)$")


@dataclass
class MytoolsImport:
    """What an import of a tree did: new runs, runs already present, files it could not use."""

    run_ids: list[int] = field(default_factory=list)
    already: int = 0
    failed: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    skipped_lines: int = 0
    files_with_skipped: int = 0


def split_run_dir(name: str) -> tuple[str, str] | None:
    """``x.my8028_rel_o2nofp.z11a_c32r128.pk1`` -> ``("my8028_rel_o2nofp", "z11a_c32r128")``."""
    m = _ROCKS_DIR.match(name) or _RUN_DIR.match(name)
    return (m.group("build"), m.group("config")) if m else None


def find_run_dirs(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("x.*") if p.is_dir() and split_run_dir(p.name))


def import_mytools_tree(
    store: Store,
    root: Path,
    host: str,
    device: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> MytoolsImport:
    """Import every run of every ``x.*`` folder under ``root``; one transaction per run."""
    if not root.is_dir():
        raise ImportError_(f"{root}: not a directory")
    dirs = find_run_dirs(root)
    if not dirs:
        raise ImportError_(f"{root}: no x.<build>.<config>.pk<N> result folders found")
    result = MytoolsImport()
    known = _imported_paths(store, host)
    for d in dirs:
        if why := path_problem(d.absolute()):
            result.failed.append(why)
            continue
        parts = split_run_dir(d.name)
        assert parts is not None
        build_name, config = parts
        try:
            build = parse_build_name(build_name)
        except BuildNameError as exc:
            result.failed.append(f"{d}: {exc}")
            continue
        for out in sorted(d.glob("sb.o.*")):
            suffix = parse_mytools_suffix(out.name.removeprefix("sb.o."))
            if suffix is None or suffix.dop is None:
                continue  # sb.o.myvac*, prepare steps and other helper outputs
            if why := path_problem(out.absolute()):
                result.failed.append(why)
                continue
            if str(out.resolve()) in known:
                result.already += 1
                continue
            vm = d / f"sb.vm.{out.name.removeprefix('sb.o.')}"
            io = d / f"sb.io.{out.name.removeprefix('sb.o.')}"
            use_io = io.is_file() and device is not None
            files = RunFiles(
                host=host,
                build=build,
                workload=suffix.workload,
                sysbench=out,
                config=config,
                vmstat=vm if vm.is_file() else None,
                iostat=io if use_io else None,
                device=device if use_io else None,
                threads=suffix.dop,
                source="mytools",
            )
            try:
                imported = import_run_files(store, files)
            except ImportError_ as exc:
                result.failed.append(str(exc))
                continue
            result.run_ids.append(imported.run_id)
            if imported.skipped:
                result.skipped_lines += imported.skipped
                result.files_with_skipped += 1
            if progress:
                progress(f"{build_name} {suffix.workload} dop{suffix.dop}: qps {imported.qps:.2f}")
    if result.skipped_lines:
        result.warnings.append(
            f"{result.skipped_lines} unparsed line(s) in {result.files_with_skipped} file(s) "
            "kept in the store (skipped_lines)"
        )
    if device is None and any(next(d.glob("sb.io.*"), None) for d in dirs):
        result.warnings.append("iostat files found but not used: give --device to get r/o, rKB/o, wKB/o")
    return result


def _imported_paths(store: Store, host: str) -> set[str]:
    rows = (
        store.cursor()
        .execute(
            "SELECT r.source_path FROM runs r JOIN hosts h ON h.host_id = r.host_id "
            "WHERE h.name = ? AND r.source_path IS NOT NULL",
            [host],
        )
        .fetchall()
    )
    return {r[0] for r in rows}
