"""Runs -> mark two runs -> D: what differs between them. The records are captured for real
from the private MariaDB (its variables change in between), then stored on two demo runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.records import RunRecord
from benchdeck.engine.running.provenance import DbAccess, capture
from benchdeck.engine.transport import HostSpec, LocalTransport
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.run_records import save_record
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.app.screens.run_diff import RunDiffScreen
from benchdeck.tui.app.screens.runs import RunsScreen
from tests.app.helpers import settle, static_text
from tests.app.snapshot import assert_snapshot
from tests.app.storedata import BASE, NEW, Demo
from tests.app.test_runs import SIZE, move_to_run
from tests.fixtures.servers.mariadb import MariaDBServer

pytestmark = pytest.mark.integration  # a real MariaDB


async def record_two(demo: Demo, server: MariaDBServer) -> None:
    transport = LocalTransport(HostSpec(name="local", hostname="localhost", transport="local"))
    db = DbAccess("mysql", tuple(server.client_argv()))
    plan = RunPlan(1, "local", "w", "/tmp", ("sysbench", "--mysql-password=secret", "run"), 10)

    async def set_delay(value: int) -> None:
        res = await transport.run(server.client_argv("-e", f"SET GLOBAL delayed_insert_limit = {value}"))
        assert res.ok, res.stderr

    got = await transport.run(server.client_argv("-N", "-B", "-e", "SELECT @@global.delayed_insert_limit"))
    before = got.stdout.strip()
    try:
        await set_delay(111)
        a = await capture(transport, plan, db)
        await set_delay(222)
        b = await capture(transport, plan, db)
    finally:
        await set_delay(int(before))
    with Store.open(demo.path) as store, store.transaction() as cur:
        save_record(cur, demo.base_update_index, a)
        save_record(cur, demo.new_update_index, b)


async def test_mark_two_runs_and_see_what_differs(demo: Demo, mariadb_server: MariaDBServer) -> None:
    await record_two(demo, mariadb_server)
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("D")
        assert isinstance(app.screen, RunsScreen), "nothing marked: D only says to mark two runs"
        for run_id in (demo.base_update_index, demo.new_update_index):
            move_to_run(app, run_id)
            await pilot.press("m")
        table = app.screen.query_one("#runs-table", DataTable)
        assert str(table.get_row(str(demo.new_update_index))[0]) == f"*{demo.new_update_index}"
        await pilot.press("D")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunDiffScreen)
        for _ in range(100):
            if screen.diffs:
                break
            await pilot.pause(0.05)
        title = static_text(screen.query_one("#diff-title", Static))
        assert title.startswith(f"run A = {demo.base_update_index}, run B = {demo.new_update_index}: ")
        rows = [
            [str(c) for c in screen.query_one("#diff-table", DataTable).get_row_at(i)]
            for i in range(len(screen.diffs))
        ]
        assert ["variables", "delayed_insert_limit", "111", "222"] in rows
        dbms = [r for r in rows if r[0] == "dbms"]
        assert dbms == [["dbms", "build", BASE, NEW]], "the same server; the builds are named"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, RunsScreen)


def fixed_records(demo: Demo) -> None:
    """Two hand-written records (deterministic: for the snapshot)."""
    facts = '{"cpu_model": "AMD EPYC 7452", "mem_total_kb": 131072000, "kernel": "%s"}'
    common = {"innodb_flush_log_at_trx_commit": "1", "max_connections": "151"}
    a = RunRecord(
        host_facts=facts % "6.1.0-18-amd64",
        dbms_version="8.0.28",
        variables=tuple({**common, "innodb_buffer_pool_size": "134217728"}.items()),
        config_files=(("/etc/my.cnf.z11a", "[mysqld]\ninnodb_buffer_pool_size=128M\n"),),
        commands=(("bench", "sysbench --threads=24 --mysql-password=******** run"),),
    )
    b = RunRecord(
        host_facts=facts % "6.1.0-21-amd64",
        dbms_version="8.0.40",
        variables=tuple(
            {**common, "innodb_buffer_pool_size": "268435456", "innodb_dedicated_server": "ON"}.items()
        ),
        config_files=(("/etc/my.cnf.z11a", "[mysqld]\ninnodb_buffer_pool_size=256M\n"),),
        commands=(("bench", "sysbench --threads=24 --mysql-password=******** run"),),
    )
    with Store.open(demo.path) as store, store.transaction() as cur:
        save_record(cur, demo.base_update_index, a)
        save_record(cur, demo.new_update_index, b)


async def test_run_diff_snapshot(demo: Demo, tmp_path: Path) -> None:
    fixed_records(demo)
    app = BenchdeckApp(demo.path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for run_id in (demo.base_update_index, demo.new_update_index):
            move_to_run(app, run_id)
            await pilot.press("m")
        await pilot.press("D")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RunDiffScreen)
        for _ in range(100):
            if screen.diffs:
                break
            await pilot.pause(0.05)
        await settle(pilot)
        assert [d.key for d in screen.diffs] == [
            "build",  # my8028_rel_o2nofp vs my8040_rel_o2nofp
            "version",
            "innodb_buffer_pool_size",
            "innodb_dedicated_server",
            "/etc/my.cnf.z11a:2",
            "kernel",
        ]
        assert_snapshot(app, "run-diff-100x30", tmp_path)
