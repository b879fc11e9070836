"""What a run is: the plan a runner executes, and what the store already holds of it."""

from __future__ import annotations

from dataclasses import dataclass

MONITOR_GRACE_S = 15


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What to run and how to read it; everything needed to finish or reattach a run."""

    run_id: int
    host: str
    workload: str
    remote_dir: str
    bench_argv: tuple[str, ...]
    duration_s: int
    prepare_argv: tuple[str, ...] | None = None
    tables_exist_argv: tuple[str, ...] | None = None
    warmup_argv: tuple[str, ...] | None = None
    device: str | None = None
    table_size: int | None = None
    ncpu: int | None = None
    monitors: bool = True
    family: str = "sysbench"
    env: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()  # (name, content) written into remote_dir first
    min_free_mb: int = 1024
    build: str = ""

    def vmstat_argv(self) -> list[str]:
        return ["vmstat", "-n", "1", str(self.duration_s + MONITOR_GRACE_S)]

    def iostat_argv(self) -> list[str]:
        argv = ["iostat", "-y", "-kx", "1", str(self.duration_s + MONITOR_GRACE_S)]
        return [*argv, self.device] if self.device else argv


@dataclass(frozen=True, slots=True)
class Marks:
    """What the store already holds of a run: samples up to here are not sent again."""

    bench_t: float | None = None
    vm_seq: int | None = None
    io_seq: int | None = None
    io_devices_at_seq: frozenset[str] = frozenset()
