"""``benchdeck run``, ``queue`` and ``resume``: headless runs with live progress.

On a terminal progress is a live Rich table; otherwise plain lines, one per event worth
seeing. Every run ends with a line ``run <id> <status> qps <QPS>``.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

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
from benchdeck.engine.hosts.inventory import Inventory, load_inventory
from benchdeck.engine.planning.plan import RunOptions, RunRequest
from benchdeck.engine.records import BenchInterval
from benchdeck.engine.running.session import Session
from benchdeck.store import queue as q
from benchdeck.store.db import Store
from benchdeck.store.following import is_followed
from benchdeck.store.lookups import count_samples
from benchdeck.tui.services.suites import SUITE_HELP, suite_steps

if TYPE_CHECKING:  # rich and the run machinery load when a command needs them
    from rich.live import Live
    from rich.table import Table

    from benchdeck.store.live import LiveRun
    from benchdeck.tui.cli.context import Ctx
    from benchdeck.tui.services.runs import Outcome, RunService

F = TypeVar("F", bound=Callable[..., Any])


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


def _report(outcomes: Sequence[Outcome], blocked: Sequence[str] = ()) -> None:
    for o in outcomes:
        qps = f"{o.qps:.2f}" if o.qps is not None else "-"
        tail = f" ({o.error})" if o.error else ""
        click.echo(f"run {o.run_id} {o.status} qps {qps}  {o.host} {o.build} {o.workload}{tail}")
    for why in blocked:  # a host's queued runs wait: another run's process is alive there
        click.echo(f"benchdeck: {why}; the queue's runs there wait (benchdeck resume)", err=True)
    if any(o.status != "finished" for o in outcomes) or blocked:
        sys.exit(1)


async def _with_service(
    db: Path | None, coro_factory: Callable[[RunService], Awaitable[list[Outcome]]]
) -> list[Outcome]:
    from benchdeck.store.build_records import registered
    from benchdeck.tui.cli.context import open_shared_store
    from benchdeck.tui.services.runs import RunService

    session = Session(load_inventory(None))
    plain = not sys.stdout.isatty()
    # Store writes on their own thread: waiting for a store another process holds never stalls
    # the followers (the remote files keep every line meanwhile).
    writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="benchdeck-writer")
    try:
        with open_shared_store(db) as store, Progress(plain) as progress:
            with store.reading() as cur:  # builds registered by `benchdeck build`
                session.inventory = session.inventory.with_builds(registered(cur))
            async with RunService(store, session, progress, writer) as svc:
                return await coro_factory(svc)
    finally:
        writer.shutdown(wait=True)
        await session.close()


def _options(
    *,
    threads: int | None,
    tables: int | None,
    table_size: int | None,
    time_s: int | None,
    warmup: int,
    no_prepare: bool,
    stop_server: bool,
    params: Sequence[str],
) -> RunOptions:
    """RunOptions from the options every run command shares (see :func:`_run_options`)."""
    extra: dict[str, str] = {}
    for p in params:
        key, sep, value = p.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--param wants KEY=VALUE, got {p!r}")
        extra[key] = value
    return RunOptions(
        threads=threads,
        tables=tables,
        table_size=table_size,
        duration_s=time_s,
        warmup_s=warmup,
        prepare=not no_prepare,
        stop_server=stop_server,
        extra=extra,
    )


def _run_options(f: F) -> F:
    for opt in reversed(
        [
            click.option("--threads", type=click.IntRange(min=1), help="Client threads (dop)."),
            click.option("--tables", type=click.IntRange(min=1), help="Tables."),
            click.option("--table-size", type=click.IntRange(min=1), help="Rows per table."),
            click.option(
                "--time",
                "time_s",
                type=click.IntRange(min=1),
                help="Seconds measured (default: 300 read-only, 600 writes).",
            ),
            click.option(
                "--warmup", type=click.IntRange(min=0), default=0, help="Warm-up seconds, not measured."
            ),
            click.option("--no-prepare", is_flag=True, help="Do not create tables (they must exist)."),
            click.option("--stop-server", is_flag=True, help="Stop a managed server after the run."),
            click.option(
                "--param",
                "params",
                multiple=True,
                metavar="KEY=VALUE",
                help="Extra sysbench option, passed as data (repeat).",
            ),
        ]
    ):
        f = opt(f)
    return f


def _with_registered(inv: Inventory, db: Path | None) -> Inventory:
    """The inventory plus the builds `benchdeck build` registered in the store (if there is one)."""
    from benchdeck.store.build_records import registered
    from benchdeck.store.location import default_db_path

    if not (db or default_db_path()).exists():
        return inv
    with Store.open_for_reading(db) as store, store.reading() as cur:
        return inv.with_builds(registered(cur))


def _check(
    inv: Inventory,
    hosts: Sequence[str],
    builds: Sequence[str],
    configs: Sequence[str | None],
    names: Sequence[str],
) -> None:
    """Typos are usage errors, found before anything is stored or started (known names listed)."""
    from benchdeck.engine.planning.request_check import RequestError, check_requests

    try:
        check_requests(inv, hosts, builds, configs, names)
    except RequestError as exc:
        raise click.UsageError(str(exc)) from None


@click.command("run")
@click.option("--host", required=True, help="Host from the inventory; 'local' is this machine.")
@click.option("--build", required=True, help="Build configured on that host, or 'sqlite' (built-in).")
@click.option("--workload", required=True, help="Workload, e.g. point-query_range=100.")
@click.option("--config", help="One of the build's server configs (inventory); default: its own.")
@_run_options
@click.pass_obj
def run_cmd(obj: Ctx, /, host: str, build: str, workload: str, config: str | None, **run_opts: Any) -> None:
    """Run one workload on one host and build; ends with the run id and QPS.

    \b
    Examples:
      benchdeck run --host local --build sqlite --workload point-query_range=100 --time 10
      benchdeck run --host dell32 --build my8040_rel_o2nofp --workload update-index_range=100 --time 600
    """
    _check(_with_registered(load_inventory(None), obj.db), [host], [build], [config], [workload])
    opts = _options(**run_opts)
    req = RunRequest(host, build, workload, opts, config)

    async def go(svc: RunService) -> list[Outcome]:
        return [await svc.run(req)]

    _report(asyncio.run(_with_service(obj.db, go)))


@click.command("queue")
@click.option("--host", "hosts", multiple=True, required=True, help="Host (repeat): hosts run in parallel.")
@click.option("--build", "builds", multiple=True, required=True, help="Build (repeat), run in this order.")
@click.option("--workload", "workloads", multiple=True, help="Workload (repeat).")
@click.option("--suite", help=f"A suite: {SUITE_HELP}.")
@click.option(
    "--config",
    "configs",
    multiple=True,
    help="Server config (repeat): each build runs those of them it has (default: its own).",
)
@_run_options
@click.pass_obj
def queue_cmd(
    obj: Ctx,
    /,
    hosts: Sequence[str],
    builds: Sequence[str],
    workloads: Sequence[str],
    suite: str | None,
    configs: Sequence[str],
    **run_opts: Any,
) -> None:
    """Queue a matrix (hosts x builds x configs x workloads) and run it; `benchdeck resume`
    continues it if it is interrupted.

    \b
    Examples:
      benchdeck queue --host local --build sqlite --build sqlite-sync --suite builtin --time 5
      benchdeck queue --host dell32 --host ax162-s --build my8028_rel_o2nofp \\
          --build my8040_rel_o2nofp --suite classic
    """
    names = list(workloads)
    settings: dict[str, int] = {}
    inv = _with_registered(load_inventory(None), obj.db)
    if suite:
        if suite in inv.suites:  # the inventory's own suite of that name comes first
            names += list(inv.suites[suite])
            settings = inv.suite_settings.get(suite, {})
        else:
            names += suite_steps(suite)
    if not names:
        raise click.UsageError("give --workload or --suite")
    _check(inv, hosts, builds, configs, names)
    matrix = inv.config_matrix(hosts, builds, configs)
    if configs and not any(matrix.values()):
        raise click.UsageError(f"none of the builds has the config(s) {', '.join(configs)}")
    opts = _options(**run_opts)
    opts = replace(  # the suite's settings fill in what the command line did not set
        opts,
        threads=opts.threads or settings.get("threads"),
        tables=opts.tables or settings.get("tables"),
        table_size=opts.table_size or settings.get("table_size"),
        read_s=settings.get("read_s"),
        write_s=settings.get("write_s"),
        post_write_s=settings.get("post_write_s"),
    )
    db = obj.db
    with obj.open_store() as store, store.transaction() as cur:
        qid = q.create_queue(cur, hosts, builds, names, opts, matrix)
    click.echo(f"queue {qid}: {sum(map(len, matrix.values())) * len(names)} runs")

    blocked: list[str] = []

    async def go(svc: RunService) -> list[Outcome]:
        out = await svc.run_queue(qid)
        blocked.extend(svc.blocked)
        return out

    _report(asyncio.run(_with_service(db, go)), blocked)


@click.command("resume")
@click.pass_obj
def resume_cmd(obj: Ctx) -> None:
    """Reattach to runs an earlier benchdeck left running (backfilling), then finish queues."""

    blocked: list[str] = []

    async def go(svc: RunService) -> list[Outcome]:
        out = await svc.resume()
        blocked.extend(svc.blocked)
        return out

    outcomes = asyncio.run(_with_service(obj.db, go))
    if not outcomes and not blocked:
        click.echo("nothing to resume")
    _report(outcomes, blocked)


@click.command("cancel")
@click.argument("run_id", type=int, required=False)
@click.option(
    "--queue", "queue_id", type=int, help="Cancel a whole queue: its waiting runs and running ones."
)
@click.pass_obj
def cancel_cmd(obj: Ctx, run_id: int | None, queue_id: int | None) -> None:
    """Stop a running benchmark (its remote processes are killed, its samples kept), or a queue."""
    from benchdeck.store.live import unfinished

    if (run_id is None) == (queue_id is None):
        raise click.UsageError("give a RUN_ID or --queue N")
    with Store.open_for_reading(obj.db) as store:
        cur = store.cursor()
        live = {r.run_id: r for r in unfinished(cur)}
        known = queue_id is None or q.exists(cur, queue_id)
        store_path = store.snapshot_of or store.path
    if queue_id is not None:
        if not known:
            raise click.ClickException(f"there is no queue {queue_id}")
        _cancel_queue(obj, store_path, queue_id, live)
        return
    assert run_id is not None
    if run_id not in live:
        raise click.ClickException(f"run {run_id} is not running")
    run = live[run_id]
    if not is_followed(store_path, run_id):  # nobody follows it: store what its files hold, then the end

        async def backfill(svc: RunService) -> list[Outcome]:
            return [await svc.cancel(run)]

        (outcome,) = asyncio.run(_with_service(obj.db, backfill))
        n = db_count(obj.db, run_id)
        click.echo(f"run {run_id} {outcome.status}: {n} interval(s) stored{_err(outcome)}")
        return
    killed, note = _cancel_runs(obj, store_path, [run])
    click.echo(f"run {run_id} cancelled: {killed} process group(s) stopped{note}")


def _cancel_runs(obj: Ctx, store_path: Path, runs: Sequence[LiveRun]) -> tuple[int, str]:
    """Stop runs on their hosts. A run a live benchdeck follows is only stopped (that one stores
    the rest and records the end); the others are backfilled from their files here, then marked
    cancelled. Returns the process groups stopped (of followed runs) and a note."""
    from benchdeck.engine.running.cancel import cancel_remote

    followed = [r for r in runs if is_followed(store_path, r.run_id)]
    alone = [r for r in runs if r not in followed]

    async def go() -> int:
        session = Session(load_inventory(None))
        try:
            killed = 0
            for run in followed:
                transport = await session.transport(run.host)
                killed += await cancel_remote(transport, run.plan.remote_dir, run.procs)
            return killed
        finally:
            await session.close()

    killed = asyncio.run(go()) if followed else 0
    if alone:

        async def backfill(svc: RunService) -> list[Outcome]:
            return [await svc.cancel(r) for r in alone]

        asyncio.run(_with_service(obj.db, backfill))
    note = " (the benchdeck following it records the end)" if followed else ""
    if alone:
        note += f" ({len(alone)} run(s) nobody followed: backfilled and marked cancelled here)"
    return killed, note


def _cancel_queue(obj: Ctx, store_path: Path, queue_id: int, live: dict[int, LiveRun]) -> None:
    """Waiting items cancelled (directly, or through a request the benchdeck running the queue
    picks up before its next item), then its running runs stopped."""
    from benchdeck.store.db import StoreLocked

    try:  # a queue's benchdeck holds a shared store only per batch: wait that out, not more
        with Store.open(obj.db, shared=True, lock_wait=5.0) as store, store.transaction() as cur:
            waiting, running = q.cancel_queue(cur, queue_id)
        how = f"{waiting} waiting run(s) cancelled"
    except StoreLocked:
        q.cancel_request(store_path, queue_id).write_text("cancel\n")
        with Store.open_for_reading(obj.db) as store:
            running = [
                i.run_id for i in q.items(store.cursor(), queue_id) if i.status == "running" and i.run_id
            ]
        how = "the benchdeck running it takes no more of its runs"
    runs = [live[r] for r in running if r in live]
    killed, note = _cancel_runs(obj, store_path, runs)
    stopped = ", ".join(f"run {r.run_id}" for r in runs) or "no run was running"
    click.echo(f"queue {queue_id} cancelled: {how}; {stopped} ({killed} process group(s) stopped){note}")


def _err(outcome: Outcome) -> str:
    return f" ({outcome.error})" if outcome.error else ""


def db_count(db: Path | None, run_id: int) -> int:
    """Interval samples stored for a run."""
    with Store.open_for_reading(db) as store:
        cur = store.cursor()
        try:
            return count_samples(cur, run_id)
        finally:
            cur.close()
