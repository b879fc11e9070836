"""From a user's request (host, build, workload, options) to a ready server and a run's events.

A :class:`Session` holds one transport per host, reused across runs. :func:`execute` brings a
managed server up when needed (or runs the build's own start command), has the run planned
(:func:`engine.planner.make_plan`), and yields the runner's events.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import secrets
from collections.abc import AsyncIterator
from datetime import datetime

from benchdeck.engine.cluster.cluster_nodes import Node
from benchdeck.engine.cluster.prepare import ClusterError, prepare_cluster, run_nodes
from benchdeck.engine.cluster.sampling import ClusterSampling
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.dispatch.planner import check_build, make_plan
from benchdeck.engine.dispatch.table import BUILTIN_BUILDS, BUILTIN_CONFIGS, WorkloadError
from benchdeck.engine.events import ClusterPlanned, LogLine, Phase, Recorded, RunEvent, RunFailed
from benchdeck.engine.hosts.inventory import DEFAULTS, HostConfig, Inventory
from benchdeck.engine.planning.build_conn import server_spec, sql_client
from benchdeck.engine.planning.plan import RunRequest
from benchdeck.engine.running import cluster_run, provenance
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.servers import ManagedServer, ServerError, make_server
from benchdeck.engine.servers import state as server_state
from benchdeck.engine.transport import Transport, TransportError, make_transport


def runs_workdir(host: HostConfig, local_workdir: str | None) -> str:
    """Where ``host``'s run directories go (under ``runs/``): the inventory's ``workdir``; for a
    local host without one of its own, ``local_workdir`` (beside the store the runs go into) when
    given, so two stores' local and built-in runs never share a directory."""
    if local_workdir and host.transport == "local" and host.workdir == DEFAULTS["workdir"]:
        return local_workdir
    return host.workdir


def run_dir_name(run_id: int, tag: str = "") -> str:
    """``run12-benchdeck-3fa9c1``: the run id, the store's tag (run ids of two stores are alike)
    and 6 random hex digits (a store deleted and made again restarts its run ids)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", tag)[:32].strip("._-")
    return f"run{run_id}-{safe + '-' if safe else ''}{secrets.token_hex(3)}"


class Session:
    """Hosts of an inventory, each reached through one transport reused across runs."""

    def __init__(self, inventory: Inventory):
        self.inventory = inventory
        self._transports: dict[str, Transport] = {}
        self._homes: dict[str, str] = {}
        self.store_tag = ""
        """Names the store in each run directory's name (:func:`run_dir_name`)."""
        self.local_workdir: str | None = None
        """Run directories of local hosts without a ``workdir`` (:func:`runs_workdir`)."""

    async def transport(self, host: str) -> Transport:
        if host not in self._transports:
            t = make_transport(self.inventory.host(host).spec)
            await t.connect()
            self._transports[host] = t
        return self._transports[host]

    async def remote_path(self, host: str, path: str) -> str:
        """Expand a leading ``~`` on the host (argv is never run through a shell)."""
        if not path.startswith("~"):
            return path
        if host not in self._homes:
            res = await (await self.transport(host)).run(["sh", "-c", 'printf %s "$HOME"'])
            home = res.stdout.strip()
            if not home:
                raise TransportError(f"{host}: cannot find the remote home directory for {path!r}")
            self._homes[host] = home
        return self._homes[host] + path[1:]

    async def runs_root(self, host: str) -> str:
        """Where ``host``'s run directories go (``runs/`` under it), ``~`` expanded."""
        return await self.remote_path(host, runs_workdir(self.inventory.host(host), self.local_workdir))

    async def close(self) -> None:
        for t in self._transports.values():
            with contextlib.suppress(TransportError):
                await t.close()
        self._transports.clear()


async def execute(session: Session, req: RunRequest, run_id: int) -> AsyncIterator[RunEvent]:
    """Run one request as ``run_id``: server up if managed, then the runner's events."""
    try:
        host = session.inventory.host(req.host)
        transport = await session.transport(req.host)
        workdir = await session.remote_path(req.host, host.workdir)
        runs_root = await session.runs_root(req.host)
        remote_dir = posixpath.join(runs_root, "runs", run_dir_name(run_id, session.store_tag))
        build = host.builds.get(req.build)
        if build is None and req.build not in BUILTIN_BUILDS:
            known = ", ".join(sorted(host.builds)) or "none configured"
            raise WorkloadError(f"host {req.host} has no build {req.build!r} (builds: {known})")
        if build is not None:
            build = build.with_config(req.config)
        elif req.config and req.config not in BUILTIN_CONFIGS:
            raise WorkloadError(f"the built-in build {req.build} has no config {req.config!r}")
        check_build(req.workload, req.build, build)  # before a server is started for nothing
        cluster: ClusterSpec | None = None
        primary: Node | None = None
        if req.cluster:
            cluster = cluster_run.cluster_of(session.inventory, req.cluster, req.host)
            if build is None:
                raise WorkloadError(
                    f"a run on cluster {cluster.name} needs a build of the inventory, not {req.build}"
                )
            # managed nodes up and replicating (their own datadirs, ports and options), then
            # every node checked: a cluster not fit to run on is one line (ClusterError)
            args = (session.transport, session.inventory, cluster, req.build, req.config)
            async for line in prepare_cluster(*args):
                yield Phase(run_id, "cluster", line)
            nodes = await run_nodes(*args)  # resolved once: the primary to drive, what to sample
            primary = next(n for n in nodes if n.spec.role == "primary")
            build = primary.build  # its port and config on the primary's node
        server: ManagedServer | None = None
        if primary is not None and primary.server is not None:
            server = primary.server  # the cluster's own primary, up: never the build's usual server
            await server.setup_database()
        elif build is not None and build.managed:
            server = make_server(transport, server_spec(build, workdir))
            label = build.name + (f" ({build.config})" if build.config else "")
            # one server per port, whichever benchdeck started it: recorded on the host
            async for done in server_state.claim_port(transport, req.host, workdir, server):
                yield Phase(run_id, "server", done)
            yield Phase(run_id, "server", f"starting {label}")
            await _ensure_running(server)
            await server_state.record_started(transport, workdir, server, build.name, build.config)
        elif build is not None and build.start:
            yield Phase(run_id, "server", f"starting {build.name}: {build.start[0]}")
            await _run_script(transport, (*build.placement, *build.start), "start")
        plan = make_plan(run_id, host, build, req, remote_dir, server)
        db = provenance.db_access(build, server, sql_client(build) if server is None else None)
        sampling: ClusterSampling | None = None
        if cluster is not None:
            sampling = await cluster_run.sampling_for(cluster, nodes, plan, session.runs_root)
    except (WorkloadError, ServerError, TransportError, ValueError, ClusterError) as exc:
        yield RunFailed(run_id, str(exc), datetime.now().replace(microsecond=0))
        return
    if cluster is not None:
        yield ClusterPlanned(run_id, cluster)
    yield Recorded(run_id, await provenance.capture(transport, plan, db))
    runner = Runner(transport, plan, cluster=sampling, connect=session.transport)
    async for ev in provenance.with_outputs(transport, plan, runner.events()):
        yield ev
    if req.options.stop_server and cluster is not None:
        yield LogLine(
            run_id, "benchdeck", f"the servers of cluster {cluster.name} keep running (a cluster stays up)"
        )
    elif req.options.stop_server and (server is not None or (build is not None and build.stop)):
        try:
            if server is not None:
                await server.stop()
                await server_state.remove(transport, workdir, server.spec.port)
            elif build is not None and build.stop:
                await _run_script(transport, build.stop, "stop")
        except (ServerError, TransportError) as exc:
            yield LogLine(run_id, "benchdeck", f"stopping the server failed: {exc}")


async def _run_script(transport: Transport, argv: tuple[str, ...], what: str) -> None:
    """The user's own start/stop command (an argv list from the inventory)."""
    res = await transport.run(list(argv), timeout=600)
    if not res.ok:
        lines = (res.stderr or res.stdout).strip().splitlines()
        raise ServerError(f"{what} command {argv[0]} exited {res.exit_status}: {lines[-1] if lines else ''}")


async def _ensure_running(server: ManagedServer) -> None:
    if not await server.exists():
        await server.create()
    if not await server.is_running():
        await server.start()
    await server.wait_ready()
    await server.setup_database()
