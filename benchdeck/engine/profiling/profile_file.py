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
    parse_flamegraph_svg,
    parse_folded,
    parse_perf_script,
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


def read_profile(
    data: bytes, kind: str = "auto", name: str = "FILE"
) -> tuple[str, tuple[tuple[str, int], ...]]:
    """(kind, folded stacks) of the bytes of file ``name``; NotAProfile / StackFormatError (one line)."""
    prof = open_profile(data, kind, name)
    reader = {
        "folded": parse_folded,
        "perf-script": parse_perf_script,
        "svg": parse_flamegraph_svg,
    }[prof.kind]
    stacks = reader(prof.text)
    if not stacks:
        raise NotAProfile(f"no stacks in the {prof.kind} text")
    return prof.kind, stacks
