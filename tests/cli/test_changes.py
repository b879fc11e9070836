"""``benchdeck changes``: its formats, --over time, filters, and bad input as one line."""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary
from tests.changes.post_series import CONFIG, HOST, write_store
from tests.fixtures.cli_helpers import bd

T0 = datetime(2025, 11, 3, 9, 0)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The beelink version series, plus one build run 10 times over ten days on host ci1: QPS
    drops 12% from the 7th run on (a kernel update, say)."""
    path = tmp_path_factory.mktemp("cli") / "changes.duckdb"
    write_store(path)
    wobble = [1.0, 0.995, 1.004, 0.998, 1.003, 0.997, 0.88, 0.884, 0.879, 0.882]
    with Store.open(path) as store, store.transaction() as cur:
        for day, w in enumerate(wobble):
            new = NewRun(
                "ci1",
                parse_build_name("my8040_rel_o2nofp"),
                "update-index_range=100",
                "test",
                config="z11a_c8r32",
                threads=8,
                status="finished",
                started_at=T0 + timedelta(days=day),
            )
            save_summary(cur, create_run(cur, new), RunSummary(qps=5000.0 * w))
    return path


def run(db: Path, *args: str) -> tuple[int, str, str]:
    done = bd({**os.environ, "BENCHDECK_DB": str(db)}, "changes", *args)
    return done.returncode, done.stdout, done.stderr


def test_text_lists_per_group_the_changes_between_versions(db: Path) -> None:
    code, out, err = run(db, "--host", HOST)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(f"Change points on {HOST} over version")
    assert "p <= 0.001, magnitude > 5%" in lines[0]
    assert "config z11a_bee, dop 1, mysql rel_o2nofp: 8.0.28 8.0.30 8.0.33 8.0.39 8.0.40" in out
    assert "  point-2" in lines
    (rp,) = [ln for ln in lines if ln.strip().startswith("random-points_range=1000")]
    assert "8.0.30 -> 8.0.33" in rp
    assert "+135.4%" in rp
    assert lines[-1] == "4 of 42 series have change points"


def test_csv_md_and_json_carry_the_same_changes(db: Path) -> None:
    _, out_csv, _ = run(db, "--host", HOST, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out_csv)))
    assert len(rows) == 4
    rp = next(r for r in rows if r["workload"] == "random-points_range=1000")
    assert (rp["before"], rp["after"], rp["before_build"]) == ("8.0.30", "8.0.33", "my8030_rel_o2nofp")
    assert float(rp["change"]) == pytest.approx(1.354, abs=0.001)
    assert float(rp["pvalue"]) < 0.001
    _, out_md, _ = run(db, "--host", HOST, "--format", "md")
    assert "| point-2 | random-points_range=1000 | 8.0.30 -> 8.0.33 | +135.4% |" in out_md
    _, out_json, _ = run(db, "--host", HOST, "--format", "json", "--workload", "random-points_range=1000")
    data = json.loads(out_json)
    (s,) = data["series"]
    assert [p["label"] for p in s["points"]] == ["8.0.28", "8.0.30", "8.0.33", "8.0.39", "8.0.40"]
    assert s["changes"][0]["index"] == 2


def test_over_time_finds_the_run_where_one_build_slowed(db: Path) -> None:
    code, out, err = run(db, "--host", "ci1", "--over", "time", "--format", "json")
    assert code == 0, err
    (s,) = json.loads(out)["series"]
    assert s["line"] == "my8040_rel_o2nofp"
    assert len(s["points"]) == 10
    (c,) = s["changes"]
    assert (c["before"], c["after"]) == ("2025-11-08 09:00", "2025-11-09 09:00")
    assert c["change"] == pytest.approx(-0.12, abs=0.01)
    # over versions the same runs are one point: nothing to find
    _, out_v, _ = run(db, "--host", "ci1")
    assert "no series with 3 or more points" in out_v


def test_filters_narrow_the_series(db: Path) -> None:
    _, out, _ = run(db, "--host", HOST, "--format", "json", "--config", "z11a_bee", "--dop", "1")
    assert len(json.loads(out)["series"]) == 42


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--host", "nowhere"], 2, "benchdeck: unknown host 'nowhere' (known: beelink, ci1)"),
        # issue 25 item 14: a filter the host has no runs with printed "no series ...", exit 0
        (
            ["--host", HOST, "--dbms", "mysqll"],
            2,
            f"benchdeck: unknown dbms 'mysqll' in host {HOST}'s finished "
            "runs (known: mysql); did you mean 'mysql'?",
        ),
        (["--host", HOST, "--build", "my8040_rel_o2nofx"], 2, "benchdeck: unknown build 'my8040_rel_o2nofx'"),
        (
            ["--host", HOST, "--config", "z12a"],
            2,
            "benchdeck: unknown config 'z12a' in host beelink's finished runs (known: z11a_bee)",
        ),
        (
            ["--host", HOST, "--dop", "24"],
            2,
            "benchdeck: unknown dop 24 in host beelink's finished runs (known: 1)",
        ),
        (["--host", HOST, "--workload", "scan"], 2, "benchdeck: unknown workload 'scan'"),
        (["--host", HOST, "--over", "build"], 2, "benchdeck: Invalid value for '--over'"),
        (["--host", HOST, "--max-pvalue", "0"], 2, "benchdeck: Invalid value for '--max-pvalue'"),
        (["--host", HOST, "--min-magnitude", "-1"], 2, "benchdeck: Invalid value for '--min-magnitude'"),
        ([], 2, "benchdeck: Missing option '--host'"),
    ],
)
def test_bad_input_is_one_line(db: Path, args: list[str], code: int, message: str) -> None:
    got, out, err = run(db, *args)
    assert got == code
    assert out == ""
    assert err.startswith(message)
    assert len(err.strip().splitlines()) == 1


def test_a_build_in_no_series_is_named_and_can_be_put_in(tmp_path: Path) -> None:
    """Issue 25 item 5: ``my8406v2_rel_o2nofp`` parses as fork ``v2``, a line of its own with one
    version: it silently left the MySQL series. The output names it and why; --include puts it in."""
    path = tmp_path / "fork.duckdb"
    write_store(path)
    with Store.open(path) as store, store.transaction() as cur:
        new = NewRun(HOST, parse_build_name("my8406v2_rel_o2nofp"), "point-query_range=100", "test",
                     config=CONFIG, threads=1, status="finished", started_at=T0)  # fmt: skip
        save_summary(cur, create_run(cur, new), RunSummary(qps=9000.0))
    code, out, err = run(path, "--host", HOST)
    assert code == 0, err
    assert out.splitlines()[1] == (
        f"left out: my8406v2_rel_o2nofp (mysql v2 rel_o2nofp, config {CONFIG}: 1 version, 3 needed; "
        "--include my8406v2_rel_o2nofp puts it in mysql rel_o2nofp)"
    )
    code, out, err = run(path, "--host", HOST, "--include", "my8406v2_rel_o2nofp", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["left_out"] == []
    (pq,) = [s for s in data["series"] if s["workload"] == "point-query_range=100"]
    assert [p["label"] for p in pq["points"]] == ["8.0.28", "8.0.30", "8.0.33", "8.0.39", "8.0.40", "8.4.6"]
    code, _, err = run(path, "--host", HOST, "--include", "my8406v2_rel_o2nofx")
    assert code == 2
    assert "did you mean 'my8406v2_rel_o2nofp'?" in err


def test_a_line_split_across_configs_is_named_and_can_be_joined(tmp_path: Path) -> None:
    """pg17 ran on x10a, pg18 on x10b: pg18's two versions were left out as "(postgres o2nofp:
    2 versions, 3 needed)", the config unsaid; --include pg180_o2nofp did nothing. The reason names
    the config and the way to join; --include refuses a build without a fork; --across-configs
    asks "which version made pg18 slower"."""
    path = tmp_path / "pg.duckdb"
    a, b = "x10a_c32r128", "x10b_c32r128"
    with Store.open(path) as store, store.transaction() as cur:
        for build, config, qps in [("pg170", a, 1000.0), ("pg171", a, 1002.0), ("pg172", a, 998.0),
                                   ("pg180", b, 800.0), ("pg181", b, 801.0)]:  # fmt: skip
            for k, wobble in enumerate((1.0, 1.004, 0.996)):
                at = T0 + timedelta(hours=k)
                new = NewRun("h", parse_build_name(f"{build}_o2nofp"), "point-query_range=100", "test",
                             config=config, threads=1, status="finished", started_at=at)  # fmt: skip
                save_summary(cur, create_run(cur, new), RunSummary(qps=qps * wobble))
    code, out, err = run(path, "--host", "h")
    assert code == 0, err
    assert out.splitlines()[1:3] == [
        f"left out: pg180_o2nofp (postgres o2nofp, config {b}: 2 versions, 3 needed; its line has 3 versions "
        f"under config {a}: --across-configs joins them)",
        f"left out: pg181_o2nofp (postgres o2nofp, config {b}: 2 versions, 3 needed; its line has 3 versions "
        f"under config {a}: --across-configs joins them)",
    ]
    code, out, err = run(path, "--host", "h", "--format", "json")
    assert [(lo["build"], lo["config"]) for lo in json.loads(out)["left_out"]] == [
        ("pg180_o2nofp", b),
        ("pg181_o2nofp", b),
    ]
    code, _, err = run(path, "--host", "h", "--include", "pg180_o2nofp")
    assert code == 2
    assert "--include pg180_o2nofp: it has no fork to set aside" in err
    code, out, err = run(path, "--host", "h", "--across-configs", "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    (s,) = data["series"]
    assert data["left_out"] == []
    assert s["config"] == f"{a}+{b}"
    assert [p["label"] for p in s["points"]] == ["17.0", "17.1", "17.2", "18.0", "18.1"]
    assert [(c["before"], c["after"]) for c in s["changes"]] == [("17.2", "18.0")]
    code, _, err = run(path, "--host", "h", "--across-configs", "--over", "time")
    assert code == 2
    assert "not with --over time" in err


NUMPY_PROBE = (
    "import sys\n"
    "from benchdeck.tui.cli.main import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
    "print('LOADED', ' '.join(m for m in ('numpy', 'scipy') if m in sys.modules))\n"
)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_changes_finds_its_changes_without_numpy(db: Path, fmt: str) -> None:
    """numpy's import was a quarter of the command's CPU (issue 29): the e-divisive, the t-tests
    and the series' shaping are pure Python, and nothing brings numpy back silently."""
    import subprocess
    import sys

    from tests.fixtures.cli_helpers import ROOT

    argv = [sys.executable, "-c", NUMPY_PROBE, "changes", "--host", HOST, "--format", fmt]
    env = {**os.environ, "BENCHDECK_DB": str(db)}
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    out, loaded = r.stdout.rsplit("LOADED", 1)
    assert "random-points_range=1000" in out, "the changes are printed"
    assert loaded.split() == []


def test_the_apps_left_out_note_names_the_config_and_the_join() -> None:
    """The Changes screen's head: "(postgres o2nofp: 2 versions)" left the config unsaid."""
    from benchdeck.store.analysis.changes import LeftOut
    from benchdeck.store.reports.changes_report import left_out_note

    lo = LeftOut("pg180_o2nofp", "postgres o2nofp", 2, config="x10b_c32r128", elsewhere=("x10a_c32r128", 11))
    assert left_out_note([lo]) == (
        " · left out: pg180_o2nofp (postgres o2nofp, config x10b_c32r128: 2 versions); `benchdeck changes "
        "--include BUILD` puts a forked build in its line, `--across-configs` joins a line's configs"
    )
