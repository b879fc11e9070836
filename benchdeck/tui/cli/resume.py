"""``benchdeck resume`` and ``cancel``: reattach to runs left running; stop runs and queues."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.running.session import Session
from benchdeck.store.storage import queue as q
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.following import is_followed
from benchdeck.store.storage.lookups import count_samples
from benchdeck.tui.cli.run_progress import report, with_service

if TYPE_CHECKING:
    from benchdeck.store.storage.live import LiveRun
    from benchdeck.tui.cli.context import Ctx
    from benchdeck.tui.services.runs import Outcome, RunService


@click.command("resume")
@click.pass_obj
def resume_cmd(obj: Ctx) -> None:
    """Reattach to runs an earlier benchdeck left running (backfilling), then finish queues."""

    blocked: list[str] = []

    async def go(svc: RunService) -> list[Outcome]:
        out = await svc.resume()
        blocked.extend(svc.blocked)
        return out

    from benchdeck.tui.cli.bisect import resume_bisects

    outcomes = asyncio.run(with_service(obj.db, go))
    report(outcomes, blocked)
    bisects = resume_bisects(obj)
    if not outcomes and not blocked and not bisects:
        click.echo("nothing to resume")


@click.command("cancel")
@click.argument("run_id", type=int, required=False)
@click.option(
    "--queue", "queue_id", type=int, help="Cancel a whole queue: its waiting runs and running ones."
)
@click.pass_obj
def cancel_cmd(obj: Ctx, run_id: int | None, queue_id: int | None) -> None:
    """Stop a running benchmark (its remote processes are killed, its samples kept), or a queue."""
    from benchdeck.store.storage.live import unfinished
    from benchdeck.store.storage.lookups import run_status

    if (run_id is None) == (queue_id is None):
        raise click.UsageError("give a RUN_ID or --queue N")
    with Store.open_for_reading(obj.db) as store:
        cur = store.cursor()
        live = {r.run_id: r for r in unfinished(cur)}
        known = queue_id is None or q.exists(cur, queue_id)
        status = run_status(cur, run_id) if run_id is not None else None
        store_path = store.snapshot_of or store.path
    if queue_id is not None:
        if not known:
            raise click.ClickException(f"there is no queue {queue_id}")
        _cancel_queue(obj, store_path, queue_id, live)
        return
    assert run_id is not None
    if run_id not in live:
        if status is None:
            raise click.ClickException(f"there is no run {run_id}")
        raise click.ClickException(f"run {run_id} is not running (it is {status})")
    run = live[run_id]
    if not is_followed(store_path, run_id):  # nobody follows it: store what its files hold, then the end

        async def backfill(svc: RunService) -> list[Outcome]:
            return [await svc.cancel(run)]

        (outcome,) = asyncio.run(with_service(obj.db, backfill))
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
                killed += await cancel_remote(
                    transport, run.plan.remote_dir, run.procs, run.nodes, session.transport
                )
            return killed
        finally:
            await session.close()

    killed = asyncio.run(go()) if followed else 0
    if alone:

        async def backfill(svc: RunService) -> list[Outcome]:
            return [await svc.cancel(r) for r in alone]

        asyncio.run(with_service(obj.db, backfill))
    note = " (the benchdeck following it records the end)" if followed else ""
    if alone:
        note += f" ({len(alone)} run(s) nobody followed: backfilled and marked cancelled here)"
    return killed, note


def _cancel_queue(obj: Ctx, store_path: Path, queue_id: int, live: dict[int, LiveRun]) -> None:
    """Waiting items cancelled (directly, or through a request the benchdeck running the queue
    picks up before its next item), then its running runs stopped."""
    from benchdeck.store.storage.db import StoreLocked

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
