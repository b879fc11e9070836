"""One benchmark run on a host: detached remote processes, followed by byte offset, as events.

The measured part runs sysbench with ``vmstat 1`` and ``iostat -y -kx 1`` beside it, each
detached in its own process group inside a per-run remote directory, writing to files. The
runner follows those files and yields typed events. A dropped connection only pauses the
following; a new runner can :meth:`Runner.reattach` to a run started by an earlier process
and backfill, given the high-water marks of what was already stored (exactly once).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from benchdeck.engine.cluster.sampling import ClusterSampler, ClusterSampling
from benchdeck.engine.events import (
    LogLine,
    NodeProc,
    Phase,
    Planned,
    RemoteProc,
    RunCancelled,
    RunEvent,
    RunFailed,
    RunStarted,
    StepStarted,
)
from benchdeck.engine.hosts.requirements import MONITORS
from benchdeck.engine.planning.plan import Marks, RunPlan
from benchdeck.engine.profiling.feed import STREAMS as CAPTURE_STREAMS
from benchdeck.engine.profiling.preflight import capture_preflight
from benchdeck.engine.running import table_check
from benchdeck.engine.running.cancel import cancel_marked
from benchdeck.engine.running.checks import StepFailed, check_idle, preflight
from benchdeck.engine.running.event_queue import EventQueue
from benchdeck.engine.running.follow import LineFollower
from benchdeck.engine.running.output_feed import OutputFeed, now
from benchdeck.engine.transport import DetachedProcess, Transport, TransportError

__all__ = ["RunPlan", "Runner"]  # RunPlan too: bench/bench_streams.py imports it from here

POLL_S = 5.0  # the measured step also wakes on sysbench's last line
CAPTURE_STOP_S = 30.0  # a capture loop stopped with the run finishes the window it is folding
STEP_POLL_S = 0.5
_VANISHED = -(1 << 16)  # a step's process is gone and left no exit code


@dataclass
class _Source:
    name: str
    proc: DetachedProcess
    follower: LineFollower
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Runner:
    """Runs (or reattaches to) one plan on one transport; iterate :meth:`events`."""

    def __init__(
        self,
        transport: Transport,
        plan: RunPlan,
        marks: Marks | None = None,
        cluster: ClusterSampling | None = None,
        connect: Callable[[str], Awaitable[Transport]] | None = None,
    ):
        """``cluster``: the nodes sampled beside the run (a run on a cluster), each host reached
        through ``connect``."""
        self.t = transport
        self.plan = plan
        self.marks = marks or Marks()
        self._out: EventQueue[RunEvent] = EventQueue()
        self._connect = connect
        self._cluster: ClusterSampler | None = None
        if cluster is not None:
            assert connect is not None, "a cluster's nodes need a way to their hosts"
            self._cluster = ClusterSampler(cluster, connect, plan.run_id, self._out.put)
        self._emit: Callable[[RunEvent], None] = self._emit_mirrored  # (a cluster's primary rows)
        self._cancel = asyncio.Event()
        self._output_ended = asyncio.Event()
        self._parsed = OutputFeed(plan, self.marks, self._emit)
        self._monitors: list[str] = list(MONITORS) if plan.monitors else []
        self._captures: tuple[str, ...] = ()  # perf streams the preflight allowed (--profile)

    def _emit_mirrored(self, event: RunEvent) -> None:
        self._out.put(event)
        if self._cluster is not None:
            self._cluster.mirror(event)

    def cancel(self) -> None:
        """Ask the run to stop: the remote process groups are killed, samples kept."""
        self._cancel.set()

    # --- public entry points ------------------------------------------------------------

    def events(
        self, procs: Sequence[RemoteProc] | None = None, nodes: Sequence[NodeProc] = ()
    ) -> AsyncGenerator[RunEvent, None]:
        """Run the plan (or, with ``procs`` of an earlier start, reattach) and yield its events;
        ``nodes``: a reattached cluster run's node sources, followed again (needs ``connect``)."""
        return self._out.stream(lambda: self._drive(procs, nodes))

    # --- phases -------------------------------------------------------------------------

    async def _drive(self, procs: Sequence[RemoteProc] | None, nodes: Sequence[NodeProc]) -> None:
        rid = self.plan.run_id
        self._emit(Planned(rid, self.plan))
        try:
            if procs is not None and any(p.name == "bench" for p in procs):
                self._emit(Phase(rid, "reattach", self.plan.remote_dir))
                if nodes:
                    assert self._connect is not None, "a cluster's nodes need a way to their hosts"
                    self._cluster = await ClusterSampler.reattach(nodes, self._connect, rid, self._out.put)
                await self._follow(procs)
                return
            done = await self._reattach_step(procs[0]) if procs else None
            if not self._cancel.is_set():
                self._monitors = await preflight(self.t, self.plan, self._emit)
                self._captures = await capture_preflight(self.t, self.plan, self._emit)
            if not self._cancel.is_set() and done in (None, "cleanup", "prepare"):
                await self._tables()
            if not self._cancel.is_set() and done != "warmup":
                await self._warmup()
            if self._cancel.is_set() or await self._cancel_marked():
                self._emit(RunCancelled(rid, now()))
                return
            await check_idle(self.t, self.plan)  # again: another run may have started meanwhile
            await self._follow(await self._start())
        except TransportError as exc:
            self._emit(RunFailed(rid, str(exc), now()))
        except StepFailed as exc:
            self._emit(RunFailed(rid, str(exc), now()))

    async def _tables(self) -> None:
        """Prepare unless the tables are complete; tables short of rows are made again."""
        p = self.plan
        if not p.prepare_argv:
            return
        if p.table_rows_argv is None:
            await self._tables_by_existence(p.prepare_argv)
            return
        short, present = await self._table_shortfalls()
        if not short:
            n = len(p.expected_tables)
            detail = f"{n} table{'s' if n > 1 else ''} x {p.table_size or 0:,} rows present: skipped"
            self._emit(Phase(p.run_id, "prepare", detail))
            return
        if present and p.cleanup_argv:
            more = f" (and {len(short) - 1} more)" if len(short) > 1 else ""
            detail = f"{short[0]}{more}: dropping the tables and preparing them again"
            self._emit(Phase(p.run_id, "prepare", detail))
            await self._step("cleanup", p.cleanup_argv)
            if self._cancel.is_set():
                return
        else:
            self._emit(Phase(p.run_id, "prepare"))
        await self._step("prepare", p.prepare_argv)
        if self._cancel.is_set():
            return
        short, _ = await self._table_shortfalls()
        if short:
            raise StepFailed(f"{p.host}: prepare ended but {'; '.join(short)}")

    async def _table_shortfalls(self) -> tuple[list[str], bool]:
        """What is wrong with the tables (empty: complete), and whether any of them exists."""
        p = self.plan
        assert p.table_rows_argv is not None
        chk = await self.t.run(list(p.table_rows_argv), timeout=600, env=dict(p.env))
        if not chk.ok:
            why = (chk.stderr or chk.stdout).strip().splitlines()
            raise StepFailed(f"{p.host}: database not reachable: {why[-1] if why else chk.exit_status}")
        found = table_check.parse(chk.stdout)
        short = table_check.shortfalls(found, p.expected_tables, p.table_size or 0, p.secondary_index)
        return short, bool(found)

    async def _tables_by_existence(self, prepare_argv: Sequence[str]) -> None:
        p = self.plan
        exists = False
        if p.tables_exist_argv:
            chk = await self.t.run(list(p.tables_exist_argv), timeout=60, env=dict(p.env))
            if not chk.ok:
                why = (chk.stderr or chk.stdout).strip().splitlines()
                raise StepFailed(f"{p.host}: database not reachable: {why[-1] if why else chk.exit_status}")
            exists = chk.stdout.strip() not in ("", "0")
        if exists:
            self._emit(Phase(p.run_id, "prepare", "tables exist: skipped"))
        else:
            self._emit(Phase(p.run_id, "prepare"))
            await self._step("prepare", prepare_argv)

    async def _warmup(self) -> None:
        p = self.plan
        if p.warmup_argv and not self._cancel.is_set():
            self._emit(Phase(p.run_id, "warm-up"))
            await self._step("warmup", p.warmup_argv)

    async def _step(self, name: str, argv: Sequence[str]) -> None:
        """Run a preparatory command detached and wait for it (it survives a dropped link, and
        a later benchdeck can reattach to it: :class:`StepStarted`)."""
        p = self.plan
        proc = await self.t.start_detached(
            argv, run_dir=p.remote_dir, stdout_name=f"{name}.out", env=dict(p.env)
        )
        rp = RemoteProc(name, proc.pid, proc.pgid, proc.stdout_name)
        self._emit(StepStarted(p.run_id, p.host, p.remote_dir, rp))
        rc = await self._wait_rc(proc, STEP_POLL_S, check_alive=True)
        if rc == _VANISHED:
            tail = await self._tail(proc.stdout_path)
            raise StepFailed(f"{name} ended without an exit code (killed?): {tail}")
        await self._step_ended(name, proc, rc)

    async def _step_ended(self, name: str, proc: DetachedProcess, rc: int | None) -> None:
        if rc is None or rc == 0:
            return
        if await self._cancel_marked():  # ``benchdeck cancel`` killed it
            self._cancel.set()
            return
        tail = await self._tail(proc.stdout_path)
        raise StepFailed(f"{name} failed (exit {rc}): {tail}")

    async def _reattach_step(self, rp: RemoteProc) -> str:
        """Wait for a step an earlier benchdeck started; returns its name (what is done)."""
        p = self.plan
        self._emit(Phase(p.run_id, "reattach", f"{rp.name} in {p.remote_dir}"))
        proc = DetachedProcess(rp.pid, rp.pgid, p.remote_dir, rp.name, rp.out)
        rc = await self._wait_rc(proc, STEP_POLL_S, check_alive=True)
        if rc == _VANISHED:  # killed with its wrapper: the tables are checked (and made) again
            self._emit(LogLine(p.run_id, "benchdeck", f"{rp.name} ended without an exit code (killed?)"))
        else:
            await self._step_ended(rp.name, proc, rc)
        return rp.name

    async def _wait_rc(
        self, proc: DetachedProcess, poll_s: float = POLL_S, check_alive: bool = False
    ) -> int | None:
        """Exit code of a detached process once it ends; ``None`` if cancelled (group killed).

        With ``check_alive``, a process whose wrapper is gone without an exit code is ``_VANISHED``.
        """
        while True:
            if self._cancel.is_set():
                await self._kill(proc)
                return None
            with contextlib.suppress(TransportError):
                if (rc := await self._read_rc(proc)) is not None:
                    return rc
                # the wrapper (pid = pgid) writes the exit code after the command ends: gone
                # without one, the group was killed
                if check_alive and not await self.t.is_alive(proc.pgid):
                    rc = await self._read_rc(proc)  # it may have ended just now
                    return _VANISHED if rc is None else rc
            await self._wake(poll_s)

    async def _read_rc(self, proc: DetachedProcess) -> int | None:
        if await self.t.file_size(proc.rc_path) is None:
            return None
        raw = await self.t.read_from(proc.rc_path, 0, 64)
        return int(raw.strip() or b"0")

    async def _wake(self, seconds: float) -> None:
        """Sleep until cancelled, the benchmark's output ended, or ``seconds`` passed."""
        waits = [asyncio.ensure_future(self._cancel.wait()), asyncio.ensure_future(self._output_ended.wait())]
        try:
            await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()

    async def _start(self) -> list[RemoteProc]:
        p = self.plan
        d = p.remote_dir
        procs: list[RemoteProc] = []
        for name, argv in (("vmstat", p.vmstat_argv()), ("iostat", p.iostat_argv())):
            if name in self._monitors:
                dp = await self.t.start_detached(argv, run_dir=d, stdout_name=f"{name}.out")
                procs.append(RemoteProc(name, dp.pid, dp.pgid, dp.stdout_name))
        if self._cluster is not None:
            await self._cluster.start()
        t0 = time.time()
        dp = await self.t.start_detached(
            list(p.bench_argv), run_dir=d, stdout_name="bench.out", env=dict(p.env)
        )
        procs.append(RemoteProc("bench", dp.pid, dp.pgid, dp.stdout_name))
        if self._cluster is not None:
            self._cluster.follow(t0)
        c = p.capture
        fits = c.schedule().slots if c is not None else {}
        for kind in self._captures if c is not None else ():
            assert c is not None
            if kind not in fits:  # too short a run: said at its end
                continue
            argv = c.argv(kind, bench_pgid=dp.pgid, run_dir=d)
            cp = await self.t.start_detached(argv, run_dir=d, stdout_name=f"{kind}.out", env=c.env())
            procs.append(RemoteProc(kind, cp.pid, cp.pgid, cp.stdout_name))
        nodes = self._cluster.node_procs() if self._cluster is not None else ()
        self._emit(RunStarted(p.run_id, p.host, d, now(), tuple(procs), nodes))
        return procs

    # --- following the measured part ------------------------------------------------------

    async def _follow(self, procs: Sequence[RemoteProc]) -> None:
        p = self.plan
        sources = {
            rp.name: _Source(
                rp.name,
                DetachedProcess(rp.pid, rp.pgid, p.remote_dir, rp.name, rp.out),
                LineFollower(self.t, f"{p.remote_dir}/{rp.out}", on_retry=self._log_retry),
            )
            for rp in procs
        }
        readers = [asyncio.create_task(self._read(src)) for src in sources.values()]
        let_go = False  # this benchdeck stops following (quits): the remote processes go on
        try:
            bench = sources["bench"]
            rc = await self._wait_rc(bench.proc)
            cancelled = rc is None or await self._cancel_marked()
            await self._drain(bench)
            for name in ("vmstat", "iostat"):
                if name in sources:
                    await self._kill(sources[name].proc)
                    await self._drain(sources[name])
            await self._stop_captures(sources)
        except asyncio.CancelledError:
            let_go = True
            raise
        finally:
            if self._cluster is not None:
                await (self._cluster.let_go() if let_go else self._cluster.stop())
            for r in readers:
                r.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
        if rc == 0 and not cancelled and not self._cancel.is_set():
            await self._done()
        self._finish(rc, cancelled)

    async def _stop_captures(self, sources: dict[str, _Source]) -> None:
        """Stop the capture loops together (each finishes the window it is in), store what they
        wrote, and close with a line per run saying what each kind got and why not."""
        c = self.plan.capture
        if c is None or not c.kinds:
            return
        loops = [sources[k] for k in CAPTURE_STREAMS if k in sources]
        forced = await asyncio.gather(*(self._kill(s.proc, force=True, wait_s=CAPTURE_STOP_S) for s in loops))
        why_none = dict(c.schedule().missing)
        for src, killed in zip(loops, forced, strict=True):
            await self._drain(src)
            if not self._parsed.capture.has(src.name):
                why_none[src.name] = await self._loop_end(src, killed)
        for kind in c.kinds:
            why_none.setdefault(kind, "not captured: the preflight's problem, said before the run")
        self._emit(LogLine(self.plan.run_id, "benchdeck", self._parsed.capture.close(c.kinds, why_none)))

    async def _loop_end(self, src: _Source, killed: bool) -> str:
        """How a capture loop ended, for a kind it left without a window."""
        if killed:
            return f"its capture loop was still busy {CAPTURE_STOP_S:g} s after the run ended: killed"
        rc = None
        with contextlib.suppress(TransportError):
            rc = await self._read_rc(src.proc)
        tail = await self._tail(src.follower.path)
        return f"its capture loop ended (exit {rc if rc is not None else '?'}): {tail}"

    async def _done(self) -> None:
        """The plan's after-success command (a load's completion mark); failing, it is said."""
        p = self.plan
        if not p.done_argv:
            return
        why = ""
        try:
            res = await self.t.run(list(p.done_argv), timeout=60, env=dict(p.env))
            if not res.ok:
                lines = (res.stderr or res.stdout).strip().splitlines()
                why = lines[-1] if lines else f"exit {res.exit_status}"
        except TransportError as exc:
            why = str(exc)
        if why:
            msg = f"warning: could not mark the load complete ({why}): the next run loads again"
            self._emit(LogLine(p.run_id, "benchdeck", msg))

    async def _cancel_marked(self) -> bool:
        return await cancel_marked(self.t, self.plan.remote_dir)

    def _log_retry(self, msg: str) -> None:
        self._emit(LogLine(self.plan.run_id, "benchdeck", f"connection trouble: {msg}"))

    async def _read(self, src: _Source) -> None:
        async for lines in src.follower.batches():
            self._parsed.feed(src.name, lines)
            if self._parsed.ended:
                self._output_ended.set()

    async def _drain(self, src: _Source) -> None:
        """Wait until everything the process wrote has been read and parsed (a last line it
        never finished, killed mid-line, is not waited for)."""
        last, still = src.follower.offset, 0
        while True:
            with contextlib.suppress(TransportError):
                size = await self.t.file_size(src.follower.path)
                if size is None or src.follower.offset >= size:
                    return
                still = still + 1 if src.follower.offset == last else 0
                last = src.follower.offset
                if still >= 40:  # 2 s without a new line: is the rest only a partial line?
                    rest = await self.t.read_from(src.follower.path, last, size - last)
                    if b"\n" not in rest:
                        return
            await asyncio.sleep(0.05)

    async def _kill(self, proc: DetachedProcess, force: bool = False, wait_s: float = 10.0) -> bool:
        """Stop a process group and wait (up to ``wait_s``) until its wrapper is gone, so that
        the next run on the host never finds this one's processes alive; ``force``: SIGKILL what
        is left then (a capture loop busy folding a large profile). True: it had to."""
        with contextlib.suppress(TransportError):
            if not await self.t.kill_group(proc.pgid):
                return False
            for _ in range(int(wait_s / 0.05)):
                if not await self.t.is_alive(proc.pgid) and not (force and await self.t.is_alive(proc.pid)):
                    return False
                await asyncio.sleep(0.05)
            if force:
                await self.t.kill_group(proc.pgid, "KILL")
                return True
        return False

    def _finish(self, rc: int | None, cancelled: bool) -> None:
        self._emit(self._parsed.outcome(rc, cancelled or self._cancel.is_set()))

    async def _tail(self, path: str, nbytes: int = 2000) -> str:
        with contextlib.suppress(TransportError, FileNotFoundError):
            size = await self.t.file_size(path) or 0
            raw = await self.t.read_from(path, max(0, size - nbytes), nbytes)
            lines = [ln for ln in raw.decode(errors="replace").splitlines() if ln.strip()]
            return " | ".join(lines[-3:])
        return "(no output)"
