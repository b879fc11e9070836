"""Deleting a run from a team store while another writer commits (issue 37.9): a real PostgreSQL
catalog, two real writers (two stores open on one lake). The other writer's commit is made to
fall between the delete's statements and its COMMIT, every time: DuckLake reports the clash,
and the delete rolls back and runs again, as the other lake writes do. And the runs a team store
holds given a device's rows by an import with --device (issue 37.7)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from benchdeck.store.importers import import_mytools_tree
from benchdeck.store.storage import lake
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.lake_session import Conflict
from benchdeck.store.storage.run_lists import delete_run, set_tags
from benchdeck.tui.services.errors import is_store_error
from tests.fixtures.servers.postgres import PostgresServer
from tests.store import mytools_tree as tree
from tests.store.test_team_store_cli import _new_db, _url

pytestmark = pytest.mark.integration  # a real PostgreSQL catalog


class _CommitsBetween:
    """A writer's cursor whose COMMITs each come after ``other`` commits a change of its own:
    the clash of two writers at the worst moment, made to happen, not waited for."""

    def __init__(self, cur: Any, other: Any, clashes: int) -> None:
        self._cur, self._other, self.clashes = cur, other, clashes
        self.lake = cur.lake
        self.begun = 0

    def execute(self, sql: str, params: object = None) -> Any:
        if sql == "BEGIN TRANSACTION":
            self.begun += 1
        if sql == "COMMIT" and self.clashes:
            self.clashes -= 1
            self._other()
        return self._cur.execute(sql, params) if params is not None else self._cur.execute(sql)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)


@pytest.fixture
def lake_runs(postgres_server: PostgresServer, tmp_path: Path) -> str:
    """A new team store holding the small tree's 9 runs."""
    url = _url(postgres_server, _new_db(postgres_server, tmp_path, "del"))
    os.environ[lake.DATA_ENV] = str(tmp_path / "data")
    try:
        with Store.open(url) as store:
            assert len(import_mytools_tree(store, tree.write_tree(tmp_path / "tree"), "h").run_ids) == 9
    finally:
        del os.environ[lake.DATA_ENV]
    return url


def _ids(url: str) -> list[int]:
    with Store.open_for_reading(url) as store, store.reading() as cur:
        return [r for (r,) in cur.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()]


def test_a_delete_that_clashes_with_another_writer_is_done_again(lake_runs: str) -> None:
    first, second, *rest = _ids(lake_runs)
    with Store.open(lake_runs) as mine, Store.open(lake_runs) as theirs:

        def they_delete() -> None:
            cur = theirs.cursor()
            try:
                assert delete_run(cur, second)
            finally:
                cur.close()

        cur = _CommitsBetween(mine.cursor(), they_delete, clashes=1)
        assert delete_run(cur, first)  # type: ignore[arg-type]
        assert cur.begun == 2  # the first attempt clashed for real, and was rolled back
    assert _ids(lake_runs) == rest
    with Store.open_for_reading(lake_runs) as store, store.reading() as r:
        left = r.execute("SELECT count(*) FROM raw_files WHERE run_id IN (?, ?)", [first, second]).fetchone()
        assert left == (0,)


def test_a_delete_that_clashes_every_time_is_one_line(lake_runs: str) -> None:
    ids = _ids(lake_runs)
    with Store.open(lake_runs) as mine, Store.open(lake_runs) as theirs:
        tags = iter(range(1000))

        def they_tag() -> None:  # a run of theirs tagged anew before each of my COMMITs
            cur = theirs.cursor()
            try:
                set_tags(cur, ids[1], [f"t{next(tags)}"])
            finally:
                cur.close()

        cur = _CommitsBetween(mine.cursor(), they_tag, clashes=1000)
        with pytest.raises(Conflict) as got:
            delete_run(cur, ids[0])  # type: ignore[arg-type]
        assert cur.begun > 1
    assert "\n" not in str(got.value)
    assert is_store_error(got.value), "the CLI and the app say it as the store's own errors"
    assert str(got.value).startswith("another benchdeck changed the team store at the same time")
    assert _ids(lake_runs) == ids  # nothing deleted


def test_an_import_with_device_fills_the_runs_a_team_store_holds(lake_runs: str, tmp_path: Path) -> None:
    """Issue 37.7 on a team store: the UPDATEs and inserts of the device fill in its writes."""
    a = tree.folder(tmp_path / "tree", tree.A)
    report = "Device r/s rkB/s w/s wkB/s %util\nmd2 {r} 40.00 5.00 20.00 1.00\n\n"
    (a / f"sb.io.point-query.range100.pk1.dop{tree.DOP}").write_text(
        "Linux 5.15 (h) \t03/18/2025 \t_x86_64_\t(48 CPU)\n\n" + "".join(report.format(r=r) for r in (10, 30))
    )
    with Store.open(lake_runs) as store:
        res = import_mytools_tree(store, tmp_path / "tree", "h", device="md2")
    assert (res.run_ids, res.already, res.devices_added, res.failed) == ([], 9, 1, [])
    with Store.open_for_reading(lake_runs) as store, store.reading() as cur:
        got = cur.execute(
            "SELECT r.device, s.r_o * s.qps, s.io_samples, (SELECT count(*) FROM iostat_samples i "
            "WHERE i.run_id = r.run_id) FROM runs r JOIN run_summary s USING (run_id) "
            "WHERE r.device IS NOT NULL"
        ).fetchall()
    assert got == [("md2", pytest.approx(20.0), 2, 2)]
