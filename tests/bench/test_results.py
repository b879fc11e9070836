"""The benches' history (bench/results.py): one JSON line per figure, every bench writes it."""

from __future__ import annotations

import argparse
import ast
import json
from pathlib import Path

import pytest

from bench.results import Figure, record

BENCH = Path(__file__).resolve().parent.parent.parent / "bench"
FIELDS = {"date", "commit", "load", "figure", "value", "unit", "baseline", "baseline_name", "ratio", "target"}


def test_a_record_is_one_line_per_figure_with_its_baseline_ratio_and_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCHDECK_BENCH_RESULTS", str(tmp_path))
    args = argparse.Namespace(repeat=3, store=Path("/s.duckdb"), before=None)
    figures = [
        Figure("compare, median", 12.5, "ms", 25.0, "plain Python", "< 100 ms", True),
        Figure("cold", 56, "ms"),
    ]
    path = record("bench_x", figures, args)
    record("bench_x", figures[:1], {"repeat": 5})
    assert path == tmp_path / "bench_x.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 3
    first = lines[0]
    assert set(first) >= FIELDS
    assert (first["figure"], first["value"], first["baseline"], first["ratio"]) == (
        "compare, median",
        12.5,
        25.0,
        0.5,
    )
    assert (first["target"], first["met"]) == ("< 100 ms", True)
    assert first["args"] == {"repeat": 3, "store": "/s.duckdb", "before": None}
    assert first["commit"] == "unknown" or len(first["commit"].removesuffix("+dirty")) >= 7
    assert isinstance(first["load"], float)
    assert lines[1]["ratio"] is None
    assert lines[1]["baseline"] is None
    assert lines[2]["args"] == {"repeat": 5}


def test_a_dash_turns_the_history_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCHDECK_BENCH_RESULTS", "-")
    monkeypatch.chdir(tmp_path)
    assert record("bench_x", [Figure("f", 1.0, "ms")]) is None
    assert list(tmp_path.iterdir()) == []


def _calls_record(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "record"
        for n in ast.walk(tree)
    )


@pytest.mark.parametrize("bench", sorted(p.name for p in BENCH.glob("bench_*.py")))
def test_every_bench_records_its_figures(bench: str) -> None:
    assert _calls_record(BENCH / bench), f"{bench} does not call bench.results.record"
    assert (BENCH / "results" / bench.replace(".py", ".jsonl")).is_file(), f"{bench} has no history"


def test_every_line_of_the_history_is_a_record() -> None:
    for path in sorted((BENCH / "results").glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            rec = json.loads(line)
            assert set(rec) >= FIELDS, f"{path.name}:{n}"
            assert rec["value"] is not None or rec.get("value_range") or rec["ratio"], (
                f"{path.name}:{n}: no figure"
            )
