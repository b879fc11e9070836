"""What a run ran on (its record) and its raw outputs: saving and reading them back."""

from __future__ import annotations

import json
from collections.abc import Sequence

import duckdb

from benchdeck.engine.records import RunRecord
from benchdeck.store.storage.dialect import insert_or_replace
from benchdeck.store.storage.raw import save_raw


def save_record(cur: duckdb.DuckDBPyConnection, run_id: int, r: RunRecord) -> None:
    """Store the record; the bench command line also goes into ``runs.command``."""
    insert_or_replace(
        cur,
        "INSERT OR REPLACE INTO run_records (run_id, host_facts, dbms_version, variables, config_files, "
        "binary_version, git_commit, commands, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run_id,
            r.host_facts,
            r.dbms_version,
            json.dumps(dict(r.variables), sort_keys=True),
            json.dumps(dict(r.config_files)),
            r.binary_version,
            r.git_commit,
            json.dumps([list(c) for c in r.commands]),
            json.dumps(list(r.notes)),
        ],
        "run_records",
        {"run_id": run_id},
    )
    bench = dict(r.commands).get("bench")
    if bench is not None:
        cur.execute("UPDATE runs SET command = ? WHERE run_id = ?", [bench, run_id])


def load_record(cur: duckdb.DuckDBPyConnection, run_id: int) -> RunRecord | None:
    row = cur.execute(
        "SELECT host_facts, dbms_version, variables, config_files, binary_version, git_commit, commands, "
        "notes FROM run_records WHERE run_id = ?",
        [run_id],
    ).fetchone()
    if row is None:
        return None
    facts, version, variables, configs, binary, commit, commands, notes = row
    return RunRecord(
        host_facts=facts,
        dbms_version=version,
        variables=tuple(sorted(json.loads(variables or "{}").items())),
        config_files=tuple(json.loads(configs or "{}").items()),
        binary_version=binary,
        git_commit=commit,
        commands=tuple((str(a), str(b)) for a, b in json.loads(commands or "[]")),
        notes=tuple(json.loads(notes or "[]")),
    )


OUTPUT_KIND = "output"
"""``raw_files.kind`` of the tools' outputs of a run benchdeck started (bench.out, vmstat.out ...)."""


def save_outputs(cur: duckdb.DuckDBPyConnection, run_id: int, files: Sequence[tuple[str, bytes]]) -> int:
    """Keep the run's raw output files with its raw files, compressed (replacing same-named ones)."""
    for name, data in files:
        cur.execute(
            "DELETE FROM raw_files WHERE run_id = ? AND kind = ? AND name = ?", [run_id, OUTPUT_KIND, name]
        )
        save_raw(cur, run_id, OUTPUT_KIND, name, data)
    return len(files)
