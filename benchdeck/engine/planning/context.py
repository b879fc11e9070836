"""The run a workload family plans (:class:`PlanContext`): what every family's plan shares."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchdeck.engine.planning.plan import RunPlan, RunRequest

if TYPE_CHECKING:
    from benchdeck.engine.hosts.inventory import HostConfig

# Monitor window of steps that run until their work is done (loads, fillseq): vmstat and
# iostat are stopped when the step ends, so this only has to be long enough.
OPEN_ENDED_S = 4 * 3600


@dataclass(frozen=True, slots=True)
class PlanContext:
    """One run to plan: its id, its host, the user's request and the run's remote directory."""

    run_id: int
    host: HostConfig
    req: RunRequest
    remote_dir: str

    def plan(self, bench_argv: tuple[str, ...], duration_s: int) -> RunPlan:
        """A plan of this run with its id, host, workload, directory, device and build filled in
        (the family sets the rest with ``dataclasses.replace``)."""
        return RunPlan(
            run_id=self.run_id,
            host=self.host.name,
            workload=self.req.workload,
            remote_dir=self.remote_dir,
            bench_argv=bench_argv,
            duration_s=duration_s,
            device=self.host.device,
            build=self.req.build,
        )
