"""What a mytools folder says of when each of its runs ran, beside the runs' own files.

The run's own clock: the author's run script starts ``sb.ps.<step>`` (a ``ps`` of the server
every 10 s) with a ``date`` line as it starts sysbench (on the packed mar25.pg.workmem.c48 tree,
in the 585 runs of its 15 folders whose mtimes are evidence, that date fell 4.3-6.0 s before
the sb.o's mtime less its time elapsed: the 5 s of --warmup-time, and ~1 s). Then whether the
run outputs' mtimes are evidence (``Folder.mtimes_are_evidence``), then the suite's order
around the folder's vacuum log (``suite_order``): a guess, right for today's script only
(mar25's ran scan after the range steps: a median 224 s off its sb.ps, up to 2.4 h).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from benchdeck.engine.mytools_names import parse_mytools_suffix
from benchdeck.store.importers import suite_order
from benchdeck.store.importers.dating import first_stamp
from benchdeck.store.importers.mytools_tree import Folder, folder_vacuum, read_folder, split_run_dir
from benchdeck.store.importers.read_run import RunFiles

CLOCK = "sb.ps"  # runs.dated_from of a run dated by its sb.ps


@dataclass(frozen=True, slots=True)
class RunDates:
    """One run's dates from its folder: its sb.ps clock, its start by the suite's order, and
    whether its output's mtime is evidence."""

    clock: datetime | None
    suite: datetime | None
    mtime_evidence: bool

    def on(self, files: RunFiles) -> RunFiles:
        return replace(
            files,
            clock=self.clock,
            clock_source=CLOCK if self.clock else "",
            dated=self.suite,
            dated_source=suite_order.SOURCE if self.suite else "",
            mtime_evidence=self.mtime_evidence,
        )


def folder_dates(f: Folder) -> list[RunDates]:
    """Each run's dates, in ``f.runs`` order."""
    seconds = [suite_order.run_seconds(f.head(out.name).split("\n", 1)[0]) for out, _ in f.runs]
    evidence = f.mtimes_are_evidence(list(seconds))
    vacuum = folder_vacuum(f)
    names = [out.name for out, _ in f.runs]
    suite = suite_order.schedule(names, seconds, vacuum) if vacuum else [None] * len(names)
    return [RunDates(_clock(f, n), s, evidence) for n, s in zip(names, suite, strict=True)]


def _clock(f: Folder, out_name: str) -> datetime | None:
    ps = "sb.ps." + out_name.removeprefix("sb.o.")
    return first_stamp(f.head(ps)) if ps in f.names else None


def file_dates(out: Path) -> RunDates | None:
    """A run file's dates as ``import mytools`` finds them, for ``import sysbench`` of one file
    of a mytools folder; None for any other file."""
    s = parse_mytools_suffix(out.name.removeprefix("sb.o.")) if out.name.startswith("sb.o.") else None
    if not split_run_dir(out.parent.name) or s is None or s.dop is None:
        return None
    try:
        f = read_folder(out.parent)
    except OSError:
        return None
    return next((d for (p, _), d in zip(f.runs, folder_dates(f), strict=True) if p.name == out.name), None)
