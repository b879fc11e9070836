"""The built-in SQLite workloads on a compiled SQLite build (``library_dir``), on any host.

Python's ``sqlite3`` links ``libsqlite3.so.0`` dynamically, so the build's directory on
``LD_LIBRARY_PATH`` selects it; ``--expect-lib`` makes the workload fail when another library
was loaded (the one measured is the one built, and the run's plan says which). Over SSH the
workload's sources go into the run directory and run with the host's ``python3``: nothing of
benchdeck to install there.
"""

from __future__ import annotations

import os
import posixpath
import sys

from benchdeck.engine.builtin.catalogue import builtin_argv, is_builtin
from benchdeck.engine.client_files import import_root, package_files
from benchdeck.engine.inventory import BuildConfig, HostConfig
from benchdeck.engine.plan import RunPlan, RunRequest

CLIENT_DIR = "bi"  # in the run directory: engine/builtin/*.py, importable from here
CLIENT_PACKAGE = "benchdeck.engine.builtin"
_SOURCES = ("__init__", "catalogue", "sqlite_bench")


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


def sqlite_build_plan(
    run_id: int, host: HostConfig, build: BuildConfig, req: RunRequest, remote_dir: str
) -> RunPlan:
    """The plan of a built-in workload on the SQLite library of ``build``."""
    check_sqlite_build(req.workload, build)
    assert build.library_dir is not None
    o = req.options
    threads, tables = o.threads or host.threads, o.tables or host.tables
    table_size = o.table_size or host.table_size
    duration = o.duration_s or 60
    workdir = posixpath.dirname(posixpath.dirname(remote_dir))  # remote_dir is WORKDIR/runs/runN-x
    db_path = posixpath.join(workdir, f"builtin-{req.build}.sqlite")
    env = {"LD_LIBRARY_PATH": build.library_dir}
    files: tuple[tuple[str, str], ...] = ()
    if host.transport == "local":
        python = sys.executable
        path = os.pathsep.join(p for p in (import_root(CLIENT_PACKAGE), os.environ.get("PYTHONPATH")) if p)
        if path:
            env["PYTHONPATH"] = path
    else:
        python = "python3"
        files = client_files()
        env["PYTHONPATH"] = posixpath.join(remote_dir, CLIENT_DIR)

    def argv(command: str) -> tuple[str, ...]:
        a = builtin_argv(
            req.workload,
            db_path=db_path,
            time_s=duration,
            threads=threads,
            tables=tables,
            table_size=table_size,
            command=command,
        )
        return (python, *a[1:-2], f"--expect-lib={build.library_dir}", *a[-2:])

    return RunPlan(
        run_id=run_id,
        host=host.name,
        workload=req.workload,
        remote_dir=remote_dir,
        bench_argv=argv("run"),
        duration_s=duration,
        prepare_argv=argv("prepare") if o.prepare else None,
        device=host.device,
        table_size=table_size,
        build=req.build,
        env=tuple(env.items()),
        files=files,
    )
