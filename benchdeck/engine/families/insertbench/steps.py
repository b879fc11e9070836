"""The Insert Benchmark steps and their per-step defaults, scaled for a laptop.

The classic sequence is ``l.i0 l.x l.i1 l.i2 qr100 qp100 qr500 qp500 qr1000 qp1000``:

- ``l.i0`` loads ``rows`` rows per table in PK order (no secondary index yet);
- ``l.x`` creates the three secondary indexes;
- ``l.i1``/``l.i2`` insert ``rows`` rows per table while a second connection deletes the
  oldest rows at the same rate (the table is a queue), 50 resp. 5 rows per transaction;
- ``qrN``/``qpN`` run range resp. point queries as fast as possible for ``seconds`` while
  background inserts and deletes run at N rows/s per table; not sustaining 95 % of N is an
  SLA failure. Any ``qrN``/``qpN`` (e.g. ``qr2000``) is accepted, not only the classic six.

The published runs use 20M/40M/10M rows and 1800 s query steps; the defaults here keep the
same shape but finish in about eight minutes on a laptop. Every value can be overridden on the
client's command line (or through :func:`step_argv`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

StepKind = Literal["load", "index", "write", "query"]
CLIENT_MODULE = "benchdeck.engine.families.insertbench.client"
_QUERY_STEP = re.compile(r"(?a)q([rp])([1-9]\d{0,7})")


@dataclass(frozen=True, slots=True)
class Step:
    """One step's defaults. ``rows``: rows inserted per table (load/write steps); ``rate``:
    background inserts/s per table (0 = as fast as possible); ``seconds``: run time of query
    steps, an upper bound for the others (0 = none)."""

    name: str
    kind: StepKind
    rows: int = 0
    rows_per_commit: int = 100
    delete_per_insert: bool = False
    rate: int = 0
    query: Literal["range", "point"] | None = None
    seconds: float = 0.0
    query_threads: int = 0
    description: str = ""


def _query_step(name: str, rate: int, seconds: float = 60.0) -> Step:
    point = name.startswith("qp")
    what = "point queries on the PK" if point else "range queries on covering secondary indexes"
    return Step(
        name, "query", rows_per_commit=10, delete_per_insert=True, rate=rate,
        query="point" if point else "range", seconds=seconds, query_threads=1,
        description=f"{what} while inserts and deletes run at {rate} rows/s per table",
    )  # fmt: skip


CLASSIC: tuple[Step, ...] = (
    Step("l.i0", "load", rows=500_000, rows_per_commit=100, description="load in PK order, PK index only"),
    Step("l.x", "index", description="create 3 secondary indexes per table"),
    Step(
        "l.i1", "write", rows=200_000, rows_per_commit=50, delete_per_insert=True,
        description="insert + delete at the same rate, 50 rows per transaction",
    ),
    Step(
        "l.i2", "write", rows=50_000, rows_per_commit=5, delete_per_insert=True,
        description="insert + delete at the same rate, 5 rows per transaction",
    ),
    *(_query_step(f"q{k}{rate}", rate) for rate in (100, 500, 1000) for k in "rp"),
)  # fmt: skip
STEPS: dict[str, Step] = {s.name: s for s in CLASSIC}
STEP_NAMES: tuple[str, ...] = tuple(STEPS)


@dataclass(frozen=True, slots=True)
class Config:
    """The effective parameters of one client run: options, with the step's defaults filled in."""

    dbms: str
    host: str
    port: int
    user: str
    password: str
    database: str
    table_count: int
    table_prefix: str
    step: str
    kind: StepKind
    rows: int
    seconds: float
    rate: float
    query_threads: int
    insert_threads: int
    delete_per_insert: bool
    rows_per_commit: int
    rows_per_query: int
    data_length_min: int
    data_length_max: int
    report_interval: float
    seed: int

    def tables(self) -> list[str]:
        from benchdeck.engine.families.insertbench import (
            schema,  # (the SQL and drivers: only for a run, not the names)
        )

        return [schema.table_name(self.table_prefix, n) for n in range(1, self.table_count + 1)]

    def connect(self, *, autocommit: bool) -> Any:
        from benchdeck.engine.families.insertbench import schema

        return schema.connect(
            self.dbms, self.host, self.port, self.user, self.password, self.database, autocommit=autocommit
        )

    def argv(self) -> list[str]:
        """The effective command line, password masked (the output's first line)."""
        return command_line(self, CLIENT_MODULE)


def command_line(config: Any, module: str) -> list[str]:
    """A client's effective command line from its config dataclass: ``--field=value`` each
    (``--flag``/``--no-flag`` for a bool, a whole float without its ``.0``), the password
    masked, ``kind`` (derived from the step) left out. The Insert Benchmark's and the TPC-C-like
    clients print it as their output's first line."""
    out = ["python3", "-m", module]
    for f in fields(config):
        value, opt = getattr(config, f.name), "--" + f.name.replace("_", "-")
        if f.name == "kind":
            continue
        if isinstance(value, bool):
            out.append(opt if value else "--no-" + opt[2:])
        elif isinstance(value, float):
            out.append(f"{opt}={int(value) if value.is_integer() else value}")
        else:
            out.append(f"{opt}={'***' if f.name == 'password' and value else value}")
    return out


def step_kind(name: str) -> StepKind | None:
    """``load`` / ``index`` / ``write`` / ``query`` for a step name; None if unknown."""
    if name in STEPS:
        return STEPS[name].kind
    return "query" if _QUERY_STEP.fullmatch(name) else None


def get_step(name: str) -> Step:
    """The defaults of a classic step, or of any ``qrN``/``qpN``; ValueError otherwise."""
    if name in STEPS:
        return STEPS[name]
    if m := _QUERY_STEP.fullmatch(name):
        return _query_step(name, int(m.group(2)))
    raise ValueError(f"unknown Insert Benchmark step {name!r} (known: {', '.join(STEP_NAMES)}, qrN, qpN)")


def scaled(step: Step, factor: float) -> Step:
    """The step with ``rows`` and query ``seconds`` multiplied by ``factor`` (at least 1)."""
    return replace(
        step,
        rows=max(1, round(step.rows * factor)) if step.rows else 0,
        seconds=max(1.0, step.seconds * factor) if step.kind == "query" else step.seconds,
    )


def step_argv(
    name: str,
    *,
    dbms: str,
    host: str,
    port: int,
    user: str,
    password: str,
    database: str,
    python: str = "python3",
    table_count: int = 1,
    report_interval: float = 1.0,
    overrides: Mapping[str, str | int | float | bool] | None = None,
) -> list[str]:
    """argv running one step with the client (``overrides``: option name without ``--`` -> value;
    True/False for flags such as ``delete-per-insert``)."""
    get_step(name)  # validate
    argv = [
        python, "-m", CLIENT_MODULE, f"--dbms={dbms}", f"--host={host}", f"--port={port}",
        f"--user={user}", f"--password={password}", f"--database={database}",
        f"--table-count={table_count}", f"--step={name}", f"--report-interval={report_interval:g}",
    ]  # fmt: skip
    for key, value in (overrides or {}).items():
        if isinstance(value, bool):
            argv.append(f"--{key}" if value else f"--no-{key}")
        else:
            argv.append(f"--{key}={value}")
    return argv
