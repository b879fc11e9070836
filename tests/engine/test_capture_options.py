"""What to capture: ``--profile`` on the command line and ``profile`` in the inventory (per
host, per suite), each bad value one line naming what is wrong."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from benchdeck.engine.hosts.inventory import ConfigError, parse_inventory
from benchdeck.engine.planning.plan import RunOptions, RunRequest
from benchdeck.engine.planning.planner import make_plan
from benchdeck.engine.profiling.capture import CaptureOptions
from benchdeck.engine.profiling.host_perf import binary_findings
from tests.cli_helpers import bd


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
