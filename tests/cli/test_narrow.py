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
