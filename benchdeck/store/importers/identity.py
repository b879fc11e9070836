"""Recognising an imported run by what it is: a hash of its benchmark output file.

A path says where a file was read, not what it is: the same tree copied to another folder,
re-extracted from a tarball or imported file by file (``import sysbench``) is the same runs.
sysbench's output holds its final figures to the event and millisecond, so two runs whose
output is byte for byte the same are the same run. blake2b-128: ~1 GB/s on one core (hashlib),
collision-free for any archive a user keeps.
"""

from __future__ import annotations

import hashlib

import duckdb

from benchdeck.store.storage.raw import decompress


def content_key(data: bytes) -> str:
    """The key of a run whose benchmark output is ``data``."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def known_keys(cur: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Every imported run's key -> its run id. Runs imported before keys were stored (store
    migration 10) get theirs from their kept sysbench file, once, here."""
    res = cur.execute(
        "SELECT r.run_id, f.codec, f.data FROM runs r JOIN raw_files f ON f.run_id = r.run_id "
        "WHERE r.content_key IS NULL AND r.source <> 'run' AND f.kind = 'sysbench'"
    )
    keys: list[tuple[str, int]] = []
    while chunk := res.fetchmany(256):  # a few MB at a time, whatever the store's size
        keys += [(content_key(decompress(codec, bytes(data))), run_id) for run_id, codec, data in chunk]
    if keys:
        cur.executemany("UPDATE runs SET content_key = ? WHERE run_id = ?", keys)
    rows = cur.execute("SELECT content_key, min(run_id) FROM runs WHERE content_key IS NOT NULL GROUP BY 1")
    return {k: int(i) for k, i in rows.fetchall()}
