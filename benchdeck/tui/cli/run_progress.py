"""What ``run``, ``queue``, ``resume`` and ``cancel`` share at run time: the progress display, the
closing report and the run service they drive.

On a terminal progress is a live Rich table; otherwise plain lines, one per event worth
seeing. Every run ends with a line ``run <id> <status> qps <QPS>``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchdeck.engine.events import (
    BenchBatch,
    LogLine,
    Phase,
    Replayed,
    RunCancelled,
    RunEvent,
    RunFailed,
    RunFinished,
    RunStarted,
)
from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.records import BenchInterval
from benchdeck.engine.running.session import Session

if TYPE_CHECKING:  # rich and the run machinery load when a command needs them
    from rich.live import Live
    from rich.table import Table

    from benchdeck.tui.services.runs import Outcome, RunService


@dataclass
class _Live:
    phase: str = "queued"
    t: float = 0.0
    qps: float | None = None
    lat: float | None = None
    started: float = field(default_factory=time.monotonic)


class Progress:
    """Consumes events: plain lines when not a terminal, a live Rich table when it is."""

    def __init__(self, plain: bool):
        self.plain = plain
        self.runs: dict[int, _Live] = {}
        self._live: Live | None = None
        if not plain:
            from rich.live import Live

            self._live = Live(self._table(), refresh_per_second=4, transient=False)

    def __enter__(self) -> Progress:
        if self._live is not None:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)

    def note(self, line: str) -> None:
        """A line of its own (a wait for the store): above the live table, which it would
        otherwise break, else on stderr. Any thread (the store's writer calls it)."""
        if self._live is not None and self._live.is_started:
            self._live.console.print(line, markup=False, highlight=False, style="dim")
        else:
            click.echo(line, err=True)

    def _table(self) -> Table:
        from rich.table import Table

        t = Table(box=None)
        for col in ("run", "phase", "t (s)", "QPS", "p95 ms"):
            t.add_column(col, justify="right" if col != "phase" else "left")
        for rid, r in sorted(self.runs.items()):
            t.add_row(
                str(rid),
                r.phase,
                f"{r.t:.0f}",
                f"{r.qps:,.1f}" if r.qps else "-",
                f"{r.lat:.2f}" if r.lat is not None else "-",
            )
        return t

    def __call__(self, ev: RunEvent) -> None:
        r = self.runs.setdefault(ev.run_id, _Live())
        line: str | None = None
        match ev:
            case Phase(_, name, detail):
                r.phase = name
                line = f"{name}{': ' + detail if detail else ''}"
                if name == "queue" and self._live is not None:  # k/N and ETA, above the table
                    self._live.console.print(f"[run {ev.run_id}] {line}", markup=False, highlight=False)
            case RunStarted(_, host, remote_dir, _, _):
                r.phase = "measuring"
                line = f"measuring on {host} ({remote_dir})"
            case BenchBatch(_, rows):
                last = rows[-1]
                r.t, r.qps, r.lat = last.t, last.qps if last.qps is not None else last.tps, last.latency_ms
                if self.plain:  # every interval, also a backfill of many after a reconnect or resume
                    for row in rows[:-1]:
                        click.echo(f"[run {ev.run_id}] {_interval(row)}")
                line = _interval(last)
            case Replayed(_, bench, _, _) if bench:
                line = f"{len(bench)} intervals stored before, up to {bench[-1].t:.0f}s"
            case LogLine(_, stream, text):
                line = f"{stream}: {text}"
                if stream == "benchdeck" and self._live is not None:  # warnings, what perf captured
                    self._live.console.print(f"[run {ev.run_id}] {line}", markup=False, highlight=False)
            case RunFinished(_, _, qps, _, _):
                r.phase, r.qps = "finished", qps
            case RunFailed(_, error, _):
                r.phase = "failed"
                line = f"failed: {error}"
            case RunCancelled():
                r.phase = "cancelled"
        if self.plain and line is not None:
            click.echo(f"[run {ev.run_id}] {line}")
        elif self._live is not None:
            self._live.update(self._table())


def _interval(row: BenchInterval) -> str:
    qps = row.qps if row.qps is not None else row.tps
    return f"{row.t:.0f}s qps {qps:.1f} lat {row.latency_ms} ms"


def report(outcomes: Sequence[Outcome], blocked: Sequence[str] = ()) -> None:
    for o in outcomes:
        qps = f"{o.qps:.2f}" if o.qps is not None else "-"
        tail = f" ({o.error})" if o.error else ""
        setup = f"config {o.config or 'default'}" + (f" dop {o.dop}" if o.dop is not None else "")
        click.echo(f"run {o.run_id} {o.status} qps {qps}  {o.host} {o.build} {o.workload} {setup}{tail}")
    for why in blocked:  # a host's queued runs wait: another run's process is alive there
        click.echo(f"benchdeck: {why}; the queue's runs there wait (benchdeck resume)", err=True)
    if any(o.status != "finished" for o in outcomes) or blocked:
        sys.exit(1)


async def with_service(
    db: Path | None, coro_factory: Callable[[RunService], Awaitable[list[Outcome]]]
) -> list[Outcome]:
    from benchdeck.store.storage.build_records import registered
    from benchdeck.tui.cli.context import open_shared_store
    from benchdeck.tui.services.runs import RunService

    session = Session(load_inventory(None))
    plain = not sys.stdout.isatty()
    # Store writes on their own thread: waiting for a store another process holds never stalls
    # the followers (the remote files keep every line meanwhile).
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchdeck-writer")
    try:
        progress = Progress(plain)
        with open_shared_store(db, say=progress.note) as store, progress:
            with store.reading() as cur:  # builds registered by `benchdeck build`
                session.inventory = session.inventory.with_builds(registered(cur))
            async with RunService(store, session, progress, writer) as svc:
                return await coro_factory(svc)
    finally:
        writer.shutdown(wait=True)
        await session.close()
