"""The workload catalogue: names, groups and order of the microbenchmarks users read.

Names follow the posts: ``point-query.pre_range=100`` is the test ``point-query`` run before
the write steps (``.pre``) with ``range=100``. The default group table comes from domain.md;
a user can override it (see :func:`load_group_overrides`).

Other workload families are named so that :func:`family_of` can tell them apart:

- Insert Benchmark steps by their own names: ``l.i0 l.x l.i1 l.i2 qr100 qp100 ... qp1000`` (any
  ``qrN``/``qpN``) -> ``insertbench``;
- RocksDB db_bench steps as ``<step>.<setup>``: ``fillseq.byrx``, ``readww.iobuf``,
  ``overwrite.iodir`` ... -> ``dbbench``;
- pgbench built-in scripts as ``pgbench.<script>``: ``pgbench.select-only``,
  ``pgbench.tpcb-like`` -> ``pgbench``;
- the TPC-C-like mix on N warehouses as ``tpcc.wN``: ``tpcc.w1``, ``tpcc.w4`` -> ``tpcc`` (its
  QPS is tpmC: New-Order transactions committed per minute);
- everything else -> ``sysbench``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchdeck.engine.families.dbbench import command as dbbench_cmd
from benchdeck.engine.families.insertbench.steps import STEP_NAMES as INSERTBENCH_STEPS
from benchdeck.engine.families.insertbench.steps import step_kind
from benchdeck.engine.families.tpcc.names import warehouses_of

# Group order: the posts' sysbench groups, then those of the other families.
GROUPS = (
    "point-1",
    "point-2",
    "range-1",
    "range-2",
    "writes",
    "load",
    "queries",
    "write",
    "read",
    "pgbench",
    "tpcc",
)
OTHER_GROUP = "other"
FAMILIES = ("sysbench", "insertbench", "dbbench", "pgbench", "tpcc")
PGBENCH_PREFIX = "pgbench."


@dataclass(frozen=True, slots=True)
class Workload:
    """One benchmark step of a suite."""

    name: str
    group: str
    order: int
    family: str = "sysbench"


# The classic 42 sysbench microbenchmarks, in the posts' order, with their default groups.
CLASSIC_42: tuple[tuple[str, str], ...] = (
    ("hot-points_range=100", "point-1"),
    ("point-query.pre_range=100", "point-1"),
    ("point-query_range=100", "point-1"),
    ("points-covered-pk.pre_range=100", "point-1"),
    ("points-covered-pk_range=100", "point-1"),
    ("points-covered-si.pre_range=100", "point-1"),
    ("points-covered-si_range=100", "point-1"),
    ("points-notcovered-pk.pre_range=100", "point-1"),
    ("points-notcovered-pk_range=100", "point-1"),
    ("points-notcovered-si.pre_range=100", "point-1"),
    ("points-notcovered-si_range=100", "point-1"),
    ("random-points.pre_range=1000", "point-2"),
    ("random-points.pre_range=100", "point-2"),
    ("random-points.pre_range=10", "point-2"),
    ("random-points_range=1000", "point-2"),
    ("random-points_range=100", "point-2"),
    ("random-points_range=10", "point-2"),
    ("range-covered-pk.pre_range=100", "range-1"),
    ("range-covered-pk_range=100", "range-1"),
    ("range-covered-si.pre_range=100", "range-1"),
    ("range-covered-si_range=100", "range-1"),
    ("range-notcovered-pk.pre_range=100", "range-1"),
    ("range-notcovered-pk_range=100", "range-1"),
    ("range-notcovered-si.pre_range=100", "range-1"),
    ("range-notcovered-si_range=100", "range-1"),
    ("read-only.pre_range=10000", "range-2"),
    ("read-only.pre_range=100", "range-2"),
    ("read-only.pre_range=10", "range-2"),
    ("read-only_range=10000", "range-2"),
    ("read-only_range=100", "range-2"),
    ("read-only_range=10", "range-2"),
    ("scan_range=100", "range-1"),
    ("delete_range=100", "writes"),
    ("insert_range=100", "writes"),
    ("read-write_range=100", "writes"),
    ("read-write_range=10", "writes"),
    ("update-index_range=100", "writes"),
    ("update-inlist_range=100", "writes"),
    ("update-nonindex_range=100", "writes"),
    ("update-one_range=100", "writes"),
    ("update-zipf_range=100", "writes"),
    ("write-only_range=10000", "writes"),
)

# The newer 32-33 step set: most .pre steps dropped, read-only-* variants and scan.warm added.
MODERN_33: tuple[tuple[str, str], ...] = (
    ("hot-points_range=100", "point-1"),
    ("point-query_range=100", "point-1"),
    ("points-covered-pk_range=100", "point-1"),
    ("points-covered-si_range=100", "point-1"),
    ("points-notcovered-pk_range=100", "point-1"),
    ("points-notcovered-si_range=100", "point-1"),
    ("random-points_range=1000", "point-2"),
    ("random-points_range=100", "point-2"),
    ("random-points_range=10", "point-2"),
    ("range-covered-pk_range=100", "range-1"),
    ("range-covered-si_range=100", "range-1"),
    ("range-notcovered-pk_range=100", "range-1"),
    ("range-notcovered-si_range=100", "range-1"),
    ("read-only-count_range=1000", "range-2"),
    ("read-only-distinct_range=1000", "range-2"),
    ("read-only-order_range=1000", "range-2"),
    ("read-only_range=10000", "range-2"),
    ("read-only_range=100", "range-2"),
    ("read-only_range=10", "range-2"),
    ("read-only-simple_range=1000", "range-2"),
    ("read-only-sum_range=1000", "range-2"),
    ("scan_range=100", "range-1"),
    ("scan.warm_range=100", "range-1"),
    ("delete_range=100", "writes"),
    ("insert_range=100", "writes"),
    ("read-write_range=100", "writes"),
    ("read-write_range=10", "writes"),
    ("update-index_range=100", "writes"),
    ("update-inlist_range=100", "writes"),
    ("update-nonindex_range=100", "writes"),
    ("update-one_range=100", "writes"),
    ("update-zipf_range=100", "writes"),
    ("write-only_range=10000", "writes"),
)

# The Insert Benchmark's classic steps in their order: loads first, then the query steps.
INSERTBENCH: tuple[tuple[str, str], ...] = tuple(
    (name, "queries" if step_kind(name) == "query" else "load") for name in INSERTBENCH_STEPS
)
# db_bench steps in the posts' order; the *ww steps read (beside one rate-limited writer).
_DBBENCH_GROUP = {"fillseq": "write", "overwrite": "write"}


def dbbench_suite(setup: str) -> tuple[tuple[str, str], ...]:
    """The db_bench steps for one setup (``byrx``, ``iobuf``, ``iodir``): ``fillseq.byrx`` ..."""
    return tuple((f"{step}.{setup}", _DBBENCH_GROUP.get(step, "read")) for step in dbbench_cmd.STEPS)


PGBENCH: tuple[tuple[str, str], ...] = (
    (f"{PGBENCH_PREFIX}select-only", "pgbench"),
    (f"{PGBENCH_PREFIX}tpcb-like", "pgbench"),
)

# The TPC-C-like mix on 1 and 4 warehouses (any tpcc.wN runs).
TPCC: tuple[tuple[str, str], ...] = (("tpcc.w1", "tpcc"), ("tpcc.w4", "tpcc"))

SUITES: dict[str, tuple[tuple[str, str], ...]] = {
    "classic": CLASSIC_42,
    "modern": MODERN_33,
    "insertbench": INSERTBENCH,
    "dbbench": dbbench_suite("byrx"),
    "dbbench-iobuf": dbbench_suite("iobuf"),
    "dbbench-iodir": dbbench_suite("iodir"),
    "pgbench": PGBENCH,
    "tpcc": TPCC,
}
# Suites of the families other than sysbench, appended to the default catalogue's order.
_FAMILY_SUITES = ("insertbench", "dbbench", "dbbench-iobuf", "dbbench-iodir", "pgbench", "tpcc")


def family_of(workload: str) -> str:
    """Which tool runs a workload (and reads its output): ``sysbench``, ``insertbench``,
    ``dbbench``, ``pgbench`` or ``tpcc`` (see the module docstring for the naming)."""
    if step_kind(workload) is not None:
        return "insertbench"
    if warehouses_of(workload) is not None:
        return "tpcc"
    if workload.startswith(PGBENCH_PREFIX):
        return "pgbench"
    step = workload.split(".", 1)[0]
    if step in dbbench_cmd.BENCHMARK or step in dbbench_cmd.ALIASES:
        return "dbbench"
    return "sysbench"


_WORKLOAD = re.compile(r"^(?P<test>[a-z0-9][a-z0-9.-]*?)(?:_range=(?P<range>\d+))?$")
_MYTOOLS = re.compile(
    r"^(?P<test>[a-z0-9][a-z0-9.-]*?)\.range(?P<range>\d+)\.pk(?P<pk>\d+)(?:\.dop(?P<dop>\d+))?$"
)


class Catalogue:
    """Order and group of every known workload; unknown names sort last, in group ``other``."""

    def __init__(self, entries: Iterable[tuple[str, str]], overrides: Mapping[str, str] | None = None):
        self._order: dict[str, int] = {}
        self._group: dict[str, str] = {}
        for name, group in entries:
            if name not in self._order:
                self._order[name] = len(self._order)
                self._group[name] = group
        for name, group in (overrides or {}).items():
            self._group[name] = group
            self._order.setdefault(name, len(self._order))

    def group_of(self, name: str) -> str:
        return self._group.get(name, OTHER_GROUP)

    def sort_key(self, name: str) -> tuple[int, str]:
        return (self._order.get(name, len(self._order)), name)

    def workload(self, name: str) -> Workload:
        return Workload(
            name=name, group=self.group_of(name), order=self.sort_key(name)[0], family=family_of(name)
        )

    def groups(self) -> list[str]:
        seen = [g for g in GROUPS if g in self._group.values()]
        seen += sorted({g for g in self._group.values()} - set(seen))
        return seen

    def names(self) -> list[str]:
        return sorted(self._order, key=self._order.__getitem__)


def merged_order(
    first: Sequence[tuple[str, str]], second: Sequence[tuple[str, str]]
) -> list[tuple[str, str]]:
    """``first`` in its order, with each step only in ``second`` placed after its predecessor there."""
    out = list(first)
    names = [n for n, _ in out]
    prev: str | None = None
    for name, group in second:
        if name not in names:
            at = names.index(prev) + 1 if prev in names else len(names)
            out.insert(at, (name, group))
            names.insert(at, name)
        prev = name
    return out


def default_catalogue(overrides: Mapping[str, str] | None = None, suite: str | None = None) -> Catalogue:
    """The classic 42 in the posts' order with the newer set's steps merged in, then the other
    families' suites (Insert Benchmark, db_bench per setup, pgbench); with ``suite``, that
    suite's order comes first."""
    entries = merged_order(CLASSIC_42, MODERN_33)
    for name in _FAMILY_SUITES:
        entries += SUITES[name]
    if suite is not None:
        if suite not in SUITES:
            raise ValueError(f"unknown suite {suite!r} (expected one of {', '.join(sorted(SUITES))})")
        return Catalogue(merged_order(SUITES[suite], entries), overrides)
    return Catalogue(entries, overrides)


def load_group_overrides(path: Path) -> dict[str, str]:
    """Read ``[groups]`` (workload name -> group) from a TOML file."""
    import tomllib  # (~1.5 ms: only with --groups)

    with path.open("rb") as fh:
        data = tomllib.load(fh)
    table = data.get("groups", {})
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise ValueError(f"{path}: [groups] must map workload names to group names")
    return dict(table)


def workload_name(test: str, range_size: int | None) -> str:
    """``("point-query.pre", 100)`` -> ``point-query.pre_range=100``."""
    return test if range_size is None else f"{test}_range={range_size}"


def split_workload_name(name: str) -> tuple[str, int | None]:
    """``point-query.pre_range=100`` -> ``("point-query.pre", 100)``."""
    m = _WORKLOAD.match(name)
    if not m:
        return name, None
    r = m.group("range")
    return m.group("test"), int(r) if r else None


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
