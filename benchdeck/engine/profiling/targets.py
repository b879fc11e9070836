"""Which process a run's capture watches (:class:`CapturePlan` target specs), from its plan.

- a managed server: its pid file (MySQL/MariaDB ``mysqld.pid``, PostgreSQL ``postmaster.pid``),
  then its datadir and port in case it was restarted elsewhere;
- an existing server benchdeck does not manage: the process listening on its port;
- db_bench and the built-in SQLite workload: the benchmark itself (its process group);
- PostgreSQL: the postmaster and its children, found again at every window, so the backends
  of the window's connections are counted (a backend that starts mid-window is counted from
  the next window on; the benchmark's connections live for the whole run).
"""

from __future__ import annotations

from dataclasses import replace

from benchdeck.engine.hosts.inventory import BuildConfig, HostConfig
from benchdeck.engine.planning.plan import RunPlan, RunRequest
from benchdeck.engine.profiling.capture import CaptureOptions, capture_plan
from benchdeck.engine.servers import ManagedServer


def targets(
    plan: RunPlan, build: BuildConfig | None, server: ManagedServer | None
) -> tuple[tuple[str, ...], bool]:
    """(target specs, whether to add the target's children) of a run."""
    if build is None or build.build.dbms in ("sqlite", "rocksdb") or plan.family == "dbbench":
        return ("bench",), False
    postgres = build.build.dbms == "postgres"
    found: list[str] = []
    if server is not None:
        pid_file = getattr(server, "pid_file", None)
        if isinstance(pid_file, str):
            found.append(f"pidfile:{pid_file}")
        found += [f"datadir:{server.spec.datadir}", f"port:{server.spec.port}"]
    elif build.port is not None:
        found.append(f"port:{build.port}")
    else:  # the DBMS's default port (a socket-only server: give its port in the inventory)
        found.append(f"port:{5432 if postgres else 3306}")
    return tuple(found), postgres


def with_capture(
    plan: RunPlan, host: HostConfig, build: BuildConfig | None, req: RunRequest, server: ManagedServer | None
) -> RunPlan:
    """``plan`` with the capture the request asks for (unchanged when it asks for none)."""
    found, children = targets(plan, build, server)
    opts = req.options.capture
    if opts is None and host.profile:  # the inventory's: [hosts.X] profile = "counters,cpu"
        opts = CaptureOptions(host.profile)
    run_s = None if plan.open_ended else plan.duration_s
    capture, files = capture_plan(
        opts, found, children, plan.remote_dir, host.transport == "local", run_s, host.python
    )
    if capture is None:
        return plan
    return replace(plan, capture=capture, files=(*plan.files, *files))
