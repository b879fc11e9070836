"""``benchdeck bisect``: which commit of a recipe's source history made a workload slower.

The commits between --good and --bad (first parent) are built with the recipe and measured with
repeats interleaved with the endpoints; each commit's verdict comes from the noise interval of its
QPS ratio (engine.bisect). Running the same command again after a kill resumes the bisect.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import click

from benchdeck.tui.cli.run_options import options, run_options

if TYPE_CHECKING:
    from benchdeck.store.storage.db import Store
    from benchdeck.tui.cli.context import Ctx
    from benchdeck.tui.services.bisect import BisectRequest, Report
    from benchdeck.tui.services.builds import BuildService
    from benchdeck.tui.services.runs import RunService

DEFAULT_REPEATS = 3


def _failures_only(ev: Any) -> None:
    """Of the builds' and runs' own events, only what a user must see (the steps say the rest)."""
    from benchdeck.engine.building.runner import BuildFailed
    from benchdeck.engine.events import LogLine, RunFailed

    match ev:
        case LogLine(rid, "benchdeck", text) if "interrupted" in text:
            click.echo(f"[{rid}] {text}", err=True)
        case BuildFailed(rid, error, _, _, _):
            click.echo(f"[{rid}] build failed: {error}", err=True)
        case RunFailed(rid, error, _):
            click.echo(f"[{rid}] run failed: {error}", err=True)


def _profile(store: Store, rep: Report, fmt: str) -> str | None:
    """culprit vs parent: CPU per query by function (as ``benchdeck profile`` prints it)."""
    from benchdeck.engine.profiling.cpu import ProfileError
    from benchdeck.tui.services.profiles import ProfileRequest, load_profiles, render_table

    first, last = rep.result.culprit or (0, 0)
    if rep.culprit is None:
        return None
    q = rep.request
    req = ProfileRequest(
        host=q.host,
        base=rep.build_names[first - 1],
        column=rep.build_names[last],
        workload=q.workload,
        config=q.config,
    )
    with store.reading() as cur:
        try:
            return render_table(load_profiles(cur, req), fmt, limit=10)
        except ProfileError as exc:
            return None if fmt == "json" else f"(no profile difference: {exc})"


@click.command("bisect")
@click.option("--host", required=True, help="Host from the inventory (the recipe's source history is there).")
@click.option("--recipe", required=True, help="Recipe whose source directory is a git repository.")
@click.option("--good", required=True, help="A commit (sha, tag, branch) without the regression.")
@click.option("--bad", required=True, help="A later commit with it.")
@click.option("--workload", required=True, help="Workload measured, e.g. point-query_range=100.")
@click.option("--variant", default="o2nofp", show_default=True, help="Build variant of every commit.")
@click.option("--config", help="Server config of the runs (as run takes it).")
@run_options
@click.option(
    "--max-repeats",
    type=click.IntRange(min=1),
    help="Runs an unclear commit may grow to (default: repeats + 4; the endpoints twice that).",
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.05,
    show_default=True,
    help="A change counts past this fraction (as changes' --min-magnitude).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "md", "json"]), default="text", show_default=True)
@click.pass_obj
def bisect_cmd(
    obj: Ctx,
    /,
    host: str,
    recipe: str,
    good: str,
    bad: str,
    workload: str,
    variant: str,
    config: str | None,
    repeat: int,
    max_repeats: int | None,
    threshold: float,
    fmt: str,
    **run_opts: Any,
) -> None:
    """Find the commit that made WORKLOAD slower between GOOD and BAD, noise-aware.

    \b
    Example:
      benchdeck bisect --host dell32 --recipe my80-git --good mysql-8.0.28 --bad mysql-8.0.40 \\
          --workload update-index_range=100 --time 120 --repeat 3 --profile cpu
    """
    from benchdeck.tui.services.bisect import BisectRequest

    if click.get_current_context().get_parameter_source("repeat") is click.core.ParameterSource.DEFAULT:
        repeat = DEFAULT_REPEATS
    run_options_, sweep = options(repeat=repeat, **run_opts)
    if sweep.dops:
        raise click.UsageError("bisect measures one concurrency: give one --threads")
    req = BisectRequest(
        host, recipe, good, bad, workload, variant, config, run_options_,
        repeat, max_repeats or repeat + 4, threshold,
    )  # fmt: skip
    _check(host, recipe, workload)
    _run(obj, req, fmt)


def _run(obj: Ctx, req: BisectRequest, fmt: str) -> None:
    """One bisect to its end (or resumed to it), its report printed in ``fmt``."""
    from benchdeck.tui.cli.bisect_report import render
    from benchdeck.tui.cli.build import _detachable, _services
    from benchdeck.tui.services.bisect import BisectError, bisect

    progress_to_err = fmt != "text"

    def say(line: str) -> None:
        click.echo(line, err=progress_to_err)

    async def go(builds: BuildService, runs: RunService) -> Report:
        return await bisect(builds, runs, req, say)

    def show(store: Store, rep: Report) -> None:
        capture = req.options.capture
        prof = _profile(store, rep, fmt) if capture is not None and "cpu" in capture.kinds else None
        click.echo(render(rep, fmt, prof), nl=False)

    try:
        _detachable(
            lambda: asyncio.run(_services(obj.db, True, go, show, listener=_failures_only, shared=True))
        )
    except BisectError as exc:
        raise click.ClickException(str(exc)) from None


def resume_bisects(obj: Ctx) -> int:
    """``benchdeck resume``: every bisect a killed benchdeck left unfinished, to its end."""
    from benchdeck.tui.services.bisect import BisectRequest
    from benchdeck.tui.services.bisect_state import sessions_dir, unfinished_sessions

    with obj.open_store_for_reading() as store:
        label = store.label
    left = unfinished_sessions(sessions_dir(label))
    for args in left:
        req = BisectRequest.from_args(args)
        click.echo(f"resuming bisect of {req.workload} on {req.host} ({req.good[:8]}..{req.bad[:8]})")
        _run(obj, req, "text")
    return len(left)


def _check(host: str, recipe: str, workload: str) -> None:
    """The host and recipe exist and the workload runs on the recipe's builds."""
    from benchdeck.engine.hosts.inventory_file import load_inventory
    from benchdeck.tui.cli.build import _check_workloads

    inv = load_inventory(None)
    for what, name, known in (("host", host, inv.hosts), ("recipe", recipe, inv.recipes)):
        if name not in known:
            raise click.UsageError(f"unknown {what} {name!r} (known: {', '.join(sorted(known)) or 'none'})")
    _check_workloads(recipe, [workload])
