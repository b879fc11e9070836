"""The options every run command shares (threads, time, ``--param`` ...) and the checks of names
they make before anything is stored or started."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click

from benchdeck.engine.hosts.inventory import Inventory
from benchdeck.engine.planning.plan import RunOptions
from benchdeck.store.storage.db import Store
from benchdeck.tui.cli.capture_options import capture, capture_options

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Sweep:
    """The matrix's concurrency and repeat axes: ``dops`` in the order given (empty: the
    options' or the suite's own threads), each cell run ``repeats`` times."""

    dops: tuple[int, ...]
    repeats: int


def parse_threads(values: Sequence[str]) -> tuple[int, ...]:
    """``--threads 1,8,32`` and/or ``--threads 1 --threads 8``: the dops, duplicates dropped."""
    dops: list[int] = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part.isdigit() or int(part) < 1:
                raise click.UsageError(f"--threads wants positive integers like 1,8,32, got {value!r}")
            if int(part) not in dops:
                dops.append(int(part))
    return tuple(dops)


def options(
    *,
    threads: Sequence[str],
    repeat: int,
    tables: int | None,
    table_size: int | None,
    time_s: int | None,
    warmup: int,
    no_prepare: bool,
    stop_server: bool,
    params: Sequence[str],
    **profile: Any,
) -> tuple[RunOptions, Sweep]:
    """RunOptions and the sweep from the options every run command shares (see
    :func:`run_options`); with several dops the options' threads are None (each run has its own)."""
    extra: dict[str, str] = {}
    for p in params:
        key, sep, value = p.partition("=")
        if not sep or not key:
            raise click.UsageError(f"--param wants KEY=VALUE, got {p!r}")
        extra[key] = value
    dops = parse_threads(threads)
    return RunOptions(
        threads=dops[0] if len(dops) == 1 else None,
        tables=tables,
        table_size=table_size,
        duration_s=time_s,
        warmup_s=warmup,
        prepare=not no_prepare,
        stop_server=stop_server,
        extra=extra,
        capture=capture(**profile),
    ), Sweep(dops if len(dops) > 1 else (), repeat)


def run_options(f: F) -> F:
    for opt in reversed(
        [
            click.option(
                "--threads",
                multiple=True,
                metavar="N[,N...]",
                help="Client threads (dop); several (1,8,32 or repeated) sweep the concurrency.",
            ),
            click.option(
                "--repeat",
                type=click.IntRange(min=1),
                default=1,
                help="Runs per cell, interleaved across builds (A B A B).",
            ),
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
    return capture_options(f)


def with_registered(inv: Inventory, db: Path | None) -> Inventory:
    """The inventory plus the builds `benchdeck build` registered in the store (if there is one)."""
    from benchdeck.store.storage.build_records import registered
    from benchdeck.store.storage.location import default_db_path

    if not (db or default_db_path()).exists():
        return inv
    with Store.open_for_reading(db) as store, store.reading() as cur:
        return inv.with_builds(registered(cur))


def check(
    inv: Inventory,
    hosts: Sequence[str],
    builds: Sequence[str],
    configs: Sequence[str | None],
    names: Sequence[str],
) -> list[str]:
    """Typos are usage errors, found before anything is stored or started (known names listed).
    Returns the workload names as runs are stored (``point-query`` -> ``point-query_range=100``)."""
    from benchdeck.engine.dispatch.request_check import RequestError, check_requests

    try:  # ("": the builds' unnamed config, as a build's own: see unnamed_config)
        return check_requests(inv, hosts, builds, [c or None for c in configs], names)
    except RequestError as exc:
        raise click.UsageError(str(exc)) from None


def unnamed_config(
    inv: Inventory, hosts: Sequence[str], builds: Sequence[str], configs: Sequence[str]
) -> list[str]:
    """``default`` names the builds' unnamed config (``""``, as compare reads it) unless one of
    them has a config named so; the other names as given."""
    from benchdeck.engine.config_names import DEFAULT_CONFIG

    names = set(inv.config_names(hosts, builds))
    unnamed = DEFAULT_CONFIG not in names and "" in names
    return ["" if c == DEFAULT_CONFIG and unnamed else c for c in configs]


def cluster_host(inv: Inventory, host: str | None, cluster: str | None) -> str:
    """The host a run drives: ``--host``, or with ``--cluster`` its primary's (which a ``--host``
    given too must be)."""
    if cluster is None:
        if host is None:
            raise click.UsageError("Missing option '--host' (or --cluster).")
        return host
    spec = inv.clusters.get(cluster)
    if spec is None:
        known = ", ".join(sorted(inv.clusters)) or "none in the inventory"
        raise click.BadParameter(f"unknown cluster {cluster} (clusters: {known})", param_hint="'--cluster'")
    if host is not None and host != spec.primary.host:
        raise click.BadParameter(
            f"cluster {cluster}'s primary is on host {spec.primary.host}, not {host}", param_hint="'--host'"
        )
    return spec.primary.host
