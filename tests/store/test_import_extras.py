"""A run's vmstat/iostat files in an imported tree (issue 37.6 and 37.7): one that cannot be
read is a "skipped:" line, counted; per-op device metrics added to runs already stored.
Hand-written trees (tests/store/mytools_tree.py), no servers."""

from __future__ import annotations

from pathlib import Path

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
