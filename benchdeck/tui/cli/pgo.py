"""The PGO loop: base build, pgo_gen build, training runs, pgo_use build, measurement, comparison.

Training and measured workloads are kept apart (a PGO build measured on its own training
workload flatters itself): the training runs go to the pgo_gen build, the measurement to the
base and the pgo_use builds, alternating per workload, and the pgo_use build's record keeps
both lists (with the training runs' ids).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from benchdeck.engine.catalogue import default_catalogue
from benchdeck.engine.planning.plan import RunOptions, RunRequest
from benchdeck.store.analysis.compare import Comparison, compare
from benchdeck.store.storage import build_records as br
from benchdeck.store.storage.db import Store
from benchdeck.tui.services.builds import BuildOutcome, BuildService
from benchdeck.tui.services.runs import Outcome, RunService

Say = Callable[[str], None]


class PgoError(Exception):
    """A step of the loop failed; the message says which, in one line."""


@dataclass
class PgoResult:
    base: BuildOutcome
    gen: BuildOutcome
    use: BuildOutcome
    training: list[Outcome] = field(default_factory=list)
    measured: list[Outcome] = field(default_factory=list)


async def pgo_loop(
    builds: BuildService,
    runs: RunService,
    *,
    host: str,
    recipe: str,
    train: Sequence[str],
    measure: Sequence[str],
    base_variant: str,
    train_options: RunOptions,
    measure_options: RunOptions,
    say: Say,
) -> PgoResult:
    """Run the whole loop; raises PgoError at the first step that fails."""
    overlap = sorted(set(train) & set(measure))
    if overlap:
        say(f"note: {', '.join(overlap)} is both trained and measured: its gain flatters the PGO build")

    async def build(variant: str, reuse: bool = False) -> BuildOutcome:
        say(f"pgo: building {variant}")
        out = await builds.build(host, recipe, variant, base_variant, reuse=reuse)
        if not out.ok:
            raise PgoError(f"{variant} build failed: {out.error}")
        builds.refresh_inventory()
        how = "reused (same recipe, flags and steps)" if out.status == "reused" else "built"
        say(f"pgo: {out.name} {how}")
        return out

    base = await build(base_variant, reuse=True)
    gen = await build("pgo_gen")
    training: list[Outcome] = []
    for w in train:
        say(f"pgo: training {gen.name} with {w}")
        o = await runs.run(RunRequest(host, gen.name, w, train_options))
        if o.status != "finished":
            raise PgoError(f"training run {o.run_id} ({w}) {o.status}: {o.error}")
        training.append(o)
    use = await build("pgo_use")
    with runs.store.transaction() as cur:
        br.save_pgo(
            cur,
            use.build_run_id,
            training=[{"workload": o.workload, "run_id": o.run_id, "build": gen.name} for o in training],
            measured=list(measure),
        )
    measured: list[Outcome] = []
    for w in measure:
        for name in (base.name, use.name):  # alternating: drift of the host hits both alike
            say(f"pgo: measuring {name} with {w}")
            o = await runs.run(RunRequest(host, name, w, measure_options))
            if o.status != "finished":
                raise PgoError(f"measurement run {o.run_id} ({name} {w}) {o.status}: {o.error}")
            measured.append(o)
    return PgoResult(base, gen, use, training, measured)


def pgo_comparison(store: Store, host: str, res: PgoResult, measure: Sequence[str]) -> Comparison:
    """rQPS of the pgo_use build against the base on the measured workloads (once the run
    service has written every run's end: call it after the service is closed)."""
    cat = default_catalogue(None, None)
    with store.reading() as cur:
        return compare(
            cur,
            host=host,
            base=res.base.name,
            with_builds=[res.use.name],
            group_of=cat.group_of,
            sort_key=cat.sort_key,
            only=set(measure),
        )
