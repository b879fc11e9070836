"""Rich output on narrow terminals (issue 25 item 15): ``compare`` cut builds to ``my5…`` and
values to ``0.0…`` at 80-100 columns, ``runs`` wrapped ``finished`` over two lines and printed its
count twice. Tables now fit the width by dropping spare columns or splitting, never cutting."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.app.storedata import BASE, LTO, NEW, Demo, build_demo
from tests.fixtures.cli_helpers import bd


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return build_demo(tmp_path_factory.mktemp("narrow") / "demo.duckdb")


def _env(demo: Demo, columns: int) -> dict[str, str]:
    return dict(os.environ, BENCHDECK_DB=str(demo.path), COLUMNS=str(columns), TERM="xterm")


def test_compare_at_80_columns_cuts_no_build_and_no_value(demo: Demo) -> None:
    args = ("compare", "--host", "dell32", "--base", BASE, "--with", NEW, "--with", LTO, "--format", "rich")
    r = bd(_env(demo, 80), *args)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "…" not in r.stdout
    assert max(len(ln) for ln in lines) <= 80
    assert f"col-2 : {LTO}" in lines
    # the per-op table in two halves, rows named as in the legend, every digit printed
    assert any(ln.split()[:3] == ["col-2", "0.003333", "12.910"] for ln in lines), r.stdout
    assert any(ln.split()[:3] == ["col-1", "1.50", "1.41"] for ln in lines), r.stdout
    wide = bd(_env(demo, 160), *args).stdout.splitlines()
    assert any(ln.split()[:3] == [LTO, "0.003333", "12.910"] for ln in wide), "one table when it fits"


def test_runs_at_80_columns_drops_spare_columns_and_counts_once(demo: Demo, tmp_path: Path) -> None:
    r = bd(_env(demo, 80), "runs", "--format", "rich", "--limit", "4")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= 80
    assert lines[0].split() == ["run", "build", "workload", "dop", "status", "qps"]
    assert all(ln.split()[4] == "finished" for ln in lines[1:5]), r.stdout
    assert lines[5].startswith("(not shown at this width: reason, tags, config, host, date")
    assert "runs" not in r.stdout.replace("--format text", ""), "the count once, on stderr"
    assert r.stderr == "4 of 35 runs\n"
    wide = bd(_env(demo, 200), "runs", "--format", "rich", "--limit", "4").stdout
    assert wide.splitlines()[0].split()[:4] == ["run", "host", "build", "config"]
    assert "not shown" not in wide


SEVEN = [f"my80{n}_rel_o2nofp" for n in (32, 33, 34, 35, 36, 37, 38)]
LONG_NAMES = ["range-notcovered-si.pre_range=100", "range-covered-pk.pre_range=100", "point-query_range=100"]


@pytest.fixture(scope="module")
def seven(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Issue 38 item 1's shape: a base and 7 columns, workload names of 33 characters."""
    from benchdeck.engine.builds import parse_build_name
    from benchdeck.engine.metrics import PerOp
    from benchdeck.store.storage.db import Store
    from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status

    path = tmp_path_factory.mktemp("seven") / "seven.duckdb"
    with Store.open(path) as store, store.transaction() as cur:
        for w, workload in enumerate(LONG_NAMES):
            for b, build in enumerate([BASE, *SEVEN]):
                run = NewRun("dell32", parse_build_name(build), workload, "test", config="c", threads=8)
                rid = create_run(cur, run, ncpu=8)
                per_op = PerOp(ops=1.0, cpu_o=0.002 + b * 1e-4, cs_o=10.0, r_o=0.0, rkb_o=0.0, wkb_o=0.0)
                save_summary(cur, rid, RunSummary(qps=1000.0 * (1 + 0.0312 * b) + w, per_op=per_op))
                set_status(cur, rid, "finished")
    return path


@pytest.mark.parametrize("columns", [80, 60])
def test_compare_of_seven_columns_prints_every_header_name_and_value(seven: Path, columns: int) -> None:
    """Issue 38 item 1: at 80 columns col-6 read ``0.…`` in every row, headers ``col…`` and names
    ``range-notcovered-si.pre_range=…``; the rQPS table now comes in blocks of columns."""
    withs = [a for b in SEVEN for a in ("--with", b)]
    env = dict(os.environ, BENCHDECK_DB=str(seven), COLUMNS=str(columns), TERM="xterm")
    r = bd(env, "compare", "--host", "dell32", "--base", BASE, *withs, "--format", "rich")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "…" not in r.stdout
    assert max(len(ln) for ln in lines) <= columns
    heads = [ln.split() for ln in lines if ln.split()[-2:] == ["workload", "group"]]
    assert len(heads) > 1, r.stdout
    assert [c for h in heads for c in h[:-2]] == [f"col-{i}" for i in range(1, 8)]
    first = next(i for i, ln in enumerate(lines) if ln.startswith("rQPS on dell32, col-1 to"))
    assert lines[first + 1].split() == heads[0]
    named = [ln.split() for ln in lines if ln.split()[-2:-1] == ["range-notcovered-si.pre_range=100"]]
    values = [v for row in named for v in row[:-2]]
    assert values == [f"{1 + 0.0312 * b:.2f}" for b in range(1, 8)], r.stdout


def test_column_blocks_keep_a_value_with_its_ratio_and_the_names_in_each() -> None:
    from rich.console import Console

    from benchdeck.tui.reports.rich_fit import column_blocks

    header = ["counter", "base", "col-1", "rel", "col-2", "rel", "col-3", "rel"]
    row = ["instructions (per op)", "123,456", "123,457", "1.00", "234,567", "1.90", "345,678", "2.80"]
    console = Console(width=50, file=open(os.devnull, "w"))  # noqa: SIM115
    blocks = column_blocks(console, header, [row], set(header[1:]), [0, 1], "point-query", step=2)
    assert [[c.header for c in t.columns] for t in blocks] == [
        ["counter", "base", "col-1", "rel"],
        ["counter", "base", "col-2", "rel"],
        ["counter", "base", "col-3", "rel"],
    ]
    assert [t.title for t in blocks] == ["point-query, col-1", "point-query, col-2", "point-query, col-3"]
    wide = Console(width=200, file=open(os.devnull, "w"))  # noqa: SIM115
    assert [t.title for t in column_blocks(wide, header, [row], set(header[1:]), [0, 1], "pq", step=2)] == [
        "pq"
    ]
