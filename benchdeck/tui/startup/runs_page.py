"""One page of the Runs screen as read from the store: the leaf the start-up path and the Runs
screen share (no Textual, no DuckDB import of its own)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchdeck.store.storage.run_lists import (
    HistoryRow,
    RunFilter,
    count_runs,
    has_cluster_runs,
    list_builds,
    list_hosts,
    run_history,
)

if TYPE_CHECKING:
    import duckdb


@dataclass(frozen=True, slots=True)
class RunsPage:
    """What the Runs screen shows for one filter: the newest runs, the hosts and builds to
    filter by, and how many runs match in all (``RunFilter.limit`` caps the rows)."""

    runs: list[HistoryRow]
    hosts: list[str]
    builds: list[str]
    total: int
    clusters: bool = False
    """The store has runs on a cluster (any, whatever the filter): the cluster columns show."""


def read_runs_page(cur: duckdb.DuckDBPyConnection, f: RunFilter) -> RunsPage:
    runs = run_history(cur, f)
    total = count_runs(cur, f) if len(runs) >= f.limit else len(runs)
    return RunsPage(runs, list_hosts(cur), list_builds(cur), total, has_cluster_runs(cur))


def read_first_page(cur: duckdb.DuckDBPyConnection) -> RunsPage:
    """The first page of Runs, unfiltered: what a start shows and keeps."""
    return read_runs_page(cur, RunFilter())
