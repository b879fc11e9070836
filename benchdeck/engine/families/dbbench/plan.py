"""The plan of a db_bench step (``readww.byrx`` ...: STEP.SETUP) on a RocksDB build (no server).

How :class:`RunOptions` map: ``table_size`` -> ``--num``, ``threads`` -> ``--threads``,
``duration_s`` -> ``--duration``; warm-up: the step as long (none for fillseq); ``extra`` ->
``--KEY=VALUE`` db_bench flags after the generated ones (fillseq too). ``tables`` is ignored.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace

from benchdeck.engine.families.dbbench import command as dbbench_cmd
from benchdeck.engine.families.sysbench.command import WorkloadError
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.context import OPEN_ENDED_S, PlanContext
from benchdeck.engine.planning.plan import RunPlan


def dbbench_plan(ctx: PlanContext, build: BuildConfig) -> RunPlan:
    """The plan of db_bench workload ``req.workload``; dbbench_cmd.DbBenchError for a bad one."""
    host, req, remote_dir = ctx.host, ctx.req, ctx.remote_dir
    o = req.options
    step, _, setup = req.workload.partition(".")
    if not setup:
        raise WorkloadError(
            f"db_bench workloads are named STEP.SETUP, e.g. readww.byrx, not {req.workload!r} "
            f"(setups: {', '.join(dbbench_cmd.SETUPS)})"
        )
    step = dbbench_cmd.step_name(step)
    table_size = o.table_size or host.table_size
    duration = o.duration_s or (600 if step == "overwrite" else 300)
    workdir = posixpath.dirname(posixpath.dirname(remote_dir))  # remote_dir is WORKDIR/runs/runN-x
    cfg = dbbench_cmd.DbBenchConfig(
        db_dir=posixpath.join(workdir, "rocksdb", f"{req.build}.{setup}"),
        setup=setup,
        num_keys=table_size,
        threads=o.threads or host.threads,
        duration_s=duration,
        db_bench=posixpath.join(build.basedir, "db_bench") if build.basedir else "db_bench",
        extra=tuple(o.extra.items()),
    )
    loads = step == "fillseq"  # writes --num keys, whatever --duration says
    # db_bench creates the database directory but not its parent (WORKDIR/rocksdb); a load
    # counts once it exited 0 (dbbench_cmd.LOADED_MARK), never from CURRENT alone.
    if loads:
        prepare: tuple[str, ...] | None = tuple(dbbench_cmd.unmark_argv(cfg))
    elif o.prepare:
        prepare = tuple(dbbench_cmd.load_argv(cfg))
    else:
        prepare = None
    warmup = None
    if o.warmup_s and not loads:
        warmup = tuple(dbbench_cmd.step_argv(step, replace(cfg, duration_s=o.warmup_s)))
    return replace(
        ctx.plan(tuple(dbbench_cmd.step_argv(step, cfg)), OPEN_ENDED_S if loads else duration),
        prepare_argv=prepare,
        tables_exist_argv=tuple(dbbench_cmd.db_exists_argv(cfg)) if prepare and not loads else None,
        warmup_argv=warmup,
        table_size=table_size,
        family="dbbench",
        open_ended=loads,
        done_argv=tuple(dbbench_cmd.mark_argv(cfg)) if loads else None,
    )
