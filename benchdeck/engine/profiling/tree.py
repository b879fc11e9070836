"""Folded stacks as a tree of frames: what a flame graph draws (the SVG and the app's icicle).

A frame's width is its samples (inclusive); its children are laid out left to right by name,
as flamegraph.pl does, so two profiles of the same code look alike. A frame may be matched
with the same path in another profile (``other``) for the differential view, where colour says
how the frame's CPU per query changed.

The tree is lazy: the stacks are split and sorted by their frames once, and a frame is the run
of sorted stacks that share its path (``lo``..``hi``); its samples and CPU come from prefix sums
and its children are found by bisecting that run when first asked for. A flame graph that
shows a few thousand frames of a 100,000-stack profile never makes the other million
(bench/bench_profile.py: an eager tree took far too long to build there).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate


class _Stacks:
    """Sorted split stacks with prefix sums of their samples and CPU per query."""

    __slots__ = ("frames", "samples_at", "us_at")

    def __init__(self, stacks: Iterable[tuple[str, int, float]]) -> None:
        # Sorted as text with NUL between frames: the order of the frame tuples (NUL sorts
        # before any character a name holds), at the speed of C string compares (comparing
        # tuples that share 20 frames took most of the time at 100,000 stacks)
        merged: dict[str, list[float]] = {}
        for stack, n, us in stacks:
            key = stack.replace(";", "\0")
            acc = merged.get(key)
            if acc is None:
                merged[key] = [n, us]
            else:
                acc[0] += n
                acc[1] += us
        keys = sorted(merged)
        self.frames: list[tuple[str, ...]] = [tuple(k.split("\0")) for k in keys]
        self.samples_at = [0, *accumulate(int(merged[k][0]) for k in keys)]
        self.us_at = [0.0, *accumulate(merged[k][1] for k in keys)]


class Frame:
    """One node: a function at a depth under its callers (depth -1: the root of all stacks)."""

    __slots__ = (
        "_children",
        "_data",
        "depth",
        "hi",
        "lo",
        "name",
        "other",
        "parent",
        "samples",
        "start",
        "us",
    )

    def __init__(self, data: _Stacks, name: str, depth: int, lo: int, hi: int, parent: Frame | None) -> None:
        self._data = data
        self.name = name
        self.depth = depth
        self.lo, self.hi = lo, hi
        self.samples = data.samples_at[hi] - data.samples_at[lo]  # inclusive
        self.us = data.us_at[hi] - data.us_at[lo]  # inclusive CPU per query (0 when none given)
        self.start = 0  # samples left of this frame at its depth (its x)
        self.parent = parent
        self.other: Frame | None = None  # the same path in the other profile (differential)
        self._children: list[Frame] | None = None

    @property
    def children(self) -> list[Frame]:
        if self._children is None:
            self._children = self._expand()
        return self._children

    def _expand(self) -> list[Frame]:
        frames = self._data.frames
        d = self.depth + 1
        i = self._own_end()
        out: list[Frame] = []
        x = self.start
        while i < self.hi:
            name = frames[i][d]
            end = bisect_right(frames, name, i, self.hi, key=lambda f, d=d: f[d])  # type: ignore[misc]
            child = Frame(self._data, name, d, i, end, self)
            child.start = x
            x += child.samples
            out.append(child)
            i = end
        if self.other is not None:
            by_name = {c.name: c for c in self.other.children}
            for c in out:
                c.other = by_name.get(c.name)
        return out

    def _own_end(self) -> int:
        """The end of the stacks that end at this frame (they sort first in its run)."""
        frames = self._data.frames
        i = self.lo
        while i < self.hi and len(frames[i]) <= self.depth + 1:
            i += 1
        return i

    @property
    def self_samples(self) -> int:
        return self._data.samples_at[self._own_end()] - self._data.samples_at[self.lo]

    @property
    def self_us(self) -> float:
        return self._data.us_at[self._own_end()] - self._data.us_at[self.lo]

    @property
    def other_us(self) -> float:
        return self.other.us if self.other is not None else 0.0

    @property
    def other_self_us(self) -> float:
        return self.other.self_us if self.other is not None else 0.0

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

    Stacks need not be sorted; equal stacks add up."""
    data = _Stacks(stacks)
    return Frame(data, root_name, -1, 0, len(data.frames), None)


def self_samples(f: Frame) -> int:
    return f.self_samples


def self_us(f: Frame) -> float:
    return f.self_us


def attach_other(tree: Frame, other: Frame) -> None:
    """Match ``tree``'s frames with the same paths in ``other`` (their ``other_us``), lazily."""
    tree.other = other
    tree._children = None  # re-matched when next expanded


def walk(tree: Frame) -> list[Frame]:
    """Every frame, depth first, callees left to right (expands the whole tree)."""
    out: list[Frame] = []
    todo = [tree]
    while todo:
        f = todo.pop()
        out.append(f)
        todo.extend(reversed(f.children))
    return out


def depth_of(tree: Frame) -> int:
    """Frames on the longest stack."""
    frames: Sequence[tuple[str, ...]] = tree._data.frames[tree.lo : tree.hi]
    return max((len(f) for f in frames), default=0) - (tree.depth + 1)


def find(tree: Frame, text: str) -> list[Frame]:
    """Frames whose name contains ``text`` (case-insensitive), in depth-first order."""
    needle = text.lower()
    return [f for f in walk(tree) if f.depth >= 0 and needle in f.name.lower()]
