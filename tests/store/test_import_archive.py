"""The whole archive (issue 24): runs known by content, dated by evidence, packed folders, old
EXPLAIN layout, profile-only folders, device rows; issue 25 items 3 and 17. Hand-written trees
(tests/store/mytools_tree.py), no servers."""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchdeck.engine.builds import parse_build_name
from benchdeck.store.importers import RunFiles, import_mytools_tree, import_run_files
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.raw import read_raw
from benchdeck.store.storage.run_lists import RunFilter, run_history, run_history_after
from benchdeck.tui.cli.main import cli
from tests.store import mytools_tree as t

HOST = "dell16"
DOP = f"range100.pk1.dop{t.DOP}"


def _count(store: Store, sql: str = "SELECT count(*) FROM runs") -> int:
    return int(store.scalar(sql))


def test_a_tree_imported_from_two_paths_stores_each_run_once(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    copy = shutil.copytree(tree, tmp_path / "elsewhere" / "tree")
    with Store.open(tmp_path / "s.duckdb") as store:
        first = import_mytools_tree(store, tree, HOST)
        again = import_mytools_tree(store, copy, HOST)
        assert (len(first.run_ids), len(again.run_ids), again.already) == (9, 0, 9)
        assert _count(store) == 9
        assert any("9 run(s) skipped as already stored" in w for w in again.warnings)
        # issue 25.3: one file of the tree imported on its own is the same run, not a new one
        out = t.folder(copy, t.C) / f"sb.o.update-index.{DOP}"
        build = parse_build_name(t.C)
        run = import_run_files(store, RunFiles(HOST, build, "update-index_range=100", out))
        assert run.already
        assert run.run_id in first.run_ids
        assert _count(store) == 9


def test_import_sysbench_of_a_tree_file_is_dated_as_import_mytools_dates_it(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    out = t.folder(tree, t.C) / f"sb.o.point-query.{DOP}"
    with Store.open(tmp_path / "s.duckdb") as store:
        files = RunFiles(HOST, parse_build_name(t.C), "point-query_range=100", out)
        run = import_run_files(store, files)
        row = (
            store.cursor()
            .execute("SELECT started_at, dated_from FROM runs WHERE run_id = ?", [run.run_id])
            .fetchone()
        )
    assert row == (t.DATED_C + timedelta(seconds=305), "suite order")


def test_dates_follow_the_evidence_order(tmp_path: Path) -> None:
    """The runs' own clocks first: vmstat -t timestamps, the sb.ps clock, a date line (``Done
    at``: the run's end, and not an unparsed line), the mtime when it is evidence; then the
    suite's order (issue 37.5)."""
    tree = t.write_tree(tmp_path / "tree")
    b, c = t.folder(tree, t.B), t.folder(tree, t.C)
    stamped = "".join(
        line + (" UTC" if i < 2 else f" 2025-10-12 08:00:0{i}") + "\n"
        for i, line in enumerate(t.VMSTAT.splitlines())
    )
    (c / f"sb.vm.scan.{DOP}").write_text(stamped)
    upd = c / f"sb.o.update-index.{DOP}"
    upd.write_text(upd.read_text() + "\nDone at Sun Oct 12 09:30:00 UTC 2025\n")
    shutil.copy(c / "sb.o.myvac", b)  # B has a suite order too: its mtimes and clock come first
    (b / f"sb.ps.point-query.{DOP}").write_text(t.PS)
    for k, step in enumerate(t.SUITE):  # B's mtimes increase in the suite's order: evidence
        os.utime(b / f"sb.o.{step}.{DOP}", (1.75e9 + 600 * k, 1.75e9 + 600 * k))
    with Store.open(tmp_path / "s.duckdb") as store:
        import_mytools_tree(store, tree, HOST)
        rows = {
            (build, wl.removesuffix("_range=100")): rest
            for build, wl, *rest in store.cursor()
            .execute(
                "SELECT b.name, w.name, r.started_at, r.finished_at, r.dated_from FROM runs r "
                "JOIN workloads w USING (workload_id) JOIN builds b USING (build_id) WHERE b.name IN (?, ?)",
                [t.B, t.C],
            )
            .fetchall()
        }
        skipped = _count(store, "SELECT count(*) FROM skipped_lines WHERE source = 'sysbench'")
    assert rows[t.C, "scan"][::2] == [datetime(2025, 10, 12, 8, 0, 3), "vmstat"]  # since-boot row dropped
    done = datetime(2025, 10, 12, 9, 30)
    assert rows[t.C, "update-index"] == [done - timedelta(seconds=300.0042), done, "sysbench"]
    assert skipped == 0  # (the vmstat's made-up header is: 1 line)
    assert rows[t.C, "point-query"][::2] == [t.DATED_C + timedelta(seconds=305), "suite order"]
    assert rows[t.B, "point-query"][::2] == [t.PS_AT, "sb.ps"]
    ends = [datetime.fromtimestamp(1.75e9 + 600 * k, UTC).replace(tzinfo=None) for k in (0, 1)]
    assert [rows[t.B, step][1:] for step in t.SUITE[:2]] == [[e, "mtime"] for e in ends]
    with Store.open_for_reading(tmp_path / "s.duckdb") as store:  # Runs and `runs`: newest run first
        cur = store.cursor()
        history = run_history(cur, RunFilter(limit=4))
        rest = run_history_after(cur, RunFilter(limit=100), history[-1].run_id)
        when = dict(cur.execute("SELECT run_id, started_at FROM runs").fetchall())
    order = [r.run_id for r in history + rest]
    assert len(order) == 9
    assert order == sorted(when, key=lambda i: (when[i], i), reverse=True)
    assert order != sorted(order, reverse=True)  # not the import's order


def test_a_packed_folder_imports_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Read from the tarball's stream into memory: no temporary folder (none can be made here),
    member mtimes kept."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    tree = t.write_tree(tmp_path / "tree")
    packed = tmp_path / "packed"
    packed.mkdir()
    c = t.folder(tree, t.C)
    for p in c.glob("sb.o.myvac*"):
        p.unlink()  # dated by the members' mtimes, not the vacuum log
    for k, step in enumerate(t.SUITE):  # in the suite's order: evidence (scan is second)
        os.utime(c / f"sb.o.{step}.{DOP}", (1.75e9 + 600 * (k - 1), 1.75e9 + 600 * (k - 1)))
    out = c / f"sb.o.scan.{DOP}"
    with tarfile.open(packed / f"{c.name}.tar.gz", "w:gz") as tar:
        tar.add(c, arcname=c.name)
    with Store.open(tmp_path / "s.duckdb") as store:
        res = import_mytools_tree(store, packed, HOST)
        assert (len(res.run_ids), res.failed) == (3, [])
        rows = store.cursor().execute("SELECT source_path, finished_at, dated_from FROM runs").fetchall()
        again = import_mytools_tree(store, tree, HOST)  # the same runs, unpacked
    assert all(p.startswith(f"{packed / c.name}.tar.gz/{c.name}/sb.o.") for p, _, _ in rows)
    assert {(f, d) for p, f, d in rows if p.endswith(out.name)} == {
        (datetime(2025, 6, 15, 15, 6, 40), "mtime")
    }
    assert (len(again.run_ids), again.already) == (6, 3)


def test_a_packed_folder_and_one_file_of_it_are_dated_by_their_sb_ps(tmp_path: Path) -> None:
    """The clock beside the run (issue 37.5): a packed folder's members one mtime (no evidence)
    and a vacuum log (a suite order), yet the run with an sb.ps starts at its first date."""
    tree = t.write_tree(tmp_path / "tree")
    c = t.folder(tree, t.C)
    (c / f"sb.ps.point-query.{DOP}").write_text(t.PS)
    packed = tmp_path / "packed"
    packed.mkdir()
    with tarfile.open(packed / f"{c.name}.tar.gz", "w:gz") as tar:
        tar.add(c, arcname=c.name)
    out = c / f"sb.o.point-query.{DOP}"
    with Store.open(tmp_path / "s.duckdb") as store:
        import_mytools_tree(store, packed, HOST)
        got = store.cursor().execute("SELECT source_path, started_at, dated_from FROM runs").fetchall()
        store.cursor().execute("DELETE FROM runs")  # (the same output: stored again below)
        one = import_run_files(store, RunFiles(HOST, parse_build_name(t.C), "point-query_range=100", out))
        row = store.cursor().execute("SELECT started_at, dated_from FROM runs WHERE run_id = ?", [one.run_id])
        assert row.fetchone() == (t.PS_AT, "sb.ps")
    assert {(s, d) for p, s, d in got if p.endswith(out.name)} == {(t.PS_AT, "sb.ps")}
    assert sorted(d for _, _, d in got) == ["sb.ps", "suite order", "suite order"]


OLD_EXPLAIN = [  # a March 2025 PostgreSQL tree: plan nodes not indented
    "for point_selects",
    "table 1 : explain SELECT c FROM sbtest1 WHERE id=5442144",
    "Index Scan using sbtest1_pkey on sbtest1  (cost=0.43..8.45 rows=1 width=121)",
    "  Index Cond: (id = 5442144)",
    "",
    "for: sum_ranges",
    "table 2 : explain SELECT SUM(k) FROM sbtest2 WHERE id BETWEEN 1 AND 100",
    "Aggregate  (cost=12.41..12.42 rows=1 width=8)",
    "  ->  Index Scan using sbtest2_pkey on sbtest2  (cost=0.43..12.16 rows=101 width=4)",
    "",
]


def test_the_old_explain_layout_leaves_no_skipped_lines(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    d = t.folder(tree, t.A)
    text = t.sysbench_output("point-query", 1000.0)
    lines = text.splitlines()
    a, b = lines.index("Initializing worker threads..."), lines.index("Threads started!")
    (d / f"sb.o.point-query.{DOP}").write_text("\n".join([*lines[: a + 1], *OLD_EXPLAIN, *lines[b:]]))
    with Store.open(tmp_path / "s.duckdb") as store:
        res = import_mytools_tree(store, tree, HOST)
        assert len(res.run_ids) == 1
        assert _count(store, "SELECT count(*) FROM skipped_lines") == 0
    assert res.explain_lines == len(OLD_EXPLAIN)


def test_folders_with_only_flame_graphs_or_stacks_get_their_line(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (t.folder(tree, t.A) / f"sb.perf.g.cycles.scan.{DOP}.all.svg").write_text("<svg/>")
    (t.folder(tree, t.B) / "sb.pmp.scan.range100.pk1.all.hier").write_text("10 __poll\n")
    result = CliRunner().invoke(
        cli, ["--db", str(tmp_path / "s.duckdb"), "import", "mytools", str(tree), "--host", HOST]
    )
    assert result.exit_code == 0, result.output
    assert "imported 0 runs" in result.output
    assert "2 folder(s) hold 1 flame graph SVG(s) and 1 sb.pmp stack file(s) and no sysbench output" in (
        result.output
    )


def test_device_rows_only(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    d = t.folder(tree, t.A)
    (d / f"sb.o.point-query.{DOP}").write_text(t.sysbench_output("point-query", 1000.0))
    report = (
        "Device            r/s     rkB/s   w/s     wkB/s  %util\n"
        "loop0            0.00      0.00    0.00      0.00   0.00\n"
        "md2             10.00     40.00    5.00     20.00   1.00\n\n"
    )
    (d / f"sb.io.point-query.{DOP}").write_text(
        "Linux 5.15 (h) \t03/18/2025 \t_x86_64_\t(48 CPU)\n\n" + report * 3
    )
    packed = tmp_path / "packed"  # the same folder packed: its iostat held compressed in memory
    packed.mkdir()
    with tarfile.open(packed / f"{d.name}.tar.gz", "w:gz") as tar:
        tar.add(d, arcname=d.name)
    got = []
    for where in (tree, packed):
        with Store.open(tmp_path / f"{where.name}.duckdb") as store:
            import_mytools_tree(store, where, HOST, device="md2")
            cur = store.cursor()
            devices = cur.execute("SELECT DISTINCT device FROM iostat_samples").fetchall()
            rows = cur.execute("SELECT count(*), sum(r_s), sum(wkb_s) FROM iostat_samples").fetchall()
            (raw,) = read_raw(cur, 1, "iostat")
        assert devices == [("md2",)]
        got.append((rows, raw.name, raw.text))
    assert got[0] == got[1]
    assert got[0][2] == (d / f"sb.io.point-query.{DOP}").read_text()


def test_a_symlink_loop_and_an_out_of_range_time_are_one_line_each(tmp_path: Path) -> None:
    """Issue 25.17 (fuzzed real files): no traceback, the other runs stored."""
    tree = t.write_tree(tmp_path / "tree")
    a = t.folder(tree, t.A)
    (a / f"sb.o.random-points.{DOP}").symlink_to(a / f"sb.o.random-points.{DOP}")  # a loop
    (tree / "again").symlink_to(tree)  # a folder loop
    db = str(tmp_path / "s.duckdb")
    result = CliRunner().invoke(cli, ["--db", db, "import", "mytools", str(tree), "--host", HOST])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert "imported 9 runs" in result.output
    (skipped,) = [line for line in result.output.splitlines() if "random-points" in line]
    assert skipped.startswith("benchdeck: skipped: ")
    assert "symbolic links" in skipped

    far = tmp_path / "far.o"  # a vmstat -t time at the end of the calendar: the run's end is past it
    far.write_text(t.sysbench_output("point-query", 1234.0))
    vm = tmp_path / "far.vm"
    stamps = [" UTC", " UTC"] + [" 9999-12-31 23:59:58"] * 3
    vm.write_text("".join(f"{line}{s}\n" for line, s in zip(t.VMSTAT.splitlines(), stamps, strict=True)))
    result = CliRunner().invoke(
        cli, ["--db", db, "import", "sysbench", str(far), "--host", HOST, "--build", t.A,
              "--workload", "point-query_range=100", "--vmstat", str(vm)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with Store.open_for_reading(tmp_path / "s.duckdb") as store:
        row = (
            store.cursor()
            .execute(
                "SELECT started_at, finished_at, dated_from FROM runs WHERE run_id = ?",
                [int(result.output.split()[-1])],
            )
            .fetchone()
        )
    assert row == (datetime(9999, 12, 31, 23, 59, 58), None, "vmstat")


def test_runs_are_stored_as_they_are_read(tmp_path: Path) -> None:
    """Written a small batch at a time (bounded memory): progress counts stored runs before the end."""
    tree = tmp_path / "tree"
    d = t.folder(tree, t.A)
    for r in range(1, 41):
        text = t.sysbench_output("point-query", 1000.0 + r, seed=r)
        (d / f"sb.o.point-query.range{r}.pk1.dop{t.DOP}").write_text(text)
    seen: list[tuple[int, int]] = []
    with Store.open(tmp_path / "s.duckdb") as store:
        res = import_mytools_tree(store, tree, HOST, progress=lambda p: seen.append((p.done, p.imported)))
    assert len(res.run_ids) == 40
    assert any(0 < imported < 40 for done, imported in seen if done < 40)


def _cut_short(b: bytes) -> bytes:  # a copy that did not finish
    return b[:-300]


def _bad_block(b: bytes) -> bytes:  # the first deflate block's header a reserved type (11)
    at = b.index(b"\0", 10) + 1  # past the gzip header's file name (tarfile writes one)
    return b[:at] + b"\xff" + b[at + 1 :]


def _bad_crc(b: bytes) -> bytes:  # every byte there, the trailer's CRC not theirs (a flipped bit)
    return b[:-8] + bytes(x ^ 0xFF for x in b[-8:-4]) + b[-4:]


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (_cut_short, "Compressed file ended before the end-of-stream marker was reached"),
        (_bad_block, "Error -1 Invalid deflate block found"),
        (_bad_crc, "CRC check failed"),
    ],
)
def test_a_damaged_packed_folder_is_one_line_and_the_rest_imports(
    tmp_path: Path, damage: Callable[[bytes], bytes], why: str
) -> None:
    tree = t.write_tree(tmp_path / "tree")
    c = t.folder(tree, t.C)
    with tarfile.open(tarball := tree / f"{c.name}.tar.gz", "w:gz") as tar:
        tar.add(c, arcname=c.name)
    shutil.rmtree(c)
    tarball.write_bytes(damage(tarball.read_bytes()))
    seen: list[int] = []
    with Store.open(tmp_path / "s.duckdb") as store:
        res = import_mytools_tree(store, tree, HOST, progress=lambda p: seen.append(p.total))
    assert len(res.run_ids) == 6
    assert len(res.failed) == 1
    assert res.failed[0].startswith(f"{tarball}: cannot read the packed folder ({why}")
    assert seen[-1] == 6


def test_mtimes_closer_than_the_runs_date_nothing(tmp_path: Path) -> None:
    """Distinct mtimes a second apart (copied one by one) are not evidence: the runs last 305 s;
    600 s apart they are, in any order (the order the suite ran them is what is in doubt)."""
    tree = t.write_tree(tmp_path / "tree")
    a, b = t.folder(tree, t.A), t.folder(tree, t.B)
    for k, step in enumerate(reversed(t.SUITE)):
        os.utime(a / f"sb.o.{step}.{DOP}", (1.75e9 + k, 1.75e9 + k))
        os.utime(b / f"sb.o.{step}.{DOP}", (1.75e9 + 600 * k, 1.75e9 + 600 * k))
    with Store.open(tmp_path / "s.duckdb") as store:
        res = import_mytools_tree(store, tree, HOST)
        got = dict(
            store.cursor()
            .execute(
                "SELECT b.name, list(DISTINCT r.dated_from) FROM runs r JOIN builds b USING (build_id) "
                "WHERE b.name IN (?, ?) GROUP BY 1",
                [t.A, t.B],
            )
            .fetchall()
        )
    assert got == {t.A: ["undated"], t.B: ["mtime"]}
    assert res.unordered_mtimes == [str(a)]
