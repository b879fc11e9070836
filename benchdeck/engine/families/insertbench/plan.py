"""The plan of an Insert Benchmark step (``l.i0`` ... ``qp1000``) on a MySQL, MariaDB or PostgreSQL build.

How :class:`RunOptions` map: ``tables`` -> ``--table-count``; ``threads`` -> ``--query-threads``
(per table, query steps); an explicit ``table_size`` -> ``--rows`` of ``l.i0`` (the host's
default table_size is a sysbench value and is not used); ``duration_s`` -> ``--seconds`` of the
query steps (the load steps run until their rows are in); ``extra`` -> client options
(``rows=3000`` -> ``--rows=3000`` for every step, an empty value or ``true``/``false`` for
``delete-per-insert``), checked against the client's options. No prepare (``l.i0`` creates the
tables), no warm-up.

The client runs with the host's Python: this interpreter (``sys.executable``, importing this
benchdeck) on a local host; over SSH, ``python3`` with the client's sources written into the run
directory (standard library plus PyMySQL or psycopg on that host).
"""

from __future__ import annotations

import math
from dataclasses import replace

from benchdeck.engine.families.insertbench import steps as ib_steps
from benchdeck.engine.families.sysbench.command import WorkloadError
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.build_conn import connection
from benchdeck.engine.planning.context import OPEN_ENDED_S, PlanContext
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.client_files import client_launch, package_files
from benchdeck.engine.servers import ManagedServer

# Insert Benchmark client options a run may set with RunOptions.extra (--param KEY=VALUE);
# the connection, step, table count and report interval are benchdeck's.
IB_OPTIONS = frozenset({
    "rows", "seconds", "rate", "query-threads", "insert-threads", "delete-per-insert",
    "rows-per-commit", "rows-per-query", "data-length-min", "data-length-max", "seed", "table-prefix",
})  # fmt: skip
_IB_FLAGS = {"delete-per-insert"}
_IB_FLOATS = {"seconds", "rate"}
_TRUE, _FALSE = frozenset({"", "1", "true", "on", "yes"}), frozenset({"0", "false", "off", "no"})
IB_CLIENT_DIR = "ib"  # in the run directory: engine/families/insertbench/*.py, importable from here
IB_PACKAGE = "benchdeck.engine.families.insertbench"


def insertbench_plan(ctx: PlanContext, build: BuildConfig, server: ManagedServer | None) -> RunPlan:
    """The plan of Insert Benchmark step ``req.workload``."""
    host, req, remote_dir = ctx.host, ctx.req, ctx.remote_dir
    o, step = req.options, req.workload
    try:
        defaults = ib_steps.get_step(step)
    except ValueError as exc:
        raise WorkloadError(str(exc)) from None
    overrides: dict[str, str | int | float | bool] = {}
    if o.table_size and step == "l.i0":
        overrides["rows"] = o.table_size
    if defaults.kind == "query":
        overrides["query-threads"] = o.threads or host.threads
        if o.duration_s:
            overrides["seconds"] = o.duration_s
    for key, value in o.extra.items():
        overrides[key] = _insertbench_value(key, value)
    seconds = float(overrides.get("seconds", defaults.seconds))
    if defaults.kind == "query":
        duration = max(1, math.ceil(seconds))
    else:  # a load step runs until its rows are in (``seconds`` caps it)
        duration = max(1, math.ceil(seconds)) if "seconds" in overrides else OPEN_ENDED_S
    c = connection(build, server)
    launch = client_launch(
        host.transport, host.python, IB_PACKAGE, remote_dir, IB_CLIENT_DIR, insertbench_client_files
    )
    argv = ib_steps.step_argv(
        step,
        dbms=c.dbms,
        host=c.host,
        port=c.port,
        user=c.user,
        password=c.password,
        database=c.database,
        python=launch.python,
        table_count=o.tables or host.tables,
        overrides=overrides,
    )
    return replace(
        ctx.plan(tuple(argv), duration),
        table_size=o.table_size or host.table_size,
        family="insertbench",
        env=tuple(launch.env.items()),
        files=launch.files,
        open_ended=defaults.kind != "query",
    )


def _insertbench_value(key: str, value: str) -> str | bool:
    """A ``--param`` value for the Insert Benchmark client (flags take true/false)."""
    if key not in IB_OPTIONS:
        raise WorkloadError(
            f"--param {key}: not an Insert Benchmark client option (known: {', '.join(sorted(IB_OPTIONS))})"
        )
    if key in _IB_FLAGS:
        v = value.strip().lower()
        if v not in _TRUE | _FALSE:
            raise WorkloadError(f"--param {key}={value}: expected true or false")
        return v in _TRUE
    if key == "table-prefix":
        if not value.isascii() or not value[:1].isalpha() or not value.replace("_", "").isalnum():
            raise WorkloadError(f"--param {key}={value}: expected letters, digits and _")
        return value.lower()
    try:
        number = float(value) if key in _IB_FLOATS else int(value)
    except ValueError:
        raise WorkloadError(f"--param {key}={value}: expected a number") from None
    if not number >= 0 or math.isinf(number):
        raise WorkloadError(f"--param {key}={value}: expected a number >= 0")
    return value


def insertbench_client_files() -> tuple[tuple[str, str], ...]:
    """The Insert Benchmark client as (path in the run directory, source) pairs: standard
    library plus the DB driver (PyMySQL or psycopg) the host must have."""
    return package_files(IB_PACKAGE, ("__init__", "client", "schema", "steps", "workers"), IB_CLIENT_DIR)
