"""``benchdeck import``: progress (bar on a terminal, plain lines otherwise), scans, sb.met."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.fixtures.cli_helpers import CLI, ROOT
from tests.store import mytools_tree as t


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, BENCHDECK_DB=str(tmp_path / "bd.duckdb"), PYTHONPATH=str(ROOT), TERM="xterm")
    env.pop("NO_COLOR", None)
    return env


def bd(tmp_path: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *map(str, args)], env=_env(tmp_path), capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_mytools_import_prints_plain_progress_lines_when_not_a_terminal(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    r = bd(tmp_path, "import", "mytools", tree, "--host", "h")
    assert r.returncode == 0, r.stderr
    assert re.search(r"^import: 9/9 files, 9 runs stored, [\d,]+ lines, [\d.]+ s$", r.stderr, re.M), r.stderr
    explain = 9 * (len(t.explain_block("scan")) + 1)
    assert r.stdout == (
        "imported 9 runs (0 already in the store, 0 files not imported, 8 with per-op metrics from "
        f"sb.met, {explain} EXPLAIN lines kept in raw files)\n"
    )


def test_mytools_import_shows_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    pid, fd = pty.fork()
    if pid == 0:  # the child: the CLI with stdin, stdout and stderr on the terminal
        os.chdir(ROOT)
        os.execve(sys.executable, [*CLI, "import", "mytools", str(tree), "--host", "h"], _env(tmp_path))
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    text = out.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "importing" in text
    assert "9/9" in text
    assert "import: " not in text, "no plain lines on a terminal"
    assert "imported 9 runs" in text


def test_import_sysbench_scan_needs_a_table_size_and_takes_sb_met(tmp_path: Path) -> None:
    sb = tmp_path / "sb.o.scan.range100.pk1.dop40"
    sb.write_text(t.sysbench_output("scan", 500.0, table_size=False))
    met = tmp_path / "sb.met.scan.range100.pk1.dop40"
    met.write_text(t.MET["scan"][t.A][1].text())
    args = (
        "import",
        "sysbench",
        sb,
        "--host",
        "h",
        "--build",
        t.A,
        "--workload",
        "scan_range=100",
        "--met",
        met,
    )
    r = bd(tmp_path, *args)
    assert r.returncode == 1
    assert r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith(f"benchdeck: {sb}: scan step scan_range=100: its QPS is rows/s")
    assert line.endswith("give --table-size N (rows per table)")

    r = bd(tmp_path, *args, "--table-size", str(t.TABLE_SIZE))
    assert r.returncode == 0, r.stderr
    run_id = int(r.stdout)
    con = duckdb.connect(str(tmp_path / "bd.duckdb"), read_only=True)
    row = con.execute(
        "SELECT qps, per_op_source, per_op_ops, cpu_o FROM run_summary WHERE run_id = ?", [run_id]
    ).fetchone()
    con.close()
    assert row == (pytest.approx(t.TABLE_SIZE / 0.5), "imported", 4000.0, 0.0195)


def test_bad_table_size_is_a_usage_error(tmp_path: Path) -> None:
    r = bd(tmp_path, "import", "mytools", tmp_path, "--host", "h", "--table-size", "0")
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1


def test_import_sysbench_refuses_an_unknown_workload_name_unless_told(tmp_path: Path) -> None:
    """Issue 25 item 4: a typo was stored as a new workload, compared with nothing."""
    sb = tmp_path / "sb.o.point-query.range100.pk1.dop40"
    sb.write_text(t.sysbench_output("point-query", 500.0))
    args = ("import", "sysbench", sb, "--host", "h", "--build", t.A, "--workload")
    for typo, hint in (
        ("point-qury_range=100", "did you mean 'point-query_range=100'?"),
        ("point-query", "did you mean 'point-query_range=100'?"),
    ):
        r = bd(tmp_path, *args, typo)
        assert r.returncode == 2, r.stderr
        (line,) = r.stderr.splitlines()
        assert hint in line
        assert "--new-workload" in line
    assert not (tmp_path / "bd.duckdb").exists(), "nothing stored"
    assert bd(tmp_path, *args, "point-qury_range=100", "--new-workload").returncode == 0
    r = bd(tmp_path, *args, "point-query_range=100")
    assert r.returncode == 0, r.stderr
