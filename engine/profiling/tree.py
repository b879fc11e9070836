"""Folded stacks as a tree of frames: what a flame graph draws (the SVG and the app's icicle).

A frame's width is its samples (inclusive); its children are laid out left to right by name,
as flamegraph.pl does, so two profiles of the same code look alike. Each node may carry a
second value (``other_us``: the other side's CPU per query for the same path) for the
differential view, where colour says how the path's CPU per query changed.

The tree is built in one pass over the stacks sorted by name (adjacent stacks share their
prefix, so a stack adds nodes only from where it differs from the one before): 100,000 stacks
of depth ~20 build in well under the time a per-frame dictionary walk takes (bench/bench_profile.py).
"""

from __future__ import annotations

from collections.abc import Iterable


class Frame:
    """One node: a function at a depth under its callers."""

    __slots__ = ("children", "depth", "name", "other_self_us", "other_us", "parent", "samples", "start", "us")

    def __init__(self, name: str, depth: int, parent: Frame | None) -> None:
        self.name = name
        self.depth = depth
        self.samples = 0  # inclusive
        self.us = 0.0  # inclusive CPU per query (0 when the stacks carried none)
        self.other_us = 0.0  # the other side's, for a differential view
        self.other_self_us = 0.0
        self.start = 0  # samples left of this frame at its depth (its x)
        self.children: list[Frame] = []
        self.parent = parent

    @property
    def path(self) -> str:
        names: list[str] = []
        f: Frame | None = self
        while f is not None and f.depth >= 0:
            names.append(f.name)
            f = f.parent
        return ";".join(reversed(names))

    def __repr__(self) -> str:  # pragma: no cover (debugging)
        return f"Frame({self.name!r}, depth={self.depth}, samples={self.samples})"


def build_tree(stacks: Iterable[tuple[str, int, float]], root_name: str = "all") -> Frame:
    """The tree of ``(folded stack, samples, us per query)``; the root (depth -1) holds them all.

    Stacks need not be sorted (they are sorted here); equal stacks add up."""
    root = Frame(root_name, -1, None)
    path: list[Frame] = [root]  # the previous stack's frames, root first
    prev: list[str] = []
    for stack, n, us in sorted(stacks):
        frames = stack.split(";")
        common = 0
        limit = min(len(frames), len(prev))
        while common < limit and frames[common] == prev[common]:
            common += 1
        del path[common + 1 :]
        parent = path[-1]
        for depth in range(common, len(frames)):
            f = Frame(frames[depth], depth, parent)
            parent.children.append(f)
            path.append(f)
            parent = f
        leaf = path[-1]
        leaf.samples += n  # self for now; made inclusive below
        leaf.us += us
        prev = frames
    _finish(root)
    return root


def _finish(root: Frame) -> None:
    """Make samples and us inclusive and set each frame's start, without recursion."""
    order: list[Frame] = []
    todo = [root]
    while todo:
        f = todo.pop()
        order.append(f)
        todo.extend(f.children)
    for f in reversed(order):  # children before parents
        if f.parent is not None:
            f.parent.samples += f.samples
            f.parent.us += f.us
    for f in order:  # parents before children
        x = f.start
        for c in f.children:
            c.start = x
            x += c.samples


def self_samples(f: Frame) -> int:
    return f.samples - sum(c.samples for c in f.children)


def self_us(f: Frame) -> float:
    return f.us - sum(c.us for c in f.children)


def attach_other(tree: Frame, other: Frame) -> None:
    """Set ``other_us`` of every frame of ``tree`` from the same path in ``other`` (0 if absent)."""
    tree.other_us = other.us
    tree.other_self_us = self_us(other)
    todo = [(tree, other)]
    while todo:
        a, b = todo.pop()
        by_name = {c.name: c for c in b.children}
        for c in a.children:
            match = by_name.get(c.name)
            if match is not None:
                c.other_us = match.us
                c.other_self_us = self_us(match)
                todo.append((c, match))


def depth_of(tree: Frame) -> int:
    deepest = 0
    todo = [tree]
    while todo:
        f = todo.pop()
        deepest = max(deepest, f.depth + 1)
        todo.extend(f.children)
    return deepest


def find(tree: Frame, text: str) -> list[Frame]:
    """Frames whose name contains ``text`` (case-insensitive), in depth-first order."""
    needle = text.lower()
    out: list[Frame] = []
    todo = [tree]
    while todo:
        f = todo.pop()
        if f.depth >= 0 and needle in f.name.lower():
            out.append(f)
        todo.extend(reversed(f.children))
    return out
