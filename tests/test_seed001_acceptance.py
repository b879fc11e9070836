"""Acceptance: benchdeck reproduces the dell32 results of seed 001 ("Trying out Advanced
MySQL") from raw result files in the post author's layout.

Every test runs the real command line in a subprocess, against a store made for the test
module (``--db PATH``). The raw files are written by tests/fixtures/seed001.py.

CLI contract relied on:

    benchdeck --db DB import mytools TREE --host dell32 --device nvme0n1
    benchdeck --db DB import sysbench FILE --host H --build B --workload W
              --vmstat VM --iostat IO --device nvme0n1            -> prints the run id
    benchdeck --db DB compare --host H --base B --with C [--with D] --dop N
              --format json|text
    errors: one line on stderr; exit 2 for usage errors (e.g. unknown host: a name the store
    does not have, as `run` treats one since issue 25), exit 1 otherwise.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures import seed001 as s

pytestmark = pytest.mark.integration  # the real CLI on the post's tree

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "from benchdeck.tui.cli.main import main; main()"]


def run_cli(*args: str | Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    # keep any user config, data or cache of the tool inside the test's folder
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_CACHE_HOME", "cache"),
        ("XDG_STATE_HOME", "state"),
    ):
        env[var] = str(home / sub)
    env.pop("NO_COLOR", None)
    env["TERM"] = "dumb"
    return subprocess.run(
        [*CLI, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=600,
        check=False,
    )


def _explain(r: subprocess.CompletedProcess[str]) -> str:
    return f"exit {r.returncode}\n--- stdout\n{r.stdout[-3000:]}\n--- stderr\n{r.stderr[-3000:]}"


def ws(line: str) -> str:
    """Collapse runs of whitespace (tabs vs spaces do not matter)."""
    return " ".join(line.split())


# --------------------------------------------------------------------------------------------
# One store with the dell32 tree imported, shared by the module
# --------------------------------------------------------------------------------------------


class Dell32:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.db = root / "bench.duckdb"
        self.tree = s.write_dell32_tree(root / "results")
        self.imported = run_cli(
            "--db", self.db, "import", "mytools", self.tree, "--host", s.HOST, "--device", s.DEVICE, home=root
        )
        self._cache: dict[tuple[int, str], subprocess.CompletedProcess[str]] = {}

    def cli(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        return run_cli("--db", self.db, *args, home=self.root)

    def compare(self, dop: int, fmt: str) -> subprocess.CompletedProcess[str]:
        key = (dop, fmt)
        if key not in self._cache:
            self._cache[key] = self.cli(
                "compare",
                "--host",
                s.HOST,
                "--base",
                s.BASE,
                "--with",
                s.WITH[0],
                "--with",
                s.WITH[1],
                "--dop",
                str(dop),
                "--format",
                fmt,
            )
        return self._cache[key]

    def compare_json(self, dop: int) -> dict[str, Any]:
        r = self.compare(dop, "json")
        assert r.returncode == 0, _explain(r)
        data: dict[str, Any] = json.loads(r.stdout)
        return data

    def compare_text(self, dop: int) -> list[str]:
        r = self.compare(dop, "text")
        assert r.returncode == 0, _explain(r)
        return [ws(line) for line in r.stdout.splitlines()]


@pytest.fixture(scope="module")
def dell32(tmp_path_factory: pytest.TempPathFactory) -> Dell32:
    return Dell32(tmp_path_factory.mktemp("dell32"))


def test_import_mytools_tree_exits_0(dell32: Dell32) -> None:
    r = dell32.imported
    assert r.returncode == 0, _explain(r)


# --------------------------------------------------------------------------------------------
# rQPS table (dop24)
# --------------------------------------------------------------------------------------------


def test_compare_json_header(dell32: Dell32) -> None:
    data = dell32.compare_json(24)
    assert data["host"] == s.HOST
    assert data["base"]["build"] == s.BASE
    assert [c["build"] for c in data["columns"]] == s.WITH
    assert {c["config"] for c in [data["base"], *data["columns"]]} == {s.CONFIG}


def test_rqps_reproduces_post_table(dell32: Dell32) -> None:
    rows = dell32.compare_json(24)["rqps"]
    assert [r["workload"] for r in rows] == [name for name, _, _ in s.RQPS_DELL32]
    for row, (name, c1, c2) in zip(rows, s.RQPS_DELL32, strict=True):
        assert row["group"] == s.GROUPS[name], name
        values = row["values"]
        assert len(values) == 2, name
        assert all(isinstance(v, float | int) for v in values), (name, values)
        assert [f"{v:.2f}" for v in values] == [f"{c1:.2f}", f"{c2:.2f}"], name


def test_scan_is_rows_per_second(dell32: Dell32) -> None:
    """scan_range=100 must come from table-size / avg latency (0.91, 0.85), not queries/s."""
    rows = {r["workload"]: r for r in dell32.compare_json(24)["rqps"]}
    assert rows["scan_range=100"]["values"] == pytest.approx([0.91, 0.85], abs=1e-6)


def _post_group_stats() -> dict[tuple[str, int], dict[str, float]]:
    out: dict[tuple[str, int], dict[str, float]] = {}
    for group in s.GROUP_NAMES:
        for col in (0, 1):
            vals = [(c1, c2)[col] for name, c1, c2 in s.RQPS_DELL32 if s.GROUPS[name] == group]
            out[(group, col)] = {
                "min": min(vals),
                "max": max(vals),
                "avg": statistics.fmean(vals),
                "median": statistics.median(vals),
            }
    return out


def _column_index(column: str, columns: list[dict[str, Any]]) -> int:
    builds = [c["build"] for c in columns]
    if column in builds:
        return builds.index(column)
    m = re.fullmatch(r"col-(\d+)", column)
    assert m, f"group column {column!r} names neither a build nor col-N"
    return int(m.group(1)) - 1


def test_group_summary_matches_post(dell32: Dell32) -> None:
    data = dell32.compare_json(24)
    expected = _post_group_stats()
    seen: set[tuple[str, int]] = set()
    for g in data["groups"]:
        key = (g["group"], _column_index(g["column"], data["columns"]))
        assert key in expected, key
        assert key not in seen, f"duplicate group row {key}"
        seen.add(key)
        for stat in ("min", "max", "avg", "median"):
            assert g[stat] == pytest.approx(expected[key][stat], abs=0.006), (key, stat)
    assert seen == set(expected)


def test_text_reproduces_post_layout(dell32: Dell32) -> None:
    lines = dell32.compare_text(24)
    want = [
        f"Relative to: {s.BASE}",
        f"col-1 : {s.WITH[0]}",
        f"col-2 : {s.WITH[1]}",
        "",
        "col-1 col-2",
        *(f"{c1:.2f} {c2:.2f} {name}" for name, c1, c2 in s.RQPS_DELL32),
    ]
    assert want[0] in lines, "\n".join(lines[:20])
    start = lines.index(want[0])
    assert lines[start : start + len(want)] == want


# --------------------------------------------------------------------------------------------
# Per-operation HW metrics (dop40)
# --------------------------------------------------------------------------------------------


def _hw_blocks(data: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for block in data["hw"]:
        out[block["workload"]] = {row["build"]: row for row in block["rows"]}
    return out


def test_hw_dop40_blocks_present_base_first(dell32: Dell32) -> None:
    data = dell32.compare_json(40)
    names = [b["workload"] for b in data["hw"]]
    assert set(names) == set(s.PER_OP_DOP40), names
    for block in data["hw"]:
        assert [r["build"] for r in block["rows"]] == s.BUILDS


@pytest.mark.parametrize("wl", list(s.PER_OP_DOP40))
def test_hw_absolute_rows_match_post(dell32: Dell32, wl: str) -> None:
    rows = _hw_blocks(dell32.compare_json(40))[wl]
    block = s.PER_OP_DOP40[wl]
    for build in s.BUILDS:
        for col in s.PER_OP_COLUMNS:
            got = rows[build][col]
            assert isinstance(got, float | int), (wl, build, col, got)
            dec = s.PER_OP_DECIMALS[col]
            assert f"{got:.{dec}f}" == f"{block.abs_value(build, col):.{dec}f}", (wl, build, col, got)


@pytest.mark.parametrize("wl", list(s.PER_OP_DOP40))
def test_hw_relative_rows_match_post(dell32: Dell32, wl: str) -> None:
    rows = _hw_blocks(dell32.compare_json(40))[wl]
    block = s.PER_OP_DOP40[wl]
    for col in s.PER_OP_COLUMNS:
        assert rows[s.BASE]["rel"][col] == pytest.approx(1.0), (wl, col)
    for build in s.WITH:
        rel = rows[build]["rel"]
        got = [f"{rel[c]:.2f}" for c in s.PER_OP_COLUMNS]
        want = [f"{block.rel_value(build, c):.2f}" for c in s.PER_OP_COLUMNS]
        assert got == want, (wl, build, rel)
        # 0/0 is shown as 1
        assert rel["r/o"] == 1
        assert rel["rKB/o"] == 1


def test_dop40_rqps_is_the_o_s_ratio(dell32: Dell32) -> None:
    rows = {r["workload"]: r["values"] for r in dell32.compare_json(40)["rqps"]}
    assert set(rows) == set(s.PER_OP_DOP40)
    for wl, block in s.PER_OP_DOP40.items():
        assert [f"{v:.2f}" for v in rows[wl]] == [block.relative[b][5] for b in s.WITH]


def test_text_per_op_blocks(dell32: Dell32) -> None:
    lines = dell32.compare_text(40)
    rel_at = [i for i, ln in enumerate(lines) if ln == "--- relative to first result"]
    assert len(rel_at) == 2, "\n".join(lines)
    following = [lines[i + 1 : i + 3] for i in rel_at]
    for wl, block in s.PER_OP_DOP40.items():
        want = [ws(" ".join([*block.relative[b], b])) for b in s.WITH]
        assert want in following, (wl, following)
        # and the absolute rows, numerically (0 may print as 0 or 0.000)
        for build in s.BUILDS:
            assert any(_abs_row_matches(ln, block, build) for ln in lines[: max(rel_at)]), (wl, build)
    assert ws("1.09 1.03 1 1 1.37 0.90 my8040_rel_o2nofp") in lines
    assert ws("0.85 0.66 1 1 0.89 1.18 my8040adv_rel_o2nofp") in lines


def _abs_row_matches(line: str, block: s.PerOpBlock, build: str) -> bool:
    tokens = line.split()
    if len(tokens) != 7 or tokens[-1] != build:
        return False
    try:
        values = [float(t) for t in tokens[:6]]
    except ValueError:
        return False
    return all(
        s.rounds_to(v, block.absolute[build][i], s.PER_OP_DECIMALS[c])
        for i, (c, v) in enumerate(zip(s.PER_OP_COLUMNS, values, strict=True))
    )


# --------------------------------------------------------------------------------------------
# Single-file import
# --------------------------------------------------------------------------------------------


def test_single_file_import_and_compare(tmp_path: Path) -> None:
    db = tmp_path / "single.duckdb"
    runs = [s.write_single_run_files(tmp_path / f"v{v}", v) for v in (0, 1)]
    builds = [s.BASE, s.WITH[0]]
    ids = []
    for files, build in zip(runs, builds, strict=True):
        r = run_cli(
            "--db",
            db,
            "import",
            "sysbench",
            files["sysbench"],
            "--host",
            "h1",
            "--build",
            build,
            "--workload",
            files["workload"],
            "--vmstat",
            files["vmstat"],
            "--iostat",
            files["iostat"],
            "--device",
            s.DEVICE,
            home=tmp_path,
        )
        assert r.returncode == 0, _explain(r)
        assert re.fullmatch(r"\d+", r.stdout.strip()), _explain(r)
        ids.append(int(r.stdout.strip()))
    assert ids[0] != ids[1]

    r = run_cli(
        "--db",
        db,
        "compare",
        "--host",
        "h1",
        "--base",
        builds[0],
        "--with",
        builds[1],
        "--dop",
        "24",
        "--format",
        "json",
        home=tmp_path,
    )
    assert r.returncode == 0, _explain(r)
    data = json.loads(r.stdout)
    assert [c["build"] for c in data["columns"]] == [builds[1]]
    (row,) = data["rqps"]
    assert row["workload"] == "point-query_range=100"
    assert row["group"] == "point-1"
    assert row["values"] == [pytest.approx(runs[1]["qps"] / runs[0]["qps"], rel=1e-9)]

    (block,) = data["hw"]
    assert block["workload"] == "point-query_range=100"
    got = {r["build"]: r for r in block["rows"]}
    assert list(got) == builds
    for files, build in zip(runs, builds, strict=True):
        for col in s.PER_OP_COLUMNS:
            assert got[build][col] == pytest.approx(files["per_op"][col], rel=1e-6), (build, col)
    for col in s.PER_OP_COLUMNS:
        want = runs[1]["per_op"][col] / runs[0]["per_op"][col]
        assert got[builds[1]]["rel"][col] == pytest.approx(want, rel=1e-6), col
        assert got[builds[0]]["rel"][col] == pytest.approx(1.0), col


# --------------------------------------------------------------------------------------------
# Error contract
# --------------------------------------------------------------------------------------------


def test_unknown_host_is_one_line_exit_2(dell32: Dell32) -> None:
    r = dell32.cli(
        "compare", "--host", "nosuchhost", "--base", s.BASE, "--with", s.WITH[0], "--format", "json"
    )
    assert r.returncode == 2, _explain(r)  # a usage error, as README says (was 1: issue 25 item 14)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, _explain(r)
    assert "nosuchhost" in lines[0]
    assert "(known: dell32)" in lines[0]
    assert "Traceback" not in r.stderr


def test_missing_base_is_usage_error_exit_2(dell32: Dell32) -> None:
    r = dell32.cli("compare", "--host", s.HOST, "--with", s.WITH[0])
    assert r.returncode == 2, _explain(r)
    assert r.stderr.strip(), _explain(r)
    assert "Traceback" not in r.stderr
