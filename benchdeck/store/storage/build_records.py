"""Builds benchdeck compiled: every attempt, and the finished ones registered as host builds.

A record is created before the build starts (``queued``), gets its remote processes when it
starts (``running``: a later benchdeck can reattach), and ends ``finished`` (flags, compiler,
duration, binary size), ``failed`` (the error and the log's tail) or ``interrupted`` (its
processes died without an exit code: a restart begins again). Only the newest finished record
of a (host, name) is registered; starting a new attempt unregisters the older one, whose files
the new build replaces, so a failed rebuild never leaves a half build registered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import duckdb

from benchdeck.engine.building.recipes import BuildSpec
from benchdeck.engine.building.runner import BuildResult
from benchdeck.engine.builds import Build
from benchdeck.engine.events import RemoteProc
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.store.storage.dialect import insert_returning

BUILD_STATUSES = ("queued", "running", "finished", "failed", "interrupted", "superseded")


@dataclass(frozen=True, slots=True)
class BuildRecord:
    """One build attempt as stored."""

    build_run_id: int
    host: str
    name: str
    recipe: str
    variant: str
    dbms: str
    version: str
    status: str
    prefix: str
    binary_path: str
    library_dir: str | None
    cflags: str
    ldflags: str
    spec: dict[str, Any]
    compiler: str | None = None
    compiler_version: str | None = None
    duration_s: float | None = None
    binary_size: int | None = None
    profile_dir: str | None = None
    profile_files: int | None = None
    missing_profiles: int | None = None
    training: Any = None
    measured: Any = None
    probe: str | None = None
    remote_dir: str | None = None
    procs: tuple[RemoteProc, ...] = ()
    error: str | None = None
    log_tail: str | None = None
    base_variant: str | None = None
    created_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def build(self) -> Build:
        return Build(
            name=self.name, dbms=self.dbms, version=self.version, variant=self.name.split("_", 1)[-1]
        )


_COLUMNS = (
    "build_run_id, host, name, recipe, variant, dbms, version, status, prefix, binary_path, "
    "library_dir, cflags, ldflags, spec, compiler, compiler_version, duration_s, binary_size, "
    "profile_dir, profile_files, missing_profiles, training, measured, probe, remote_dir, procs, "
    "error, log_tail, base_variant, created_at, finished_at"
)
_JSON = {"spec", "training", "measured"}


def spec_json(spec: BuildSpec) -> str:
    """The build's recipe made concrete (steps, flags, paths), as stored and compared for reuse."""
    d = asdict(spec)
    d.pop("host", None)
    return json.dumps(d, sort_keys=True)


def create_build(cur: duckdb.DuckDBPyConnection, spec: BuildSpec) -> int:
    """A new attempt (``queued``); the host's earlier records of this name are unregistered."""
    cur.execute(
        "UPDATE build_records SET status = 'superseded' WHERE host = ? AND name = ? AND status = 'finished'",
        [spec.host, spec.name],
    )
    return insert_returning(
        cur,
        "INSERT INTO build_records (host, name, recipe, variant, base_variant, dbms, version, prefix, "
        "binary_path, library_dir, cflags, ldflags, spec, profile_dir, compiler) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            spec.host,
            spec.name,
            spec.recipe,
            spec.variant,
            spec.base_variant,
            spec.build.dbms,
            spec.build.version,
            spec.prefix,
            spec.binary,
            spec.library_dir,
            spec.cflags,
            spec.ldflags,
            spec_json(spec),
            spec.profile_dir,
            spec.compiler,
        ],
        "build_run_id",
        "run_id_seq",
    )


def save_started(
    cur: duckdb.DuckDBPyConnection, build_run_id: int, remote_dir: str, procs: Sequence[RemoteProc]
) -> None:
    cur.execute(
        "UPDATE build_records SET status = 'running', remote_dir = ?, procs = ?, "
        "started_at = coalesce(started_at, current_timestamp) WHERE build_run_id = ?",
        [remote_dir, json.dumps([asdict(p) for p in procs]), build_run_id],
    )


def save_finished(cur: duckdb.DuckDBPyConnection, build_run_id: int, r: BuildResult) -> None:
    cur.execute(
        "UPDATE build_records SET status = 'finished', compiler_version = ?, duration_s = ?, "
        "step_seconds = ?, binary_size = ?, profile_files = ?, missing_profiles = ?, "
        "probe = coalesce(?, probe), finished_at = current_timestamp, error = NULL WHERE build_run_id = ?",
        [
            r.compiler_version,
            r.duration_s,
            json.dumps(dict(r.step_seconds)),
            r.binary_size,
            r.profile_files,
            r.missing_profiles,
            r.probe,
            build_run_id,
        ],
    )


def save_ended(
    cur: duckdb.DuckDBPyConnection, build_run_id: int, status: str, error: str, log_tail: str = ""
) -> None:
    """A build that did not finish: ``failed``, ``interrupted`` or ``cancelled``."""
    if status not in BUILD_STATUSES:
        raise ValueError(f"unknown build status {status!r}")
    cur.execute(
        "UPDATE build_records SET status = ?, error = ?, log_tail = ?, finished_at = current_timestamp "
        "WHERE build_run_id = ?",
        [status, error, log_tail or None, build_run_id],
    )


def save_pgo(
    cur: duckdb.DuckDBPyConnection,
    build_run_id: int,
    *,
    training: Any = None,
    measured: Any = None,
    probe: str | None = None,
) -> None:
    """What a PGO build was trained on and measured with, and the library check of its runs."""
    cur.execute(
        "UPDATE build_records SET training = coalesce(?, training), measured = coalesce(?, measured), "
        "probe = coalesce(?, probe) WHERE build_run_id = ?",
        [
            json.dumps(training) if training is not None else None,
            json.dumps(measured) if measured is not None else None,
            probe,
            build_run_id,
        ],
    )


def records(
    cur: duckdb.DuckDBPyConnection,
    *,
    host: str | None = None,
    name: str | None = None,
    status: str | None = None,
) -> list[BuildRecord]:
    """Build attempts, oldest first, optionally of one host, name and status."""
    rows = cur.execute(
        f"SELECT {_COLUMNS} FROM build_records WHERE ($h IS NULL OR host = $h) "  # noqa: S608
        "AND ($n IS NULL OR name = $n) AND ($s IS NULL OR status = $s) ORDER BY build_run_id",
        {"h": host, "n": name, "s": status},
    )
    names = [d[0] for d in rows.description or []]
    out = []
    for row in rows.fetchall():
        d = dict(zip(names, row, strict=True))
        for k in _JSON:
            d[k] = json.loads(d[k]) if d[k] is not None else None
        d["procs"] = tuple(RemoteProc(**p) for p in json.loads(d["procs"])) if d["procs"] else ()
        out.append(BuildRecord(**d))
    return out


def record(cur: duckdb.DuckDBPyConnection, build_run_id: int) -> BuildRecord | None:
    found = [r for r in records(cur) if r.build_run_id == build_run_id]
    return found[0] if found else None


def registered(cur: duckdb.DuckDBPyConnection) -> dict[str, list[BuildConfig]]:
    """Per host, the finished builds as inventory builds (SQLite: by library; others: managed)."""
    out: dict[str, list[BuildConfig]] = {}
    for r in records(cur, status="finished"):
        if r.dbms == "sqlite":
            cfg = BuildConfig(build=r.build, basedir=r.prefix, library_dir=r.library_dir)
        elif r.dbms in ("mysql", "mariadb", "postgres"):
            cfg = BuildConfig(build=r.build, basedir=r.prefix, managed=True)
        else:
            cfg = BuildConfig(build=r.build, basedir=r.prefix)
        out.setdefault(r.host, []).append(cfg)
    return out
