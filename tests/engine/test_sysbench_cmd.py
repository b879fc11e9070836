"""Workload name -> sysbench script and options: pure argv and mapping checks (no processes)."""

from __future__ import annotations

from importlib import resources

import pytest

from benchdeck.engine.catalogue import CLASSIC_42, MODERN_33
from benchdeck.engine.families.sysbench.command import (
    COMMON_SCRIPT,
    STEPS,
    SysbenchCommand,
    WorkloadError,
    default_duration,
    mysql_db_args,
    our_scripts,
    pgsql_db_args,
    post_write_sql,
    step_for,
)

GROUP = dict(CLASSIC_42) | dict(MODERN_33)
ALL = list(GROUP)
# Variants the post author's scripts also run (all_small.sh): same step, another time in a suite.
VARIANTS = ["point-query.warm_range=100", "points-covered-si.warm_range=100", "scan.warmpre_range=100"]
DB = mysql_db_args("127.0.0.1", 3306, "bench", "pw", "sbtest")

# What run.sh does for each test (script, options besides the common ones).
EXPECTED = {
    "hot-points_range=100": ("bd_inlist_select", ["--points=100", "--hot-points=on"]),
    "point-query_range=100": ("oltp_point_select", ["--skip-trx=on"]),
    "points-covered-pk_range=100": ("bd_points", ["--points=100", "--index=pk", "--covered=on"]),
    "points-covered-si_range=100": ("bd_points", ["--points=100", "--index=si", "--covered=on"]),
    "points-notcovered-pk_range=100": ("bd_points", ["--points=100", "--index=pk", "--covered=off"]),
    "points-notcovered-si_range=100": ("bd_points", ["--points=100", "--index=si", "--covered=off"]),
    "random-points_range=1000": ("bd_inlist_select", ["--points=1000"]),
    "range-covered-pk_range=100": ("bd_range", ["--index=pk", "--covered=on"]),
    "range-notcovered-si_range=100": ("bd_range", ["--index=si", "--covered=off"]),
    "read-only_range=10000": ("oltp_read_only", []),
    "read-only-sum_range=1000": (
        "oltp_read_only",
        ["--simple-ranges=0", "--sum-ranges=1", "--order-ranges=0", "--distinct-ranges=0"],
    ),
    "read-only-count_range=1000": ("bd_range_count", []),
    "scan_range=100": ("bd_scan", []),
    "scan.warm_range=100": ("bd_scan", []),
    "delete_range=100": ("oltp_delete", []),
    "insert_range=100": ("oltp_insert", []),
    "read-write_range=10": ("oltp_read_write", []),
    "update-index_range=100": ("oltp_update_index", []),
    "update-inlist_range=100": ("bd_inlist_update", ["--points=100"]),
    "update-nonindex_range=100": ("oltp_update_non_index", []),
    "update-one_range=100": ("oltp_update_non_index", []),
    "update-zipf_range=100": ("bd_update", ["--id-dist=zipfian"]),
    "write-only_range=10000": ("oltp_write_only", []),
}


COMMON_KEYS = {"--tables", "--table-size", "--threads", "--rand-type", "--db-ps-mode", "--range-size"}
COMMON_KEYS |= {"--time", "--events", "--report-interval"}


def script_of(argv: list[str]) -> str:
    return argv[-2]


def step_options(argv: list[str]) -> list[str]:
    """The options a step adds: argv without sysbench, the DB arguments, common ones and script."""
    rest = argv[1 + len(DB) : -2]
    return [a for a in rest if a.split("=", 1)[0] not in COMMON_KEYS]


@pytest.mark.parametrize("name", ALL + VARIANTS)
def test_every_catalogue_name_maps_to_a_runnable_command(name: str) -> None:
    cmd = SysbenchCommand(name, DB, script_dir="/srv/run 7")
    argv = cmd.run_argv()
    assert argv[-1] == "run"
    assert f"--range-size={name.rsplit('=', 1)[1]}" in argv
    script = script_of(argv)
    if cmd.step.ours:
        assert script == f"/srv/run 7/{cmd.step.script}.lua"
        assert set(cmd.files()) == {f"{cmd.step.script}.lua", f"{COMMON_SCRIPT}.lua"}
        assert cmd.sql_argv()[-2:] == [script, "sql"]
    else:
        assert script == cmd.step.script
        assert cmd.files() == {}
    assert cmd.env() == {}
    assert cmd.prepare_argv()[-2:] == [script, "prepare"]
    assert cmd.cleanup_argv()[-2:] == [script, "cleanup"]


@pytest.mark.parametrize(("name", "expected"), EXPECTED.items())
def test_mapping_follows_run_sh(name: str, expected: tuple[str, list[str]]) -> None:
    script, options = expected
    argv = SysbenchCommand(name, DB, script_dir="/d").run_argv()
    assert script_of(argv) in (script, f"/d/{script}.lua")
    assert step_options(argv) == options


def test_writes_flag_matches_the_writes_group_and_sets_the_default_duration() -> None:
    for name in ALL:
        writes = GROUP[name] == "writes"
        assert step_for(name).writes is writes, name
        expected = 60 if name.startswith("scan.warm") else (600 if writes else 300)
        assert default_duration(name) == expected, name
        cmd = SysbenchCommand(name, DB, script_dir="/d")
        assert f"--time={expected}" in cmd.run_argv()
        assert "--time=5" in SysbenchCommand(name, DB, duration_s=5, script_dir="/d").run_argv()
        assert "--time=7" in cmd.run_argv(7)


def test_every_lua_file_is_used_and_every_script_is_packaged() -> None:
    packaged = sorted(
        p.name
        for p in (resources.files("benchdeck.engine.families.sysbench") / "lua").iterdir()
        if p.name.endswith(".lua")
    )
    assert packaged == [f"{s}.lua" for s in our_scripts()]
    for step in STEPS.values():
        assert step.ours == step.script.startswith("bd_")


def test_defaults_prepared_statements_uniform_ids_one_event_budget() -> None:
    argv = SysbenchCommand("point-query_range=100", DB).run_argv()
    assert "--db-ps-mode=auto" in argv
    assert "--rand-type=uniform" in argv
    assert "--events=0" in argv
    off = SysbenchCommand("point-query_range=100", DB, prepared_statements=False).run_argv(events=5)
    assert "--db-ps-mode=disable" in off
    assert "--events=5" in off


def test_update_one_runs_on_row_one_but_prepares_the_full_table() -> None:
    cmd = SysbenchCommand("update-one_range=100", DB, table_size=5000)
    assert "--table-size=1" in cmd.run_argv()
    assert "--table-size=5000" in cmd.prepare_argv()
    assert "--table-size=5000" in cmd.cleanup_argv()


def test_our_scripts_need_a_script_dir_stock_ones_do_not() -> None:
    with pytest.raises(WorkloadError, match="needs script_dir"):
        SysbenchCommand("scan_range=100", DB).run_argv()
    assert SysbenchCommand("scan_range=100", DB).files()
    assert script_of(SysbenchCommand("point-query_range=100", DB).run_argv()) == "oltp_point_select"


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("no-such-test_range=100", "'no-such-test_range=100'"),
        ("point-query.later_range=100", "unknown variant 'later'"),
        ("random-points", "needs _range=N"),
        ("hot-points_range=0", "needs _range=N"),
    ],
)
def test_unknown_or_incomplete_names_are_refused_by_name(name: str, fragment: str) -> None:
    with pytest.raises(WorkloadError, match=fragment.replace(".", r"\.").replace("(", r"\(")):
        SysbenchCommand(name, DB, script_dir="/d").run_argv()


def test_stock_steps_have_no_sql_command() -> None:
    with pytest.raises(WorkloadError, match="oltp_point_select"):
        SysbenchCommand("point-query_range=100", DB).sql_argv()


def test_values_stay_single_argv_elements() -> None:
    hostile = "x; rm -rf / `id` $(id) 'q' \"d\" \n2"
    db = pgsql_db_args("h; ls", 5432, "u ser", hostile, "d b")
    cmd = SysbenchCommand("points-covered-pk_range=100", db, extra={"pgsql-db": hostile}, script_dir="/a b")
    argv = cmd.run_argv()
    assert f"--pgsql-password={hostile}" in argv
    assert f"--pgsql-db={hostile}" in argv
    assert "--pgsql-host=h; ls" in argv
    assert "/a b/bd_points.lua" in argv
    with pytest.raises(WorkloadError, match="bad sysbench option name"):
        SysbenchCommand("scan_range=100", DB, extra={"x; y": "1"}).run_argv()


def test_post_write_sql() -> None:
    my = post_write_sql("mysql", tables=2, wait_s=30)
    assert my[0] == "ANALYZE TABLE sbtest1, sbtest2"
    assert "SET GLOBAL innodb_max_dirty_pages_pct = 0" in my
    assert "DO SLEEP(30)" in my
    assert my[-2:] == [
        "SET GLOBAL innodb_max_dirty_pages_pct = @bd_pct",
        "SET GLOBAL innodb_max_dirty_pages_pct_lwm = @bd_lwm",
    ]
    assert post_write_sql("mariadb") == post_write_sql("mysql")
    assert post_write_sql("postgres", tables=2) == ["VACUUM (ANALYZE) sbtest1", "VACUUM (ANALYZE) sbtest2"]
    with pytest.raises(WorkloadError, match="rocksdb"):
        post_write_sql("rocksdb")
