"""A comparison's column: a (build, config) pair, at a dop or not.

A column of the posts' tables is a build *under a server config* (pg12-pg17 on ``x10a`` beside
pg18 on ``x10b``). :class:`Column` names one (the config may be left for ``compare`` to
resolve); store/analysis/column_choices.py lists the pairs a host has runs for, for a column picker (a
module of its own: ``compare`` loads this one, and each record class is a cost at its start).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Column:
    """A build under a config, optionally at one concurrency; ``config`` None means "the
    default or the only one", ``dop`` None "the comparison's dop" (the posts' "48u vs 1u"
    tables put one build at two dops side by side)."""

    build: str
    config: str | None = None
    dop: int | None = None

    @classmethod
    def parse(cls, text: str) -> Column:
        """``BUILD``, ``BUILD:CONFIG``, ``BUILD@DOP`` or ``BUILD:CONFIG@DOP`` (an empty config
        after the colon is the empty config)."""
        rest, at, dop = text.rpartition("@") if "@" in text else (text, "", "")
        if at and not (dop.isdigit() and int(dop) > 0):
            raise ValueError(f"{text!r}: the dop after @ must be a positive integer")
        build, sep, config = rest.partition(":")
        if not build:
            raise ValueError(f"{text!r}: expected BUILD[:CONFIG][@DOP]")
        return cls(build, config if sep else None, int(dop) if at else None)

    def __str__(self) -> str:
        name = self.build if self.config is None else f"{self.build}:{self.config}"
        return name if self.dop is None else f"{name}@{self.dop}"
