"""A bisect's report (text, md, json), its progress line and the session memory that lets a
killed bisect resume: made from a search result, no host needed (the real bisect:
tests/cli/test_bisect.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from benchdeck.engine.bisect.decide import Ratio
from benchdeck.engine.bisect.driver import Checked, Result, Step
from benchdeck.engine.bisect.history import Commit
from benchdeck.engine.bisect.search import Search
from benchdeck.engine.building.recipes import Recipe
from benchdeck.engine.planning.plan import RunOptions
from benchdeck.tui.cli.bisect_report import render
from benchdeck.tui.services.bisect import BisectError, BisectRequest, Report, check_recipe, progress_line
from benchdeck.tui.services.bisect_state import SessionState, unfinished_sessions

COMMITS = tuple(
    Commit(f"{k:x}" * 40, f"change {k}", "Ada <ada@example.org>", f"2026-01-0{k + 1}T00:00:00+00:00")
    for k in range(5)
)
REQ = BisectRequest("box", "sqlite-git", "good", "bad", "point-query_range=100", "o0", None, RunOptions())


def report(result: Result) -> Report:
    names = {i: f"sqlite3532_g{c.short}_rel_o0" for i, c in enumerate(COMMITS)}
    qps = {0: (100.0, 101.0), 4: (50.0, 51.0)}
    return Report(REQ, COMMITS, result, names, {2: (7, 9)}, qps, 2, 8, 75.0, False)


def found(first: int, last: int) -> Result:
    tested = (
        Checked(2, "bad", Ratio(0.5, 0.48, 0.52), 2),
        Checked(1, "skip", None, 0),
    )
    message = "culprit" if first == last else f"culprit range of {last - first + 1} commits"
    return Result("culprit", message, 4, Ratio(0.5, 0.49, 0.51), (first, last), tested, 4, 10)


def test_text_names_the_culprit_its_parent_and_every_tested_commit() -> None:
    text = render(report(found(2, 2)), "text")
    assert f'culprit: {COMMITS[2].short} "change 2" by Ada <ada@example.org>, 2026-01-03' in text
    assert f"parent:  {COMMITS[1].short}" in text
    assert "x0.500 [0.480, 0.520]" in text
    assert "spent: 4 builds (2 compiled now" in text
    assert "10 runs (8 now), 1m15s" in text


def test_a_culprit_beside_skipped_commits_is_a_range() -> None:
    text = render(report(found(1, 2)), "md")
    assert f"culprit: one of 2 commits {COMMITS[1].short}, {COMMITS[2].short}" in text
    assert "| 2 | " in text


def test_json_has_the_culprit_and_the_ratios() -> None:
    d = json.loads(render(report(found(2, 2)), "json"))
    assert d["outcome"] == "culprit"
    assert d["culprit"]["sha"] == COMMITS[2].sha
    assert d["parent"]["sha"] == COMMITS[1].sha
    assert d["tested"][0]["to_good"] == {"ratio": 0.5, "low": 0.48, "high": 0.52}
    assert d["tested"][0]["run_ids"] == [7, 9]
    assert d["tested"][1]["verdict"] == "skip"


def test_no_regression_names_nobody() -> None:
    res = Result("no-regression", "no regression between good and bad (x0.99)", 4, Ratio(0.99, 0.9, 1.1))
    d = json.loads(render(report(res), "json"))
    assert (d["culprit"], d["parent"], d["culprit_range"]) == (None, None, [])
    assert render(report(res), "text").splitlines()[1].startswith("no regression between good and bad")


def test_progress_line_has_the_step_and_an_eta() -> None:
    step = Step(2, Checked(2, "bad", Ratio(0.5, 0.48, 0.52), 2), Search(8, {2: "bad"}), None, 3, 6)
    line = progress_line(step, COMMITS * 2, 190)
    assert line.startswith(f"step 2: {COMMITS[2].short} bad x0.500 [0.480, 0.520] 2 runs")
    assert "1 commits left, ~1 steps, ETA 3m10s (builds 3, runs 6)" in line


def test_session_memory_survives_a_restart_and_says_when_done(tmp_path: Path) -> None:
    args = REQ.session_args(COMMITS)
    s = SessionState.load(tmp_path, args)
    assert not s.resumed
    s.set_run(2, 0, 17)
    s.set_failed(3)
    again = SessionState.load(tmp_path, args)
    assert (again.run_of(2, 0), again.failed, again.resumed) == (17, {3}, True)
    assert [BisectRequest.from_args(a) for a in unfinished_sessions(tmp_path)] == [
        BisectRequest("box", "sqlite-git", COMMITS[0].sha, COMMITS[-1].sha, REQ.workload, "o0")
    ]
    again.set_done()
    assert unfinished_sessions(tmp_path) == []
    assert SessionState.load(tmp_path, {**args, "repeats": 5}).runs == {}  # other arguments


def test_a_recipe_that_would_build_every_commit_alike_is_refused() -> None:
    ok = Recipe("r", "sqlite", "3.53.2", "/src", {"build": (("make", "-C", "{source}"),)}, "lib/x.so")
    check_recipe(ok)
    with pytest.raises(BisectError, match=r"put \{name\} in it"):
        check_recipe(dataclasses.replace(ok, prefix="/opt/sqlite"))
    with pytest.raises(BisectError, match=r"write \{source\}"):
        check_recipe(dataclasses.replace(ok, steps={"build": (("make", "-C", "/src"),)}))
