"""Is a request runnable as written? Hosts, builds, configs and workloads checked against the
inventory and the catalogue before anything is stored or started, so a typo never becomes a
run. Each error is one line naming the known names (and the closest one, if any).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from benchdeck.engine.catalogue import family_of, split_workload_name
from benchdeck.engine.dispatch.planner import check_build
from benchdeck.engine.dispatch.table import (
    BUILTIN_BUILDS,
    BUILTIN_CONFIGS,
    BUILTIN_TESTS,
    BUILTIN_WORKLOADS,
    FAMILIES,
    STEPS,
    WorkloadError,
    is_builtin,
)
from benchdeck.engine.hosts.inventory import BuildConfig, Inventory
from benchdeck.engine.planning.unknown import RequestError as RequestError
from benchdeck.engine.planning.unknown import unknown_message

SYSBENCH_DEFAULT_RANGE = 100
"""The range a sysbench step runs with when its name gives none: ``range_size``'s default in
sysbench's oltp_common.lua and in our bd_common.lua."""


def _unknown(what: str, name: str, known: Iterable[str], where: str = "") -> RequestError:
    return RequestError(unknown_message(what, name, known, where))


def check_host(inventory: Inventory, host: str) -> None:
    if host not in inventory.hosts:
        raise _unknown("host", host, inventory.hosts)


def check_build_config(inventory: Inventory, host: str, build: str, config: str | None) -> BuildConfig | None:
    """The build's inventory entry (None for a built-in one); RequestError for an unknown
    host, build, or a config the build does not have."""
    check_host(inventory, host)
    cfg = inventory.hosts[host].builds.get(build)
    if cfg is None:
        if build not in BUILTIN_BUILDS:
            known = [*inventory.hosts[host].builds, *BUILTIN_BUILDS]
            raise _unknown("build", build, known, f" on host {host}")
        if config and config not in BUILTIN_CONFIGS:
            raise _unknown("config", config, BUILTIN_CONFIGS, f" of the built-in build {build}")
        return None
    if config is not None and config not in cfg.config_names:
        raise _unknown("config", config, [n for n in cfg.config_names if n], f" of build {build}")
    return cfg


def normalise_workload(workload: str, builtin: bool) -> str:
    """The name a run of ``workload`` is stored under: a sysbench-style name without
    ``_range=N`` gets the range it runs with (``point-query`` on ``sqlite`` is
    ``point-query_range=100``), so it is compared with the runs named as the posts name them.
    Steps whose range is an IN-list length keep their name (the check asks for the range)."""
    if "_range=" in workload or family_of(workload) != "sysbench":
        return workload
    if builtin:
        test = BUILTIN_TESTS.get(workload)
        return f"{workload}_range={test.default_range}" if test else workload
    step = STEPS.get(workload.partition(".")[0])
    if step is not None and step.points:
        return workload  # an IN-list length has no default worth guessing: check_family says so
    return f"{workload}_range={SYSBENCH_DEFAULT_RANGE}"


def check_family(workload: str) -> None:
    """RequestError unless ``workload`` is a name its family knows (sysbench tests as
    TEST_range=N, pgbench scripts, db_bench STEP.SETUP), with the closest known name."""
    FAMILIES[family_of(workload)].check_name(workload)


def check_import_workload(workload: str) -> None:
    """An imported run's workload: a name its family knows, with its range (an import cannot
    know the range a file ran with; ``point-qury_range=100`` would become a new workload)."""
    if family_of(workload) == "sysbench" and split_workload_name(workload)[1] is None:
        guess = normalise_workload(workload, builtin=False)
        raise RequestError(
            f"workload {workload!r} needs its range, as TEST_range=N; "
            f"did you mean {guess!r}? (sysbench's default range)"
        )
    check_family(workload)


def check_workload(workload: str, build: BuildConfig | None, build_name: str) -> None:
    """RequestError unless ``workload`` names a workload its family knows and ``build`` (None:
    built-in SQLite) can run it."""
    if build is None:
        if not is_builtin(workload):
            raise _unknown("built-in workload", workload, BUILTIN_WORKLOADS)
    else:
        check_family(workload)
    try:
        check_build(workload, build_name, build)
    except WorkloadError as exc:
        raise RequestError(str(exc)) from None


def check_requests(
    inventory: Inventory,
    hosts: Sequence[str],
    builds: Sequence[str],
    configs: Sequence[str | None],
    workloads: Sequence[str],
) -> list[str]:
    """Check every host, build, config and workload of a run or a queue; the first problem is
    raised. A config is checked against the builds that have it: a queue's ``--config`` list
    may name configs only some builds have, but each must exist somewhere. Returns the
    workloads as runs are stored (:func:`normalise_workload`)."""
    for host in hosts:
        check_host(inventory, host)
    for host in hosts:
        for build in builds:
            check_build_config(inventory, host, build, None)
    for config in configs:
        if config is None:
            continue
        owners = [inventory.hosts[h].builds.get(b) for h in hosts for b in builds]
        builtin = any(
            b in BUILTIN_BUILDS and inventory.hosts[h].builds.get(b) is None for h in hosts for b in builds
        )
        if builtin and config in BUILTIN_CONFIGS:
            continue
        if not any(cfg is not None and config in cfg.config_names for cfg in owners):
            known = {n for cfg in owners if cfg is not None for n in cfg.config_names if n}
            known |= set(BUILTIN_CONFIGS) if builtin else set()
            raise _unknown("config", config, known, f" of build(s) {', '.join(builds)}")
    out = []
    for given in workloads:
        owners = [inventory.hosts[h].builds.get(b) for h in hosts for b in builds]
        names = {normalise_workload(given, cfg is None) for cfg in owners}
        if len(names) > 1:
            raise RequestError(
                f"workload {given!r} runs as {' or '.join(sorted(names))} on these builds: name its range"
            )
        out.append(names.pop() if names else given)
    for workload in dict.fromkeys(out):
        for host in hosts:
            for build in builds:
                check_workload(workload, inventory.hosts[host].builds.get(build), build)
    return out
