"""Flame graphs as SVG, in flamegraph.pl's shape (root at the bottom, a frame per rectangle, its
title ``fn (N samples, P%)``), so what reads flamegraph.pl's SVGs reads ours, our own SVG
importer included. Each title also carries the frame's CPU per query.

Every frame is drawn (flamegraph.pl leaves out frames under 0.1 px): the widths of a frame's
children add up to at most its own, and the bottom row adds up to all the samples. The
differential graph takes its widths from the column and its colour from how the frame's own
(self) CPU per query changed from the base: red grew, blue shrank, white unchanged, the
strongest colour for the largest change.

Opened in a browser, it is interactive as flamegraph.pl's are (engine/profiling/svg_script.py, inline):
click a frame to zoom into it ("Reset zoom" or Escape undoes it), "Search" (or Ctrl+F) highlights the
functions a regular expression matches and says their share, the bottom line names the frame under the
pointer.
"""

from __future__ import annotations

import zlib
from xml.sax.saxutils import escape

from benchdeck.engine.profiling.svg_script import SCRIPT
from benchdeck.engine.profiling.tree import Frame, depth_of, self_us, walk

WIDTH = 1200.0
FRAME_H = 16
PAD_TOP = 40
PAD_BOTTOM = 20
SIDE = 10.0


def _hot(name: str) -> str:
    """flamegraph.pl's 'hot' palette, by a hash of the name (stable across runs)."""
    v1 = (zlib.crc32(name.encode()) & 0xFFFF) / 0xFFFF
    v2 = (zlib.crc32(name[::-1].encode()) & 0xFFFF) / 0xFFFF
    return f"rgb({205 + int(50 * v2)},{int(230 * v1)},{int(55 * v2)})"


def diff_colour(delta: float, scale: float) -> str:
    """Red for a frame whose CPU per query grew, blue for one that shrank (by ``delta``/``scale``)."""
    if scale <= 0 or delta == 0:
        return "rgb(220,220,220)"  # unchanged: grey on the near-white background
    strength = min(1.0, abs(delta) / scale)
    fade = int(220 * (1 - strength))
    return f"rgb(250,{fade},{fade})" if delta > 0 else f"rgb({fade},{fade},250)"


def _title(f: Frame, total: int, differential: bool, unit: str) -> str:
    pct = 100.0 * f.samples / total if total else 0.0
    text = f"{f.name} ({f.samples:,} samples, {pct:.2f}%)"
    if differential:
        d = f.us - f.other_us
        own = self_us(f) - f.other_self_us
        text += f" total {f.other_us:.3f} -> {f.us:.3f} {unit} ({d:+.3f}); self {own:+.3f} {unit}"
    elif f.us:
        text += f" {f.us:.3f} {unit}"
    return text


def flame_svg(root: Frame, title: str, differential: bool = False, unit: str = "us/q") -> str:
    """The SVG text of ``root``'s flame graph (``differential``: coloured by ``other_us``);
    ``unit`` names the frames' figures (``us/q``, ``cycles/q``, ``%`` of the samples)."""
    total = root.samples
    depth = depth_of(root) + 1  # the root row too
    height = PAD_TOP + depth * FRAME_H + PAD_BOTTOM
    per_sample = (WIDTH - 2 * SIDE) / total if total else 0.0
    frames = walk(root)
    scale = max((abs(self_us(f) - f.other_self_us) for f in frames), default=0.0) if differential else 0.0
    out = [
        '<?xml version="1.0" standalone="no"?>',
        f'<svg version="1.1" width="{WIDTH:.0f}" height="{height}" viewBox="0 0 {WIDTH:.0f} {height}" '
        f'data-side="{SIDE:.0f}" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">',
        "<style>g.frame, #unzoom, #search { cursor: pointer; } g.frame:hover rect { stroke: black; }</style>",
        f'<rect x="0" y="0" width="{WIDTH:.0f}" height="{height}" fill="rgb(248,248,248)"/>',
        f'<text x="{WIDTH / 2:.0f}" y="24" font-size="14" font-family="Verdana" text-anchor="middle">'
        f"{escape(title)}</text>",
        *_controls(height),
        f'<g id="frames" data-samples="{total}">',
    ]
    for f in frames:
        row = f.depth + 1
        y = height - PAD_BOTTOM - (row + 1) * FRAME_H
        x = SIDE + f.start * per_sample
        w = f.samples * per_sample
        fill = diff_colour(self_us(f) - f.other_self_us, scale) if differential else _hot(f.name)
        label = f.name if w > 30 else ""
        if label and len(label) * 7 > w:
            label = label[: max(0, int(w / 7) - 2)] + ".."
        out.append(
            f'<g class="frame" data-samples="{f.samples}" data-depth="{row}"><title>'
            f"{escape(_title(f, total, differential, unit))}</title>"
            f'<rect x="{x:.4f}" y="{y}" width="{w:.4f}" height="{FRAME_H - 1}" fill="{fill}" rx="2" ry="2"/>'
            f'<text x="{x + 3:.2f}" y="{y + 11}" font-size="12" font-family="Verdana">'
            f"{escape(label)}</text></g>"
        )
    out += ["</g>", f"<script><![CDATA[{SCRIPT}]]></script>", "</svg>", ""]
    return "\n".join(out)


def _controls(height: int) -> list[str]:
    """Reset zoom (shown once zoomed), Search, the share matched and the frame under the pointer."""
    font = 'font-size="12" font-family="Verdana"'
    bottom = height - 5
    return [
        f'<text id="unzoom" x="{SIDE:.0f}" y="24" {font} style="opacity:0">Reset zoom</text>',
        f'<text id="search" x="{WIDTH - SIDE:.0f}" y="24" {font} text-anchor="end">Search</text>',
        f'<text id="matched" x="{WIDTH - SIDE:.0f}" y="{bottom}" {font} text-anchor="end"> </text>',
        f'<text id="details" x="{SIDE:.0f}" y="{bottom}" {font}> </text>',
    ]
