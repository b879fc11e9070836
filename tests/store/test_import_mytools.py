"""Importing a mytools tree: per-op metrics from sb.met, EXPLAIN output, scans, dates, raw files."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from benchdeck.engine.catalogue import default_catalogue
from benchdeck.store.analysis.compare import Comparison, compare
from benchdeck.store.importers import ImportProgress, MytoolsImport, import_mytools_tree
from benchdeck.store.reports.compare_report import render_text
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.raw import read_raw
from tests.store import mytools_tree as t

HOST = "dell16"


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, MytoolsImport]:
    root = tmp_path_factory.mktemp("mytools")
    tree = t.write_tree(root / "tree")
    db = root / "s.duckdb"
    with Store.open(db) as store:
        res = import_mytools_tree(store, tree, HOST)
    return db, tree, res


def _compare(db: Path) -> Comparison:
    cat = default_catalogue()
    with Store.open_for_reading(db) as store:
        return compare(
            store.cursor(), host=HOST, base=t.A, with_builds=[t.B, t.C], group_of=cat.group_of,
            sort_key=cat.sort_key, dop=t.DOP,
        )  # fmt: skip


def _blocks(text: str) -> dict[str, list[list[str]]]:
    """o.met-style blocks by workload: each line split on whitespace (his double tab or ours)."""
    out: dict[str, list[list[str]]] = {}
    for chunk in text.split("\n\n"):
        lines = chunk.strip("\n").splitlines()
        if len(lines) > 2 and lines[1] == "--- absolute":
            out[lines[0]] = [line.split() for line in lines[1:]]
    return out


def test_every_run_imported_with_per_op_from_sb_met(imported: tuple[Path, Path, MytoolsImport]) -> None:
    db, _, res = imported
    assert not res.failed, res.failed
    assert len(res.run_ids) == 9
    assert res.imported_per_op == 8, "A's point-query has vmstat: computed, not imported"
    with Store.open_for_reading(db) as store:
        rows = (
            store.cursor()
            .execute(
                "SELECT b.name, w.name, s.per_op_source, s.per_op_ops, s.cpu_o FROM runs r "
                "JOIN run_summary s USING (run_id) JOIN builds b USING (build_id) "
                "JOIN workloads w USING (workload_id)"
            )
            .fetchall()
        )
    got = {(b, w): (src, ops, cpu) for b, w, src, ops, cpu in rows}
    assert got[(t.A, "update-index_range=100")] == ("imported", 80000.0, 0.0005)
    assert got[(t.B, "update-index_range=100")] == ("imported", 72000.0, 0.00055), "the table after sb.o"
    assert got[(t.B, "scan_range=100")] == ("imported", 3200.0, 0.024375)
    src, ops, cpu = got[(t.A, "point-query_range=100")]
    assert (src, ops) == ("computed", None), "raw vmstat wins over sb.met"
    assert cpu == pytest.approx((60 + 64) / 2 / 200000.0), "vmstat us+sy over the QPS, first row dropped"


def test_per_op_tables_equal_the_authors_omet(imported: tuple[Path, Path, MytoolsImport]) -> None:
    db, _, _ = imported
    ours = _blocks(render_text(_compare(db)))
    his = _blocks(t.OMET)
    for wl, title in (("update-index_range=100", "sb.met.update-index.range100.pk1.dop40"),
                      ("scan_range=100", "sb.met.scan.range100.pk1.dop40")):  # fmt: skip
        mine = ours[f"{wl}.dop{t.DOP}"]
        expected = his[title]
        assert [row[:6] for row in mine] == [row[:6] for row in expected], wl
        names = [row[-1] for row in expected[2:] if not row[0].startswith("---")]
        assert [row[-1] for row in mine[2:] if not row[0].startswith("---")] == [
            n.removeprefix("x.").split(".")[0] for n in names
        ]


def test_scan_qps_is_rows_per_second_and_rqps_matches_o_s(imported: tuple[Path, Path, MytoolsImport]) -> None:
    db, _, _ = imported
    cmp = _compare(db)
    assert cmp.cells[("scan_range=100", t.DOP, t.A)].qps == pytest.approx(t.TABLE_SIZE / 0.5)
    (row,) = [r for r in cmp.rqps if r.workload == "scan_range=100"]
    assert row.values[0] == pytest.approx(0.8)


def test_triage_moved_most_reads_imported_metrics(imported: tuple[Path, Path, MytoolsImport]) -> None:
    from benchdeck.tui.app.screens.triage import rank

    db, _, _ = imported
    items = {it.workload: it for it in rank(_compare(db), column=0)}
    moved = {m.metric: m.rel for m in items["update-index_range=100"].moved}
    assert moved == pytest.approx({"wKB/o": 10.02 / 8.35, "cpu/o": 1.1, "cs/o": 0.96})
    # wKB/o 0.004 -> 0.005 is below its floor (issue 25.2, on main): not a mover
    assert [m.metric for m in items["scan_range=100"].moved] == ["cpu/o", "cs/o"]


def test_explain_output_is_recognised_and_kept_in_the_raw_file(
    imported: tuple[Path, Path, MytoolsImport],
) -> None:
    db, tree, res = imported
    per_file = len(t.explain_block("scan")) + 1  # and the blank line sysbench prints before it
    assert res.explain_lines == 9 * per_file
    assert res.skipped_lines == 0
    assert [w.split(",")[0] for w in res.warnings] == [  # folder B: all one mtime (see below)
        "1 folder(s) whose run files' mtimes are not when they ran (one mtime"
    ], res.warnings
    assert res.unordered_mtimes == [str(t.folder(tree, t.B))]
    path = tree / f"x.{t.B}.{t.CONFIG}.pk1" / "sb.o.update-index.range100.pk1.dop40"
    with Store.open_for_reading(db) as store:
        cur = store.cursor()
        (run_id,) = cur.execute("SELECT run_id FROM runs WHERE source_path = ?", [str(path)]).fetchone()
        assert cur.execute("SELECT count(*) FROM skipped_lines").fetchone() == (0,)
        (raw,) = read_raw(cur, run_id)
        codec, size, stored = cur.execute(
            "SELECT codec, size, octet_length(data) FROM raw_files WHERE run_id = ?", [run_id]
        ).fetchone()
    assert (raw.kind, raw.name, raw.text) == ("sysbench", path.name, path.read_text())
    assert codec == "zstd"
    assert size == len(path.read_bytes())
    assert stored < size / 2


def test_runs_are_dated_when_they_ran(imported: tuple[Path, Path, MytoolsImport]) -> None:
    db, _, _ = imported
    with Store.open_for_reading(db) as store:
        rows = (
            store.cursor()
            .execute(
                "SELECT b.name, w.name, r.created_at, r.started_at, r.finished_at, s.elapsed_s, r.dated_from "
                "FROM runs r JOIN builds b USING (build_id) JOIN workloads w USING (workload_id) "
                "JOIN run_summary s USING (run_id)"
            )
            .fetchall()
        )
    run = timedelta(seconds=305)  # --warmup-time=5 --time=300
    for build, workload, created, started, finished, elapsed, source in rows:
        if build == t.B:  # neither, and its files share one mtime (a copy): undated, not that mtime
            assert (started, finished, source) == (None, None, "undated")
            continue
        assert created == started
        assert finished - started == timedelta(seconds=elapsed)
        if build == t.A:  # no dated line anywhere: mtimes 600 s apart, runs of 305 s: evidence
            k = t.SUITE.index(workload.split("_")[0])
            assert (finished, source) == (t.MTIME_A + timedelta(minutes=10 * k), "mtime")
        elif build == t.C:  # the suite's order around the folder's vacuum log (no "done" line)
            assert source == "suite order"
            assert (
                started
                == {  # update-index before the vacuum; scan, then point-query after it
                    "update-index_range=100": t.DATED_C - run,
                    "scan_range=100": t.DATED_C,
                    "point-query_range=100": t.DATED_C + run,
                }[workload]
            )


def test_reimport_adds_nothing_and_progress_counts_files(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    seen: list[ImportProgress] = []
    with Store.open(tmp_path / "s.duckdb") as store:
        first = import_mytools_tree(store, tree, HOST, progress=seen.append)
        again = import_mytools_tree(store, tree, HOST)
    assert len(first.run_ids) == 9
    assert (len(again.run_ids), again.already) == (0, 9)
    assert [p.done for p in seen] == [*range(1, 10), 9]
    assert {p.total for p in seen} == {9}
    assert seen[-1].imported == 9
    assert seen[-1].lines == first.lines > 9 * len(t.explain_block("scan"))


def test_scan_table_size_from_prepare_output_else_one_clear_line(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for build in (t.C, t.A):  # C has sb.prepare.o.* saying the size, A nothing
        d = t.folder(tree, build)
        text = t.sysbench_output("scan", 500.0, table_size=False, seed=t.BUILDS.index(build))
        (d / "sb.o.scan.range100.pk1.dop40").write_text(text)
    t.write_tree(tmp_path / "full")  # borrow C's prepare output and dated log
    for name in ("sb.prepare.o.point-query.warm.range100.pk1", "sb.o.myvac"):
        (t.folder(tree, t.C) / name).write_text((t.folder(tmp_path / "full", t.C) / name).read_text())
    with Store.open(tmp_path / "s.duckdb") as store:
        res = import_mytools_tree(store, tree, HOST)
        assert len(res.run_ids) == 1
        assert store.scalar("SELECT qps FROM run_summary") == pytest.approx(t.TABLE_SIZE / 0.5)
        assert store.scalar("SELECT table_size FROM runs") == t.TABLE_SIZE
        (failed,) = res.failed
        assert "\n" not in failed
        assert failed.startswith(str(t.folder(tree, t.A)))
        assert "scan step scan_range=100" in failed
        assert "give --table-size N" in failed
        res = import_mytools_tree(store, tree, HOST, table_size=1_000_000)
        assert (len(res.run_ids), res.already, res.failed) == (1, 1, [])


def test_a_folder_with_an_unknown_build_name_is_one_failure(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    odd = tree / f"x.nonsense.{t.CONFIG}.pk1"
    odd.mkdir()
    for step in ("scan", "update-index"):
        (odd / f"sb.o.{step}.range100.pk1.dop40").write_text(t.sysbench_output(step, 500.0))
    with Store.open(tmp_path / "s.duckdb") as store:
        res = import_mytools_tree(store, tree, HOST)
    assert len(res.run_ids) == 9
    assert res.already == 0
    (failed,) = res.failed
    assert failed.startswith(f"{odd}: cannot parse build name 'nonsense'")
