"""What a run was asked to do, so it can be queued again the same way (Re-run in the app)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import duckdb

_TIME_FLAG = re.compile(r"--time[= ](\d+)")


@dataclass(frozen=True, slots=True)
class RunAgain:
    """A stored run's host, build, workload, config and the options it ran with."""

    run_id: int
    host: str
    build: str
    workload: str
    config: str
    threads: int | None
    duration_s: int | None
    """The measured duration it was planned with (None: unknown, the default applies)."""
    options: dict[str, Any] = field(default_factory=dict)
    """The options of the queue that ran it (tables, warm-up, extra ...), when it was queued."""


def run_again(cur: duckdb.DuckDBPyConnection, run_id: int) -> RunAgain | None:
    """How ``run_id`` ran, or None if it is gone. The duration comes from the run's stored plan,
    else its queue's options, else its command line's ``--time``."""
    row = cur.execute(
        "SELECT h.name, b.name, w.name, r.config, r.threads, r.command, rr.plan, q.options "
        "FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
        "JOIN workloads w USING (workload_id) LEFT JOIN remote_runs rr ON rr.run_id = r.run_id "
        "LEFT JOIN queue_items i ON i.run_id = r.run_id LEFT JOIN queues q ON q.queue_id = i.queue_id "
        "WHERE r.run_id = ? LIMIT 1",
        [run_id],
    ).fetchone()
    if row is None:
        return None
    host, build, workload, config, threads, command, plan, queue_options = row
    options: dict[str, Any] = json.loads(queue_options) if queue_options else {}
    duration = _int(json.loads(plan).get("duration_s")) if plan else None
    if duration is None:
        duration = _int(options.get("duration_s"))
    if duration is None and command:
        found = _TIME_FLAG.search(command)
        duration = int(found.group(1)) if found else None
    return RunAgain(run_id, host, build, workload, config or "", threads, duration, options)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
