"""``import sysbench --perf-stat`` and ``compare --table counters`` end to end (hand-written perf
stat files in perf's layout: this VM counts no hardware events)."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import jsonschema
import pytest

from tests.fixtures.cli_helpers import ROOT, bd, db_rows
from tests.store import mytools_tree as t

PERF = ROOT / "tests" / "data" / "perf_stat" / "sb.perf.hw.point-query.range100.pk1.1"
SCHEMA = json.loads((ROOT / "docs" / "compare.schema.json").read_text())
ARGS = ("--host", "h", "--workload", "point-query_range=100")


def test_import_perf_stat_and_compare_the_counters_table(tmp_path: Path) -> None:
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}
    slower = tmp_path / "perf.b"
    slower.write_text(PERF.read_text().replace("9,600,000,000", "11,520,000,000"))
    outs = []
    for n, qps in enumerate(
        (200000.0, 200000.5, 200001.0)
    ):  # three runs: three outputs (a run is its content)
        outs.append(tmp_path / f"sb.o.{n}")
        outs[-1].write_text(t.sysbench_output("point-query", qps))
    for out, build, perf in ((outs[0], "my8028_rel_o2nofp", PERF), (outs[1], "my8040_rel_o2nofp", slower)):
        r = bd(env, "import", "sysbench", str(out), *ARGS, "--build", build, "--perf-stat", str(perf))
        assert r.returncode == 0, r.stderr

    bad = bd(
        env,
        "import",
        "sysbench",
        str(outs[2]),
        *ARGS,
        "--build",
        "my8044_rel_o2nofp",
        "--perf-stat",
        str(outs[2]),
    )
    assert bad.returncode != 0
    assert bad.stderr.count("\n") == 1, bad.stderr  # one line, no traceback
    assert "no perf stat window" in bad.stderr
    assert db_rows(env, "SELECT count(*) FROM runs") == [(2,)]  # nothing of the refused import stored

    cmp = ("compare", "--host", "h", "--base", "my8028_rel_o2nofp", "--with", "my8040_rel_o2nofp")
    r = bd(env, *cmp, "--format", "csv", "--table", "counters")
    assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert list(rows[0]) == [
        "workload",
        "dop",
        "column",
        "build",
        "config",
        "counter",
        "unit",
        "value",
        "rel",
        "windows",
        "status",
    ]
    got = {(row["column"], row["counter"]): row for row in rows}
    assert float(got[("col-1", "instructions")]["rel"]) == pytest.approx(1.2, rel=1e-5)
    # the same cycles, 20% more instructions (the runs' QPS differ by 2.5e-6: rel=1e-5)
    assert float(got[("col-1", "ipc")]["rel"]) == pytest.approx(1.2, rel=1e-5)
    assert got[("base", "bus-cycles")]["value"] == ""  # no value: empty, never 0, and why
    assert got[("base", "bus-cycles")]["status"] == "not supported"
    assert got[("base", "instructions")]["status"] == "counted"
    assert got[("base", "instructions")]["windows"] == "1"

    r = bd(env, *cmp, "--format", "json", "--table", "counters")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    bus = next(c for c in doc["counters"] if c["counter"] == "bus-cycles")
    assert (bus["value"], bus["rel"], bus["windows"], bus["status"]) == (None, None, 0, "not supported")
    assert "rqps" not in doc
    full = json.loads(bd(env, *cmp, "--format", "json").stdout)
    assert len(full["counters"]) == len(doc["counters"])
    jsonschema.validate(doc, SCHEMA)
    jsonschema.validate(full, SCHEMA)

    md = bd(env, *cmp, "--format", "md").stdout
    assert "| counter | base | col-1 | rel |" in md
    assert "| ipc | 0.80 | 0.96 | 1.20 |" in md


def test_the_counters_table_in_any_format_and_compare_by_workload(tmp_path: Path) -> None:
    """``compare --table counters`` without --format was refused; compare had no --workload (the text
    Counters output of 29 workloads ran to ~1,100 lines); without counters it names both ways to get them."""
    env = {**os.environ, "BENCHDECK_DB": str(tmp_path / "s.duckdb"), "HOME": str(tmp_path)}
    for n, (workload, perf) in enumerate((("point-query_range=100", PERF), ("update-index_range=100", None))):
        for k, build in enumerate(("my8028_rel_o2nofp", "my8040_rel_o2nofp")):
            out = tmp_path / f"sb.o.{n}.{build}"
            out.write_text(t.sysbench_output(workload.split("_")[0], 1000.0 + 10 * n + k))
            counters = ("--perf-stat", str(perf)) if perf else ()
            args = ("--host", "h", "--workload", workload, "--build", build, *counters)
            r = bd(env, "import", "sysbench", str(out), *args)
            assert r.returncode == 0, r.stderr
    cmp = ("compare", "--host", "h", "--base", "my8028_rel_o2nofp", "--with", "my8040_rel_o2nofp")
    r = bd(env, *cmp, "--table", "counters")  # not a terminal: text
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("Counters: per operation")
    assert "point-query_range=100.dop40" in lines
    assert "Relative to" not in r.stdout, "the Counters section alone"
    md = bd(env, *cmp, "--table", "counters", "--format", "md").stdout
    assert "| ipc | 0.80 | 0.80 | 1.00 |" in md
    r = bd(env, *cmp, "--table", "groups", "--format", "text")
    assert r.returncode == 2
    assert "--table groups goes with --format csv" in r.stderr

    text = bd(env, *cmp, "--workload", "update-*", "--format", "text").stdout
    assert "update-index_range=100" in text
    assert "point-query_range=100" not in text
    r = bd(env, *cmp, "--workload", "update-*", "--table", "counters")
    assert r.returncode == 1
    assert "capture them with run or queue --profile counters" in r.stderr
    assert "--perf-stat FILE" in r.stderr
    r = bd(env, *cmp, "--workload", "update-index_range=10")
    assert r.returncode == 2
    assert "did you mean 'update-index_range=100'?" in r.stderr
