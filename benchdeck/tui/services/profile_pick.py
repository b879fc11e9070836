"""Which column of a comparison Compare's ``p`` profiles: the chart's, when the base and it have
profiles of a workload, else the first column that has (it looked at the chart's only)."""

from __future__ import annotations

import duckdb

from benchdeck.store.analysis.compare_model import Comparison
from benchdeck.store.storage.profiles import profiled_workloads


def profiled_column(cur: duckdb.DuckDBPyConnection, cmp: Comparison, prefer: int) -> int:
    """``prefer`` when the base and that column have profiles of a common workload (each under
    its own config), else the first column that has; ``prefer`` when none has."""
    base = cmp.base_column
    for i in (prefer, *(i for i in range(len(cmp.columns)) if i != prefer)):
        spec = cmp.spec(cmp.columns[i])
        if profiled_workloads(cur, cmp.host, [base.build, spec.build], [base.config, spec.config]):
            return i
    return prefer
