"""What Launch offers and checks, apart from its widgets' layout: the suites, the quick picks,
the perf choices, list refills that keep what the user picked, and why a matrix cannot run."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from textual.widgets import SelectionList

from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS, BUILTIN_WORKLOADS

if TYPE_CHECKING:
    from benchdeck.engine.cluster.spec import ClusterSpec
    from benchdeck.engine.hosts.inventory import Inventory
    from benchdeck.store.storage.db import Store

BUILTIN_SUITE = "builtin"
# Preselected for a first session: a point query, a range query and an update, on both built-in
# builds, 5 s each: a first comparison within about a minute.
QUICK = ("point-query_range=100", "range-covered-pk_range=100", "update-index_range=100")
# What perf captures during the runs (README: Where the CPU goes); "" leaves it to the inventory
CAPTURE_CHOICES = [
    ("inventory's", ""),
    ("counters", "counters"),
    ("cpu profile", "cpu"),
    ("counters + cpu", "counters,cpu"),
]

NO_CLUSTER = "none"  # the Cluster picker's first choice: each host runs its own server


def cluster_label(c: ClusterSpec) -> str:
    """``cluster loop3 (async, 3 nodes)``: how the matrix line names a cluster (the picker
    offers the names alone: whole at 80 columns)."""
    return f"cluster {c.name} ({c.kind}, {len(c.nodes)} nodes)"


def suite_names(inv: Inventory) -> dict[str, tuple[str, ...]]:
    """Every suite a user can pick: the built-in SQLite one, the posts' suites, the inventory's."""
    from benchdeck.engine.catalogue import SUITES

    suites = {BUILTIN_SUITE: BUILTIN_WORKLOADS}
    suites |= {name: tuple(n for n, _ in steps) for name, steps in SUITES.items()}
    suites |= dict(inv.suites)
    return suites


def highlight_first(options: SelectionList[str]) -> None:
    """Lists filled after mount have no highlighted option: space would do nothing until an arrow key."""
    if options.option_count and options.highlighted is None:
        options.highlighted = 0


def offered(options: SelectionList[str]) -> list[str]:
    """The values a list offers, in order."""
    return [str(options.get_option_at_index(i).value) for i in range(options.option_count)]


def refill(options: SelectionList[str], items: list[tuple[str, str, bool]]) -> None:
    """Offer ``items``; a list that already offers the same values is left as it is (what the
    user picked in it, and where they are, stay)."""
    if offered(options) == [value for _, value, _ in items]:
        return
    options.clear_options()
    options.add_options(items)
    highlight_first(options)


def where_runs_go(host: str, workdir: str) -> str:
    """Where a host's run directories are, and that they may be deleted."""
    return (
        f"Run directories: {workdir}/runs/run<id>-* on {host} (raw output, kept after the run is "
        "stored: delete old ones freely)"
    )


def impossible(builds: list[str], workloads: list[str]) -> str | None:
    """Why the matrix cannot run, or None: a built-in SQLite build runs only the built-in
    workloads (the classic suite on ``sqlite`` would fail every step)."""
    sqlite = [b for b in builds if b in BUILTIN_BUILDS]
    foreign = [w for w in workloads if w not in BUILTIN_WORKLOADS]
    if sqlite and foreign:
        more = f" (and {len(foreign) - 1} more)" if len(foreign) > 1 else ""
        return (
            f"{', '.join(sqlite)} run(s) only the {BUILTIN_SUITE} suite's workloads, "
            f"not {foreign[0]}{more}: pick the {BUILTIN_SUITE} suite or other builds"
        )
    return None


def learned_setups(store: Store, hosts: Iterable[str]) -> dict[str, float | None]:
    """Each host's learned set-up time, the store held for these reads only (a cursor of
    ``store.cursor()`` would keep the app's shared store from others until the app ends)."""
    from benchdeck.tui.services.eta import learned_setup_s

    with store.reading() as cur:
        return {h: learned_setup_s(cur, h) for h in hosts}
