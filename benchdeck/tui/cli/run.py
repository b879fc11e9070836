"""``benchdeck run``: one workload on one host and build, with live progress."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from benchdeck.engine.hosts.inventory_file import load_inventory
from benchdeck.engine.planning.plan import RunRequest
from benchdeck.tui.cli.run_options import (
    check,
    cluster_host,
    options,
    run_options,
    unnamed_config,
    with_registered,
)
from benchdeck.tui.cli.run_progress import report, with_service

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx
    from benchdeck.tui.services.runs import Outcome, RunService


@click.command("run")
@click.option(
    "--host", help="Host from the inventory; 'local' is this machine (with --cluster: its primary's)."
)
@click.option("--build", required=True, help="Build configured on that host, or 'sqlite' (built-in).")
@click.option("--workload", required=True, help="Workload, e.g. point-query_range=100.")
@click.option("--config", help="One of the build's server configs (inventory); default: its own.")
@click.option(
    "--cluster", help="A cluster of the inventory: the run drives its primary and samples every node."
)
@run_options
@click.pass_obj
def run_cmd(
    obj: Ctx,
    /,
    host: str | None,
    build: str,
    workload: str,
    config: str | None,
    cluster: str | None,
    **run_opts: Any,
) -> None:
    """Run one workload on one host and build; ends with the run id and QPS (a line per run of
    a sweep: --threads 1,2,4 --repeat 2 runs each dop twice, repeat after repeat).

    \b
    Examples:
      benchdeck run --host local --build sqlite --workload point-query_range=100 --time 10
      benchdeck run --host local --build sqlite --workload point-query_range=100 --threads 1,2,4 --time 5
      benchdeck run --host dell32 --build my8040_rel_o2nofp --workload update-index_range=100 --time 600
      benchdeck run --cluster loop3 --build ma1011_rel --workload write-only --time 300
    """
    inv = with_registered(load_inventory(None), obj.db)
    host = cluster_host(inv, host, cluster)
    if config is not None:  # "default": the build's unnamed config, its own
        config = unnamed_config(inv, [host], [build], [config])[0] or None
    (workload,) = check(inv, [host], [build], [config], [workload])
    opts, sweep = options(**run_opts)
    dops: tuple[int | None, ...] = sweep.dops or (opts.threads,)
    reqs = [
        RunRequest(host, build, workload, replace(opts, threads=dop), config, cluster)
        for _ in range(sweep.repeats)
        for dop in dops
    ]

    async def go(svc: RunService) -> list[Outcome]:
        return [await svc.run(req) for req in reqs]

    report(asyncio.run(with_service(obj.db, go)))
