"""Read stacks from what profiling tools leave behind: folded stacks (FlameGraph's
stackcollapse, inferno), ``perf script`` output, and flamegraph.pl SVGs (what a file holds is
told by :mod:`.profile_file`).

An SVG holds no stacks, only frames: a rectangle per (function, depth, position) with the title
``fn (N samples, P%)``. :func:`parse_flamegraph_svg` rebuilds the stacks from the geometry: a
frame's caller is the frame one row nearer the root whose span holds its midpoint, and a stack
ends where a frame's samples exceed its children's (the rest is its self time). What it gives
back is exact for every frame flamegraph.pl drew (the counts come from the titles, not the
widths); frames narrower than its ``--minwidth`` (0.1 px: 1/11,800 of the samples at the
default width) were never written, so their samples come back as their caller's self time.
Siblings of one name were merged by flamegraph.pl as they are by any folded reader.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable

from benchdeck.engine.profiling.fold import Folder

_TITLE = re.compile(r"^(?P<name>.*) \((?P<n>[\d,]+) samples?, [\d.]+%\)")


class StackFormatError(ValueError):
    """Input that is not what its reader expects (a one-line reason with the line number)."""


def merge(stacks: Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Equal stacks added up, sorted by stack."""
    out: dict[str, int] = {}
    for s, n in stacks:
        if n:
            out[s] = out.get(s, 0) + n
    return tuple(sorted(out.items()))


def parse_folded(text: str) -> tuple[tuple[str, int], ...]:
    """``frame;frame;leaf N`` lines (blank lines and ``#`` comments ignored)."""
    stacks: list[tuple[str, int]] = []
    for no, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            raise StackFormatError(f"line {no}: not 'frames count': {line[:80]!r}")
        stacks.append((stack, int(count)))
    return merge(stacks)


def read_perf_script(text: str) -> Folder:
    """``perf script`` output of ``perf record -g`` folded as the capture folds it (:mod:`.fold`:
    stackcollapse-perf.pl's rules), with perf's periods; refused when most of its lines are
    neither sample headers nor frames (text that is not perf's), or it holds no sample."""
    folder = Folder(periods=True)
    for line in text.splitlines():
        folder.feed(line)
    read = folder.headers + folder.frames
    if folder.unmatched > read:
        raise StackFormatError(
            f"mostly not perf script output: {folder.unmatched:,} of {folder.unmatched + read:,} lines "
            "are neither sample headers nor frames"
        )
    if not folder.stacks:
        raise StackFormatError("perf script output without a sample")
    return folder


def parse_perf_script(text: str) -> tuple[tuple[str, int], ...]:
    """The samples per stack of ``perf script`` output (:func:`read_perf_script`)."""
    return merge(read_perf_script(text).stacks.items())


def parse_flamegraph_svg(text: str) -> tuple[tuple[str, int], ...]:
    """The stacks behind a flamegraph.pl SVG (see the module's note on how exact they are)."""
    try:
        root = ET.fromstring(text)  # noqa: S314 (the user's own file; expat fetches no DTD)
    except ET.ParseError as exc:
        raise StackFormatError(f"not an SVG: {exc}") from None
    ns = "{http://www.w3.org/2000/svg}"
    rows: list[tuple[float, float, float, str, int]] = []  # y, x, width, name, samples
    for g in root.iter(f"{ns}g"):
        title = g.find(f"{ns}title")
        rect = g.find(f"{ns}rect")
        if title is None or rect is None or title.text is None:
            continue
        m = _TITLE.match(title.text)
        if m is None:
            continue
        rows.append(
            (
                float(rect.get("y", "0")),
                float(rect.get("x", "0")),
                float(rect.get("width", "0")),
                m["name"],
                int(m["n"].replace(",", "")),
            )
        )
    if not rows:
        raise StackFormatError("no flame graph frames ('fn (N samples, P%)' titles) in the SVG")
    inverted = _is_icicle(rows)
    # depth 0 is the row of the root ("all"): the largest y of a flame graph, the smallest of an icicle
    ys = sorted({r[0] for r in rows}, reverse=not inverted)
    depth_of = {y: i for i, y in enumerate(ys)}
    levels: list[list[tuple[float, float, str, int, int]]] = [[] for _ in ys]
    for y, x, w, name, n in rows:
        levels[depth_of[y]].append((x, w, name, n, len(levels[depth_of[y]])))
    for level in levels:
        level.sort()
    # parent index of each frame, found by its midpoint within a caller's span
    paths: list[list[str]] = [[name for _, _, name, _, _ in levels[0]]]
    child_sum: list[list[int]] = [[0] * len(level) for level in levels]
    parents: list[list[int]] = [[-1] * len(levels[0])]
    for d in range(1, len(levels)):
        above = levels[d - 1]
        idx: list[int] = []
        names: list[str] = []
        j = 0
        for x, w, name, n, _ in levels[d]:
            mid = x + w / 2
            while j + 1 < len(above) and above[j][0] + above[j][1] < mid:
                j += 1
            idx.append(j)
            child_sum[d - 1][j] += n
            names.append(f"{paths[d - 1][j]};{name}")
        parents.append(idx)
        paths.append(names)
    stacks: list[tuple[str, int]] = []
    for d, level in enumerate(levels):
        for i, (_, _, _, n, _) in enumerate(level):
            own = n - child_sum[d][i]
            if own > 0:
                stacks.append((paths[d][i], own))
    # flamegraph.pl's root frame "all" is not a function of the profile
    first = levels[0]
    if len(first) == 1 and first[0][2] == "all":
        stacks = [(s.partition(";")[2], n) for s, n in stacks if ";" in s]
    return merge(stacks)


def _is_icicle(rows: list[tuple[float, float, float, str, int]]) -> bool:
    """flamegraph.pl --inverted puts the root at the top: the widest frame then has the least y."""
    widest = max(rows, key=lambda r: r[2])
    return widest[0] <= min(r[0] for r in rows)
