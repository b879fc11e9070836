"""Fold ``perf script`` output into stacks, as FlameGraph's stackcollapse-perf.pl does.

Standard library only: benchdeck ships this file to the run directory and runs it on the host
(:mod:`.host_perf`), where the binaries and their symbols are. A sample is a header line
(``comm pid [cpu] time: period event:``) followed by its frames, leaf first, one per line
(``<addr> <symbol>+0x<off> (<dso>)``), and a blank line. A stack is the command name and the
frames root first, ``;``-joined; a frame perf could not name is its binary (``[libc.so.6]``),
else ``[unknown]``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_FRAME = re.compile(r"^\s*[0-9a-fA-F]+\s+(?P<sym>.*?)(?:\s+\((?P<dso>[^()]*)\))?$")
_OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")
_HEADER = re.compile(r"^(?P<comm>.+?)\s+\d+(?:/\d+)?\s")


def frame_name(line: str) -> str | None:
    """The function of one frame line (offset dropped), None when the line is not a frame."""
    m = _FRAME.match(line)
    if m is None:
        return None
    sym = _OFFSET.sub("", m.group("sym").strip())
    dso = (m.group("dso") or "").strip()
    if sym in ("", "[unknown]") and dso not in ("", "[unknown]"):
        sym = "[" + dso.rsplit("/", 1)[-1] + "]"
    return (sym or "[unknown]").replace(";", ":")


def fold(lines: Iterable[str]) -> Counter[str]:
    """Samples per folded stack (``comm;root;...;leaf``) of ``perf script`` output lines."""
    stacks: Counter[str] = Counter()
    comm: str | None = None
    frames: list[str] = []

    def close() -> None:
        if comm is not None:
            stacks[";".join([comm, *reversed(frames)])] += 1

    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            close()
            comm, frames = None, []
        elif line[0] in " \t":
            if comm is not None and (name := frame_name(line)) is not None:
                frames.append(name)
        elif not line.startswith("#"):
            close()
            m = _HEADER.match(line)
            comm, frames = (m.group("comm").strip().replace(" ", "_") if m else "[unknown]"), []
    close()
    return stacks
