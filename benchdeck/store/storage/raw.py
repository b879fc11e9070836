"""Raw files kept with a run (sysbench, vmstat, iostat, sb.met output), stored zstd-compressed.

``raw_files`` holds one row per file: ``codec`` says how ``data`` is encoded ('zstd', or 'none'
for rows migrated from the uncompressed schema), ``size`` is the file's length in bytes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import duckdb
import zstandard

LEVEL = 1  # ~10x on sysbench text; mar25's run files: 25% less CPU than zstd's default (3), 4% smaller
_CODECS = ("zstd", "none")


@dataclass(frozen=True, slots=True)
class RawFile:
    """One stored file, decompressed."""

    kind: str
    name: str
    text: str


_local = threading.local()
"""A compressor and a decompressor per thread (one is not for two threads at once): making one
per call cost a third of the CPU of compressing a mytools run's files (mar25: 0.045 vs 0.030
CPU-s a folder), for the same bytes."""


def compress(data: bytes) -> bytes:
    if (z := getattr(_local, "compressor", None)) is None:
        z = _local.compressor = zstandard.ZstdCompressor(level=LEVEL)
    return z.compress(data)


def decompress(codec: str, data: bytes) -> bytes:
    if codec == "zstd":
        if (z := getattr(_local, "decompressor", None)) is None:
            z = _local.decompressor = zstandard.ZstdDecompressor()
        return z.decompress(data)
    if codec == "none":
        return data
    raise ValueError(f"raw file stored with unknown codec {codec!r} (known: {', '.join(_CODECS)})")


def save_raw(cur: duckdb.DuckDBPyConnection, run_id: int, kind: str, name: str, text: str | bytes) -> None:
    """Keep one file of a run, compressed."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    cur.execute(
        "INSERT INTO raw_files (run_id, kind, name, codec, size, data) VALUES (?, ?, ?, 'zstd', ?, ?)",
        [run_id, kind, name, len(data), compress(data)],
    )


def read_raw(cur: duckdb.DuckDBPyConnection, run_id: int, kind: str | None = None) -> list[RawFile]:
    """The files kept with ``run_id`` (only those of ``kind`` if given), in the order stored."""
    rows = cur.execute(
        "SELECT kind, name, codec, data FROM raw_files WHERE run_id = ? AND (? IS NULL OR kind = ?) "
        "ORDER BY rowid",
        [run_id, kind, kind],
    ).fetchall()
    return [
        RawFile(k, n, decompress(codec, bytes(data)).decode("utf-8", errors="replace"))
        for k, n, codec, data in rows
    ]
