"""sysbench command lines for catalogue workloads, built as argv lists (values stay data).

The mapping follows the post author's run.sh: each workload name picks a Lua script and options.
Steps that need Lua scripts stock sysbench does not ship are reported as such.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.catalogue import split_workload_name

_KEY = re.compile(r"^[a-z][a-z0-9_-]*$")


class WorkloadError(ValueError):
    """A workload benchdeck cannot run as asked, with the reason."""


@dataclass(frozen=True, slots=True)
class SysbenchStep:
    """The Lua script and options of one workload."""

    script: str
    options: tuple[tuple[str, str], ...] = ()
    table_size: int | None = None  # forced table size (update-one uses a 1-row table)
    writes: bool = False


def _base(test: str) -> str:
    return test.split(".", 1)[0]  # point-query.pre -> point-query


# Scripts stock sysbench ships (Debian: /usr/share/sysbench).
STOCK: dict[str, SysbenchStep] = {
    "point-query": SysbenchStep("oltp_point_select", (("skip-trx", "on"),)),
    "read-only": SysbenchStep("oltp_read_only"),
    "read-only-simple": SysbenchStep(
        "oltp_read_only",
        (("simple-ranges", "1"), ("sum-ranges", "0"), ("order-ranges", "0"), ("distinct-ranges", "0")),
    ),
    "read-only-sum": SysbenchStep(
        "oltp_read_only",
        (("simple-ranges", "0"), ("sum-ranges", "1"), ("order-ranges", "0"), ("distinct-ranges", "0")),
    ),
    "read-only-order": SysbenchStep(
        "oltp_read_only",
        (("simple-ranges", "0"), ("sum-ranges", "0"), ("order-ranges", "1"), ("distinct-ranges", "0")),
    ),
    "read-only-distinct": SysbenchStep(
        "oltp_read_only",
        (("simple-ranges", "0"), ("sum-ranges", "0"), ("order-ranges", "0"), ("distinct-ranges", "1")),
    ),
    "read-write": SysbenchStep("oltp_read_write", writes=True),
    "write-only": SysbenchStep("oltp_write_only", writes=True),
    "delete": SysbenchStep("oltp_delete", writes=True),
    "insert": SysbenchStep("oltp_insert", writes=True),
    "update-index": SysbenchStep("oltp_update_index", writes=True),
    "update-nonindex": SysbenchStep("oltp_update_non_index", writes=True),
    "update-one": SysbenchStep("oltp_update_non_index", table_size=1, writes=True),
    "update-zipf": SysbenchStep("oltp_update_non_index", (("rand-type", "zipfian"),), writes=True),
}


def step_for(workload: str) -> SysbenchStep:
    test, _ = split_workload_name(workload)
    step = STOCK.get(_base(test))
    if step is None:
        raise WorkloadError(
            f"workload {workload!r} needs a benchdeck Lua script that is not available yet "
            f"(stock sysbench runs: {', '.join(sorted(STOCK))})"
        )
    return step


@dataclass(frozen=True, slots=True)
class SysbenchCommand:
    """Everything that shapes a sysbench invocation."""

    workload: str
    db_args: tuple[str, ...]  # e.g. ("--db-driver=mysql", "--mysql-host=127.0.0.1", ...)
    threads: int = 1
    tables: int = 1
    table_size: int = 10000
    duration_s: int = 300
    report_interval: int = 1
    prepared_statements: bool = True
    sysbench: str = "sysbench"
    extra: Mapping[str, str] = field(default_factory=dict)

    def _common(self, step: SysbenchStep) -> list[str]:
        _, range_size = split_workload_name(self.workload)
        args = [
            self.sysbench,
            *self.db_args,
            f"--tables={self.tables}",
            f"--table-size={step.table_size or self.table_size}",
            f"--threads={self.threads}",
            "--rand-type=uniform",
            f"--db-ps-mode={'auto' if self.prepared_statements else 'disable'}",
        ]
        if range_size is not None:
            args.append(f"--range-size={range_size}")
        args += [f"--{k}={v}" for k, v in step.options]
        for key, value in self.extra.items():
            if not _KEY.match(key):
                raise WorkloadError(f"bad sysbench option name {key!r}")
            args.append(f"--{key}={value}")
        return args

    def run_argv(self, duration_s: int | None = None) -> list[str]:
        step = step_for(self.workload)
        return [
            *self._common(step),
            f"--time={duration_s if duration_s is not None else self.duration_s}",
            "--events=0",
            f"--report-interval={self.report_interval}",
            step.script,
            "run",
        ]

    def prepare_argv(self) -> list[str]:
        step = step_for(self.workload)
        return [*self._common(step), step.script, "prepare"]

    def cleanup_argv(self) -> list[str]:
        step = step_for(self.workload)
        return [*self._common(step), step.script, "cleanup"]


def mysql_db_args(host: str, port: int, user: str, password: str, database: str) -> tuple[str, ...]:
    return (
        "--db-driver=mysql",
        f"--mysql-host={host}",
        f"--mysql-port={port}",
        f"--mysql-user={user}",
        f"--mysql-password={password}",
        f"--mysql-db={database}",
    )


def pgsql_db_args(host: str, port: int, user: str, password: str, database: str) -> tuple[str, ...]:
    return (
        "--db-driver=pgsql",
        f"--pgsql-host={host}",
        f"--pgsql-port={port}",
        f"--pgsql-user={user}",
        f"--pgsql-password={password}",
        f"--pgsql-db={database}",
    )
