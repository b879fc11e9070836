"""A comparison's column: a (build, config) pair, at a dop or not, on a cluster or alone.

A column of the posts' tables is a build *under a server config* (pg12-pg17 on ``x10a`` beside
pg18 on ``x10b``). :class:`Column` names one (the config may be left for ``compare`` to
resolve); store/analysis/column_choices.py lists the pairs a host has runs for, for a column picker (a
module of its own: ``compare`` loads this one, and each record class is a cost at its start).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Column:
    """A build under a config, optionally at one concurrency and on a cluster; ``config`` None
    means "the default or the only one", ``dop`` None "the comparison's dop" (the posts' "48u vs
    1u" tables put one build at two dops side by side), ``cluster`` None "the build's runs on
    its server alone" (a run on a cluster is another column, as a config is: issue 41)."""

    build: str
    config: str | None = None
    dop: int | None = None
    cluster: str | None = None

    @classmethod
    def parse(cls, text: str) -> Column:
        """``BUILD[:CONFIG][@CLUSTER][@DOP]`` (an empty config after the colon is the empty
        config; after an ``@`` a number is a dop, a name a cluster)."""
        rest, *ats = text.split("@")
        dop = ats.pop() if ats and (ats[-1].isdigit() or len(ats) == 2) else None
        if dop is not None and not (dop.isdigit() and int(dop) > 0):
            raise ValueError(f"{text!r}: the dop after @ must be a positive integer")
        if len(ats) > 1 or (ats and not ats[0]):
            raise ValueError(f"{text!r}: expected BUILD[:CONFIG][@CLUSTER][@DOP]")
        build, sep, config = rest.partition(":")
        if not build:
            raise ValueError(f"{text!r}: expected BUILD[:CONFIG][@DOP]")
        return cls(
            build, config if sep else None, int(dop) if dop is not None else None, ats[0] if ats else None
        )

    def __str__(self) -> str:
        name = self.build if self.config is None else f"{self.build}:{self.config}"
        name += f"@{self.cluster}" if self.cluster is not None else ""
        return name if self.dop is None else f"{name}@{self.dop}"
