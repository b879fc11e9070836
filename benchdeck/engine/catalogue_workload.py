"""A workload as the catalogue describes it (:meth:`engine.catalogue.Catalogue.workload`). Apart
from the catalogue, which every ``compare`` loads and which needs no record of its own: creating
a record class is a cost every command's start would pay."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Workload:
    """One benchmark step of a suite."""

    name: str
    group: str
    order: int
    family: str = "sysbench"
