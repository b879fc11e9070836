"""What differs between two runs' records: the first question of triage.

Sections, in the order they are shown: ``dbms`` (version string, server binary, git commit),
``variables`` (server variables), ``config`` (config files, changed lines), ``host`` (host
facts, flattened), ``command`` (the command lines). Values that change on their own between two
runs of one server (GTID positions, the time) are left out unless asked for.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from typing import Any

import duckdb

from benchdeck.engine.records import RunRecord
from benchdeck.store.storage.run_records import load_record

SECTIONS = ("dbms", "variables", "config", "host", "command")
# Server variables that move by themselves while a server runs (MariaDB, MySQL, PostgreSQL).
VOLATILE = frozenset({
    "gtid_binlog_pos", "gtid_binlog_state", "gtid_current_pos", "gtid_slave_pos", "gtid_executed",
    "gtid_purged", "timestamp", "rand_seed1", "rand_seed2", "pseudo_thread_id", "last_insert_id",
    "insert_id", "identity", "warning_count", "error_count", "transaction_write_set_extraction",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Difference:
    """One thing that differs: ``a`` / ``b`` are None where a run does not have it."""

    section: str
    key: str
    a: str | None
    b: str | None


class NoRecord(LookupError):
    """A run has no record (imported, or run by a benchdeck that did not record them)."""


def flatten(value: Any, prefix: str = "") -> dict[str, str]:
    """JSON value -> ``dotted.key: text``; lists of objects are keyed by their name/target."""
    out: dict[str, str] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
        for i, item in enumerate(value):
            label = item.get("name") or item.get("target") or str(i)
            rest = {k: v for k, v in item.items() if k not in ("name", "target")}
            out.update(flatten(rest, f"{prefix}[{label}]"))
    elif value is not None:
        out[prefix] = value if isinstance(value, str) else json.dumps(value)
    return out


def _pairs(section: str, a: dict[str, str], b: dict[str, str]) -> list[Difference]:
    return [
        Difference(section, k, a.get(k), b.get(k))
        for k in sorted(a.keys() | b.keys())
        if a.get(k) != b.get(k)
    ]


def _config(a: list[tuple[str, str]], b: list[tuple[str, str]]) -> list[Difference]:
    """Each changed block of lines of the config files, paired in load order (a run with
    another config names another file: it is still the same role)."""
    out = []
    for i in range(max(len(a), len(b))):
        pa, old = a[i] if i < len(a) else (None, None)
        pb, new = b[i] if i < len(b) else (None, None)
        name = pa if pb in (None, pa) else pb if pa is None else f"{pa} | {pb}"
        if old == new:
            continue
        if old is None or new is None:
            out.append(
                Difference(
                    "config", str(name), None if old is None else "(file)", None if new is None else "(file)"
                )
            )
            continue
        la, lb = old.splitlines(), new.splitlines()
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=la, b=lb, autojunk=False).get_opcodes():
            if tag != "equal":
                left, right = "\n".join(la[i1:i2]), "\n".join(lb[j1:j2])
                out.append(Difference("config", f"{name}:{i1 + 1}", left or None, right or None))
    return out


def _dbms(r: RunRecord) -> dict[str, str]:
    pairs = (("version", r.dbms_version), ("binary", r.binary_version), ("git", r.git_commit))
    return {k: v for k, v in pairs if v}


def diff_records(a: RunRecord, b: RunRecord, *, volatile: bool = False) -> list[Difference]:
    """Everything that differs between two records, section by section."""
    out = _pairs("dbms", _dbms(a), _dbms(b))
    va, vb = dict(a.variables), dict(b.variables)
    if not volatile:
        va = {k: v for k, v in va.items() if k not in VOLATILE}
        vb = {k: v for k, v in vb.items() if k not in VOLATILE}
    out += _pairs("variables", va, vb)
    out += _config(list(a.config_files), list(b.config_files))
    ha = flatten(json.loads(a.host_facts)) if a.host_facts else {}
    hb = flatten(json.loads(b.host_facts)) if b.host_facts else {}
    out += _pairs("host", ha, hb)
    out += _pairs("command", dict(a.commands), dict(b.commands))
    return out


def diff_runs(
    cur: duckdb.DuckDBPyConnection, run_a: int, run_b: int, *, volatile: bool = False
) -> list[Difference]:
    """The differences between two stored runs; NoRecord names a run without a record."""
    for rid in (run_a, run_b):  # a run that does not exist is said first, whichever it is
        if cur.execute("SELECT 1 FROM runs WHERE run_id = ?", [rid]).fetchone() is None:
            raise NoRecord(f"run {rid}: no such run")
    records = []
    for rid in (run_a, run_b):
        record = load_record(cur, rid)
        if record is None:
            raise NoRecord(f"run {rid}: no run-time record (imported, or run before benchdeck kept them)")
        records.append(record)
    builds = _pairs("dbms", _run_facts(cur, run_a), _run_facts(cur, run_b))
    return builds + diff_records(records[0], records[1], volatile=volatile)


def _run_facts(cur: duckdb.DuckDBPyConnection, run_id: int) -> dict[str, str]:
    """The build and server config a run is stored under (two builds of one DBMS version,
    e.g. ``sqlite`` and ``sqlite-sync``, differ in nothing else the record holds)."""
    row = cur.execute(
        "SELECT b.name, r.config FROM runs r JOIN builds b USING (build_id) WHERE r.run_id = ?", [run_id]
    ).fetchone()
    if row is None:
        return {}
    return {k: str(v) for k, v in (("build", row[0]), ("server config", row[1])) if v}
