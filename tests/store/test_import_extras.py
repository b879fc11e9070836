"""A run's vmstat/iostat files in an imported tree (issue 37.6 and 37.7): one that cannot be
read is a "skipped:" line, counted; per-op device metrics added to runs already stored.
Hand-written trees (tests/store/mytools_tree.py), no servers."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from benchdeck.store.storage.db import Store
from benchdeck.tui.cli.main import cli
from tests.store import mytools_tree as t

HOST = "dell16"
DOP = f"range100.pk1.dop{t.DOP}"


def _import(db: Path, tree: Path, *more: str) -> list[str]:
    result = CliRunner().invoke(cli, ["--db", str(db), "import", "mytools", str(tree), "--host", HOST, *more])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.output.splitlines()


def test_an_unreadable_vmstat_or_iostat_file_is_one_skipped_line(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    a, b = t.folder(tree, t.A), t.folder(tree, t.B)
    vm = a / f"sb.vm.point-query.{DOP}"
    vm.unlink()
    vm.symlink_to(vm)  # a loop
    (b / f"sb.io.scan.{DOP}").mkdir()  # not a file
    out = _import(tmp_path / "s.duckdb", tree, "--device", "md2")
    skipped = [line for line in out if line.startswith("benchdeck: skipped: ")]
    assert len(skipped) == 2, out
    assert f"{vm}: cannot read (Too many levels of symbolic links)" in skipped[0]
    assert f"sb.io.scan.{DOP}: is a directory, not a file" in skipped[1]
    assert "imported 9 runs (0 already in the store, 2 files not imported" in out[-1]
    with Store.open_for_reading(tmp_path / "s.duckdb") as store:
        row = store.cursor().execute(
            "SELECT s.vm_samples, s.per_op_source, r.device FROM runs r JOIN run_summary s USING (run_id) "
            "JOIN builds b USING (build_id) JOIN workloads w USING (workload_id) "
            "WHERE b.name = ? AND w.name = 'point-query_range=100'",
            [t.A],
        )
        assert row.fetchone() == (0, "imported", None)  # stored, with the sb.met's figures
    packed = tmp_path / "packed"  # the loop packed: a link member, not followed
    packed.mkdir()
    with tarfile.open(packed / f"{a.name}.tar.gz", "w:gz") as tar:
        tar.add(a, arcname=a.name)
    out = _import(tmp_path / "packed.duckdb", packed)
    (skipped,) = [line for line in out if line.startswith("benchdeck: skipped: ")]
    assert skipped.endswith(
        f"{packed / a.name}.tar.gz/{a.name}/{vm.name}: a symbolic link to {vm} in the tarball, not followed: "
        f"run sb.o.point-query.{DOP} stored without it"
    )
    assert "imported 3 runs (0 already in the store, 1 files not imported" in out[-1]


IOSTAT = (  # iostat -x as the author's hosts print it: the run's md2 beside other devices
    "Linux 5.15 (h) \t03/18/2025 \t_x86_64_\t(48 CPU)\n\n"
    + "Device            r/s     rkB/s   w/s     wkB/s  %util\n"
    "loop0            0.00      0.00    0.00      0.00   0.00\n"
    "md2             {r:.2f}     40.00    5.00     20.00   1.00\n"
    "nvme0n1          9.00     36.00    5.00     20.00   1.00\n\n"
)


def test_a_second_import_with_device_adds_the_device_metrics(tmp_path: Path) -> None:
    """The hint names the devices the files hold; following it fills r/o, rKB/o and wKB/o of the
    runs stored without them, and only those (issue 37.7)."""
    tree = t.write_tree(tmp_path / "tree")
    a = t.folder(tree, t.A)
    for step in t.SUITE:  # vmstat and iostat: per-op metrics computed (the sb.met's not read)
        (a / f"sb.io.{step}.{DOP}").write_text("".join(IOSTAT.format(r=r) for r in (100.0, 10.0, 30.0)))
        (a / f"sb.vm.{step}.{DOP}").write_text(t.VMSTAT)
    packed = tmp_path / "packed"  # the same folder packed: its iostat files' heads read
    packed.mkdir()
    with tarfile.open(packed / f"{a.name}.tar.gz", "w:gz") as tar:
        tar.add(a, arcname=a.name)
    for where in (packed, tree):
        out = _import(tmp_path / f"{where.name}.duckdb", where)
        (hint,) = [line for line in out if "--device" in line]
        assert "(devices in them: loop0, md2, nvme0n1)" in hint
    db = tmp_path / "tree.duckdb"
    sql = (
        "SELECT w.name, r.device, s.r_o, s.rkb_o, s.wkb_o, s.io_samples, s.cpu_o, "
        "(SELECT count(*) FROM iostat_samples i WHERE i.run_id = r.run_id), "
        "(SELECT list(f.kind ORDER BY f.kind) FROM raw_files f WHERE f.run_id = r.run_id) "
        "FROM runs r JOIN run_summary s USING (run_id) JOIN builds b USING (build_id) "
        "JOIN workloads w USING (workload_id) WHERE b.name = ? ORDER BY w.name"
    )
    others = "SELECT s.* FROM run_summary s JOIN runs r USING (run_id) WHERE r.build_id <> 1 ORDER BY run_id"
    with Store.open_for_reading(db) as store:
        before = store.cursor().execute(sql, [t.A]).fetchall()
        kept = store.cursor().execute(others).fetchall()
    assert [r[1:6] for r in before] == [(None, None, None, None, 0)] * 3
    out = _import(db, tree, "--device", "md2")
    assert "imported 0 runs (9 already in the store (3 given md2's r/o, rKB/o, wKB/o), 0 files" in out[-1]
    with Store.open_for_reading(db) as store:
        after = store.cursor().execute(sql, [t.A]).fetchall()
        assert store.cursor().execute(others).fetchall() == kept
        assert store.cursor().execute("SELECT build_id FROM builds WHERE name = ?", [t.A]).fetchone() == (1,)
    qps = {  # o/s: a scan's is rows/s (2M rows / 0.5 s)
        "point-query_range=100": 200000.0,
        "scan_range=100": 4e6,
        "update-index_range=100": 80000.0,
    }
    for (wl, device, r_o, rkb_o, wkb_o, n, cpu_o, rows, kinds), old in zip(after, before, strict=True):
        assert (device, n, rows) == ("md2", 3, 3), wl  # md2's rows only: r/s 100, 10, 30
        assert (r_o, rkb_o, wkb_o) == pytest.approx((140 / 3 / qps[wl], 40.0 / qps[wl], 20.0 / qps[wl])), wl
        assert cpu_o == old[6] is not None  # cpu/o as it was
        assert "iostat" in kinds
    again = _import(db, tree, "--device", "md2")  # nothing more to add
    assert "imported 0 runs (9 already in the store, 0 files" in again[-1]


def test_a_runs_output_that_is_a_link_in_a_tarball_is_one_skipped_line(tmp_path: Path) -> None:
    """A packed run whose sb.o is a link: not followed, and said (it was left out silently)."""
    tree = t.write_tree(tmp_path / "tree")
    a = t.folder(tree, t.A)
    out_file = a / f"sb.o.point-query.{DOP}"
    (tmp_path / "elsewhere").write_bytes(out_file.read_bytes())
    out_file.unlink()
    out_file.symlink_to(tmp_path / "elsewhere")
    packed = tmp_path / "packed"
    packed.mkdir()
    with tarfile.open(packed / f"{a.name}.tar.gz", "w:gz") as tar:
        tar.add(a, arcname=a.name)
    out = _import(tmp_path / "packed.duckdb", packed)
    (skipped,) = [line for line in out if line.startswith("benchdeck: skipped: ")]
    assert skipped == (
        f"benchdeck: skipped: {packed / a.name}.tar.gz/{a.name}/{out_file.name}: "
        f"a symbolic link to {tmp_path / 'elsewhere'} in the tarball, not followed"
    )
    assert "imported 2 runs (0 already in the store, 1 files not imported" in out[-1]
