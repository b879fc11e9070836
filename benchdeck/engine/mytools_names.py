"""The mytools scripts' result-file suffixes (``point-query.pre.range100.pk1.dop24``): what a
file of a result tree says of its run. Apart from the catalogue, which every ``compare`` loads
(creating a record class is a start-up cost; only the importers read suffixes)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchdeck.engine.catalogue import workload_name

_MYTOOLS = re.compile(
    r"^(?P<test>[a-z0-9][a-z0-9.-]*?)\.range(?P<range>\d+)\.pk(?P<pk>\d+)(?:\.dop(?P<dop>\d+))?$"
)


@dataclass(frozen=True, slots=True)
class ResultSuffix:
    """What a mytools result-file suffix says: workload, pk flag and concurrency."""

    workload: str
    pk: int
    dop: int | None


def parse_mytools_suffix(suffix: str) -> ResultSuffix | None:
    """``point-query.pre.range100.pk1.dop24`` -> workload ``point-query.pre_range=100``, dop 24."""
    m = _MYTOOLS.match(suffix)
    if not m:
        return None
    dop = m.group("dop")
    return ResultSuffix(
        workload=workload_name(m.group("test"), int(m.group("range"))),
        pk=int(m.group("pk")),
        dop=int(dop) if dop else None,
    )
