"""What a comparison can be made of on one host (builds, configs, dops with finished runs), and
the comparison to open with: the user's choice, else the one remembered for the host and config,
else a sensible default (the busiest host, config and dop; the two oldest builds).

Shared by Compare and Triage, so Triage works from a cold start; :func:`run_comparison` makes
the comparison of a resolved selection. No Textual here: the screens call these from thread
workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import duckdb

from benchdeck.store.analysis.column_choices import ColumnChoice, column_choices
from benchdeck.store.analysis.columns import Column
from benchdeck.store.storage.lookups import host_workloads
from benchdeck.store.storage.run_lists import (
    busiest_host,
    dop_counts,
    list_builds,
    list_configs,
    list_hosts,
)
from benchdeck.tui.app.state.selection import Selection
from benchdeck.tui.app.state.settings import SavedComparison, UiSettings

Pair = tuple[str, str, str | None]
"""A column the host has finished runs for: (build, config, cluster or None for runs alone)."""

if TYPE_CHECKING:  # store.compare brings numpy and scipy: loaded when a comparison is made
    from benchdeck.store.analysis.compare import Comparison
    from benchdeck.store.analysis.scaling import Scaling


@dataclass(frozen=True, slots=True)
class Choices:
    """What the pickers offer on the selection's host, and the selection resolved against it."""

    hosts: tuple[str, ...]
    configs: tuple[str, ...]
    """Configs with finished runs on the host, the busiest first."""
    builds: tuple[str, ...]
    """Builds with finished runs on the host in the chosen config, oldest version first."""
    dops: tuple[int | None, ...]
    """Dops with finished runs on the host in the chosen config, the busiest first."""
    sel: Selection
    columns: tuple[ColumnChoice, ...] = ()
    """The (build, config) pairs with finished runs on the host at the chosen dop, alone or on a
    cluster: what a column can be (a build under another config is written ``build:config``,
    on a cluster ``build@cluster``)."""


def load_choices(cur: duckdb.DuckDBPyConnection, sel: Selection, saved: UiSettings) -> Choices:
    """Resolve ``sel`` against the store.

    A selection without a base is a fresh start on its host (and config, if given): what was
    remembered for them fills it in, else the defaults. A selection with a base keeps what is
    still valid of it.
    """
    hosts = tuple(list_hosts(cur))
    latest = saved.latest()
    host = sel.host if sel.host in hosts else None
    if host is None and sel.host is None and latest is not None and latest.host in hosts:
        host = latest.host
    if host is None:
        host = busiest_host(cur)
        sel = Selection()
    if host is None:
        return Choices(hosts, (), (), (), Selection())
    pairs = {(c.build, c.config, c.cluster) for c in column_choices(cur, host)}
    configs = tuple(list_configs(cur, host))
    fresh = sel.base is None
    config = sel.config
    if config not in configs:
        remembered = saved.latest(host) if fresh else None
        config = remembered.config if remembered and remembered.config in configs else None
    if config is None and len(configs) > 1:
        config = configs[0]
    if len(configs) <= 1:
        config = None
    builds = tuple(list_builds(cur, host, config))
    dops = tuple(dop_counts(cur, host, config))
    if fresh:
        sel = _fresh(host, config, builds, dops, saved.comparison(host, config), pairs)
    else:
        base = sel.base if sel.base in builds else (builds[0] if builds else None)
        with_builds = valid_columns(sel.with_builds, base, config, pairs)
        if not with_builds and not sel.with_builds:  # a base alone (set in Runs): add a column
            kept = saved.comparison(host, config)
            with_builds = valid_columns(kept.columns if kept else (), base, config, pairs)
            with_builds = with_builds or tuple(b for b in builds if b != base)[:1]
        dop = sel.dop if sel.dop is None or sel.dop in dops else _busiest(dops)  # None: all dops
        sel = Selection(host, base, with_builds, config, dop)
    return Choices(hosts, configs, builds, dops, sel, tuple(column_choices(cur, host, sel.dop)))


def valid_columns(
    columns: Sequence[str], base: str | None, config: str | None, pairs: set[Pair]
) -> tuple[str, ...]:
    """The columns (``build``, ``build:config``, either ``@cluster``) that have runs on the
    host, the base's pair (alone) left out."""
    kept = []
    for text in columns:
        col = Column.parse(text)
        cfg = col.config if col.config is not None else config
        on = col.cluster
        found = (
            (col.build, cfg, on) in pairs
            if cfg is not None
            else any(b == col.build and c == on for b, _, c in pairs)
        )
        if found and not (col.build == base and cfg == config and on is None) and text not in kept:
            kept.append(text)
    return tuple(kept)


def column_value(choice: ColumnChoice, config: str | None, configs: int) -> str:
    """How a selection names a column: its build under the selection's config (or when the host
    has one config), else ``build:config``; ``@cluster`` after either for runs on a cluster."""
    same = choice.config == config or (config is None and configs <= 1)
    return str(replace(choice.column, config=None) if same else choice.column)


def _fresh(
    host: str,
    config: str | None,
    builds: tuple[str, ...],
    dops: tuple[int | None, ...],
    remembered: SavedComparison | None,
    pairs: set[Pair],
) -> Selection:
    if remembered is not None and remembered.base in builds:
        base = remembered.base
        with_builds = valid_columns(remembered.columns, base, config, pairs)
        dop = remembered.dop if remembered.dop in dops else _busiest(dops)
        return Selection(host, base, with_builds, config, dop)
    first = builds[0] if builds else None
    return Selection(host, first, tuple(b for b in builds if b != first)[:1], config, _busiest(dops))


def _busiest(dops: tuple[int | None, ...]) -> int | None:
    """The dop most runs used (rows of other dops, such as a warm-up step's, are not shown)."""
    return dops[0] if dops else None


def is_warmup(workload: str, group: str) -> bool:
    """A warm-up step (``point-query.warm_range=100``, run before the measured ones, often at
    another dop): not a row. ``scan.warm`` is a measured step of the modern suite (it has a group)."""
    return ".warm" in workload and group == "other"


def run_comparison(cur: duckdb.DuckDBPyConnection, sel: Selection) -> Comparison:
    """``compare`` for a complete selection, with the default workload catalogue; warm-up
    steps are left out."""
    from benchdeck.engine.catalogue import default_catalogue
    from benchdeck.store.analysis.compare import compare

    cat = default_catalogue()
    assert sel.host is not None
    assert sel.base is not None
    measured = {n for n in host_workloads(cur, sel.host) if not is_warmup(n, cat.group_of(n))}
    return compare(
        cur,
        host=sel.host,
        base=sel.base,
        with_builds=list(sel.with_builds),
        group_of=cat.group_of,
        sort_key=cat.sort_key,
        config=sel.config,
        dop=sel.dop,
        only=measured,
    )


def run_scaling(cur: duckdb.DuckDBPyConnection, cmp: Comparison) -> Scaling | None:
    """The scale-up of the comparison's builds on its host (every config; the columns pick
    theirs), or None when a build has no run at a known dop."""
    from benchdeck.engine.catalogue import default_catalogue
    from benchdeck.store.analysis.scaling import ScalingError, scaling

    cat = default_catalogue()
    builds = list(dict.fromkeys(cmp.spec(label).build for label in (cmp.base, *cmp.columns)))
    try:
        return scaling(cur, host=cmp.host, builds=builds, group_of=cat.group_of, sort_key=cat.sort_key)
    except ScalingError:
        return None


def scaling_flags(cur: duckdb.DuckDBPyConnection, cmp: Comparison) -> dict[tuple[str, str], str]:
    """Triage's scaling flags, by (column label, workload): a column whose scale-up at the
    highest dop it shares with the base fell under 90% of the base's (store/analysis/scaling.py)."""
    from benchdeck.store.analysis.scaling import collapses

    s = run_scaling(cur, cmp)
    if s is None:
        return {}
    base = cmp.spec(cmp.base)
    flags: dict[tuple[str, str], str] = {}
    for label in cmp.columns:
        col = cmp.spec(label)
        for c in collapses(s, (base.build, base.config), (col.build, col.config)):
            flags[(label, c.workload)] = c.text()
    return flags
