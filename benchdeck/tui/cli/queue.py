"""``benchdeck queue``: a persisted matrix of runs (hosts x builds x configs x workloads)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from benchdeck.engine.config_names import config_label
from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.profiling.capture import CaptureOptions
from benchdeck.store.storage import queue as q
from benchdeck.tui.cli.run_options import (
    check,
    cluster_host,
    options,
    run_options,
    unnamed_config,
    with_registered,
)
from benchdeck.tui.cli.run_progress import report, with_service
from benchdeck.tui.cli.suites import SUITE_HELP, suite_steps

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx
    from benchdeck.tui.services.runs import Outcome, RunService


@click.command("queue")
@click.option(
    "--host", "hosts", multiple=True, help="Host (repeat): hosts run in parallel (--cluster: its primary's)."
)
@click.option("--build", "builds", multiple=True, required=True, help="Build (repeat), run in this order.")
@click.option("--workload", "workloads", multiple=True, help="Workload (repeat).")
@click.option("--suite", help=f"A suite: {SUITE_HELP}.")
@click.option(
    "--config",
    "configs",
    multiple=True,
    help="Server config (repeat): each build runs those of them it has (default: its own).",
)
@click.option(
    "--cluster", help="A cluster of the inventory: the runs drive its primary and sample every node."
)
@run_options
@click.pass_obj
def queue_cmd(
    obj: Ctx,
    /,
    hosts: Sequence[str],
    builds: Sequence[str],
    workloads: Sequence[str],
    suite: str | None,
    configs: Sequence[str],
    cluster: str | None,
    **run_opts: Any,
) -> None:
    """Queue a matrix (hosts x builds x configs x threads x workloads, --repeat times) and run
    it; `benchdeck resume` continues it if it is interrupted.

    \b
    Examples:
      benchdeck queue --host local --build sqlite --build sqlite-sync --suite builtin --time 5
      benchdeck queue --host dell32 --host ax162-s --build my8028_rel_o2nofp \\
          --build my8040_rel_o2nofp --suite classic
      benchdeck queue --host local --build sqlite --build sqlite-sync --suite builtin \\
          --threads 1,2,4 --repeat 2 --time 5
    """
    names = list(workloads)
    settings: dict[str, int] = {}
    inv = with_registered(load_inventory(None), obj.db)
    if cluster is not None or not hosts:
        if len(hosts) > 1:
            raise click.UsageError("a queue on a cluster drives one host: its primary's")
        hosts = (cluster_host(inv, hosts[0] if hosts else None, cluster),)
    if suite:
        if suite in inv.suites:  # the inventory's own suite of that name comes first
            names += list(inv.suites[suite])
            settings = inv.suite_settings.get(suite, {})
        else:
            names += suite_steps(suite)
    if not names:
        raise click.UsageError("give --workload or --suite")
    configs = unnamed_config(inv, hosts, builds, configs)
    names = check(inv, hosts, builds, configs, names)
    matrix = inv.config_matrix(hosts, builds, configs)
    if configs and not any(matrix.values()):
        listed = ", ".join(map(config_label, configs))
        raise click.UsageError(f"none of the builds has the config(s) {listed}")
    opts, sweep = options(**run_opts)
    opts = replace(  # the suite's settings fill in what the command line did not set
        opts,
        threads=opts.threads or settings.get("threads"),
        tables=opts.tables or settings.get("tables"),
        table_size=opts.table_size or settings.get("table_size"),
        read_s=settings.get("read_s"),
        write_s=settings.get("write_s"),
        post_write_s=settings.get("post_write_s"),
    )
    if opts.capture is None and suite in inv.suite_profiles:  # the suite's perf capture
        opts = replace(opts, capture=CaptureOptions(inv.suite_profiles[suite]))
    db = obj.db
    with obj.open_store() as store, store.transaction() as cur:
        stored = replace(opts, cluster=cluster)  # each item's request gets it back (queued_request)
        qid = q.create_queue(cur, hosts, builds, names, stored, matrix, sweep.dops, sweep.repeats)
        n = len(q.items(cur, qid))
    click.echo(f"queue {qid}: {n} runs")

    blocked: list[str] = []

    async def go(svc: RunService) -> list[Outcome]:
        out = await svc.run_queue(qid)
        blocked.extend(svc.blocked)
        return out

    report(asyncio.run(with_service(db, go)), blocked)
