"""Raw files kept with a run (sysbench, vmstat, iostat, sb.met output), stored zstd-compressed.

``raw_files`` holds one row per file: ``codec`` says how ``data`` is encoded ('zstd', or 'none'
for rows migrated from the uncompressed schema), ``size`` is the file's length in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import zstandard

LEVEL = 3  # zstd's default: ~10x on sysbench text, hundreds of MB/s on one core
_CODECS = ("zstd", "none")


@dataclass(frozen=True, slots=True)
class RawFile:
    """One stored file, decompressed."""

    kind: str
    name: str
    text: str


def compress(data: bytes) -> bytes:
    return zstandard.ZstdCompressor(level=LEVEL).compress(data)


def decompress(codec: str, data: bytes) -> bytes:
    if codec == "zstd":
        return zstandard.ZstdDecompressor().decompress(data)
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
