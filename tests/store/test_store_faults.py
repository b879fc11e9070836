"""The store-fault matrix, through the real ``benchdeck`` program: one line each, nothing lost.

Truncated and overwritten files, a SQLite file, another program's DuckDB files, a dropped table,
a half-applied migration, a read-only directory and a full disk. Each command that meets one
prints one line naming the file and what to do, exits 1, and changes nothing already stored.
The read-only directory and the full disk are real: tmpfs mounts (the tests run as root); where
mounting is refused, a non-root user's read-only directory and an RLIMIT_FSIZE file-size limit
(EFBIG, "File too large") stand in for them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from benchdeck.store.storage.db import Store
from benchdeck.store.storage.schema import MIGRATIONS
from tests.fixtures.cli_helpers import CLI, ROOT
from tests.fixtures.fs_limits import read_only, tmpfs
from tests.fixtures.seed001 import write_single_run_files

BUILDS = ("my8028_rel_o2nofp", "my8040_rel_o2nofp")
RUNS = """
    SELECT r.run_id, r.status, s.qps, s.bench_samples,
           (SELECT count(*) FROM bench_samples b WHERE b.run_id = r.run_id),
           (SELECT count(*) FROM vmstat_samples v WHERE v.run_id = r.run_id)
    FROM runs r JOIN run_summary s USING (run_id) ORDER BY r.run_id
"""


def run_cli(
    db: Path, *args: str | Path, preexec: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "BENCHDECK_DB": str(db)}
    env.pop("BENCHDECK_DEBUG", None)
    return subprocess.run(
        [*CLI, *map(str, args)], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT,
        preexec_fn=preexec,  # only sets a resource limit and a signal
    )  # fmt: skip


def one_line(r: subprocess.CompletedProcess[str], *needles: str) -> str:
    """The command failed with exit 1 and exactly one stderr line holding every needle."""
    assert r.returncode == 1, (r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert "Traceback" not in r.stderr
    return lines[0]


def stored_runs(db: Path) -> list[tuple[Any, ...]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(RUNS).fetchall()
    finally:
        con.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return write_single_run_files(tmp_path_factory.mktemp("faults-files"))


def import_args(files: dict[str, Any], build: str = BUILDS[0], copy: int = 9) -> list[str | Path]:
    """An import of the run's files; ``copy`` makes its output differ (a trailing newline per
    copy): a run is known by its content, and the faults need an import that writes."""
    sb = Path(files["sysbench"])
    out = sb.with_name(f"{sb.stem}.copy{copy}.txt")
    if not out.exists():
        out.write_bytes(sb.read_bytes() + b"\n" * copy)
    return ["import", "sysbench", out, "--host", "h", "--build", build,
            "--workload", files["workload"], "--vmstat", files["vmstat"]]  # fmt: skip


@pytest.fixture(scope="module")
def base_store(files: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store with two runs (two builds, so that compare has something to show)."""
    db = tmp_path_factory.mktemp("faults-base") / "base.duckdb"
    for i, build in enumerate(BUILDS):
        r = run_cli(db, *import_args(files, build, copy=i))
        assert r.returncode == 0, r.stderr
    con = duckdb.connect(str(db))  # the CLI's shared writes leave a WAL; the tests copy the file
    con.execute("CHECKPOINT")
    con.close()
    return db


@pytest.fixture
def store(base_store: Path, tmp_path: Path) -> Path:
    db = tmp_path / "store.duckdb"
    shutil.copyfile(base_store, db)
    return db


def compare_args() -> list[str]:
    return ["compare", "--host", "h", "--base", BUILDS[0], "--with", BUILDS[1], "--format", "csv"]


@pytest.mark.parametrize("where", ["truncated", "corrupt-middle"])
def test_damaged_store_is_one_line_and_left_as_it_is(store: Path, files: dict[str, Any], where: str) -> None:
    size = store.stat().st_size
    if where == "truncated":
        os.truncate(store, size // 2)
    else:
        with store.open("r+b") as f:
            f.seek(size // 4)
            f.write(b"\xde\xad\xbe\xef" * (size // 16))
    before = digest(store)
    one_line(run_cli(store, *import_args(files)), str(store), "damaged", "backup")
    one_line(run_cli(store, *compare_args()), str(store), "damaged")
    assert digest(store) == before, "a damaged store is never written to"


def test_sqlite_file_is_refused_without_the_network(tmp_path: Path, files: dict[str, Any]) -> None:
    db = tmp_path / "other.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE runs (x)")
    con.commit()
    con.close()
    before = digest(db)
    line = one_line(run_cli(db, *import_args(files)), str(db), "SQLite", "--db")
    assert "extension" not in line
    assert digest(db) == before


def test_store_connections_never_load_or_install_extensions(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.duckdb") as s:
        settings = dict(
            s.con.execute(
                "SELECT name, value FROM duckdb_settings() WHERE name IN "
                "('autoinstall_known_extensions', 'autoload_known_extensions')"
            ).fetchall()
        )
    assert settings == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}


@pytest.mark.parametrize("tables", [["CREATE TABLE runs (id INTEGER, note VARCHAR)"],
                                    ["CREATE TABLE results (a INTEGER)", "CREATE TABLE meta (k VARCHAR)"]],
                         ids=["with-runs", "unrelated"])  # fmt: skip
def test_foreign_duckdb_file_is_refused_and_untouched(
    tmp_path: Path, files: dict[str, Any], tables: list[str]
) -> None:
    db = tmp_path / "theirs.duckdb"
    con = duckdb.connect(str(db))
    for ddl in tables:
        con.execute(ddl)
    con.execute("CHECKPOINT")
    names = sorted(r[0] for r in con.execute("SHOW TABLES").fetchall())
    con.close()
    one_line(run_cli(db, *import_args(files)), str(db), "another program", "--db")
    one_line(run_cli(db, *compare_args()), str(db), "another program")
    con = duckdb.connect(str(db), read_only=True)
    assert sorted(r[0] for r in con.execute("SHOW TABLES").fetchall()) == names
    con.close()


def test_dropped_table_is_one_line_and_the_runs_stay(store: Path, files: dict[str, Any]) -> None:
    runs = stored_runs(store)
    con = duckdb.connect(str(store))
    con.execute("DROP TABLE iostat_samples")
    con.close()
    one_line(run_cli(store, *import_args(files)), str(store), "iostat_samples", "backup")
    one_line(run_cli(store, *compare_args()), str(store), "iostat_samples")
    assert stored_runs(store) == runs


def test_half_applied_migration_is_one_line_and_the_runs_stay(store: Path, files: dict[str, Any]) -> None:
    """A migration's table exists but its record was lost: applying it again fails, is rolled
    back, and says so."""
    runs = stored_runs(store)
    # the record of the latest migration that creates a table is lost: applying it again fails
    lost = max(v for v, ddl in MIGRATIONS if "CREATE TABLE" in ddl)
    con = duckdb.connect(str(store))
    con.execute("DELETE FROM schema_version WHERE version = ?", [lost])
    con.close()
    one_line(run_cli(store, *import_args(files)), str(store), f"schema v{lost}", "backup")
    assert stored_runs(store) == runs


def test_read_only_directory(base_store: Path, tmp_path: Path, files: dict[str, Any]) -> None:
    with tmpfs(tmp_path / "ro", "64m") as mounted:
        db = tmp_path / "ro" / "store.duckdb"
        shutil.copyfile(base_store, db)
        runs = stored_runs(db)
        with read_only(db.parent, mounted):
            one_line(run_cli(db, *import_args(files)), str(db), "read-only", "--db")
            ok = run_cli(db, *compare_args())
            assert ok.returncode == 0, ok.stderr
            assert BUILDS[1] in ok.stdout
            assert stored_runs(db) == runs


def _fsize_limit(limit: int) -> Callable[[], None]:
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of being killed
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_full_disk(base_store: Path, tmp_path: Path, files: dict[str, Any]) -> None:
    size = base_store.stat().st_size
    with tmpfs(tmp_path / "full", f"{size // 1024 + 4096}k") as mounted:
        db = tmp_path / "full" / "store.duckdb"
        shutil.copyfile(base_store, db)
        runs = stored_runs(db)
        filler = db.parent / "filler"
        preexec = None
        if mounted:
            with filler.open("wb") as f, contextlib.suppress(OSError):
                while True:  # fill the device to the last block
                    f.write(b"\0" * 65536)
                    f.flush()
        else:  # no mount allowed: the same error path through a file-size limit
            preexec = _fsize_limit(4096)  # no write past 4 kB, as on a full disk
        for _ in range(2):  # this command and the next one
            one_line(run_cli(db, *import_args(files), preexec=preexec), str(db), "was not stored")
        assert stored_runs(db) == runs
        if mounted:
            filler.unlink()
        after = run_cli(db, *import_args(files))
        assert after.returncode == 0, after.stderr
        assert stored_runs(db)[: len(runs)] == runs
        assert len(stored_runs(db)) == len(runs) + 1
