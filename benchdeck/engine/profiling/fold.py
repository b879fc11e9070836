"""Fold ``perf script`` output into stacks by FlameGraph's stackcollapse-perf.pl rules.

Standard library only: benchdeck ships this file to the run directory and runs it on the host
(:mod:`.host_perf`), where the binaries and their symbols are. A sample is a header line
(``comm pid [cpu] time: period event:``) followed by its frames, leaf first, one per line
(``<addr> <symbol>+0x<off> (<dso>)``), and an empty line. A stack is the command name (spaces
as ``_``) and the frames root first, ``;``-joined. As stackcollapse-perf.pl (its defaults) does:

- only the samples of the first event the file names are kept (a file of cycles and
  instructions samples folds its cycles);
- a frame's offset is dropped, and so is everything from its name's first ``(`` that does not
  open ``(anonymous namespace)`` (C++ argument lists, ``operator()``'s parentheses, template
  arguments such as ``(__gnu_cxx::_Lock_policy)2>``), unless the name looks like a Go method
  (``net/http.(*Client).Do``); then ``"`` and ``'`` are removed and ``;`` becomes ``:``;
- a frame whose name starts with ``(`` is left out (``(anonymous namespace)::f`` too: the
  script takes such names for process names); ``a->b`` (perf's inlined frames) is ``a;b_[i]``;
- a frame perf could not name is its binary (``[libc.so.6]``), else ``[unknown]``;
- a sample is counted when its empty line closes it (the last one, too, only then).

One difference, on purpose: :attr:`Folder.stacks` counts each sample 1 where stackcollapse-perf.pl
adds perf's period (the ``250000`` before the event name), so the capture's counts are samples,
turned into CPU time by the sampling frequency (engine/profiling/cpu.py); ``Folder(periods=True)``
also keeps the script's own counts (an imported ``cycles`` profile is in cycles, as its SVG).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

# stackcollapse-perf.pl's own patterns
_HEADER = re.compile(r"^(\S.+?)\s+(\d+)/*(\d+)*\s+")
_EVENT = re.compile(r":\s*(\d+)*\s+(\S+):\s*$")
_FRAME = re.compile(r"^\s*(\w+)\s*(.+) \((.*)\)")
_OFFSET = re.compile(r"\+0x[\da-f]+$")
_GO_METHOD = re.compile(r"\.\(.*\)\.")
_ARGS = re.compile(r"\((?!anonymous namespace\)).*")


def tidy(func: str, comm: str) -> str:
    """One function name as stackcollapse-perf.pl tidies it (``--tidy_generic``, Java's ``L``)."""
    func = func.replace(";", ":")
    if not _GO_METHOD.search(func):
        func = _ARGS.sub("", func, count=1)
    func = func.replace('"', "").replace("'", "")
    if comm.startswith("java") and "/" in func:
        func = func.removeprefix("L")
    return func


def frame_names(line: str, comm: str) -> list[str] | None:
    """The functions of one frame line, root-most last (perf's ``a->b`` inlined chain is
    ``[a, b]``); ``[]`` for a frame left out; None when the line is not a frame."""
    m = _FRAME.match(line)
    if m is None:
        return None
    raw, dso = _OFFSET.sub("", m.group(2)), m.group(3)
    if raw.startswith("("):
        return []
    parts = raw.split("->")
    while parts and not parts[-1]:
        parts.pop()  # as Perl's split drops trailing empty fields
    names: list[str] = []
    for func in parts:
        if func == "[unknown]":
            func = "[" + (dso.rsplit("/", 1)[-1] if dso != "[unknown]" else "unknown") + "]"
        func = tidy(func, comm)
        if names and "_[i]" not in func:
            func += "_[i]"  # stackcollapse-perf.pl marks the inlined ones after the first
        names.append(func)
    return names


class Folder:
    """Folds lines fed one at a time; counts what it could not read (for an importer that must
    tell ``perf script`` output from other text). ``periods`` also keeps each stack's sum of
    perf's periods (stackcollapse-perf.pl's own counts; 1 for a sample that prints none)."""

    def __init__(self, periods: bool = False) -> None:
        self.stacks: Counter[str] = Counter()
        self.periods: Counter[str] | None = Counter() if periods else None
        self.event: str | None = None  # the first event named: the one folded
        self.headers = 0  # sample headers read (of any event)
        self.frames = 0  # frame lines read
        self.unmatched = 0  # lines that are neither, or a frame outside a sample
        self._period = 1
        self._comm: str | None = None  # the open sample's command (None: none, or filtered out)
        self._open = False  # a header opened a sample (kept or not) that no empty line closed
        self._frames: list[str] = []

    def feed(self, raw: str) -> None:
        line = raw.rstrip("\n")
        if line.startswith("#"):
            return
        if line == "":
            if self._comm is not None:
                stack = ";".join([self._comm, *self._frames])
                self.stacks[stack] += 1
                if self.periods is not None:
                    self.periods[stack] += self._period
            self._comm, self._open, self._frames = None, False, []
        elif m := _HEADER.match(line):
            self.headers += 1
            self._open = True
            self._comm, self._frames = m.group(1).replace(" ", "_"), []
            ev = _EVENT.search(line)
            self._period = int(ev.group(1)) if ev is not None and ev.group(1) else 1
            if ev is not None:
                if self.event is None:
                    self.event = ev.group(2)
                elif ev.group(2) != self.event:
                    self._comm = None  # another event's sample: left out
        elif self._open and (names := frame_names(line, self._comm or "")) is not None:
            self.frames += 1
            if self._comm is not None:
                self._frames[:0] = names
        else:
            self.unmatched += 1


def fold(lines: Iterable[str]) -> Counter[str]:
    """Samples per folded stack (``comm;root;...;leaf``) of ``perf script`` output lines."""
    folder = Folder()
    for line in lines:
        folder.feed(line)
    return folder.stacks
