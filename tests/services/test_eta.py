"""One ETA (issue 25, item 8): set-up time learned from the host's stored runs; Launch's
"about", the log's ``queue:`` line and Live's header give the same figure."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.planning.plan import RunOptions
from benchdeck.engine.records import BenchInterval
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, create_run, set_status
from benchdeck.store.storage.samples import append_bench
from benchdeck.tui.app.app import BenchdeckApp
from benchdeck.tui.services.eta import SETUP_GUESS_S, learned_setup_s, measured_s, setup_s
from tests.app.test_launch_live import (  # noqa: F401  (the fixture: only the local host)
    RUN_WAIT_S,
    WORKLOAD,
    headline,
    inventory,
    matrix,
    open_launch,
    reduce_matrix,
    wait_for,
)

pytestmark = pytest.mark.integration  # the second test really runs the built-in workload


def seed(path: Path, host: str, walls: list[float], measured: float, source: str = "run") -> None:
    """Finished runs on ``host``, each ``wall`` seconds from queued to finished, ``measured`` of
    them sampled."""
    build = parse_build_name("sqlite", dbms="sqlite", version="3")
    with Store.open(path) as store:
        for wall in walls:
            with store.transaction() as cur:
                rid = create_run(cur, NewRun(host, build, WORKLOAD, source, family="builtin"))
                append_bench(
                    cur,
                    rid,
                    [
                        BenchInterval(t=float(t), threads=1, tps=1.0, qps=1.0)
                        for t in range(1, int(measured) + 1)
                    ],
                )
                set_status(cur, rid, "finished")
                cur.execute(
                    "UPDATE runs SET created_at = TIMESTAMP '2026-01-01 10:00:00', finished_at = "
                    "TIMESTAMP '2026-01-01 10:00:00' + to_microseconds(?::BIGINT) WHERE run_id = ?",
                    [int(wall * 1e6), rid],
                )


def test_set_up_is_learned_from_the_hosts_runs(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    seed(db, "dell32", [12.0, 13.0, 30.0], measured=5)  # set-up 7, 8, 25: the median 8
    seed(db, "dell32", [500.0], measured=5, source="mytools")  # an import: not timed by us
    with Store.open(db) as store:
        cur = store.cursor()
        assert learned_setup_s(cur, "dell32") == 8.0
        assert learned_setup_s(cur, "beelink") is None
        assert setup_s(cur, "beelink", ["my8040_rel"]) == SETUP_GUESS_S


def eta_of(text: str) -> str:
    found = re.search(r"(?:ETA|about) (\d+m\d\ds)", text)
    assert found, text
    return found.group(1)


async def test_launch_log_and_header_give_one_eta(tmp_path: Path) -> None:
    db = tmp_path / "bd.duckdb"
    seed(db, "local", [9.0, 9.0, 9.0], measured=2)  # 7 s of set-up per run on this host
    app = BenchdeckApp(db)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("4")  # (a store with runs opens on Runs)
        launch = await open_launch(pilot)
        reduce_matrix(launch, 2)
        await wait_for(pilot, lambda: matrix(app).startswith("1 runs = 1 host(s)"), "the reduced matrix")
        assert eta_of(matrix(app)) == "0m09s", "2 s measured + 7 s of set-up learned"
        await pilot.press("s")

        def logged() -> list[str]:
            v = app.hub.model.current("local")
            return [ln for ln in (v.log if v else []) if ln.startswith("queue: ")]

        await wait_for(pilot, lambda: logged() and "queue" in headline(app), "the queue line", RUN_WAIT_S)
        assert logged()[0] == f"queue: 1/1 sqlite {WORKLOAD} ETA 0m09s"
        assert "queue 1/1 ETA 0m0" in headline(app), headline(app)
        assert eta_of(headline(app)) <= "0m09s", "the header counts down from the log's figure"
        await wait_for(pilot, lambda: app.hub.outcomes, "the run's end", RUN_WAIT_S)


def test_a_tpcc_run_counts_its_own_default_time() -> None:
    """The TPC-C-like client runs 60 s without --time (not the 300 s guessed for unknown families)."""
    assert measured_s("tpcc.w4", RunOptions()) == 60.0
    assert measured_s("tpcc.w4", RunOptions(duration_s=5, warmup_s=2)) == 7.0
