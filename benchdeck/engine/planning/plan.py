"""What a run is: the plan a runner executes, and what the store already holds of it."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from benchdeck.engine.profiling.capture import CaptureOptions, CapturePlan, options_from_dict

MONITOR_GRACE_S = 15
REDACTED = "********"
SECRET_FLAGS = ("--mysql-password=", "--pgsql-password=", "--password=")
MYSQL_CLIENTS = ("mysql", "mariadb")  # their -pPASSWORD (elsewhere -p is often a port)
SECRET_ENV = re.compile(r"PASS|PWD|SECRET|TOKEN", re.IGNORECASE)
# A plan's optional command lines (bench_argv, always set, besides): masked and unmasked together.
_ARGV_FIELDS = (
    "prepare_argv", "tables_exist_argv", "warmup_argv", "table_rows_argv", "cleanup_argv", "done_argv",
)  # fmt: skip


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
    open_ended: bool = False  # runs until its work is done: duration_s is only a safety cap
    # Tables checked by rows before measuring: table_rows_argv prints "NAME ROWS HAS_INDEX" per
    # existing table of expected_tables; short ones are dropped (cleanup_argv) and re-prepared.
    table_rows_argv: tuple[str, ...] | None = None
    expected_tables: tuple[str, ...] = ()
    cleanup_argv: tuple[str, ...] | None = None
    secondary_index: bool = True  # each table needs its index k_N (sysbench's create_secondary)
    done_argv: tuple[str, ...] | None = None  # run once the bench exited 0 (marks a load complete)
    capture: CapturePlan | None = None  # perf counters / CPU profiles beside the bench (--profile)

    def redacted(self) -> RunPlan:
        """The plan with passwords (argv flags, environment) masked, for storing: reattaching
        follows the running processes and never runs these command lines again."""

        def argv(args: tuple[str, ...] | None) -> tuple[str, ...] | None:
            if args is None:
                return None
            flags = SECRET_FLAGS + (("-p",) if args and posixpath.basename(args[0]) in MYSQL_CLIENTS else ())
            return tuple(
                next((f + REDACTED for f in flags if a.startswith(f) and len(a) > len(f)), a) for a in args
            )

        return self._argvs(argv, env=tuple((k, REDACTED if SECRET_ENV.search(k) else v) for k, v in self.env))

    def with_secret(self, secret: str) -> RunPlan:
        """A stored (redacted) plan with its masked values set back to ``secret`` (the build's
        password), so that a reattached run can run its remaining steps."""

        def argv(args: tuple[str, ...] | None) -> tuple[str, ...] | None:
            if args is None:
                return None
            return tuple(a[: -len(REDACTED)] + secret if a.endswith(REDACTED) else a for a in args)

        return self._argvs(argv, env=tuple((k, secret if v == REDACTED else v) for k, v in self.env))

    def _argvs(self, fn: Callable[[tuple[str, ...] | None], tuple[str, ...] | None], **more: Any) -> RunPlan:
        """The plan with ``fn`` applied to every command line it holds (and ``more`` set)."""
        changed: dict[str, Any] = {name: fn(getattr(self, name)) for name in _ARGV_FIELDS}
        return replace(self, **changed, bench_argv=fn(self.bench_argv) or (), **more)

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
    # perf windows (and gaps) stored, per kind ("counters", "cpu"): numbers at or below are not sent
    capture_window: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What the user may set per run; ``None`` takes the host's or the workload's default."""

    threads: int | None = None
    tables: int | None = None
    table_size: int | None = None
    duration_s: int | None = None
    warmup_s: int = 0
    prepare: bool = True
    stop_server: bool = False
    extra: Mapping[str, str] = field(default_factory=dict)
    read_s: int | None = None  # a suite's durations, used when duration_s is not given
    write_s: int | None = None
    post_write_s: int | None = None  # seconds the post-write step lets InnoDB flush (default 60)
    capture: CaptureOptions | None = None  # --profile: None captures nothing (or the inventory's)

    def __post_init__(self) -> None:
        raw: Any = self.capture
        if isinstance(raw, Mapping):  # a queued item's options, stored as JSON
            object.__setattr__(self, "capture", options_from_dict(raw))


@dataclass(frozen=True, slots=True)
class RunRequest:
    host: str
    build: str
    workload: str
    options: RunOptions = RunOptions()
    config: str | None = None  # one of the build's configs (inventory); None: its default
    cluster: str | None = None  # an inventory cluster (engine.cluster.spec): ``host`` is its primary's


def queued_options(raw: Mapping[str, Any]) -> tuple[RunOptions, str | None]:
    """A queue's stored options (JSON) as a run's options, and the cluster its runs are on
    (stored beside them under ``cluster``; none: a server alone)."""
    opts = dict(raw)
    cluster = opts.pop("cluster", None)
    return RunOptions(**opts), str(cluster) if cluster else None
