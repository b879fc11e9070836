"""Imported flame graphs: a mytools tree's SVGs and folded stacks attached to their runs by
``benchdeck import mytools``, and a flamegraph.pl SVG read back into stacks.

The files are hand-written here in the author's layout (``all.svg/x.<build>.<config>.pk1/
sb.perf.g.cycles.<test>.range100.pk1.all.svg``) and flamegraph.pl's frame format."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from benchdeck.engine.profiling.folded import parse_flamegraph_svg, parse_perf_script
from benchdeck.engine.profiling.svg import flame_svg
from benchdeck.engine.profiling.tree import build_tree
from benchdeck.store.storage.db import Store
from tests.fixtures.cli_helpers import bd
from tests.store.mytools_tree import CONFIG, A, B, write_tree

# flamegraph.pl's shape: frames in no order, root "all" at the bottom (largest y), counts with
# commas; "tiny" (under 0.1 px) was never written, so its 7 cycles stay in "b"'s self time.
FLAMEGRAPH_PL = """<?xml version="1.0" standalone="no"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg version="1.1" width="1200" height="102" xmlns="http://www.w3.org/2000/svg">
<g id="frames">
<g ><title>c (3,000 samples, 30.00%)</title><rect x="402.0" y="37" width="354.0"/></g>
<g ><title>all (8,007 samples, 100%)</title><rect x="10.0" y="69" width="1180.0"/></g>
<g ><title>b (4,007 samples, 40.07%)</title><rect x="402.0" y="53" width="472.8"/></g>
<g ><title>a (4,000 samples, 40.00%)</title><rect x="10.0" y="53" width="392.0"/></g>
<g ><title>c (2,000 samples, 20.00%)</title><rect x="10.0" y="37" width="236.0"/></g>
</g></svg>
"""


def test_flamegraph_pl_svg_back_to_stacks() -> None:
    stacks = dict(parse_flamegraph_svg(FLAMEGRAPH_PL))
    assert stacks == {"a": 2000, "a;c": 2000, "b": 1007, "b;c": 3000}
    assert sum(stacks.values()) == 8_007  # every sample of the root's title is kept


def test_perf_script_folds_like_stackcollapse() -> None:
    text = (
        "mysqld 1234/1240 [001] 100.123: 250000 cpu-clock:\n"
        "\t    7f0011 row_upd_sec_index_entry+0x21 (/usr/sbin/mysqld)\n"
        "\t    7f0022 mysql_update+0x9 (/usr/sbin/mysqld)\n"
        "\t    7f0033 [unknown] ([unknown])\n\n"
        "mysqld 1234/1241 [000] 100.124: 250000 cpu-clock:\n"
        "\t    7f0022 mysql_update+0x1 (/usr/sbin/mysqld)\n"
        "\t    7f0033 [unknown] ([unknown])\n\n"
    )
    assert dict(parse_perf_script(text)) == {
        "mysqld;[unknown];mysql_update;row_upd_sec_index_entry": 1,
        "mysqld;[unknown];mysql_update": 1,
    }


def test_import_mytools_attaches_flame_graphs(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "tree")
    a_dir = root / "all.svg" / f"x.{A}.{CONFIG}.pk1"
    b_dir = root / "all.svg" / f"x.{B}.{CONFIG}.pk1"
    a_dir.mkdir(parents=True)
    b_dir.mkdir(parents=True)
    name = "sb.perf.g.cycles.update-index.range100.pk1.all"
    base = [("mysqld;row_upd", 6_000_000, 0.0), ("mysqld;log_write", 4_000_000, 0.0)]
    # A's gzip'd, as the author's archives keep them
    (a_dir / f"{name}.svg.gz").write_bytes(gzip.compress(flame_svg(build_tree(base), "Flame Graph").encode()))
    # B has folded stacks beside a (wrong) SVG: the exact file is read
    (b_dir / f"{name}.svg").write_text(FLAMEGRAPH_PL)
    (b_dir / f"{name}.folded").write_text("mysqld;row_upd 9000000\nmysqld;log_write 4000000\n")
    (b_dir / "sb.perf.g.cycles.no-such-step.range100.pk1.all.svg").write_text(FLAMEGRAPH_PL)
    # how long perf recorded, as run.sh leaves it: A's two 10-s loops drawn one by one beside
    # the .all SVG; B's loop count in its run folder (sb.perf.last: loops 1-3)
    for n in (1, 2):
        (a_dir / f"sb.perf.g.cycles.update-index.range100.pk1.{n}.svg.gz").write_bytes(b"")
    (root / b_dir.name / "sb.perf.last.update-index.range100.pk1").write_text("3\n")
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb")}
    out = bd(env, "import", "mytools", str(root), "--host", "h1")
    assert out.returncode == 0, out.stderr
    assert "profiles: 2 imported, 0 already there, 1 without a matching run, 0 failed" in out.stdout
    again = bd(env, "import", "mytools", str(root), "--host", "h1")
    assert "profiles: 0 imported, 2 already there" in again.stdout
    prof = bd(
        env, "profile", "--host", "h1", "--base", A, "--with", B, "--workload", "update-index_range=100"
    )
    assert prof.returncode == 0, prof.stderr
    assert "cycles/q profiled" in prof.stdout.splitlines()[0]
    args = (
        "--host",
        "h1",
        "--base",
        A,
        "--with",
        B,
        "--workload",
        "update-index_range=100",
        "--format",
        "json",
    )
    data = json.loads(bd(env, "profile", *args).stdout)
    top = data["functions"][0]
    assert top["function"] == ["mysqld", "row_upd"][1]
    # 9 M vs 6 M cycles, each over the queries of perf's windows (the run's QPS x 20 s and x 30 s)
    with Store.open(tmp_path / "s.duckdb") as store:
        qps = {
            side: store.cursor()
            .execute("SELECT qps FROM run_summary WHERE run_id = ?", data[side]["runs"])
            .fetchone()[0]
            for side in ("base", "column")
        }
    assert data["base"]["queries"] == pytest.approx(qps["base"] * 20)
    assert top["base_self"] == pytest.approx(6_000_000 / (qps["base"] * 20))
    assert top["col_self"] == pytest.approx(9_000_000 / (qps["column"] * 30))
