"""Runs and queues for the clients (CLI and app): engine events into the store, and to a listener.

The engine knows nothing of the store; this is where the two meet. One event queue feeds one
:class:`~store.ingest.EventSink`; hosts run in parallel, each host serially.
"""

from __future__ import annotations

import asyncio
import posixpath
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import duckdb

from benchdeck.engine.builds import Build, BuildNameError, parse_build_name
from benchdeck.engine.catalogue import family_of
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.events import (
    ClusterPlanned,
    LogLine,
    Phase,
    RunCancelled,
    RunEvent,
    RunFailed,
    RunFinished,
)
from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS
from benchdeck.engine.families.builtin.plan import BUILTIN_BUILD
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.build_conn import build_password
from benchdeck.engine.planning.plan import Marks, RunOptions, RunRequest
from benchdeck.engine.running.post_write import needs_post_write, post_write
from benchdeck.engine.running.provenance import with_outputs
from benchdeck.engine.running.run_dirs import busy_reason
from benchdeck.engine.running.runner import Runner
from benchdeck.engine.running.session import Session, execute, runs_workdir
from benchdeck.engine.servers import ServerError
from benchdeck.engine.transport import TransportError
from benchdeck.store.storage import queue as q
from benchdeck.store.storage.cluster_rows import load_cluster
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.following import following, is_followed
from benchdeck.store.storage.ingest import EventSink, pump
from benchdeck.store.storage.live import LiveRun, marks, never_started, unfinished
from benchdeck.store.storage.lookups import run_build, run_setup
from benchdeck.store.storage.runs import NewRun, create_run, set_status
from benchdeck.tui.services.eta import Eta, QueuePhase, queue_eta, queue_line, setup_s

Listener = Callable[[RunEvent], None]
T = TypeVar("T")


class HostBusy(ValueError):
    """A process of another run is alive on the host: nothing is measured beside it."""


@dataclass(frozen=True, slots=True)
class Outcome:
    run_id: int
    host: str
    build: str
    workload: str
    status: str
    qps: float | None = None
    error: str | None = None
    config: str = ""  # the server config ("": the build's default)
    dop: int | None = None


def queued_request(item: q.QueueItem) -> RunRequest:
    """A queued item's run, on its cluster when the queue named one (kept in its options)."""
    opts = RunOptions(**item.options)
    return RunRequest(item.host, item.build, item.workload, opts, item.config, opts.cluster)


def local_runs_dir(store_path: Path) -> str:
    """Where this machine's runs go when its host has no workdir of its own: beside the store
    (``<store>-runs/``), so two stores' run directories never mix."""
    return str(store_path.resolve().with_name(f"{store_path.stem}-runs"))


def builtin_build(name: str = BUILTIN_BUILD) -> Build:
    """A built-in SQLite "build": the library's version, the durability setting as variant."""
    return Build(name=name, dbms="sqlite", version=sqlite3.sqlite_version, variant=BUILTIN_BUILDS[name])


class RunService:
    """Starts runs and queues, resumes interrupted ones, records everything in ``store``."""

    def __init__(
        self,
        store: Store,
        session: Session,
        listener: Listener | None = None,
        writer: Executor | None = None,
        on_stored: Listener | None = None,
    ):
        self.store = store
        self.session = session
        if store.lake is None:  # run directories named after the store, local ones beside it
            session.store_tag = store.path.stem
            session.local_workdir = local_runs_dir(store.path)
        else:
            session.store_tag = "lake"
        self.listener = listener
        self.on_stored = on_stored
        """Called with a run's end once it is written (a listener sees it before)."""
        # A shared store is held while batches come quickly (store.ingest.SHARED_HOLD_S).
        self.sink = EventSink(store)
        self._events: asyncio.Queue[RunEvent | None] = asyncio.Queue()
        self.runners: dict[int, Runner] = {}
        self.writer = writer
        self.blocked: list[str] = []
        """Why a host's queue stopped (another run's process alive there): its items wait."""

    async def __aenter__(self) -> RunService:
        self._pump = asyncio.create_task(
            pump(self._events, self.sink, self.listener, self.writer, self.on_stored)
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._events.put(None)
        await self._pump

    def _build(self, host: str, build: str) -> Build:
        """The build as configured on the host; a built-in one; or, for a name the host does not
        have, a placeholder so the run is recorded and fails with a clear reason."""
        cfg = self.session.inventory.host(host).builds.get(build)
        if cfg is not None:
            return cfg.build
        if build in BUILTIN_BUILDS:
            return builtin_build(build)
        try:
            return parse_build_name(build)
        except BuildNameError:
            return Build(name=build, dbms="unknown", version="")

    def new_run(self, req: RunRequest) -> int:
        host = self.session.inventory.host(req.host)
        o = req.options
        with self.store.transaction() as cur:
            return create_run(
                cur,
                NewRun(
                    host=req.host,
                    build=self._build(req.host, req.build),
                    workload=req.workload,
                    family=family_of(req.workload),
                    source="run",
                    config=self._config_label(host.builds.get(req.build), req.config),
                    threads=o.threads or host.threads,
                    tables=o.tables or host.tables,
                    table_size=o.table_size or host.table_size,
                    device=host.device,
                    status="queued",
                ),
            )

    @staticmethod
    def _config_label(build: BuildConfig | None, config: str | None) -> str:
        """The configuration the run records: the one asked for, else the build's default (an
        unknown name fails the run itself, with the names it could have been)."""
        if build is None:  # built-in: its CLI-only configs (serial), else none
            return config or ""
        return config if config is not None and config in build.config_names else build.config

    async def _drive(
        self, run_id: int, host: str, build: str, workload: str, events: AsyncIterator[RunEvent]
    ) -> Outcome:
        status, qps, error = "failed", None, None
        with following(self.store.label, run_id):  # other processes see that the run is followed
            async for ev in events:
                await self._events.put(ev)
                if isinstance(ev, RunFinished):
                    status, qps = "finished", ev.qps
                elif isinstance(ev, RunFailed):
                    status, error = "failed", ev.error
                elif isinstance(ev, RunCancelled):
                    status = "cancelled"
        config, dop = await self._db(self._setup, run_id)
        return Outcome(run_id, host, build, workload, status, qps, error, config, dop)

    def _setup(self, run_id: int) -> tuple[str, int | None]:
        with self.store.reading() as cur:
            return run_setup(cur, run_id)

    async def _db(self, fn: Callable[..., T], *args: object) -> T:
        """Store work on the writer thread when there is one (keeps a UI loop responsive)."""
        if self.writer is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self.writer, fn, *args)

    def _next(self, host: str, queue_id: int | None) -> tuple[q.QueueItem, Eta] | None:
        with self.store.transaction() as cur:
            for qid, request in q.requested_cancels(self.store.path).items():  # `cancel --queue`
                q.cancel_queue(cur, qid)
                request.unlink(missing_ok=True)
            item = q.next_item(cur, host, queue_id)
            if item is None:
                return None
            where = q.position(cur, item)
            builds = [item.build, *(i.build for i in where.left_on_host)]
            return item, queue_eta(item, where, setup_s(cur, host, builds))

    def _attach(self, item_id: int, run_id: int) -> None:
        with self.store.transaction() as cur:
            q.attach_run(cur, item_id, run_id)

    def _finish(self, item_id: int, status: str) -> None:
        with self.store.transaction() as cur:
            q.finish_item(cur, item_id, status)

    async def busy(self, host: str) -> str | None:
        """One line naming another run's process alive on ``host``, else None (also when the
        host cannot be asked: the run then fails, and is stored, with that reason)."""
        try:
            transport = await self.session.transport(host)
            cfg = self.session.inventory.host(host)
            roots = dict.fromkeys((runs_workdir(cfg, self.session.local_workdir), cfg.workdir))
            for root in roots:  # this store's run directories, and the host's own
                workdir = await self.session.remote_path(host, root)
                runs = posixpath.join(workdir, "runs")
                if (why := await busy_reason(transport, host, runs, followed=self._followed)) is not None:
                    return why
            return None
        except TransportError:
            return None

    def _followed(self, run_id: int) -> bool:
        """A live benchdeck (the app, another ``run``) follows ``run_id`` of this store."""
        return is_followed(self.store.label, run_id)

    async def run(self, req: RunRequest) -> Outcome:
        """Run one request; HostBusy (nothing stored) while another run's process is alive there."""
        if (why := await self.busy(req.host)) is not None:
            raise HostBusy(why)
        run_id = await self._db(self.new_run, req)
        return await self._drive(
            run_id, req.host, req.build, req.workload, execute(self.session, req, run_id)
        )

    async def run_queue(self, queue_id: int | None = None) -> list[Outcome]:
        """Run every pending item (of ``queue_id``, or of all queues): hosts in parallel."""
        hosts = await self._db(self._hosts_with_work, queue_id)
        results = await asyncio.gather(*(self._host_loop(h, queue_id) for h in hosts))
        return [o for per_host in results for o in per_host]

    def _hosts_with_work(self, queue_id: int | None) -> list[str]:
        with self.store.reading() as cur:
            return q.hosts_with_work(cur, queue_id)

    async def _host_loop(self, host: str, queue_id: int | None) -> list[Outcome]:
        out: list[Outcome] = []
        while True:
            if (why := await self.busy(host)) is not None:  # its items wait for a resume
                self.blocked.append(why)
                return out
            taken = await self._db(self._next, host, queue_id)
            if taken is None:
                return out
            item, eta = taken
            req = queued_request(item)
            run_id = await self._db(self.new_run, req)
            await self._db(self._attach, item.item_id, run_id)
            await self._events.put(QueuePhase(run_id, "queue", queue_line(item, eta), eta))
            outcome = await self._drive(
                run_id, host, item.build, item.workload, execute(self.session, req, run_id)
            )
            await self._db(self._finish, item.item_id, outcome.status)
            out.append(outcome)
            await self._maybe_post_write(item, req, run_id, queue_id)

    def _peek(self, host: str, queue_id: int | None) -> q.QueueItem | None:
        with self.store.transaction() as cur:
            return q.peek_next(cur, host, queue_id)

    async def _maybe_post_write(
        self, item: q.QueueItem, req: RunRequest, run_id: int, queue_id: int | None
    ) -> None:
        """After the writes, before reads: the posts' post-write step (flush, analyze, vacuum)."""
        following = await self._db(self._peek, item.host, queue_id)
        if following is None or (following.build, following.config) != (item.build, item.config):
            return
        if not needs_post_write(item.workload, following.workload):
            return
        tables = req.options.tables or self.session.inventory.host(item.host).tables
        await self._events.put(Phase(run_id, "post-write", "flushing and analyzing before the reads"))
        try:
            wait = req.options.post_write_s if req.options.post_write_s is not None else 60
            done = await post_write(self.session, item.host, item.build, tables, wait, item.config)
        except (ServerError, TransportError, ValueError) as exc:
            done = str(exc)
        await self._events.put(LogLine(run_id, "benchdeck", done))

    async def resume(self) -> list[Outcome]:
        """Reattach to runs a previous benchdeck left running, then continue pending queues."""
        live = await self._db(self._take_live)
        outcomes = await asyncio.gather(*(self._reattach(r) for r in live))
        await self._db(self._settle, outcomes)
        return [*outcomes, *await self.run_queue()]

    def _take_live(self) -> list[LiveRun]:
        with self.store.transaction() as cur:
            live = unfinished(cur)
            self._fail_never_started(cur, {r.run_id for r in live})
        return live

    def _settle(self, reattached: Sequence[Outcome] = ()) -> None:
        with self.store.transaction() as cur:
            for out in reattached:  # their items end as the runs did (their rows may be in flight)
                if out.status in ("finished", "failed", "cancelled"):
                    q.finish_run_item(cur, out.run_id, out.status)
            q.settle_interrupted(cur)

    def _reattach_info(self, run_id: int) -> tuple[str, Marks]:
        """The run's build name and what the store holds of it."""
        with self.store.reading() as cur:
            return run_build(cur, run_id) or "?", marks(cur, run_id)

    def _cluster_of(self, run_id: int) -> ClusterSpec | None:
        with self.store.reading() as cur:
            return load_cluster(cur, run_id)

    async def _reattach(self, live: LiveRun) -> Outcome:
        run_id, host, plan = live.run_id, live.host, live.plan
        build, stored = await self._db(self._reattach_info, run_id)
        try:
            transport = await self.session.transport(host)
        except (TransportError, ValueError) as exc:
            return Outcome(run_id, host, build, plan.workload, "running", error=f"cannot reattach: {exc}")
        if not any(p.name == "bench" for p in live.procs):  # in a step: the rest runs from here
            cfg = self.session.inventory.hosts[host].builds.get(build)
            plan = plan.with_secret(build_password(cfg)) if cfg is not None else plan
        runner = Runner(transport, plan, stored, connect=self.session.transport)
        self.runners[run_id] = runner
        events = with_outputs(transport, plan, runner.events(live.procs, live.nodes))
        if (cluster := await self._db(self._cluster_of, run_id)) is not None:
            events = _first(ClusterPlanned(run_id, cluster), events)  # the app's node tabs and lag chart
        return await self._drive(run_id, host, build, plan.workload, events)

    async def cancel(self, live: LiveRun) -> Outcome:
        """Cancel a run no benchdeck follows (it was killed): stop its remote processes, store
        every sample their files hold beyond what is stored, then record it as cancelled."""
        from benchdeck.engine.running.cancel import cancel_remote

        transport = await self.session.transport(live.host)
        connect = self.session.transport
        await cancel_remote(transport, live.plan.remote_dir, live.procs, live.nodes, connect)
        build, stored = await self._db(self._reattach_info, live.run_id)
        runner = Runner(transport, live.plan, stored, connect=connect)
        runner.cancel()  # reattaching follows the files to their end and kills nothing new
        events = runner.events(live.procs, live.nodes)
        return await self._drive(live.run_id, live.host, build, live.plan.workload, events)

    def _fail_never_started(self, cur: duckdb.DuckDBPyConnection, live: set[int]) -> None:
        """Runs left 'running'/'queued' with no remote processes recorded never started."""
        for rid in never_started(cur):
            if rid not in live:
                set_status(
                    cur,
                    rid,
                    "failed",
                    error="interrupted before the measured part started",
                    finished_at=datetime.now().replace(microsecond=0),
                )


async def _first(event: RunEvent, rest: AsyncIterator[RunEvent]) -> AsyncIterator[RunEvent]:
    """``event``, then ``rest``'s."""
    yield event
    async for ev in rest:
        yield ev
