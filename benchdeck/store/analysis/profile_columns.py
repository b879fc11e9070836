"""A side of ``benchdeck profile --host``: compare's column syntax (``BUILD[:CONFIG][@DOP]``)
resolved against one workload's finished runs, refusing ambiguity as ``compare`` does: a build
with runs under several configs needs one (it silently merged them), a typo names the closest."""

from __future__ import annotations

import duckdb

from benchdeck.engine.config_names import config_label, stored_config
from benchdeck.engine.planning.unknown import unknown_message
from benchdeck.store.analysis.columns import Column


class ProfileColumnError(ValueError):
    """A side that names nothing or more than one config: one line for the user."""


_CONFIGS_SQL = (
    "SELECT r.config, count(*) FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
    "JOIN workloads w USING (workload_id) WHERE h.name = $host AND b.name = $build AND w.name = $workload "
    "AND r.status = 'finished' GROUP BY 1 ORDER BY 1"
)
_BUILDS_SQL = (
    "SELECT DISTINCT b.name FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
    "WHERE h.name = $host AND r.status = 'finished'"
)
_WORKLOADS_SQL = (
    "SELECT DISTINCT w.name FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
    "JOIN workloads w USING (workload_id) WHERE h.name = $host AND b.name = $build AND r.status = 'finished'"
)


def resolve_side(
    cur: duckdb.DuckDBPyConnection, host: str, col: Column, workload: str, default: str | None
) -> Column:
    """``col`` with its stored config: its own, else ``default`` (``--config``), else the only
    one its build ran ``workload`` with on ``host``."""
    hosts = [str(r[0]) for r in cur.execute("SELECT name FROM hosts").fetchall()]
    if host not in hosts:
        raise ProfileColumnError(unknown_message("host", host, hosts))
    p = {"host": host, "build": col.build, "workload": workload}
    configs = dict(cur.execute(_CONFIGS_SQL, p).fetchall())
    if not configs:
        builds = [str(r[0]) for r in cur.execute(_BUILDS_SQL, {"host": host}).fetchall()]
        if col.build not in builds:
            raise ProfileColumnError(
                unknown_message("build", col.build, builds, f" with finished runs on {host}")
            )
        names = [
            str(r[0]) for r in cur.execute(_WORKLOADS_SQL, {"host": host, "build": col.build}).fetchall()
        ]
        raise ProfileColumnError(unknown_message("workload", workload, names, f" of {col.build} on {host}"))
    cfg = col.config if col.config is not None else default
    if cfg is None:
        if len(configs) == 1:
            return Column(col.build, next(iter(configs)), col.dop)
        listed = ", ".join(config_label(c) for c in configs)
        raise ProfileColumnError(
            f"build {col.build!r} ran {workload} on {host} with configs {listed}: "
            f"pick one with --config or {col.build}:CONFIG"
        )
    cfg = stored_config(cfg, configs)
    if cfg not in configs:
        pairs = ", ".join(f"{col.build}:{config_label(c)} ({n} runs)" for c, n in configs.items())
        raise ProfileColumnError(
            f"build {col.build!r} has no finished run of {workload} on {host} with config "
            f"{config_label(cfg)!r}; it has runs as {pairs}"
        )
    return Column(col.build, cfg, col.dop)
