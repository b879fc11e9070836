"""Builds for the clients (CLI and app): a recipe's variant compiled on a host, recorded in the store.

Where the engine's :class:`~engine.build_runner.BuildRunner` meets the store: a record per
attempt, its remote processes saved when it starts (so a later benchdeck reattaches), and the
result (flags, compiler, duration, binary size) or the failure with the log's tail at the end.
A build whose record says ``running`` is reattached when its processes live (or left an exit
code); one whose processes died without an exit code is marked ``interrupted`` and started over
from a clean build directory.
"""

from __future__ import annotations

import asyncio
import json
import posixpath
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, TypeVar

from benchdeck.engine.building.recipes import BuildSpec, Recipe, build_spec
from benchdeck.engine.building.runner import BuildEvent, BuildFailed, BuildFinished, BuildResult, BuildRunner
from benchdeck.engine.builds import Build
from benchdeck.engine.events import RunStarted
from benchdeck.engine.running.session import Session
from benchdeck.store.storage import build_records as br
from benchdeck.store.storage.db import Store

BuildListener = Callable[[BuildEvent], None]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BuildOutcome:
    """How a build ended: ``finished`` (or ``reused``: an identical finished build), or not."""

    build_run_id: int
    host: str
    name: str
    status: str
    result: BuildResult | None = None
    error: str | None = None
    tail: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status in ("finished", "reused")


def spec_from_json(text: str | dict[str, Any], host: str) -> BuildSpec:
    """A stored build spec back as the dataclass (for reattaching as it was started)."""
    d = dict(json.loads(text) if isinstance(text, str) else text)
    d["build"] = Build(**d["build"])
    d["steps"] = tuple((s, tuple(a)) for s, a in d["steps"])
    d["env"] = tuple((k, v) for k, v in d["env"])
    d["wipe"] = tuple(d["wipe"])
    return BuildSpec(host=host, **d)


class BuildService:
    """Starts, reattaches and records builds; ``listener`` sees every event."""

    def __init__(
        self,
        store: Store,
        session: Session,
        listener: BuildListener | None = None,
        writer: Executor | None = None,
    ):
        self.store = store
        self.session = session
        self.listener = listener
        self.writer = writer
        """With a one-thread executor, the store is used there (the app's loop never waits on it)."""

    async def _db(self, fn: Callable[..., T], *args: object) -> T:
        if self.writer is None:
            return fn(*args)
        return await asyncio.get_running_loop().run_in_executor(self.writer, fn, *args)

    def _tx(self, fn: Callable[..., object], *args: object) -> Any:
        with self.store.transaction() as cur:
            return fn(cur, *args)

    def _records(self, host: str, name: str, status: str) -> list[br.BuildRecord]:
        with self.store.reading() as cur:
            return br.records(cur, host=host, name=name, status=status)

    async def spec(self, host: str, recipe: str | Recipe, variant: str, base: str = "o2nofp") -> BuildSpec:
        """The build of a recipe (by name, or one made for the call: bisect's per commit) on a host."""
        inv = self.session.inventory
        r = recipe if isinstance(recipe, Recipe) else inv.recipe(recipe)
        h = inv.host(host)
        t = await self.session.transport(host)
        workdir = await self.session.remote_path(host, h.workdir)
        res = await t.run(["getconf", "_NPROCESSORS_ONLN"])
        jobs = int(res.stdout.strip()) if res.ok and res.stdout.strip().isdigit() else 1
        return build_spec(r, variant, host=host, workdir=workdir, jobs=jobs, base=base)

    async def build(
        self, host: str, recipe: str | Recipe, variant: str, base: str = "o2nofp", *, reuse: bool = False
    ) -> BuildOutcome:
        """Build a recipe's variant on a host (or reattach to that build already running)."""
        spec = await self.spec(host, recipe, variant, base)
        for rec in await self._db(self._records, host, spec.name, "running"):
            outcome = await self._reattach(rec)
            if outcome is not None:
                return outcome
        if reuse:
            for rec in reversed(await self._db(self._records, host, spec.name, "finished")):
                if rec.spec == json.loads(br.spec_json(spec)) and await self._binary_there(
                    host, rec.binary_path
                ):
                    return BuildOutcome(rec.build_run_id, host, rec.name, "reused")
        bid = int(await self._db(self._tx, br.create_build, spec))
        workdir = posixpath.dirname(posixpath.dirname(spec.builddir))  # WORKDIR/builds/obj/NAME
        remote_dir = posixpath.join(workdir, "logs", f"{spec.name}-{bid}")
        runner = BuildRunner(await self.session.transport(host), spec, bid, remote_dir)
        return await self._drive(bid, spec, runner, None)

    async def _binary_there(self, host: str, path: str) -> bool:
        t = await self.session.transport(host)
        return await t.file_size(path) is not None

    async def _reattach(self, rec: br.BuildRecord) -> BuildOutcome | None:
        """Follow a build an earlier benchdeck started; None when it died (marked interrupted)."""
        t = await self.session.transport(rec.host)
        proc = rec.procs[0] if rec.procs else None
        alive = (
            proc is not None
            and rec.remote_dir is not None
            and (
                await t.is_alive(proc.pgid)
                or await t.file_size(posixpath.join(rec.remote_dir, "build.rc")) is not None
            )
        )
        if not alive or rec.remote_dir is None:
            why = "its processes ended without an exit code"
            await self._db(self._tx, br.save_ended, rec.build_run_id, "interrupted", why)
            self._note(
                rec.build_run_id, f"build {rec.build_run_id} ({rec.name}) was interrupted: starting over"
            )
            return None
        spec = spec_from_json(rec.spec, rec.host)
        runner = BuildRunner(t, spec, rec.build_run_id, rec.remote_dir)
        return await self._drive(rec.build_run_id, spec, runner, rec.procs)

    def _note(self, bid: int, text: str) -> None:
        from benchdeck.engine.events import LogLine

        if self.listener is not None:
            self.listener(LogLine(bid, "benchdeck", text))

    async def _drive(self, bid: int, spec: BuildSpec, runner: BuildRunner, procs: Any) -> BuildOutcome:
        outcome = BuildOutcome(bid, spec.host, spec.name, "failed", error="the build ended without a result")
        async for ev in runner.events(procs):
            if self.listener is not None:
                self.listener(ev)
            if isinstance(ev, RunStarted):
                await self._db(self._tx, br.save_started, bid, ev.remote_dir, ev.procs)
            elif isinstance(ev, BuildFinished):
                await self._db(self._tx, br.save_finished, bid, ev.result)
                outcome = BuildOutcome(bid, spec.host, spec.name, "finished", ev.result)
            elif isinstance(ev, BuildFailed):
                status = "interrupted" if ev.interrupted else "failed"
                await self._db(self._tx, br.save_ended, bid, status, ev.error, "\n".join(ev.tail))
                outcome = BuildOutcome(bid, spec.host, spec.name, status, error=ev.error, tail=ev.tail)
        return outcome

    def refresh_inventory(self) -> None:
        """The session's inventory with the builds registered in the store (after a build)."""
        from benchdeck.engine.hosts.inventory_file import load_inventory

        with self.store.reading() as cur:
            registered = br.registered(cur)
        self.session.inventory = load_inventory(None).with_builds(registered)
