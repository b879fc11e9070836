"""On the posts' version series (MySQL 8.0.28 -> 8.0.40 on beelink), ``benchdeck changes`` finds
the versions the post names: random-points' fix at 8.0.30 -> 8.0.33 from the table as printed;
with repeated runs also scan's and update-index's regressions "starting in 8.0.30", with the
per-op metrics the post blames."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.changes.post_series import HOST, write_store
from tests.fixtures.cli_helpers import bd


def changes(db: Path, *args: str) -> dict[str, Any]:
    done = bd({**os.environ, "BENCHDECK_DB": str(db)}, "changes", "--host", HOST, "--format", "json", *args)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def found(result: dict[str, Any]) -> dict[str, list[tuple[str, str, float]]]:
    return {
        s["workload"]: [(c["before"], c["after"], c["change"]) for c in s["changes"]]
        for s in result["series"]
        if s["changes"]
    }


@pytest.fixture(scope="module")
def as_printed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("post") / "printed.duckdb"
    write_store(path)
    return path


@pytest.fixture(scope="module")
def repeated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("post") / "repeated.duckdb"
    write_store(path, repeats=3, noise=0.01)
    return path


def test_the_table_as_printed_gives_the_random_points_fix_at_8033(as_printed: Path) -> None:
    result = changes(as_printed)
    assert len(result["series"]) == 42  # the 42 rows of the table
    got = found(result)
    for wl in ("random-points_range=1000", "random-points.pre_range=1000"):
        ((before, after, change),) = got[wl]
        assert (before, after) == ("8.0.30", "8.0.33")
        assert change > 1.2  # QPS more than doubles
    # one value per version: only large, clean steps reach p <= 0.001, and nothing false
    assert set(got) == {
        "random-points_range=1000",
        "random-points.pre_range=1000",
        "point-query_range=100",
        "point-query.pre_range=100",
    }
    assert all(c[:2] == ("8.0.30", "8.0.33") for cs in got.values() for c in cs)


def test_repeated_runs_find_the_regressions_starting_in_8030_and_why(repeated: Path) -> None:
    result = changes(repeated)
    got = found(result)
    assert ("8.0.30", "8.0.33") in [c[:2] for c in got["random-points_range=1000"]]
    for wl in ("scan_range=100", "update-index_range=100"):
        first = got[wl][0]
        assert first[:2] == ("8.0.28", "8.0.30")
        assert first[2] < -0.1
    series = {s["workload"]: s for s in result["series"]}
    (ui,) = [c for c in series["update-index_range=100"]["changes"] if c["before"] == "8.0.28"]
    moved = {m["metric"]: m["ratio"] for m in ui["metrics"] if m["moved"]}
    # "more CPU overhead, more context switches and more KB written per update"
    assert set(moved) == {"cpu/o", "cs/o", "wKB/o"}
    assert moved["cpu/o"] == pytest.approx(1.16, abs=0.05)
    assert moved["wKB/o"] == pytest.approx(1.40, abs=0.05)
    assert ui["pvalue"] < 0.001
    assert ui["n_before"] == 3


def test_flat_workloads_stay_unchanged_with_repeats(repeated: Path) -> None:
    got = found(changes(repeated))
    # read-only_range=10000: 1.00 0.98 0.95 0.94 0.99 - within 6%, no step the post names
    for wl in ("read-only_range=10000", "read-only.pre_range=10000", "read-only_range=10"):
        assert wl not in got


def test_a_lower_threshold_is_honoured(as_printed: Path) -> None:
    strict = found(changes(as_printed, "--max-pvalue", "0.0001"))
    assert "point-query_range=100" not in strict  # its p is 9.5e-4
    loose = found(changes(as_printed, "--max-pvalue", "0.05", "--min-magnitude", "0.02"))
    assert len(loose) > 4
