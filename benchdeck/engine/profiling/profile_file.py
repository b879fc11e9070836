"""What a file given as a CPU profile holds, told by its bytes: folded stacks, ``perf script``
output or a flamegraph.pl SVG, each also gzip-compressed (mytools keeps its SVGs as
``*.svg.gz``). Anything else is refused with a one-line description of what it looks like: a
binary ``perf.data`` (and how to turn it into text), other binary data, or text that is none of
the three.

``perf script`` output is recognised by its sample headers (``comm pid [cpu] time: period
event:``), folded stacks by their ``frames count`` lines; a file where most lines are neither a
sample header nor a frame is refused, not folded.
"""

from __future__ import annotations

import gzip
import re
import zlib
from dataclasses import dataclass

from benchdeck.engine.profiling.folded import (
    StackFormatError,
    merge,
    parse_flamegraph_svg,
    parse_folded,
    read_perf_script,
)

KINDS = ("folded", "perf-script", "svg")
GZIP_MAGIC = b"\x1f\x8b"
PERF_DATA_MAGIC = (b"PERFILE2", b"2ELIFREP", b"PERFFILE")  # perf.data (either byte order; the old one)
# perf script's default sample header: comm pid[/tid] [cpu] secs.usecs: [period] event:
_SAMPLE_HEADER = re.compile(r"^\S.*?\s+\d+(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:\s+(?:\d+\s+)?\S+:")
_FOLDED_LINE = re.compile(r"^\S.* \d+$")
_PERF_DATA_HOWTO = (
    "a binary perf.data file (perf record's own): turn it into text with "
    "'perf script -i {name} > {name}.txt' on the host that recorded it (its binaries and symbols "
    "are there), then import the text"
)


class NotAProfile(StackFormatError):
    """A file that is not a profile benchdeck reads (one line: what it looks like)."""


@dataclass(frozen=True, slots=True)
class ProfileText:
    """A profile file's text and what it holds (``compressed``: it was gzip'd)."""

    kind: str
    text: str
    compressed: bool = False


def open_profile(data: bytes, kind: str = "auto", name: str = "FILE") -> ProfileText:
    """The profile text in the bytes of file ``name``, of ``kind`` (auto: as its bytes say);
    NotAProfile when they hold none."""
    compressed = data[:2] == GZIP_MAGIC
    if compressed:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise NotAProfile(f"gzip data that does not decompress ({exc})") from None
    where = " (inside its gzip)" if compressed else ""
    if data[:8] in PERF_DATA_MAGIC:
        raise NotAProfile(_PERF_DATA_HOWTO.format(name=name) + where)
    text = _text(data)
    if text is None:
        raise NotAProfile(
            f"binary data{where}, {_binary_kind(data)}: not folded stacks, perf script or an SVG"
        )
    found = sniff(text)
    if kind == "auto":
        if found is None:
            raise NotAProfile(describe_text(text) + where)
        kind = found
    return ProfileText(kind, text, compressed)


def _text(data: bytes) -> str | None:
    """The bytes as UTF-8 text; None for binary data (a NUL byte, or 1% undecodable)."""
    if b"\0" in data[:65536]:
        return None
    text = data.decode("utf-8", errors="replace")
    bad = text.count("\ufffd")
    return None if bad > max(2, len(text) // 100) else text.removeprefix("\ufeff")


def _binary_kind(data: bytes) -> str:
    for magic, name in ((b"\x7fELF", "an ELF executable or library"), (b"PK\x03\x04", "a zip archive")):
        if data.startswith(magic):
            return name
    return f"{len(data):,} bytes"


def sniff(text: str) -> str | None:
    """``svg``, ``perf-script`` or ``folded`` as the text's lines say; None when none fits."""
    if text.lstrip().startswith("<"):
        return "svg"
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if any(_SAMPLE_HEADER.match(ln) for ln in lines[:1000]):
        return "perf-script"
    head = lines[:1000]
    if head and sum(1 for ln in head if _FOLDED_LINE.match(ln.strip())) * 2 > len(head):
        return "folded"
    return None


def describe_text(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return "an empty file (no stacks)"
    return (
        f"a text of {len(lines):,} lines that is none of folded stacks ('frame;frame;leaf count' "
        "lines), perf script output (no sample header such as 'comm pid time: period event:') "
        "or an SVG"
    )


@dataclass(frozen=True, slots=True)
class ReadProfile:
    """A profile file's folded stacks, what it held, and what its own text says of its sampling
    (``perf script`` only: the event, and a clock event's frequency from its periods)."""

    kind: str
    stacks: tuple[tuple[str, int], ...]
    event: str | None = None
    frequency_hz: float | None = None


CLOCKS = ("cpu-clock", "task-clock")  # perf's software clocks: a sample's period is nanoseconds


def read_profile(data: bytes, kind: str = "auto", name: str = "FILE") -> ReadProfile:
    """The profile in the bytes of file ``name``; NotAProfile / StackFormatError (one line).

    ``perf script`` output is weighed as stackcollapse-perf.pl weighs it where that is what
    flamegraph.pl SVGs of it hold: a ``cycles`` (or other counter) sample counts its period
    (cycles), so its stacks are in cycles; a clock's samples count 1 each, and the clock's
    period (nanoseconds) says its frequency."""
    prof = open_profile(data, kind, name)
    if prof.kind == "perf-script":
        return _perf_script(prof.text)
    stacks = parse_folded(prof.text) if prof.kind == "folded" else parse_flamegraph_svg(prof.text)
    if not stacks:
        raise NotAProfile(f"no stacks in the {prof.kind} text")
    return ReadProfile(prof.kind, stacks)


def _perf_script(text: str) -> ReadProfile:
    folder = read_perf_script(text)
    event = (folder.event or "").split(":", 1)[0] or None  # cycles:ppp -> cycles
    if event is None or event in CLOCKS:
        total_ns = sum(folder.periods.values()) if folder.periods else 0
        mean_ns = total_ns / max(1, sum(folder.stacks.values()))
        hz = 1e9 / mean_ns if event is not None and mean_ns > 1 else None
        return ReadProfile("perf-script", merge(folder.stacks.items()), event, hz)
    return ReadProfile("perf-script", merge((folder.periods or folder.stacks).items()), event)
