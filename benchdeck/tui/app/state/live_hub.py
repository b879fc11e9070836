"""The app's live side: queues run in the app's event loop, store writes on one writer thread.

The hub owns the run service for the app's lifetime, keeps the :class:`LiveModel` current and
tells listeners (the Live screen) that something changed. Nothing here blocks the loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from benchdeck.engine.building.runner import BuildEvent
from benchdeck.engine.events import ClusterBatch, Planned, RunEvent
from benchdeck.engine.hosts.inventory import Inventory
from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage import queue as q
from benchdeck.store.storage.db import Store
from benchdeck.tui.app.state.live_cluster import fault_text
from benchdeck.tui.app.state.live_model import LiveModel

if TYPE_CHECKING:  # the run machinery (asyncssh, NumPy, nanoarrow) loads when a queue starts
    import duckdb

    from benchdeck.engine.running.session import Session
    from benchdeck.tui.services.runs import Outcome, RunService

T = TypeVar("T")
FaultSeverity = Literal["information", "warning"]  # a toast's, as Textual names them


def _reading(store: Store, fn: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
    """``fn(cursor)`` with the store held only meanwhile (the app shares it with others)."""
    with store.reading() as cur:
        return fn(cur)


class LiveHub:
    """Starts queues and cancels runs for the app; the model is read by the Live screen."""

    def __init__(self, store: Callable[[], Store], base_build: Callable[[], str | None] = lambda: None):
        self._store = store
        self.base_build = base_build
        self.model = LiveModel()
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchdeck-writer")
        self.session: Session | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.listeners: list[Callable[[], None]] = []
        self.on_error: Callable[[str], None] = lambda _msg: None
        """Called with a one-line message when a background queue fails."""
        self.on_fault: Callable[[str, FaultSeverity], None] = lambda _msg, _severity: None
        """Called with ``run 7: node r2 stopped at 42 s: why`` and a toast's severity when a
        cluster's node stops or goes away (``warning``) or comes back (``information``)."""
        self.on_run_stored: Callable[[], None] = lambda: None
        """Called once a run has ended and its end is in the store (screens reload)."""
        self.outcomes: list[Outcome] = []
        self.last_inventory: Inventory | None = None
        """The inventory as last read (the palette lists its recipes' builds from it)."""
        self.before_start: Callable[[], Awaitable[None]] = _nothing
        """Awaited before a queue is made (the app: until its start has looked for leftovers)."""

    async def query(self, fn: Callable[[Store], T]) -> T:
        """Run ``fn(store)`` on the writer thread (store access never blocks the UI loop)."""
        store = self._store
        return await asyncio.get_running_loop().run_in_executor(self.writer, lambda: fn(store()))

    async def inventory(self) -> Inventory:
        """The inventory as the file says now (read on a thread: the loop never waits on disk),
        with the builds ``benchdeck build`` registered in the store."""
        from benchdeck.store.storage.build_records import registered

        inv = await asyncio.to_thread(load_inventory, None)
        try:
            extra = await self.query(lambda store: _reading(store, registered))
        except Exception:  # an unreadable store: the file's builds still run
            extra = {}
        self.last_inventory = inv.with_builds(extra)
        return self.last_inventory

    def start_build(self, host: str, recipe: str, variant: str) -> None:
        """Compile a recipe's variant on a host in the background; it shows on Live like a run."""
        self._keep(asyncio.create_task(self._build(host, recipe, variant)))
        self._changed()

    async def _build(self, host: str, recipe: str, variant: str) -> None:
        from benchdeck.engine.running.session import Session
        from benchdeck.tui.services.builds import BuildService

        name = f"{recipe} {variant}"

        def on_event(ev: BuildEvent) -> None:
            v = self.model.view(ev.run_id)
            if not v.host:
                v.host, v.workload, v.build = host, "build", name
            self.model.apply(ev)
            self._changed()

        try:
            await self.query(lambda store: store.check_writable())  # before anything compiles
            inv = await self.inventory()
            name = inv.recipe(recipe).build_name(variant)
            if self.session is None:
                self.session = Session(inv)
            out = await BuildService(self._store(), self.session, on_event, self.writer).build(
                host, recipe, variant
            )
            if out.ok:
                self.session.inventory = await self.inventory()  # the new build, for Launch and queues
                self.on_run_stored()
            else:
                self.on_error(out.error or f"build {out.name} {out.status}")
        except Exception as exc:  # a background task: report it, never lose it
            self.on_error(f"build {recipe} {variant} on {host} stopped: {exc}")
        self._changed()

    def _changed(self) -> None:
        for fn in self.listeners:
            fn()

    def _on_event(self, ev: RunEvent) -> None:
        view = self.model.apply(ev)
        if isinstance(ev, Planned):
            task = asyncio.create_task(self._lookup_base(view.run_id, ev.plan.host, ev.plan.workload))
            self._keep(task)
        if isinstance(ev, ClusterBatch):
            for fault in ev.faults:
                severity: FaultSeverity = "information" if fault.kind == "back" else "warning"
                self.on_fault(f"run {ev.run_id}: {fault_text(fault)}", severity)
        self._changed()

    def _keep(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _lookup_base(self, run_id: int, host: str, workload: str) -> None:
        base = self.base_build()
        if not base:
            return
        loop = asyncio.get_running_loop()
        qps = await loop.run_in_executor(self.writer, self._base_qps, host, base, workload)
        self.model.view(run_id).base_qps = qps
        self._changed()

    def _base_qps(self, host: str, build: str, workload: str) -> float | None:
        from benchdeck.store.storage.lookups import median_finished_qps

        return _reading(self._store(), lambda cur: median_finished_qps(cur, host, build, workload))

    async def start_queue(
        self,
        hosts: Sequence[str],
        builds: Sequence[str],
        workloads: Sequence[str],
        options: RunOptions,
        configs: Sequence[str] = (),
        dops: Sequence[int] = (),
        repeats: int = 1,
    ) -> int:
        """Persist the matrix, then run it in the background; returns the queue id.

        ``configs``: the server configurations to run, each build those of them it has
        (none given: each build's default); ``dops`` (several: a sweep) and ``repeats`` as
        ``queue --threads --repeat`` take them."""
        await self.before_start()
        loop = asyncio.get_running_loop()
        matrix = (await self.inventory()).config_matrix(hosts, builds, configs)

        def create() -> int:
            store = self._store()
            store.check_writable()  # a snapshot's copy would take the queue, then lose it
            with store.transaction() as cur:
                return q.create_queue(cur, hosts, builds, workloads, options, matrix, dops, repeats)

        qid = await loop.run_in_executor(self.writer, create)
        self._keep(asyncio.create_task(self._run(qid)))
        self._changed()
        return qid

    async def _service(self) -> RunService:
        """A run service over the hub's session (made from the inventory on first use)."""
        from benchdeck.engine.running.session import Session
        from benchdeck.tui.services.runs import RunService

        if self.session is None:
            self.session = Session(await self.inventory())
        return RunService(
            self._store(), self.session, self._on_event, self.writer, lambda _end: self.on_run_stored()
        )

    async def _run(self, queue_id: int) -> None:
        try:
            service = await self._service()
            async with service as svc:
                self.outcomes += await svc.run_queue(queue_id)
            for why in service.blocked:  # that host's runs wait (another run's process is alive)
                self.on_error(f"queue {queue_id} waits: {why}")
        except Exception as exc:  # a background task: report it, never lose it
            self.on_error(f"queue {queue_id} stopped: {exc}")
        self._changed()

    async def cancel(self, run_id: int) -> None:
        view = self.model.runs.get(run_id)
        if view is None or view.done or self.session is None:
            return
        from benchdeck.engine.running.cancel import cancel_remote

        remote_dir, procs, nodes = view.remote_dir, view.procs, view.nodes
        if not procs:  # a reattached run: its processes are in the store
            from benchdeck.store.storage.live import unfinished

            found = await self.query(lambda st: _reading(st, lambda cur: unfinished(cur, view.host)))
            live = {r.run_id: r for r in found}
            if run_id not in live:
                self.on_error(f"run {run_id}: nothing to cancel yet (no remote process recorded)")
                return
            remote_dir, procs, nodes = live[run_id].plan.remote_dir, live[run_id].procs, live[run_id].nodes
        transport = await self.session.transport(view.host)
        await cancel_remote(transport, remote_dir, procs, nodes, self.session.transport)

    @property
    def busy(self) -> bool:
        """Runs or queues are going (quitting leaves them to go on detached)."""
        return bool(self.model.active()) or any(not t.done() for t in self._tasks)

    async def cancel_queue(self, run_id: int) -> int | None:
        """Cancel the queue that ``run_id`` belongs to: its waiting runs and its running ones.
        Returns the queue id (None: the run is in no queue)."""

        def cancel(store: Store) -> tuple[int | None, list[int]]:
            with store.transaction() as cur:
                qid = q.queue_of_run(cur, run_id)
                return (qid, q.cancel_queue(cur, qid)[1]) if qid is not None else (None, [])

        qid, running = await self.query(cancel)
        for rid in running:
            await self.cancel(rid)
        self._changed()
        return qid

    async def pending_work(self) -> tuple[int, int]:
        """(runs an earlier benchdeck left running, queued runs waiting) in a writable store."""
        from benchdeck.store.storage.live import unfinished

        def count(store: Store) -> tuple[int, int]:
            if store.read_only:
                return 0, 0
            with store.reading() as cur:
                return len(unfinished(cur)), q.pending_count(cur)

        return await self.query(count)

    def start_resume(self, running: int = 0, waiting: int = 0) -> None:
        """Reattach to runs left running and go on with waiting queues (``benchdeck resume``)."""
        self._keep(asyncio.create_task(self._resume()))
        self._changed()

    async def _resume(self) -> None:
        try:
            async with await self._service() as svc:
                self.outcomes += await svc.resume()
        except Exception as exc:  # a background task: report it, never lose it
            self.on_error(f"resuming stopped: {exc}")
        self._changed()

    async def close(self) -> None:
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.session is not None:
            await self.session.close()
        self.writer.shutdown(wait=True)


async def _nothing() -> None:
    return None
