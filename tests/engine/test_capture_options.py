"""What to capture: ``--profile`` on the command line and ``profile`` in the inventory (per
host, per suite), each bad value one line naming what is wrong."""

from __future__ import annotations

import csv
import io
import os
import subprocess
from pathlib import Path

import pytest

from benchdeck.engine.dispatch.planner import make_plan
from benchdeck.engine.hosts.inventory import ConfigError
from benchdeck.engine.hosts.inventory_file import parse_inventory
from benchdeck.engine.planning.plan import RunOptions, RunRequest
from benchdeck.engine.profiling.capture import CaptureOptions
from benchdeck.engine.profiling.elf_check import binary_findings
from tests.fixtures.cli_helpers import bd


def test_options_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="unknown capture 'flame'"):
        CaptureOptions(("flame",))
    with pytest.raises(ValueError, match="window 20 s must be > 0 and at most the period 10 s"):
        CaptureOptions(("cpu",), window_s=20, period_s=10)


def test_inventory_profile_per_host_and_suite(tmp_path: Path) -> None:
    toml = (
        '[hosts.here]\ntransport = "local"\nprofile = "counters,cpu"\n'
        '[suites.quick]\nworkloads = ["point-query_range=100"]\nprofile = "counters"\n'
    )
    inv = parse_inventory(toml, tmp_path / "b.toml")
    assert inv.host("here").profile == ("counters", "cpu")
    assert inv.suite_profiles == {"quick": ("counters",)}
    plan = make_plan(
        1, inv.host("here"), None, RunRequest("here", "sqlite", "point-query_range=100"), "/r/x", None
    )
    assert plan.capture is not None
    assert (plan.capture.kinds, plan.capture.targets) == (("counters", "cpu"), ("bench",))
    off = RunRequest("here", "sqlite", "point-query_range=100", RunOptions(capture=CaptureOptions(("cpu",))))
    plan = make_plan(1, inv.host("here"), None, off, "/r/x", None)
    assert plan.capture is not None
    assert plan.capture.kinds == ("cpu",), "the run's own --profile wins"
    with pytest.raises(ConfigError, match=r"b.toml:3: hosts.h.profile: unknown capture 'cycles'"):
        parse_inventory('[hosts.h]\ntransport = "local"\nprofile = "cycles"\n', tmp_path / "b.toml")


def test_bad_profile_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    env = dict(os.environ, BENCHDECK_DB=str(tmp_path / "s.duckdb"), BENCHDECK_CONFIG=str(tmp_path / "none"))
    (tmp_path / "none").write_text('[hosts.local]\ntransport = "local"\n')
    res = bd(
        env,
        "run",
        "--host",
        "local",
        "--build",
        "sqlite",
        "--workload",
        "point-query_range=100",
        "--profile",
        "cpu,flame",
    )
    assert res.returncode == 2
    assert "unknown capture 'flame' (use counters, cpu)" in res.stderr
    assert "Traceback" not in res.stderr


C_SOURCE = """
int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * n; return s; }
int more(int n) { int s = 1; for (int i = 1; i < n; i++) s = s * 3 + work(i); return s; }
int again(int n) { int s = 2; for (int i = 2; i < n; i++) s = s * 5 + more(i) - work(s); return s; }
int last(int n) { int s = 3; for (int i = 3; i < n; i++) s = s * 7 + again(i) - more(s); return s; }
int main(int argc, char **argv) { (void)argv; return last(argc + 40) & 1; }
"""


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (("-fno-omit-frame-pointer", "-g"), set()),
        (("-fomit-frame-pointer",), {"frame-pointers"}),
        (("-fno-omit-frame-pointer", "-s"), {"stripped"}),
    ],
)
def test_preflight_reads_symbols_and_frame_pointers_of_a_real_binary(
    tmp_path: Path, flags: tuple[str, ...], expected: set[str]
) -> None:
    """gcc builds the three cases (the o2nofp variants, -O2's default, a stripped one)."""
    src = tmp_path / "w.c"
    src.write_text(C_SOURCE)
    subprocess.run(["gcc", "-O2", "-fno-inline", *flags, "-o", str(tmp_path / "w"), str(src)], check=True)
    found = {line.split()[1] for line in binary_findings(str(tmp_path / "w"))}
    assert found == expected


@pytest.mark.integration
def test_queue_with_profile_counters_feeds_compare_counters(tmp_path: Path) -> None:
    """The whole path: `queue --profile counters` on the built-in builds, perf on this machine,
    the windows stored, `compare --table counters` per operation (a VM's cycles: null)."""
    inv = tmp_path / "inv.toml"
    inv.write_text(f'[hosts.local]\ntransport = "local"\nworkdir = "{tmp_path / "w"}"\n')
    env = dict(os.environ, BENCHDECK_DB=str(tmp_path / "s.duckdb"), BENCHDECK_CONFIG=str(inv))
    runs = ("--host", "local", "--build", "sqlite", "--build", "sqlite-sync", "--workload", "point-query")
    res = bd(
        env,
        "queue",
        *runs,
        "--time",
        "3",
        "--profile",
        "counters",
        "--profile-window",
        "1",
        "--profile-period",
        "1",
        timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    cmp = ("compare", "--host", "local", "--base", "sqlite", "--with", "sqlite-sync", "--table", "counters")
    out = bd(env, *cmp, "--format", "csv")
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    tc = [r for r in rows if r["counter"] == "task-clock"]
    assert len(tc) == 2, rows
    assert all(float(r["value"]) > 0 and int(r["windows"]) >= 2 for r in tc)
    cycles = [r for r in rows if r["counter"] == "cycles"]
    assert cycles, "hardware counters are listed"
    assert all(r["value"] == "" for r in cycles), "not counted on a VM: null, never 0"
