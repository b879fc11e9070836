"""``benchdeck scaling`` and compare's dop columns (issue 28), through the real CLI on a
hand-written tree in the author's nov25 layout (tests/data/two_dops: dop1/ and dop40/ side by
side, a config sized per dop), against the hand computation in its README."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import duckdb
import pytest

from tests.fixtures.cli_helpers import ROOT, bd

TREE = ROOT / "tests" / "data" / "two_dops"
A, B = "my8043_rel_o2nofp", "my8406_rel_o2nofp"
# (build, workload, dop): (config, qps, scale-up, efficiency), from tests/data/two_dops/README.md
HAND = {
    (A, "point-query_range=100", 1): ("z12a_c8r32", 16000.0, 1.0, 1.0),
    (A, "point-query_range=100", 40): ("z12a_c32r128", 480000.0, 30.0, 0.75),
    (B, "point-query_range=100", 1): ("z12a_c8r32", 15000.0, 1.0, 1.0),
    (B, "point-query_range=100", 40): ("z12a_c32r128", 510000.0, 34.0, 0.85),
    (A, "update-one_range=100", 1): ("z12a_c8r32", 10000.0, 1.0, 1.0),
    (A, "update-one_range=100", 40): ("z12a_c32r128", 28000.0, 2.8, 0.07),
    (B, "update-one_range=100", 1): ("z12a_c8r32", 10500.0, 1.0, 1.0),
    (B, "update-one_range=100", 40): ("z12a_c32r128", 21000.0, 2.0, 0.05),
}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("two_dops")
    e = {**os.environ, "BENCHDECK_DB": str(root / "s.duckdb"), "HOME": str(root)}
    r = bd(e, "import", "mytools", str(TREE), "--host", "hetz")
    assert r.returncode == 0, r.stderr
    return e


def _scaling(env: dict[str, str], fmt: str, *more: str) -> str:
    r = bd(env, "scaling", "--host", "hetz", "--build", A, "--build", B, "--format", fmt, *more)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_csv_matches_the_hand_computation(env: dict[str, str], tmp_path: Path) -> None:
    text = _scaling(env, "csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0])[:9] == [
        "workload",
        "group",
        "build",
        "config",
        "dop",
        "qps",
        "scaleup",
        "efficiency",
        "runs",
    ]
    got = {
        (r["build"], r["workload"], int(r["dop"])): (
            r["config"], float(r["qps"]), round(float(r["scaleup"]), 2), round(float(r["efficiency"]), 2)
        )
        for r in rows
    }  # fmt: skip
    assert got == HAND
    assert {r["runs"] for r in rows} == {"1"}
    by = {(r["build"], r["workload"], r["dop"]): r for r in rows}
    assert (
        by[(A, "update-one_range=100", "40")]["cpu_o"],
        by[(A, "update-one_range=100", "40")]["cs_o"],
    ) == (
        "0.00021",
        "1.9",
    ), "cpu/o and cs/o per dop, from the sb.met tables"
    (tmp_path / "s.csv").write_text(text)
    tidy = duckdb.sql(f"SELECT dop, count(*) FROM read_csv('{tmp_path / 's.csv'}') GROUP BY ALL ORDER BY ALL")
    assert tidy.fetchall() == [(1, 4), (40, 4)], "DuckDB's read_csv types it as is"


def test_text_json_md_and_the_merged_configs_note(env: dict[str, str]) -> None:
    text = _scaling(env, "text")
    assert f"{A}: one config per dop, taken as one series" in text
    line = next(
        ln
        for ln in text.splitlines()
        if ln.startswith("update-one_range=100") and B in ln and "z12a_c32r128" in ln
    )
    assert line.split()[4:8] == ["40", "21000.00", "2.00", "0.05"]
    doc = json.loads(_scaling(env, "json"))
    assert doc["dops"] == [1, 40]
    assert doc["merged_configs"] == [A, B]
    assert len(doc["points"]) == 8
    md = _scaling(env, "md")
    assert f"| point-query_range=100 | point-1 | {B} | z12a_c32r128 | 40 | 510000.00 | 34.00 | 0.85 |" in md
    one = _scaling(env, "csv", "--config", "z12a_c8r32")
    assert {r["dop"] for r in csv.DictReader(io.StringIO(one))} == {"1"}, "--config keeps its runs only"


def test_a_build_without_runs_is_one_line(env: dict[str, str]) -> None:
    r = bd(env, "scaling", "--host", "hetz", "--build", "my8032_rel_o2nofp", "--format", "text")
    assert r.returncode == 1
    assert r.stderr.strip() == (
        "benchdeck: unknown build 'my8032_rel_o2nofp' with finished runs on host hetz "
        "(known: my8043_rel_o2nofp, my8044_rel_o2nofp, my8406_rel_o2nofp); did you mean 'my8043_rel_o2nofp'?"
    ), "a build the store does not know: the host's builds and the closest (a typo)"


def test_compare_puts_one_build_at_two_dops_side_by_side(env: dict[str, str], tmp_path: Path) -> None:
    """The posts' "48u vs 1u" tables: --base B:CONFIG@1 --with B:CONFIG@40."""
    r = bd(env, "compare", "--host", "hetz", "--base", f"{A}:z12a_c8r32@1", "--with", f"{A}:z12a_c32r128@40",
           "--with", f"{B}:z12a_c32r128@40", "--format", "csv")  # fmt: skip
    assert r.returncode == 0, r.stderr
    rows = {(x["workload"], x["build"]): x for x in csv.DictReader(io.StringIO(r.stdout))}
    assert round(float(rows[("point-query_range=100", A)]["rqps"]), 2) == 30.0
    assert round(float(rows[("update-one_range=100", B)]["rqps"]), 2) == 2.1  # 21,000 / 10,000
    at_40 = f"{A}:z12a_c32r128@40"
    text = bd(env, "compare", "--host", "hetz", "--base", f"{A}:z12a_c8r32@1", "--with", at_40,
              "--format", "text").stdout  # fmt: skip
    assert f"Relative to: {A}.z12a_c8r32@1" in text
    assert f"col-1 : {A}.z12a_c32r128@40" in text
    bad = bd(env, "compare", "--host", "hetz", "--base", f"{A}@x", "--with", B, "--format", "text")
    assert bad.returncode == 2
    assert "the dop after @ must be a positive integer" in bad.stderr
    none = bd(env, "compare", "--host", "hetz", "--base", f"{A}:z12a_c8r32@1", "--with", f"{A}:z12a_c8r32@40",
              "--format", "text")  # fmt: skip
    assert none.returncode == 1
    assert "has no finished runs on host 'hetz' with config 'z12a_c8r32' and dop 40" in none.stderr


def test_changes_keeps_each_dop_apart_and_says_so(env: dict[str, str]) -> None:
    r = bd(env, "changes", "--host", "hetz", "--format", "text")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "dops 1, 40: each dop is a series of its own (never compared across dops)" in lines[1:3]
    titles = [ln for ln in lines if ln.startswith("config ")]
    assert titles == [
        "config z12a_c8r32, dop 1, mysql rel_o2nofp: 8.0.43 8.0.44 8.4.6 "
        "(3 versions; 2 workload series, 1 run a version)",
        "config z12a_c32r128, dop 40, mysql rel_o2nofp: 8.0.43 8.0.44 8.4.6 "
        "(3 versions; 2 workload series, 1 run a version)",
    ]
