"""``benchdeck profile`` and ``benchdeck import profile`` through the real CLI (a subprocess) on
a store built with the store API; the SVGs checked by parsing them as XML."""

from __future__ import annotations

import csv
import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from benchdeck.engine.profiling.folded import parse_flamegraph_svg
from tests.fixtures.cli_helpers import bd
from tests.profiles.data import BASE, BASE_STACKS, HOST, NEW, WORKLOAD, build_profile_store

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    path = tmp_path_factory.mktemp("prof") / "p.duckdb"
    build_profile_store(path)
    return {**os.environ, "BENCHDECK_DB": str(path)}


COLUMN = ["--host", HOST, "--base", BASE, "--with", NEW, "--workload", WORKLOAD]


def test_text_names_the_grown_function_first(env: dict[str, str]) -> None:
    out = bd(env, "profile", *COLUMN)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"base: {BASE} {WORKLOAD} (runs 1,2)")
    assert "40,000 queries" in lines[0]
    top = next(ln for ln in lines if ln.startswith("row_upd"))
    assert top.split() == [
        "row_upd_sec_index_entry",
        "200.000",
        "300.000",
        "+100.000",
        "1.50",
        "200.000",
        "300.000",
    ]
    assert lines[-1].startswith("log_write_up_to")


def test_json_csv_md(env: dict[str, str]) -> None:
    data = json.loads(bd(env, "profile", *COLUMN, "--format", "json", "--limit", "2").stdout)
    assert [f["function"] for f in data["functions"]] == [
        "row_upd_sec_index_entry",
        "btr_cur_search_to_nth_level",
    ]
    assert data["functions"][0]["diff"] == pytest.approx(100.0)
    assert data["column"]["runs"] == [3, 4]
    rows = list(csv.reader(io.StringIO(bd(env, "profile", "1", "3", "--format", "csv").stdout)))
    assert rows[0][:4] == ["function", "base self", "col-1 self", "diff us/q"]
    assert rows[1][0] == "row_upd_sec_index_entry"
    md = bd(env, "profile", "1", "--format", "md", "--by", "total").stdout
    assert "| mysqld | 0.000 | 550.000 | 0 | 11000 |" in md.splitlines()  # top by total: the root
    assert "| function | self us/q | total us/q |" in md


def test_csv_has_numbers_only_in_number_columns(env: dict[str, str]) -> None:
    """Issue 38 item 11: the diff read "+0.641" and the ratio "new"; now numbers, and a status."""
    rows = list(csv.reader(io.StringIO(bd(env, "profile", *COLUMN, "--format", "csv").stdout)))
    assert rows[0] == [
        "function", "base self", "col-1 self", "diff us/q", "ratio", "base total", "col-1 total", "status",
    ]  # fmt: skip
    top = rows[1]
    assert top[0] == "row_upd_sec_index_entry"
    assert [float(v) for v in top[1:7]] == [200.0, 300.0, 100.0, 1.5, 200.0, 300.0]
    for row in rows[1:]:
        for cell in row[1:7]:
            assert cell == "" or (float(cell) >= -1e9 and not cell.startswith("+")), row
        assert (row[4] == "") == (row[7] in ("new", "none")), "an empty ratio says why"


def test_by_total_names_each_column_once(env: dict[str, str]) -> None:
    """``--by total`` printed ``base total`` and ``col-1 total`` twice; the others are self."""
    out = bd(env, "profile", *COLUMN, "--by", "total", "--format", "csv").stdout
    head = out.splitlines()[0].split(",")
    assert head == [
        "function",
        "base total",
        "col-1 total",
        "diff us/q",
        "ratio",
        "base self",
        "col-1 self",
        "status",
    ]
    assert len(set(head)) == len(head)


def _frames(svg: str) -> list[tuple[int, float, int, str]]:
    root = ET.fromstring(svg)
    out = []
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "frame":
            continue
        rect = g.find(f"{SVG}rect")
        title = g.find(f"{SVG}title")
        assert rect is not None
        assert title is not None
        depth, samples = int(g.get("data-depth", "0")), int(g.get("data-samples", "0"))
        out.append((depth, float(rect.get("width", "0")), samples, str(title.text)))
    return out


def test_svg_widths_add_up_to_the_samples(env: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "run1.svg"
    out = bd(env, "profile", "1", "--format", "svg", "-o", str(target))
    assert out.returncode == 0, out.stderr
    svg = target.read_text()
    frames = _frames(svg)
    (root,) = [f for f in frames if f[0] == 0]
    total = 2 * sum(BASE_STACKS.values())  # two windows
    assert root[2] == total
    assert root[3].startswith(f"all ({total:,} samples, 100.00%)")
    per_sample = root[1] / total
    for depth in {f[0] for f in frames}:
        row = [f for f in frames if f[0] == depth]
        for _, width, samples, _ in row:
            assert width == pytest.approx(samples * per_sample, abs=1e-3)
    assert sum(f[1] for f in frames if f[0] == 1) == pytest.approx(root[1], abs=1e-3)
    # our own SVG reads back into the stacks it was drawn from
    assert dict(parse_flamegraph_svg(svg)) == {s: 2 * n for s, n in BASE_STACKS.items()}


def test_differential_svg_colours(env: dict[str, str]) -> None:
    svg = bd(env, "profile", *COLUMN, "--format", "svg").stdout
    fills = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if g.get("class") == "frame":
            title, rect = g.find(f"{SVG}title"), g.find(f"{SVG}rect")
            assert title is not None
            assert rect is not None
            fills[str(title.text).split(" ")[0]] = rect.get("fill")
    assert fills["row_upd_sec_index_entry"] == "rgb(250,0,0)"  # grew most: full red
    assert fills["log_write_up_to"] == "rgb(176,176,250)"  # shrank by a fifth of that: light blue
    assert fills["mysql_update"] == "rgb(220,220,220)"  # its own time unchanged: grey


def test_folded_and_import_round_trip(env: dict[str, str], tmp_path: Path) -> None:
    folded = bd(env, "profile", "1", "--format", "folded").stdout
    assert folded.splitlines()[0] == "mysqld;start_thread;buf_flush_page_cleaner 1000"
    two = bd(env, "profile", "1", "3", "--format", "folded").stdout
    assert any(ln.endswith("row_upd_sec_index_entry 4000 6000") for ln in two.splitlines())
    f = tmp_path / "stacks.folded"
    f.write_text(folded)
    ours = {**env, "BENCHDECK_DB": str(tmp_path / "own.duckdb")}
    build_profile_store(tmp_path / "own.duckdb")
    out = bd(ours, "import", "profile", "5", str(f), "--frequency", "1000", "--seconds", "20")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "run 5: 5 stacks imported (folded, cpu-clock at 1000 Hz)"
    again = bd(ours, "profile", "5", "--format", "folded").stdout
    assert again == folded


def test_user_mistakes_are_one_line(env: dict[str, str], tmp_path: Path) -> None:
    for args, says in [
        (["profile", "99"], "no run 99"),
        (["profile", "5"], "run 5 has no stored profile"),
        (["profile", "--host", HOST, "--base", "nope", "--workload", WORKLOAD], "unknown build 'nope'"),
        (["profile", "1", "2", "3"], "one or two run ids"),
    ]:
        out = bd(env, *args)
        assert out.returncode != 0
        assert says in out.stderr
        assert "Traceback" not in out.stderr
    bad = tmp_path / "bad.folded"
    bad.write_text("a;b notanumber\n")
    out = bd(env, "import", "profile", "1", str(bad), "--kind", "folded")
    assert "line 1: not 'frames count'" in out.stderr
    assert "Traceback" not in out.stderr
