"""Reading a store attached to the database ``import duckdb`` made (``open_for_reading(attach=
True)``, the CLI's read commands): the same rows and the same one-line faults as a database of
its own, nothing left attached after close, and the file free again for a writer."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import duckdb
import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.store.storage.db import Store, StoreError
from benchdeck.store.storage.faults import expected_tables
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.store.storage.schema import MIGRATIONS


def _attached_names() -> set[str]:
    rows = duckdb.default_connection().execute("SELECT database_name FROM duckdb_databases()").fetchall()
    return {str(r[0]) for r in rows} - {"memory", "system", "temp"}


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "s.duckdb"
    with Store.open(path) as store, store.transaction() as cur:
        for build, qps in (("my8028_rel_o2nofp", 100.0), ("my8040_rel_o2nofp", 90.0)):
            rid = create_run(cur, NewRun("h1", parse_build_name(build), "point-query_range=100", "test"))
            save_summary(cur, rid, RunSummary(qps=qps))
            set_status(cur, rid, "finished")
    return path


def test_attached_reads_the_same_rows_and_lets_go_on_close(store_path: Path) -> None:
    query = "SELECT r.run_id, b.name, s.qps FROM runs r JOIN builds b USING (build_id) JOIN run_summary s USING (run_id)"  # noqa: E501
    with Store.open_for_reading(store_path) as own:
        expected = sorted(own.cursor().execute(query).fetchall())
    before = _attached_names()
    with Store.open_for_reading(store_path, attach=True) as store:
        assert store.attach
        assert sorted(store.cursor().execute(query).fetchall()) == expected
        with store.reading() as cur:
            assert sorted(cur.execute(query).fetchall()) == expected
        got: list[object] = []
        thread = threading.Thread(target=lambda: got.extend(store.cursor().execute(query).fetchall()))
        thread.start()
        thread.join()
        assert sorted(got) == expected, "a cursor on another thread reads the store too"  # type: ignore[type-var]
        assert store.schema_version() == max(v for v, _ in MIGRATIONS)
        assert len(_attached_names() - before) == 1
    assert _attached_names() == before, "closing detaches the file"
    with Store.open(store_path) as writer, writer.transaction() as cur:  # the file is free again
        cur.execute("UPDATE run_summary SET qps = qps + 1")


def test_two_attached_stores_at_once(store_path: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    shutil.copyfile(store_path, other)
    with Store.open(other) as writer, writer.transaction() as cur:
        cur.execute("UPDATE run_summary SET qps = 7")
    with (
        Store.open_for_reading(store_path, attach=True) as a,
        Store.open_for_reading(other, attach=True) as b,
    ):
        assert a.scalar("SELECT max(qps) FROM run_summary") == 100.0
        assert b.scalar("SELECT max(qps) FROM run_summary") == 7.0


def _damage(path: Path, how: str) -> None:
    size = path.stat().st_size
    if how == "truncated":
        os.truncate(path, size // 2)
    elif how == "corrupt-middle":
        with path.open("r+b") as f:
            f.seek(size // 4)
            f.write(b"\xde\xad\xbe\xef" * (size // 16))
    elif how == "dropped-table":
        con = duckdb.connect(str(path))
        con.execute("DROP TABLE iostat_samples")
        con.close()
    elif how == "too-new":
        con = duckdb.connect(str(path))
        con.execute("INSERT INTO schema_version (version) VALUES (9999)")
        con.close()
    elif how == "needs-upgrade":
        con = duckdb.connect(str(path))
        con.execute("DELETE FROM schema_version WHERE version = (SELECT max(version) FROM schema_version)")
        con.close()
    elif how == "foreign":
        path.unlink()
        con = duckdb.connect(str(path))
        con.execute("CREATE TABLE orders (id INTEGER)")
        con.close()
    elif how == "missing":
        path.unlink()


def _read_everything(path: Path, attach: bool) -> None:
    with Store.open_for_reading(path, attach=attach) as store:
        cur = store.cursor()
        for table in sorted(expected_tables()):  # every block of a damaged file is read
            cur.execute(f"SELECT * FROM {table}").fetchall()


@pytest.mark.parametrize(
    "how", ["truncated", "corrupt-middle", "dropped-table", "too-new", "needs-upgrade", "foreign", "missing"]
)
def test_faults_read_the_same_attached(store_path: Path, how: str) -> None:
    _damage(store_path, how)
    before = _attached_names()
    messages = []
    for attach in (False, True):
        with pytest.raises(StoreError) as err:
            _read_everything(store_path, attach)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert str(store_path) in messages[1]
    assert _attached_names() == before, "a failed open leaves nothing attached"


def test_extensions_stay_off_in_the_default_database(store_path: Path) -> None:
    with Store.open_for_reading(store_path, attach=True) as store:
        settings = dict(
            store.cursor()
            .execute(
                "SELECT name, value FROM duckdb_settings() "
                "WHERE name IN ('autoinstall_known_extensions', 'autoload_known_extensions')"
            )
            .fetchall()
        )
    assert settings == {"autoinstall_known_extensions": "false", "autoload_known_extensions": "false"}


def test_attached_reads_what_is_still_in_the_wal(store_path: Path) -> None:
    """A shared writer's batches wait in the WAL until a checkpoint: a reader replays them."""
    con = duckdb.connect(str(store_path))
    con.execute("PRAGMA disable_checkpoint_on_shutdown")
    con.execute("UPDATE run_summary SET qps = 5 WHERE qps = 90")
    con.close()
    assert store_path.with_name(store_path.name + ".wal").exists()
    with Store.open_for_reading(store_path, attach=True) as store:
        assert sorted(store.cursor().execute("SELECT qps FROM run_summary").fetchall()) == [(5.0,), (100.0,)]
    assert store_path.with_name(store_path.name + ".wal").exists(), "a reader leaves the WAL as it was"
