"""What a run on a cluster samples of its nodes beside the primary's own monitors.

Per replica: ``vmstat`` and ``iostat`` on its host, and a lag probe (:mod:`lag_probe`; one on
the primary's host for PostgreSQL, whose primary sees every standby). Each is started detached
in the run's directory on its host, as the run's own monitors are, followed by byte offset and
emitted as :class:`ClusterBatch` events. The primary's vmstat/iostat rows come from the run's
own monitors (:meth:`ClusterSampler.mirror`). A node that cannot be reached, or stops
replicating, is a :class:`NodeFault` and a :class:`LogLine`: the run goes on on the primary.
Each source started is a :class:`NodeProc` of :class:`RunStarted`: a later benchdeck follows
it again from its file's start (:meth:`ClusterSampler.reattach`; the store drops the rows it
holds) and stops it with the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from benchdeck.engine.cluster.lag_parse import LagParser
from benchdeck.engine.cluster.lag_probe import probe_argv, probe_kind
from benchdeck.engine.cluster.records import NodeFault, NodeIostat, NodeVmstat
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.events import (
    ClusterBatch,
    IostatBatch,
    LogLine,
    NodeProc,
    RunEvent,
    Skipped,
    VmstatBatch,
)
from benchdeck.engine.parsers import IostatParser, VmstatParser
from benchdeck.engine.records import SkippedLine
from benchdeck.engine.running.follow import LineFollower
from benchdeck.engine.transport import DetachedProcess, Transport, TransportError

_PLAIN = re.compile(r"[A-Za-z0-9_.-]+")
DRAIN_S = 3.0  # after the run, how long a node's last lines are waited for
SILENT_S = 5.0  # a lag probe without a line for this long: its nodes are gone until one comes


@dataclass(frozen=True, slots=True)
class NodeSource:
    """One detached process of a cluster run: ``what`` (vmstat, iostat, lag) of ``node`` on
    ``host``, writing ``run_dir/<node>.<what>.out``; a lag probe's lines are about ``covers``."""

    node: str
    host: str
    what: str
    argv: tuple[str, ...]
    run_dir: str
    covers: tuple[str, ...] = ()
    probe: str = ""

    @property
    def out_name(self) -> str:
        return f"{self.node}.{self.what}.out"


@dataclass(frozen=True, slots=True)
class ClusterSampling:
    """What to start on the nodes of ``cluster`` for one run."""

    cluster: ClusterSpec
    sources: tuple[NodeSource, ...]


def plan_sampling(
    cluster: ClusterSpec,
    dbms: str,
    clients: Mapping[str, Sequence[str]],
    run_dirs: Mapping[str, str],
    duration_s: int,
    monitors: bool = True,
) -> ClusterSampling:
    """Sources for a run of ``duration_s`` (each bounded: it ends by itself a little later).

    ``clients``: each node's SQL client argv; ``run_dirs``: the run's directory on each host.
    """
    for n in cluster.nodes:
        if not _PLAIN.fullmatch(n.name):
            raise ValueError(f"cluster {cluster.name}: node name {n.name!r} is not a plain name")
    count = duration_s + 15
    kind = probe_kind(dbms, cluster.kind)
    sources: list[NodeSource] = []
    for r in cluster.replicas:
        d = run_dirs[r.host]
        if monitors:
            sources.append(NodeSource(r.name, r.host, "vmstat", ("vmstat", "-n", "1", str(count)), d))
            sources.append(NodeSource(r.name, r.host, "iostat", ("iostat", "-y", "-kx", "1", str(count)), d))
        if kind.name != "streaming":
            argv = probe_argv(kind, clients[r.name], count)
            sources.append(NodeSource(r.name, r.host, "lag", tuple(argv), d, (r.name,), kind.name))
    if kind.name == "streaming":
        p = cluster.primary
        argv = probe_argv(kind, clients[p.name], count)
        covers = tuple(r.name for r in cluster.replicas)
        sources.append(NodeSource(p.name, p.host, "lag", tuple(argv), run_dirs[p.host], covers, kind.name))
    return ClusterSampling(cluster, tuple(sources))


class ClusterSampler:
    """Starts, follows and stops a :class:`ClusterSampling`'s sources; ``emit`` gets events."""

    def __init__(
        self,
        sampling: ClusterSampling | None,
        connect: Callable[[str], Awaitable[Transport]],
        run_id: int,
        emit: Callable[[RunEvent], None],
    ) -> None:
        self.sampling, self._connect, self.run_id, self._emit = sampling, connect, run_id, emit
        self._primary = sampling.cluster.primary.name if sampling is not None else ""
        self._t0: float | None = None
        self._procs: list[tuple[NodeSource, Transport, DetachedProcess, LineFollower]] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._watches: list[asyncio.Task[None]] = []
        self.faults: list[NodeFault] = []
        self._heard: dict[NodeSource, float] = {}  # when a source's last lines came (loop time)
        self._lag: dict[NodeSource, LagParser] = {}
        self._skew: dict[str, float] = {}  # per host: its clock minus this one's (seconds)

    @property
    def process_groups(self) -> tuple[int, ...]:
        """The process groups of the sources started (on their hosts)."""
        return tuple(dp.pgid for _, _, dp, _ in self._procs)

    @property
    def primary(self) -> str:
        return self._primary

    def node_procs(self) -> tuple[NodeProc, ...]:
        """The sources started, as a later benchdeck finds them again (once :meth:`follow`ed)."""
        assert self._t0 is not None, "node_procs() after follow()"
        return tuple(
            NodeProc(
                src.node,
                src.what,
                src.host,
                src.run_dir,
                dp.pid,
                dp.pgid,
                src.out_name,
                self._t0,
                self.primary,
                self._skew.get(src.host, 0.0),
                src.covers,
                src.probe,
            )
            for src, _, dp, _ in self._procs
        )

    @classmethod
    async def reattach(
        cls,
        nodes: Sequence[NodeProc],
        connect: Callable[[str], Awaitable[Transport]],
        run_id: int,
        emit: Callable[[RunEvent], None],
    ) -> ClusterSampler:
        """The sources an earlier benchdeck started, followed again from their files' start
        (what they wrote meanwhile is read; the store drops the rows it holds)."""
        self = cls(None, connect, run_id, emit)
        self._primary = nodes[0].primary if nodes else ""
        for n in nodes:
            src = NodeSource(n.node, n.host, n.what, (), n.run_dir, n.covers, n.probe)
            self._skew[n.host] = n.skew
            try:
                t = await connect(n.host)
            except (TransportError, OSError) as exc:
                for node in n.covers or (n.node,):
                    at = round(time.time() - n.t0, 3)
                    self._fault(NodeFault(node, at, "gone", f"{n.what} not reattached on {n.host}: {exc}"))
                continue
            dp = DetachedProcess(n.pid, n.pgid, n.run_dir, src.out_name.removesuffix(".out"), n.out)
            follower = LineFollower(t, f"{n.run_dir}/{n.out}", on_retry=self._log_retry)
            self._procs.append((src, t, dp, follower))
        if nodes:
            self.follow(nodes[0].t0)
        return self

    async def start(self) -> None:
        """Start every source (before the benchmark: its first second is sampled too); a node
        whose host cannot start one is a fault, said, and the run goes on."""
        assert self.sampling is not None
        for src in self.sampling.sources:
            try:
                t = await self._connect(src.host)
                if src.host not in self._skew:
                    self._skew[src.host] = await self._clock_skew(src.host, t)
                dp = await t.start_detached(list(src.argv), run_dir=src.run_dir, stdout_name=src.out_name)
            except (TransportError, OSError) as exc:
                for node in src.covers or (src.node,):
                    self._fault(NodeFault(node, 0.0, "gone", f"{src.what} not started on {src.host}: {exc}"))
                continue
            follower = LineFollower(t, f"{src.run_dir}/{src.out_name}", on_retry=self._log_retry)
            self._procs.append((src, t, dp, follower))

    async def _clock_skew(self, host: str, t: Transport) -> float:
        """How far ``host``'s clock is ahead of this one's (its probe lines carry its epoch)."""
        before = time.time()
        res = await t.run(["date", "+%s.%N"], timeout=30)
        after = time.time()
        try:
            skew = float(res.stdout.strip()) - (before + after) / 2
        except ValueError:
            return 0.0  # no GNU date: the clocks are taken as one
        if abs(skew) >= 1.0:
            self._say(
                f"cluster: host {host}'s clock is {skew:+.1f} s off this one's: its lag samples are corrected"
            )
        return skew

    def follow(self, t0: float) -> None:
        """Follow the sources started; ``t0``: the epoch second the measured phase started at."""
        self._t0 = t0
        self._tasks = [asyncio.create_task(self._follow(src, f, t0)) for src, _, _, f in self._procs]
        self._watches = [
            asyncio.create_task(self._watch(s, t0)) for s, _, _, _ in self._procs if s.what == "lag"
        ]

    def mirror(self, event: RunEvent) -> None:
        """The primary's own vmstat/iostat rows, as the primary node's."""
        if isinstance(event, VmstatBatch):
            self._emit(ClusterBatch(self.run_id, vm=tuple(NodeVmstat(self.primary, s) for s in event.rows)))
        elif isinstance(event, IostatBatch):
            self._emit(ClusterBatch(self.run_id, io=tuple(NodeIostat(self.primary, s) for s in event.rows)))

    async def stop(self) -> None:
        """Stop every source, read what they wrote last, and say how the nodes fared."""
        for w in self._watches:  # the probes are stopped now: their silence says nothing
            w.cancel()
        for _, t, dp, _ in self._procs:
            with contextlib.suppress(TransportError):
                await t.kill_group(dp.pgid)
        for _, t, _, follower in self._procs:
            with contextlib.suppress(TransportError):
                await _caught_up(t, follower)
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._watches, return_exceptions=True)
        self._watches.clear()
        self._procs.clear()
        self._tasks.clear()
        if self.faults:
            n = len({f.node for f in self.faults if f.kind != "back"})
            self._say(f"cluster: {n} node(s) had faults during the run; the run went on on the primary")

    async def let_go(self) -> None:
        """Stop following, the sources left running (a later benchdeck follows them again)."""
        for task in (*self._tasks, *self._watches):
            task.cancel()
        await asyncio.gather(*self._tasks, *self._watches, return_exceptions=True)
        self._tasks.clear()
        self._watches.clear()

    async def _watch(self, src: NodeSource, t0: float) -> None:
        """Say the nodes of a lag probe that fell silent are gone (once, until it speaks)."""
        loop = asyncio.get_running_loop()
        self._heard[src] = loop.time()
        while True:
            await asyncio.sleep(1.0)
            quiet = loop.time() - self._heard[src]
            lag = self._lag.get(src)
            if quiet >= SILENT_S and lag is not None:
                why = f"no lag probe line from {src.host} for {quiet:.0f} s (host unreachable or frozen?)"
                for f in lag.silent(round(time.time() - quiet - t0, 3), why):
                    self._fault(f)

    async def _follow(self, src: NodeSource, follower: LineFollower, t0: float) -> None:
        feed, lag = _feeder(src, t0 + self._skew.get(src.host, 0.0))
        if lag is not None:
            self._lag[src] = lag
        async for lines in follower.batches():
            self._heard[src] = asyncio.get_running_loop().time()
            batch, skipped = feed(lines)
            for f in batch.faults:
                self._fault(f, emitted=True)
            if batch.lag or batch.vm or batch.io or batch.faults:
                self._emit(ClusterBatch(self.run_id, batch.lag, batch.vm, batch.io, batch.faults))
            if skipped:
                self._emit(Skipped(self.run_id, f"{src.node}.{src.what}", tuple(skipped)))

    def _fault(self, f: NodeFault, emitted: bool = False) -> None:
        self.faults.append(f)
        if not emitted:
            self._emit(ClusterBatch(self.run_id, faults=(f,)))
        if f.kind == "back":
            self._say(f"cluster: {f.node} is back at {f.t:.0f} s ({f.reason})")
        else:
            self._say(
                f"cluster: {f.node} {f.kind} at {f.t:.0f} s: {f.reason}; the run goes on on the primary"
            )

    def _say(self, text: str) -> None:
        self._emit(LogLine(self.run_id, "benchdeck", text))

    def _log_retry(self, msg: str) -> None:
        self._say(f"cluster: connection trouble: {msg}")


Feed = Callable[[list[str]], tuple[ClusterBatch, list[SkippedLine]]]


def _feeder(src: NodeSource, t0: float) -> tuple[Feed, LagParser | None]:
    """The parser of one source's lines, as a function of a batch of lines (and a lag probe's
    parser, which :meth:`ClusterSampler._watch` tells of silence)."""
    if src.what == "lag":
        lag = LagParser(src.probe, src.covers, t0)

        def feed_lag(lines: list[str]) -> tuple[ClusterBatch, list[SkippedLine]]:
            n = len(lag.skipped)
            out = [lag.feed(ln) for ln in lines]
            batch = ClusterBatch(
                0, tuple(s for ss, _ in out for s in ss), faults=tuple(f for _, ff in out for f in ff)
            )
            return batch, lag.skipped[n:]

        return feed_lag, lag
    if src.what == "vmstat":
        vm = VmstatParser()

        def feed_vm(lines: list[str]) -> tuple[ClusterBatch, list[SkippedLine]]:
            n = len(vm.skipped)
            rows = tuple(NodeVmstat(src.node, s) for ln in lines if (s := vm.feed(ln)) is not None)
            return ClusterBatch(0, vm=rows), vm.skipped[n:]

        return feed_vm, None
    io = IostatParser()

    def feed_io(lines: list[str]) -> tuple[ClusterBatch, list[SkippedLine]]:
        n = len(io.skipped)
        rows = tuple(NodeIostat(src.node, s) for ln in lines for s in io.feed(ln))
        return ClusterBatch(0, io=rows), io.skipped[n:]

    return feed_io, None


async def _caught_up(t: Transport, follower: LineFollower) -> None:
    """Wait (a little) until the follower has read all complete lines of its file."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DRAIN_S
    while loop.time() < deadline:
        size = await t.file_size(follower.path)
        if size is None or follower.offset >= size:
            return
        rest = await t.read_from(follower.path, follower.offset, size - follower.offset)
        if b"\n" not in rest:
            return
        await asyncio.sleep(0.05)
