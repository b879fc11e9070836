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
import importlib
import posixpath
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from benchdeck.engine import table_check
from benchdeck.engine.event_queue import EventQueue
from benchdeck.engine.events import (
    BenchBatch,
    IostatBatch,
    LogLine,
    Phase,
    Planned,
    RemoteProc,
    Replayed,
    RunCancelled,
    RunEvent,
    RunFailed,
    RunFinished,
    RunStarted,
    Skipped,
    StepStarted,
    VmstatBatch,
)
from benchdeck.engine.follow import LineFollower
from benchdeck.engine.metrics import per_op, run_qps
from benchdeck.engine.parsers import IostatParser, VmstatParser
from benchdeck.engine.plan import Marks, RunPlan
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, SysbenchSummary, VmstatSample
from benchdeck.engine.requirements import PACKAGES
from benchdeck.engine.run_dirs import busy_reason, runs_dir
from benchdeck.engine.transport import DetachedProcess, Transport, TransportError

POLL_S = 5.0  # the measured step also wakes on sysbench's last line
STEP_POLL_S = 0.5
MONITORS = ("vmstat", "iostat")  # prepare and warm-up: no such line to wait for
CANCEL_MARK = "cancelled"
_VANISHED = -(1 << 16)  # a step's process is gone and left no exit code
# sysbench's last summary line: the run is over, look for its exit code now.
_LAST_LINE = "execution time (avg/stddev):"
# Prints each of "$@" that is not on PATH; a constant script, tools passed as data.
_MISSING_TOOLS = 'for t do command -v "$t" >/dev/null || echo "$t"; done'


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


@dataclass
class _Source:
    name: str
    proc: DetachedProcess
    follower: LineFollower
    done: asyncio.Event = field(default_factory=asyncio.Event)


class Runner:
    """Runs (or reattaches to) one plan on one transport; iterate :meth:`events`."""

    def __init__(self, transport: Transport, plan: RunPlan, marks: Marks | None = None):
        self.t = transport
        self.plan = plan
        self.marks = marks or Marks()
        self._out: EventQueue[RunEvent] = EventQueue()
        self._emit = self._out.put
        self._cancel = asyncio.Event()
        self._output_ended = asyncio.Event()
        self._sb = parser_for(plan.family, plan.bench_argv)
        self._vm = VmstatParser()
        self._io = IostatParser(device=plan.device)
        self.bench: list[BenchInterval] = []
        self.vm: list[VmstatSample] = []
        self.io: list[IostatSample] = []
        self._n_msgs = 0
        self._monitors: list[str] = list(MONITORS) if plan.monitors else []

    def cancel(self) -> None:
        """Ask the run to stop: the remote process groups are killed, samples kept."""
        self._cancel.set()

    # --- public entry points ------------------------------------------------------------

    def events(self, procs: Sequence[RemoteProc] | None = None) -> AsyncGenerator[RunEvent, None]:
        """Run the plan (or, with ``procs`` of an earlier start, reattach) and yield its events."""
        return self._out.stream(lambda: self._drive(procs))

    # --- phases -------------------------------------------------------------------------

    async def _drive(self, procs: Sequence[RemoteProc] | None) -> None:
        rid = self.plan.run_id
        self._emit(Planned(rid, self.plan))
        try:
            if procs is not None and any(p.name == "bench" for p in procs):
                self._emit(Phase(rid, "reattach", self.plan.remote_dir))
                await self._follow(procs)
                return
            done = await self._reattach_step(procs[0]) if procs else None
            if not self._cancel.is_set():
                await self._preflight()
            if not self._cancel.is_set() and done in (None, "cleanup", "prepare"):
                await self._tables()
            if not self._cancel.is_set() and done != "warmup":
                await self._warmup()
            if self._cancel.is_set() or await self._cancel_marked():
                self._emit(RunCancelled(rid, _now()))
                return
            await self._check_idle()  # again: another run may have started meanwhile
            await self._follow(await self._start())
        except TransportError as exc:
            self._emit(RunFailed(rid, str(exc), _now()))
        except _StepFailed as exc:
            self._emit(RunFailed(rid, str(exc), _now()))

    async def _preflight(self) -> None:
        p = self.plan
        self._emit(Phase(p.run_id, "preflight"))
        for name, content in p.files:
            await self.t.run(["sh", "-c", _WRITE_FILE, "-", f"{p.remote_dir}/{name}"], stdin=content)
        tools = [p.bench_argv[0], *(MONITORS if p.monitors else [])]
        res = await self.t.run(["sh", "-c", _MISSING_TOOLS, "-", *tools])
        missing = res.stdout.split()
        if p.bench_argv[0] in missing:
            tool = p.bench_argv[0]
            raise _StepFailed(f"{p.host}: missing {tool} (install: {_packages([tool])})")
        self._monitors = [m for m in MONITORS if p.monitors and m not in missing]
        for m in missing:
            note = f"{m} missing on {p.host}: running without it, so no per-op metrics from it"
            self._emit(LogLine(p.run_id, "benchdeck", f"{note} (install: {_packages([m])})"))
        await self._check_disk()
        await self._check_device()
        await self._check_idle()

    async def _check_idle(self) -> None:
        """Refuse to go on while a process of another run on this host is alive."""
        p = self.plan
        why = await busy_reason(self.t, p.host, runs_dir(p.remote_dir), p.remote_dir)
        if why is not None:
            raise _StepFailed(why)

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
            raise _StepFailed(f"{p.host}: prepare ended but {'; '.join(short)}")

    async def _table_shortfalls(self) -> tuple[list[str], bool]:
        """What is wrong with the tables (empty: complete), and whether any of them exists."""
        p = self.plan
        assert p.table_rows_argv is not None
        chk = await self.t.run(list(p.table_rows_argv), timeout=600, env=dict(p.env))
        if not chk.ok:
            why = (chk.stderr or chk.stdout).strip().splitlines()
            raise _StepFailed(f"{p.host}: database not reachable: {why[-1] if why else chk.exit_status}")
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
                raise _StepFailed(f"{p.host}: database not reachable: {why[-1] if why else chk.exit_status}")
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

    async def _check_disk(self) -> None:
        """Refuse to start when the run directory's filesystem is nearly full."""
        p = self.plan
        res = await self.t.run(["sh", "-c", _FREE_KB, "-", p.remote_dir])
        try:
            free_mb = int(res.stdout.strip()) // 1024
        except ValueError:
            return  # df unavailable: not a reason to refuse
        if free_mb < p.min_free_mb:
            raise _StepFailed(
                f"{p.host}: only {free_mb} MB free under {p.remote_dir} (need {p.min_free_mb} MB)"
            )

    async def _check_device(self) -> None:
        """Warn when the host's ``device`` does not exist there: iostat would report nothing."""
        p = self.plan
        if not p.device or "iostat" not in self._monitors:
            return
        res = await self.t.run(["sh", "-c", _DEVICE_OR_LIST, "-", p.device])
        if not res.ok:
            known = ", ".join(res.stdout.split()) or "none found"
            msg = f"device {p.device} does not exist on {p.host} (block devices: {known}): no iostat metrics"
            self._emit(LogLine(p.run_id, "benchdeck", f"warning: {msg}; fix device in the inventory"))

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
            raise _StepFailed(f"{name} ended without an exit code (killed?): {tail}")
        await self._step_ended(name, proc, rc)

    async def _step_ended(self, name: str, proc: DetachedProcess, rc: int | None) -> None:
        if rc is None or rc == 0:
            return
        if await self._cancel_marked():  # ``benchdeck cancel`` killed it
            self._cancel.set()
            return
        tail = await self._tail(proc.stdout_path)
        raise _StepFailed(f"{name} failed (exit {rc}): {tail}")

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
        dp = await self.t.start_detached(
            list(p.bench_argv), run_dir=d, stdout_name="bench.out", env=dict(p.env)
        )
        procs.append(RemoteProc("bench", dp.pid, dp.pgid, dp.stdout_name))
        self._emit(RunStarted(p.run_id, p.host, d, _now(), tuple(procs)))
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
        try:
            bench = sources["bench"]
            rc = await self._wait_rc(bench.proc)
            cancelled = rc is None or await self._cancel_marked()
            await self._drain(bench)
            for name in ("vmstat", "iostat"):
                if name in sources:
                    await self._kill(sources[name].proc)
                    await self._drain(sources[name])
        finally:
            for r in readers:
                r.cancel()
            await asyncio.gather(*readers, return_exceptions=True)
        if rc == 0 and not cancelled and not self._cancel.is_set():
            await self._done()
        self._finish(rc, cancelled)

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
        """True when another benchdeck cancelled this run (``benchdeck cancel``)."""
        with contextlib.suppress(TransportError):
            return await self.t.file_size(f"{self.plan.remote_dir}/{CANCEL_MARK}") is not None
        return False

    def _log_retry(self, msg: str) -> None:
        self._emit(LogLine(self.plan.run_id, "benchdeck", f"connection trouble: {msg}"))

    async def _read(self, src: _Source) -> None:
        async for lines in src.follower.batches():
            self._feed(src.name, lines)

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

    async def _kill(self, proc: DetachedProcess) -> None:
        """Stop a process group and wait (up to 10 s) until its wrapper is gone, so that the
        next run on the host never finds this one's processes alive."""
        with contextlib.suppress(TransportError):
            if not await self.t.kill_group(proc.pgid):
                return
            for _ in range(200):
                if not await self.t.is_alive(proc.pgid):
                    return
                await asyncio.sleep(0.05)

    def _feed(self, name: str, lines: list[str]) -> None:
        rid, m = self.plan.run_id, self.marks
        if name == "bench":
            n_skip = len(self._sb.skipped)
            rows = [iv for ln in lines if (iv := self._sb.feed(ln)) is not None]
            ended = getattr(self._sb, "ended", False) or getattr(self._sb, "finished", False)
            if ended or any(_LAST_LINE in ln for ln in lines):
                self._output_ended.set()
            self.bench += rows
            new = tuple(r for r in rows if m.bench_t is None or r.t > m.bench_t)
            if len(new) < len(rows):  # reattached: the store has these, a viewer may not
                self._emit(
                    Replayed(rid, bench=tuple(r for r in rows if m.bench_t is not None and r.t <= m.bench_t))
                )
            if new:
                self._emit(BenchBatch(rid, new))
            for msg in self._sb.messages[self._n_msgs :]:
                self._emit(LogLine(rid, self.plan.family, msg.text))
            self._n_msgs = len(self._sb.messages)
            self._skipped("sysbench", self._sb.skipped[n_skip:])
        elif name == "vmstat":
            n_skip = len(self._vm.skipped)
            vrows = [s for ln in lines if (s := self._vm.feed(ln)) is not None]
            self.vm += vrows
            vnew = tuple(s for s in vrows if m.vm_seq is None or s.seq > m.vm_seq)
            if len(vnew) < len(vrows):
                self._emit(
                    Replayed(rid, vm=tuple(s for s in vrows if m.vm_seq is not None and s.seq <= m.vm_seq))
                )
            if vnew:
                self._emit(VmstatBatch(rid, vnew))
            self._skipped("vmstat", self._vm.skipped[n_skip:])
        else:
            n_skip = len(self._io.skipped)
            irows = [s for ln in lines for s in self._io.feed(ln)]
            self.io += irows
            inew = tuple(s for s in irows if _io_is_new(s, m))
            if len(inew) < len(irows):
                self._emit(Replayed(rid, io=tuple(s for s in irows if not _io_is_new(s, m))))
            if inew:
                self._emit(IostatBatch(rid, inew))
            self._skipped("iostat", self._io.skipped[n_skip:])

    def _skipped(self, source: str, rows: Sequence[Any]) -> None:
        if rows:
            self._emit(Skipped(self.plan.run_id, source, tuple(rows)))

    def _finish(self, rc: int | None, cancelled: bool) -> None:
        p = self.plan
        if cancelled or self._cancel.is_set():
            self._emit(RunCancelled(p.run_id, _now()))
            return
        summary = self._sb.summary()
        qps = run_qps(summary, p.workload, p.table_size)
        if rc != 0 or qps is None:
            why = "; ".join(m.text for m in self._sb.messages[-3:]) or "no final sysbench summary"
            tool = posixpath.basename(p.bench_argv[0])
            self._emit(RunFailed(p.run_id, f"{tool} exited {rc}: {why}", _now()))
            return
        window = p.duration_s
        dev_rows = [s for s in self.io if p.device is None or s.device == p.device]
        metrics = per_op(qps, self.vm[:window], [s for s in dev_rows if s.seq < window], p.ncpu)
        self._emit(RunFinished(p.run_id, summary, qps, metrics, _now()))

    async def _tail(self, path: str, nbytes: int = 2000) -> str:
        with contextlib.suppress(TransportError, FileNotFoundError):
            size = await self.t.file_size(path) or 0
            raw = await self.t.read_from(path, max(0, size - nbytes), nbytes)
            lines = [ln for ln in raw.decode(errors="replace").splitlines() if ln.strip()]
            return " | ".join(lines[-3:])
        return "(no output)"


def _io_is_new(s: IostatSample, m: Marks) -> bool:
    if m.io_seq is None or s.seq > m.io_seq:
        return True
    return s.seq == m.io_seq and s.device not in m.io_devices_at_seq


class _StepFailed(Exception):
    """A step before the measured part failed; the run fails with this message."""


# Free KB on the filesystem that will hold "$1" (created first so df can see it).
_FREE_KB = 'mkdir -p -- "$1" && df -Pk -- "$1" | awk \'NR==2 {print $4}\''
# Exit 0 if block device "$1" exists, else list the block devices (no loop/ram) and exit 1.
_DEVICE_OR_LIST = r"""case $1 in */*|.*|"") ;; *) [ -e "/sys/class/block/$1" ] && exit 0;; esac
for d in /sys/block/*; do n=${d##*/}; case $n in loop*|ram*) ;; *) printf '%s\n' "$n";; esac; done
exit 1"""
# Writes stdin to "$1", creating its directory; a constant script, the path passed as data.
_WRITE_FILE = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'


class BenchParser(Protocol):
    """What the runner needs of a family's output parser (sysbench, db_bench, pgbench ...)."""

    skipped: list[SkippedLine]
    messages: list[SkippedLine]

    def feed(self, line: str) -> BenchInterval | None: ...
    def summary(self) -> SysbenchSummary: ...


_FAMILY_PARSERS = {
    "sysbench": ("benchdeck.engine.parsers.sysbench", "SysbenchParser"),
    "dbbench": ("benchdeck.engine.parsers.dbbench", "DbBenchParser"),
    "pgbench": ("benchdeck.engine.parsers.pgbench", "PgbenchParser"),
    "insertbench": ("benchdeck.engine.parsers.insertbench", "InsertBenchParser"),
}


def parser_for(family: str, argv: Sequence[str] = ()) -> BenchParser:
    """A fresh output parser for a workload family; some read the command (threads, steps)."""
    try:
        module, cls = _FAMILY_PARSERS[family]
    except KeyError:
        raise ValueError(
            f"unknown workload family {family!r} (known: {', '.join(_FAMILY_PARSERS)})"
        ) from None
    factory = getattr(importlib.import_module(module), cls)
    parser: BenchParser = factory(list(argv) or None) if family in ("dbbench", "pgbench") else factory()
    return parser


def _packages(tools: Sequence[str]) -> str:
    known = sorted({PACKAGES[t] for t in tools if t in PACKAGES})
    unknown = [t for t in tools if t not in PACKAGES]
    hints = [f"apt-get install {' '.join(known)}"] if known else []
    hints += [f"put {t} on PATH" for t in unknown]
    return "; ".join(hints)


async def cancel_remote(transport: Transport, remote_dir: str, procs: Sequence[RemoteProc]) -> int:
    """Cancel a run from any benchdeck: mark it, then kill its process groups.

    Returns how many groups still had processes to kill.
    """
    await transport.run(["sh", "-c", _WRITE_FILE, "-", f"{remote_dir}/{CANCEL_MARK}"], stdin="cancelled\n")
    killed = 0
    for proc in procs:
        if await transport.kill_group(proc.pgid):
            killed += 1
    return killed
