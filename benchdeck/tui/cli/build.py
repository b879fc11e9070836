"""``benchdeck build``, ``pgo`` and ``builds``: compile a recipe's variants on a host, run the
PGO loop end to end, list what was built.

A build runs detached on its host; its log is followed live (plain lines). Running the same
command again reattaches to a build that is still running, or starts over cleanly when its
processes died. A failed compile is one line plus the log's tail, and registers nothing.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from benchdeck.engine.building.recipes import ALL_VARIANTS, VARIANTS
from benchdeck.engine.building.runner import BuildEvent, BuildFailed, BuildFinished
from benchdeck.engine.events import LogLine, Phase, RunEvent, RunFailed, RunFinished, RunStarted
from benchdeck.store.storage.db import Store

if TYPE_CHECKING:
    from benchdeck.tui.cli.context import Ctx
    from benchdeck.tui.services.builds import BuildOutcome, BuildService
    from benchdeck.tui.services.runs import RunService

T = TypeVar("T")


def _say(line: str) -> None:
    click.echo(line)


def _printer(quiet_log: bool) -> Callable[[BuildEvent | RunEvent], None]:
    """Plain progress lines for builds and runs (a compile log can be long: ``quiet_log`` drops it)."""

    def show(ev: BuildEvent | RunEvent) -> None:
        match ev:
            case Phase(rid, name, detail):
                click.echo(f"[{rid}] {name}{': ' + detail if detail else ''}")
            case LogLine(rid, stream, text):
                if not (quiet_log and stream == "build"):
                    click.echo(f"[{rid}] {stream}: {text}")
            case RunStarted(rid, host, remote_dir, _, _):
                click.echo(f"[{rid}] started on {host} ({remote_dir})")
            case BuildFinished(rid, r, _):
                size = f"binary {r.binary_size:,} bytes"
                click.echo(f"[{rid}] built in {r.duration_s:.1f} s with {r.compiler_version}: {size}")
            case BuildFailed(rid, error, _, _, _):
                click.echo(f"[{rid}] failed: {error}")
            case RunFinished(rid, _, qps, _, _):
                click.echo(f"[{rid}] finished: qps {qps:.2f}")
            case RunFailed(rid, error, _):
                click.echo(f"[{rid}] failed: {error}")

    return show


async def _services(
    db: Path | None,
    quiet_log: bool,
    fn: Callable[[BuildService, RunService], Awaitable[T]],
    after: Callable[[Store, T], None] | None = None,
    listener: Callable[[BuildEvent | RunEvent], None] | None = None,
    shared: bool = False,
) -> T:
    """Run ``fn`` with a build and a run service; ``after`` sees the store once every event of
    the runs is written (the run service closed); ``listener`` replaces the plain progress lines;
    ``shared`` holds the store only while writing (a long bisect leaves it to others meanwhile)."""
    from benchdeck.engine.hosts.inventory_file import load_inventory
    from benchdeck.engine.running.session import Session
    from benchdeck.store.storage import build_records as br
    from benchdeck.tui.cli.context import open_shared_store
    from benchdeck.tui.services.builds import BuildService
    from benchdeck.tui.services.runs import RunService

    show = listener or _printer(quiet_log)
    with open_shared_store(db) if shared else Store.open(db) as store:
        with store.reading() as cur:  # (a shared store lets go of the file after it)
            session = Session(load_inventory(None).with_builds(br.registered(cur)))
        try:
            async with RunService(store, session, show) as runs:
                result = await fn(BuildService(store, session, show), runs)
            if after is not None:
                after(store, result)
            return result
        finally:
            await session.close()


def _detachable(fn: Callable[[], T]) -> T:
    """Ctrl-C leaves a build running on its host: say how to come back to it."""
    try:
        return fn()
    except KeyboardInterrupt:
        click.echo(
            "benchdeck: stopped following; the build goes on on its host (run the same command to reattach)",
            err=True,
        )
        sys.exit(130)


def _fail_build(out: BuildOutcome) -> None:
    """A failed build: one line on stderr, then the log's tail (indented), exit 1."""
    click.echo(f"benchdeck: {out.error}", err=True)
    for line in out.tail:
        click.echo(f"    {line}", err=True)
    sys.exit(1)


_VARIANT_HELP = f"Variant: {', '.join(ALL_VARIANTS)} (or one the recipe defines)."


@click.command("build")
@click.option("--host", required=True, help="Host from the inventory.")
@click.option("--recipe", required=True, help="Recipe from the inventory ([recipes.NAME]).")
@click.option("--variant", required=True, help=_VARIANT_HELP)
@click.option("--base-variant", default="o2nofp", show_default=True, help="Flags pgo_gen/pgo_use build on.")
@click.option("--quiet-log", is_flag=True, help="Do not print the compiler's output (steps still show).")
@click.pass_obj
def build_cmd(obj: Ctx, /, host: str, recipe: str, variant: str, base_variant: str, quiet_log: bool) -> None:
    """Compile a recipe's variant on a host and register it as <dbms><version>_rel_<variant>."""

    async def go(builds: BuildService, _runs: RunService) -> BuildOutcome:
        return await builds.build(host, recipe, variant, base_variant)

    out = _detachable(lambda: asyncio.run(_services(obj.db, quiet_log, go)))
    if not out.ok:
        _fail_build(out)
    r = out.result
    dur = f" in {r.duration_s:.1f} s" if r else ""
    click.echo(f"build {out.build_run_id} finished: {out.name} on {host}{dur}")


def _workloads(names: Sequence[str], what: str) -> list[str]:
    """Suite names (builtin, the catalogue's, the inventory's) expanded; workload names kept."""
    from benchdeck.engine.catalogue import SUITES
    from benchdeck.engine.families.builtin import BUILTIN_WORKLOADS
    from benchdeck.engine.hosts.inventory_file import load_inventory

    inv = load_inventory(None)
    out: list[str] = []
    for n in names:
        if n == "builtin":
            out += BUILTIN_WORKLOADS
        elif n in inv.suites:
            out += inv.suites[n]
        elif n in SUITES:
            out += [w for w, _ in SUITES[n]]
        else:
            out.append(n)
    if not out:
        raise click.UsageError(f"give {what}")
    return list(dict.fromkeys(out))


def _check_workloads(recipe: str, names: Sequence[str]) -> None:
    """Every workload runs on the recipe's builds (before anything is compiled for nothing)."""
    from benchdeck.engine.builds import Build
    from benchdeck.engine.catalogue import family_of
    from benchdeck.engine.dispatch.planner import check_build
    from benchdeck.engine.families.sysbench.command import WorkloadError, step_for
    from benchdeck.engine.hosts.inventory import BuildConfig
    from benchdeck.engine.hosts.inventory_file import load_inventory

    r = load_inventory(None).recipe(recipe)
    probe = BuildConfig(build=Build(r.build_name("o2nofp"), r.dbms, r.version), library_dir="-")
    for w in names:
        try:
            check_build(w, probe.name, probe)
            if r.dbms != "sqlite" and family_of(w) == "sysbench":
                step_for(w)
        except WorkloadError as exc:
            raise click.UsageError(f"{w}: {exc}") from None


@click.command("pgo")
@click.option("--host", required=True, help="Host from the inventory.")
@click.option("--recipe", required=True, help="Recipe from the inventory.")
@click.option("--train", "train", multiple=True, required=True, help="Training workload or suite (repeat).")
@click.option(
    "--measure", "measure", multiple=True, required=True, help="Measured suite or workload (repeat)."
)
@click.option("--base-variant", default="o2nofp", show_default=True, type=click.Choice(sorted(VARIANTS)))
@click.option(
    "--train-time",
    type=click.IntRange(min=1),
    default=60,
    show_default=True,
    help="Seconds per training run.",
)
@click.option(
    "--time",
    "time_s",
    type=click.IntRange(min=1),
    default=60,
    show_default=True,
    help="Seconds per measured run.",
)
@click.option("--threads", type=click.IntRange(min=1), help="Client threads (dop).")
@click.option("--table-size", type=click.IntRange(min=1), help="Rows per table.")
@click.option("--quiet-log", is_flag=True, help="Do not print the compiler's output (steps still show).")
@click.pass_obj
def pgo_cmd(
    obj: Ctx,
    /,
    host: str,
    recipe: str,
    train: Sequence[str],
    measure: Sequence[str],
    base_variant: str,
    train_time: int,
    time_s: int,
    threads: int | None,
    table_size: int | None,
    quiet_log: bool,
) -> None:
    """PGO end to end: base and pgo_gen builds, training runs, pgo_use build, measurement, rQPS."""
    from benchdeck.engine.planning.plan import RunOptions
    from benchdeck.store.reports.compare_report import render
    from benchdeck.tui.cli.pgo import PgoError, PgoResult, pgo_comparison, pgo_loop

    trained, measured = _workloads(train, "--train"), _workloads(measure, "--measure")
    _check_workloads(recipe, [*trained, *measured])
    common = {"threads": threads, "table_size": table_size}

    async def go(builds: BuildService, runs: RunService) -> PgoResult:
        return await pgo_loop(
            builds,
            runs,
            host=host,
            recipe=recipe,
            train=trained,
            measure=measured,
            base_variant=base_variant,
            train_options=RunOptions(duration_s=train_time, **common),  # type: ignore[arg-type]
            measure_options=RunOptions(duration_s=time_s, **common),  # type: ignore[arg-type]
            say=_say,
        )

    def show(store: Store, res: PgoResult) -> None:
        click.echo(f"trained on: {', '.join(trained)} (build {res.gen.name})")
        click.echo(f"measured: {', '.join(measured)}")
        click.echo(render(pgo_comparison(store, host, res, measured), "text"), nl=False)

    try:
        _detachable(lambda: asyncio.run(_services(obj.db, quiet_log, go, show)))
    except PgoError as exc:
        raise click.ClickException(str(exc)) from None


@click.command("compiled")
@click.option("--host", help="Only this host's builds.")
@click.option("--all", "show_all", is_flag=True, help="Every attempt, not only the registered builds.")
@click.pass_obj
def builds_cmd(obj: Ctx, host: str | None, show_all: bool) -> None:
    """The builds benchdeck compiled: name, host, flags, compiler, duration, binary size."""
    from benchdeck.store.storage import build_records as br

    with Store.open_for_reading(obj.db) as store:
        rows = br.records(store.cursor(), host=host, status=None if show_all else "finished")
    if not rows:
        click.echo("no builds" + ("" if show_all else " registered (see --all)"))
        return
    for r in rows:
        dur = f"{r.duration_s:.1f}s" if r.duration_s is not None else "-"
        size = f"{r.binary_size:,}B" if r.binary_size is not None else "-"
        click.echo(
            f"{r.build_run_id}\t{r.status}\t{r.host}\t{r.name}\t{dur}\t{size}\t{r.compiler_version or '-'}\t"
            f"cflags: {r.cflags}"
        )
        if r.training:
            trained = ", ".join(t["workload"] for t in r.training)
            click.echo(f"\ttrained on: {trained}; measured: {', '.join(r.measured or [])}")
        if r.status in ("failed", "interrupted") and r.error:
            click.echo(f"\t{r.error}")
