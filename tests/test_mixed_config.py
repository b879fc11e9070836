"""Columns are (build, config) pairs: the author's mixed-config rQPS table rebuilt through the
real CLI from a hand-written tree in his layout (tests/data/mixed_config), the machine formats
(tidy CSV read by DuckDB and Python's csv, JSON validated against docs/compare.schema.json,
Markdown escaping) and the column-picker store API."""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import duckdb
import jsonschema
import pytest

from benchdeck.store.analysis.column_choices import builds_of_config, column_choices, series_columns
from benchdeck.store.analysis.columns import Column
from benchdeck.store.storage.db import Store
from tests.fixtures.cli_helpers import ROOT, bd

TREE = ROOT / "tests" / "data" / "mixed_config"
SCHEMA = json.loads((ROOT / "docs" / "compare.schema.json").read_text())
HOST = "hx"
A, B = "x10a_c32r128", "x10b_c32r128"
AUTHOR_COLUMNS = ["--with", f"pg177_o2nofp:{A}", "--with", f"pg177_o2nofp:{B}", "--with", "pg181_o2nofp"]


class Tree:
    def __init__(self, root: Path) -> None:
        self.env = {**os.environ, "BENCHDECK_DB": str(root / "s.duckdb"), "HOME": str(root)}
        self.imported = bd(self.env, "import", "mytools", str(TREE), "--host", HOST)

    def compare(self, *args: str) -> Any:
        return bd(self.env, "compare", "--host", HOST, "--base", "pg1611_o2nofp", *args)

    def ok(self, *args: str) -> str:
        r = self.compare(*args)
        assert r.returncode == 0, r.stderr
        return str(r.stdout)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Tree:
    t = Tree(tmp_path_factory.mktemp("mixed"))
    assert t.imported.returncode == 0, t.imported.stderr
    assert "imported 12 runs" in t.imported.stdout
    return t


def author_table() -> tuple[list[str], list[list[str]]]:
    """His legend as ``<build>.<config>`` names, and his rQPS rows (values then workload)."""
    lines = (TREE / "qps.rel.pg.mixed.tsv").read_text().splitlines()
    legend = [
        re.sub(r"^x\.(.*)\.pk1$", r"\1", ln.split(": ", 1)[1]) for ln in lines if " : " in ln or ": " in ln
    ]
    header = lines.index("col-1\tcol-2\tcol-3")
    return legend, [ln.split("\t") for ln in lines[header + 1 :] if ln.strip()]


def test_the_authors_mixed_config_table_is_reproduced(tree: Tree) -> None:
    legend, rows = author_table()
    out = tree.ok(*AUTHOR_COLUMNS, "--format", "text").splitlines()
    assert out[0] == f"Relative to: {legend[0]}"
    assert out[1:4] == [f"col-{i} : {name}" for i, name in enumerate(legend[1:], 1)]
    header = out.index("col-1\tcol-2\tcol-3")
    got = [ln.split("\t") for ln in out[header + 1 : header + 1 + len(rows)]]
    assert got == rows, "every cell as he printed it"


def test_a_build_without_config_needs_one_when_it_has_several(tree: Tree) -> None:
    r = tree.compare("--with", "pg177_o2nofp")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        f"benchdeck: build 'pg177_o2nofp' has runs with configs {A}, {B}: pick one with --config "
        "or pg177_o2nofp:CONFIG"
    ]


def test_a_pair_without_runs_names_the_pairs_that_have_some(tree: Tree) -> None:
    r = tree.compare("--with", f"pg181_o2nofp:{A}")
    assert r.returncode == 1
    (line,) = r.stderr.strip().splitlines()
    assert f"no finished runs on host 'hx' with config '{A}'" in line
    assert f"pg181_o2nofp:{B} (3 runs)" in line


def test_config_is_the_default_for_builds_given_without_one(tree: Tree) -> None:
    out = tree.ok("--config", A, "--with", "pg177_o2nofp", "--with", f"pg181_o2nofp:{B}", "--format", "json")
    data = json.loads(out)
    assert [(c["build"], c["config"]) for c in [data["base"], *data["columns"]]] == [
        ("pg1611_o2nofp", A),
        ("pg177_o2nofp", A),
        ("pg181_o2nofp", B),
    ]


def test_bad_column_and_misplaced_table_are_usage_errors(tree: Tree) -> None:
    assert tree.compare("--with", ":x10a").returncode == 2
    r = tree.compare("--with", "pg181_o2nofp", "--table", "groups", "--format", "text")
    assert r.returncode == 2
    assert "--table groups goes with --format csv (--table counters with any format)" in r.stderr


def test_json_validates_against_the_schema_and_carries_pairs(tree: Tree) -> None:
    data = json.loads(tree.ok(*AUTHOR_COLUMNS, "--format", "json"))
    jsonschema.validate(data, SCHEMA)
    assert data["version"] == 2
    assert [c["label"] for c in data["columns"]] == [
        f"pg177_o2nofp.{A}",
        f"pg177_o2nofp.{B}",
        f"pg181_o2nofp.{B}",
    ]
    pq = next(r for r in data["rqps"] if r["workload"] == "point-query_range=100")
    assert pq["base_qps"] == pytest.approx(100000.0)
    assert [c["qps"] for c in pq["cells"]] == pytest.approx([95060.0, 101000.0, 243000.0])
    assert [(c["build"], c["config"]) for c in pq["cells"]] == [
        ("pg177_o2nofp", A),
        ("pg177_o2nofp", B),
        ("pg181_o2nofp", B),
    ]
    assert all(len(c["run_ids"]) == 1 for c in pq["cells"])
    assert len(pq["base_run_ids"]) == 1
    # one run each side and no per-second samples: no interval, so within_noise is null (a
    # script must not read false as "significant")
    assert {(c["ci_low"], c["ci_method"], c["within_noise"]) for c in pq["cells"]} == {(None, None, None)}
    assert [g["column"] for g in data["groups"]][:1] == ["col-1"]


def test_json_has_no_strings_in_numeric_fields() -> None:
    """inf (x/0) and NaN become null, and the result still validates."""
    from benchdeck.store.analysis.compare import Cell, Comparison, GroupStat, HwBlock, HwRow, RqpsRow
    from benchdeck.store.reports.export import to_json

    inf, nan = float("inf"), float("nan")
    vals: dict[str, float | None] = {
        "cpu/o": 1.0,
        "cs/o": 0.0,
        "r/o": 0.0,
        "rKB/o": 0.0,
        "wKB/o": 2.0,
        "o/s": 0.0,
    }
    cmp = Comparison(
        host="h",
        base="a",
        columns=("b",),
        config=None,
        dops=(1,),
        rqps=(RqpsRow("w", "writes", 1, (inf,), (False,), (1,), (None,)),),
        groups=(GroupStat("writes", "b", 1, 1, inf, inf, inf, inf, nan),),
        hw=(
            HwBlock(
                "w", 1, (HwRow("a", vals, dict.fromkeys(vals, 1.0)), HwRow("b", vals, {**vals, "o/s": inf}))
            ),
        ),
        cells={
            ("w", 1, "a"): Cell(0.0, 1, 0.0, 0.0, {}, (1,), (0.0,)),
            ("w", 1, "b"): Cell(5.0, 1, 5.0, 5.0, {}, (2,), (5.0,)),
        },
        base_column=Column("a", ""),
        column_specs=(Column("b", ""),),
    )
    data = json.loads(json.dumps(to_json(cmp), allow_nan=False))
    jsonschema.validate(data, SCHEMA)
    assert data["rqps"][0]["values"] == [None]
    assert data["groups"][0]["gmean"] is None
    assert data["hw"][0]["rows"][1]["rel"]["o/s"] is None


def test_csv_is_one_tidy_table_for_duckdb_and_python(tree: Tree, tmp_path: Path) -> None:
    out = tree.ok(*AUTHOR_COLUMNS, "--format", "csv")
    path = tmp_path / "rqps.csv"
    path.write_text(out)
    con = duckdb.connect()
    rel = con.sql(f"SELECT * FROM read_csv('{path}')")
    assert rel.columns == [
        "workload", "group", "dop", "build", "config", "qps", "base_qps", "rqps",
        "ci_low", "ci_high", "within_noise", "runs",
    ]  # fmt: skip
    rows = rel.fetchall()
    assert len(rows) == 9, "3 workloads x 3 columns"
    got = con.sql(
        f"SELECT round(rqps, 2) FROM read_csv('{path}') "
        "WHERE workload = 'point-query_range=100' ORDER BY rqps"
    ).fetchall()
    assert [g[0] for g in got] == [0.95, 1.01, 2.43]
    dicts = list(csv.DictReader(io.StringIO(out)))
    assert {(d["build"], d["config"]) for d in dicts} == {
        ("pg177_o2nofp", A),
        ("pg177_o2nofp", B),
        ("pg181_o2nofp", B),
    }
    assert {d["within_noise"] for d in dicts} == {""}, "no interval: empty, not false"


@pytest.mark.parametrize(("table", "rows", "first"), [("groups", 6, "column"), ("perop", None, "workload")])
def test_csv_other_tables(tree: Tree, table: str, rows: int | None, first: str) -> None:
    out = tree.ok(*AUTHOR_COLUMNS, "--format", "csv", "--table", table)
    parsed = list(csv.reader(io.StringIO(out)))
    assert parsed[0][0] == first
    if rows is not None:
        assert len(parsed) - 1 == rows
    assert all(len(r) == len(parsed[0]) for r in parsed)


def test_markdown_escapes_pipes_in_names(tree: Tree, tmp_path: Path) -> None:
    groups = tmp_path / "groups.toml"
    groups.write_text('[groups]\n"point-query_range=100" = "pq|hot"\n')
    r = bd(tree.env, "--groups", str(groups), "compare", "--host", HOST, "--base", "pg1611_o2nofp",
           *AUTHOR_COLUMNS, "--format", "md")  # fmt: skip
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("| 0.95"))
    assert line.endswith("| point-query_range=100 | pq\\|hot |")
    assert line.count(" | ") == 4, "5 cells: the escaped pipe does not split one"


def test_column_choices_for_a_picker(tree: Tree) -> None:
    with Store.open_for_reading(Path(tree.env["BENCHDECK_DB"])) as store:
        choices = column_choices(store.cursor(), HOST, dop=40)
        assert column_choices(store.cursor(), HOST, dop=8) == []
    assert [(c.build, c.config, c.runs) for c in choices] == [
        ("pg1611_o2nofp", A, 3),
        ("pg177_o2nofp", A, 3),
        ("pg177_o2nofp", B, 3),
        ("pg181_o2nofp", B, 3),
    ]
    assert builds_of_config(choices, B) == [Column("pg177_o2nofp", B), Column("pg181_o2nofp", B)]
    assert series_columns(choices, choices[0]) == [
        Column("pg1611_o2nofp", A),
        Column("pg177_o2nofp", A),
        Column("pg181_o2nofp", B),
    ]
    assert series_columns(choices, choices[0], prefer_config=B)[1] == Column("pg177_o2nofp", B)


def test_column_parse() -> None:
    assert Column.parse("my8028_rel") == Column("my8028_rel")
    assert Column.parse("my8028_rel:z11a") == Column("my8028_rel", "z11a")
    assert str(Column("b", "c")) == "b:c"
    with pytest.raises(ValueError, match=r"BUILD\[:CONFIG\]\[@DOP\]"):
        Column.parse(":z11a")
    assert Column.parse("my8040_rel:z11a@48") == Column("my8040_rel", "z11a", 48)
    assert str(Column.parse("my8040_rel@1")) == "my8040_rel@1"
