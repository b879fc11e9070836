"""The built-in SQLite workloads on a compiled SQLite build (``library_dir``), on any host.

Python's ``sqlite3`` links ``libsqlite3.so.0`` dynamically, so the build's directory on
``LD_LIBRARY_PATH`` selects it; ``--expect-lib`` makes the workload fail when another library
was loaded (the one measured is the one built, and the run's plan says which). Over SSH the
workload's sources go into the run directory and run with the host's ``python3``: nothing of
benchdeck to install there.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace

from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS, builtin_argv, is_builtin
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.context import PlanContext
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.running.client_files import client_launch, package_files

CLIENT_DIR = "bi"  # in the run directory: engine/families/builtin/*.py, importable from here
CLIENT_PACKAGE = "benchdeck.engine.families.builtin"
_SOURCES = ("__init__", "catalogue", "sqlite_bench")
BUILTIN_BUILD = "sqlite"  # the default built-in build (of BUILTIN_BUILDS)


class SqliteBuildError(ValueError):
    """A workload a SQLite build cannot run, in one line."""


def check_sqlite_build(workload: str, build: BuildConfig) -> str:
    """``sysbench`` (the family the built-in workloads report as) if ``build`` can run it."""
    if not is_builtin(workload):
        raise SqliteBuildError(
            f"{build.name} is a SQLite build: it runs the built-in workloads (suite builtin), not {workload}"
        )
    if not build.library_dir:
        raise SqliteBuildError(f"SQLite build {build.name} has no library_dir (where its libsqlite3.so.0 is)")
    return "sysbench"


def client_files() -> tuple[tuple[str, str], ...]:
    """The workload's sources as (path in the run directory, text): standard library only."""
    return package_files(CLIENT_PACKAGE, _SOURCES, CLIENT_DIR)


def sqlite_build_plan(ctx: PlanContext, build: BuildConfig) -> RunPlan:
    """The plan of a built-in workload on the SQLite library of ``build``."""
    host, req, remote_dir = ctx.host, ctx.req, ctx.remote_dir
    check_sqlite_build(req.workload, build)
    assert build.library_dir is not None
    duration = req.options.duration_s or 60
    launch = client_launch(host.transport, host.python, CLIENT_PACKAGE, remote_dir, CLIENT_DIR, client_files)
    env, files, python = {"LD_LIBRARY_PATH": build.library_dir, **launch.env}, launch.files, launch.python

    def argv(command: str) -> tuple[str, ...]:
        a = _workload_argv(ctx, duration, command)
        return (python, *a[1:-2], f"--expect-lib={build.library_dir}", *a[-2:])

    return replace(
        ctx.plan(argv("run"), duration),
        prepare_argv=argv("prepare") if req.options.prepare else None,
        table_size=req.options.table_size or host.table_size,
        env=tuple(env.items()),
        files=files,
    )


def builtin_plan(ctx: PlanContext) -> RunPlan:
    """The plan of a built-in SQLite workload on Python's own sqlite3 (builds sqlite, sqlite-sync)."""
    o = ctx.req.options
    duration = o.duration_s or 60
    durability = BUILTIN_BUILDS[ctx.req.build]
    run = _workload_argv(ctx, duration, "run", durability, serial=ctx.req.config == "serial")
    prepare = _workload_argv(ctx, duration, "prepare", durability)
    return replace(
        ctx.plan(tuple(run), duration),
        prepare_argv=tuple(prepare) if o.prepare else None,
        table_size=o.table_size or ctx.host.table_size,
    )


def _workload_argv(
    ctx: PlanContext, duration: int, command: str, durability: str = "normal", *, serial: bool = False
) -> list[str]:
    """The run's built-in workload with the request's (else the host's) threads, tables and rows;
    its database beside the run directories (``WORKDIR/builtin-BUILD.sqlite``)."""
    o, host = ctx.req.options, ctx.host
    workdir = posixpath.dirname(posixpath.dirname(ctx.remote_dir))  # remote_dir is WORKDIR/runs/runN-x
    return builtin_argv(
        ctx.req.workload,
        db_path=posixpath.join(workdir, f"builtin-{ctx.req.build}.sqlite"),
        time_s=duration,
        threads=o.threads or host.threads,
        tables=o.tables or host.tables,
        table_size=o.table_size or host.table_size,
        command=command,
        durability=durability,
        serial=serial,
    )
