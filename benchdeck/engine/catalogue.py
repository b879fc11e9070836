"""The workload catalogue: names, groups and order of the microbenchmarks users read.

Names follow the posts: ``point-query.pre_range=100`` is the test ``point-query`` run before
the write steps (``.pre``) with ``range=100``. The default group table comes from docs/domain.md;
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

The other families' step names live in their modules (db_bench's command lines, the Insert
Benchmark's step table), whose import costs CPU (their config dataclasses): a command that
compares sysbench runs never needs them, so they load when a family suite, an unknown name or a
family is first asked for (:data:`SUITES` reads them per suite; the default catalogue appends them
on its first miss). Nothing else changes: the same names, groups and order.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from benchdeck.engine.families.tpcc.names import warehouses_of

if TYPE_CHECKING:
    from benchdeck.engine.catalogue_workload import Workload

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


def insertbench_suite() -> tuple[tuple[str, str], ...]:
    """The Insert Benchmark's classic steps in their order: loads first, then the query steps."""
    from benchdeck.engine.families.insertbench.steps import STEP_NAMES, step_kind

    return tuple((name, "queries" if step_kind(name) == "query" else "load") for name in STEP_NAMES)


# db_bench steps in the posts' order; the *ww steps read (beside one rate-limited writer).
_DBBENCH_GROUP = {"fillseq": "write", "overwrite": "write"}


def dbbench_suite(setup: str) -> tuple[tuple[str, str], ...]:
    """The db_bench steps for one setup (``byrx``, ``iobuf``, ``iodir``): ``fillseq.byrx`` ..."""
    from benchdeck.engine.families.dbbench.command import STEPS

    return tuple((f"{step}.{setup}", _DBBENCH_GROUP.get(step, "read")) for step in STEPS)


PGBENCH: tuple[tuple[str, str], ...] = (
    (f"{PGBENCH_PREFIX}select-only", "pgbench"),
    (f"{PGBENCH_PREFIX}tpcb-like", "pgbench"),
)

# The TPC-C-like mix on 1 and 4 warehouses (any tpcc.wN runs).
TPCC: tuple[tuple[str, str], ...] = (("tpcc.w1", "tpcc"), ("tpcc.w4", "tpcc"))

Suite = tuple[tuple[str, str], ...]


class _Suites(Mapping[str, Suite]):
    """The posts' suites by name: the names at once, a family's steps when first read."""

    def __init__(self, make: dict[str, Callable[[], Suite]]) -> None:
        self._make = make
        self._made: dict[str, Suite] = {}

    def __getitem__(self, name: str) -> Suite:
        if name not in self._made:
            self._made[name] = self._make[name]()
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._make)

    def __len__(self) -> int:
        return len(self._make)


SUITES: Mapping[str, Suite] = _Suites(
    {
        "classic": lambda: CLASSIC_42,
        "modern": lambda: MODERN_33,
        "insertbench": insertbench_suite,
        "dbbench": lambda: dbbench_suite("byrx"),
        "dbbench-iobuf": lambda: dbbench_suite("iobuf"),
        "dbbench-iodir": lambda: dbbench_suite("iodir"),
        "pgbench": lambda: PGBENCH,
        "tpcc": lambda: TPCC,
    }
)


def __getattr__(name: str) -> Suite:
    """``INSERTBENCH``: the Insert Benchmark's suite (read from its module when first asked for)."""
    if name == "INSERTBENCH":
        return SUITES["insertbench"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Suites of the families other than sysbench, appended to the default catalogue's order.
_FAMILY_SUITES = ("insertbench", "dbbench", "dbbench-iobuf", "dbbench-iodir", "pgbench", "tpcc")


def family_of(workload: str) -> str:
    """Which tool runs a workload (and reads its output): ``sysbench``, ``insertbench``,
    ``dbbench``, ``pgbench`` or ``tpcc`` (see the module docstring for the naming)."""
    from benchdeck.engine.families.dbbench.command import ALIASES, BENCHMARK
    from benchdeck.engine.families.insertbench.steps import step_kind

    if step_kind(workload) is not None:
        return "insertbench"
    if warehouses_of(workload) is not None:
        return "tpcc"
    if workload.startswith(PGBENCH_PREFIX):
        return "pgbench"
    step = workload.split(".", 1)[0]
    if step in BENCHMARK or step in ALIASES:
        return "dbbench"
    return "sysbench"


_WORKLOAD = re.compile(r"^(?P<test>[a-z0-9][a-z0-9.-]*?)(?:_range=(?P<range>\d+))?$")


class Catalogue:
    """Order and group of every known workload; unknown names sort last (by name), in group ``other``.

    ``more``: entries that come after ``entries``, read when first needed: for a name not found
    that ``more_may_hold`` (default: any) says may be among them, or when every name is asked
    for. The overrides' own names come after those.
    """

    def __init__(
        self,
        entries: Iterable[tuple[str, str]],
        overrides: Mapping[str, str] | None = None,
        more: Callable[[], Iterable[tuple[str, str]]] | None = None,
        more_may_hold: Callable[[str], bool] = lambda name: True,
    ):
        self._order: dict[str, int] = {}
        self._group: dict[str, str] = {}
        self._overrides = dict(overrides or {})
        self._more = more
        self._more_may_hold = more_may_hold
        self._add(entries)
        if more is None:
            self._override()
        else:  # the groups of names already here: the overrides' own names wait for ``more``
            self._group.update((n, g) for n, g in self._overrides.items() if n in self._group)

    def _add(self, entries: Iterable[tuple[str, str]]) -> None:
        for name, group in entries:
            if name not in self._order:
                self._order[name] = len(self._order)
                self._group[name] = group

    def _override(self) -> None:
        for name, group in self._overrides.items():
            self._group[name] = group
            self._order.setdefault(name, len(self._order))

    def _complete(self) -> Catalogue:
        if self._more is not None:
            more, self._more = self._more, None
            self._add(more())
            self._override()
        return self

    def _missing(self, name: str) -> bool:
        """Whether ``name``, not found yet, may be found once ``more`` is read."""
        return self._more is not None and (name in self._overrides or self._more_may_hold(name))

    def group_of(self, name: str) -> str:
        group = self._group.get(name)
        if group is None and self._missing(name):
            group = self._complete()._group.get(name)
        return OTHER_GROUP if group is None else group

    def sort_key(self, name: str) -> tuple[int, str]:
        order = self._order.get(name)
        if order is None and self._missing(name):
            order = self._complete()._order.get(name)
        return (UNKNOWN_ORDER if order is None else order, name)

    def workload(self, name: str) -> Workload:
        from benchdeck.engine.catalogue_workload import Workload  # (its class: only when asked)

        return Workload(
            name=name, group=self.group_of(name), order=self.sort_key(name)[0], family=family_of(name)
        )

    def groups(self) -> list[str]:
        values = self._complete()._group.values()
        seen = [g for g in GROUPS if g in values]
        seen += sorted(set(values) - set(seen))
        return seen

    def names(self) -> list[str]:
        return sorted(self._complete()._order, key=self._order.__getitem__)


UNKNOWN_ORDER = sys.maxsize
"""The order of a name no catalogue knows: after every known one (the same whether or not a
catalogue has read its ``more``, so keys taken before and after compare as they should)."""


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
    if suite is None:  # the families' steps come after every sysbench step: read when needed
        return Catalogue(entries, overrides, more=_family_entries, more_may_hold=_may_be_family)
    if suite not in SUITES:
        raise ValueError(f"unknown suite {suite!r} (expected one of {', '.join(sorted(SUITES))})")
    return Catalogue(merged_order(SUITES[suite], entries + _family_entries()), overrides)


def _family_entries() -> list[tuple[str, str]]:
    return [entry for name in _FAMILY_SUITES for entry in SUITES[name]]


def _may_be_family(name: str) -> bool:
    """False for a sysbench step with a range (``<test>_range=N``, :func:`workload_name`): no
    other family's step is named so (``l.i0``, ``qr100``, ``fillseq.byrx``, ``pgbench.tpcb-like``,
    ``tpcc.w4``; tests/engine/test_catalogue.py holds it), so such an unknown name needs no
    family module."""
    return "_range=" not in name


def load_group_overrides(path: Path) -> dict[str, str]:
    """Read ``[groups]`` (workload name -> group) from a TOML file."""
    import tomllib  # (only with --groups: not on every command's start)

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
