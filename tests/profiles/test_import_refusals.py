"""``benchdeck import profile`` takes what it says it reads (folded stacks, real ``perf script``
output, flamegraph.pl SVGs, each also gzip'd) and refuses anything else in one line naming the
file and what it looks like; an import beside a run's captured profile never replaces it; an
imported profile of unknown length gives ratios only.

The files: a real perf.data recorded here (perf record of ``true``), random bytes, a text of
words, and tests/data/perf (real perf script output of a C++ program, flamegraph.pl's SVG of it,
see its README)."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
from pathlib import Path

import pytest

from benchdeck.engine.profiling.records import ProfileWindow
from benchdeck.engine.profiling.svg import flame_svg
from benchdeck.engine.profiling.tree import build_tree
from benchdeck.store.storage.captures import append_profiles
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import set_status
from tests.fixtures.cli_helpers import bd
from tests.fixtures.servers import MissingBinary, require
from tests.profiles.data import BASE, BASE_STACKS, add_run, build_profile_store

DATA = Path(__file__).parent.parent / "data" / "perf"
WORDS = "The quick brown fox jumps over the lazy dog.\nIt was the best of times, 1859\n" * 40


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    build_profile_store(tmp_path / "p.duckdb")  # runs 1-5; run 5 has no profile
    return {**os.environ, "BENCHDECK_DB": str(tmp_path / "p.duckdb")}


def _perf_data(tmp_path: Path) -> Path:
    """A real perf.data, recorded here; a file with perf.data's header where perf is missing."""
    out = tmp_path / "perf.data"
    try:
        perf = require("perf", "linux-perf")
        subprocess.run([perf, "record", "-q", "-o", str(out), "--", "true"], capture_output=True, timeout=60)
    except (MissingBinary, subprocess.TimeoutExpired):
        pass
    if not out.exists() or out.stat().st_size == 0:
        out.write_bytes(b"PERFILE2" + bytes(256))
    return out


def test_garbage_is_refused_in_one_line_naming_the_file(env: dict[str, str], tmp_path: Path) -> None:
    noise = tmp_path / "noise.bin"
    noise.write_bytes(random.Random(37).randbytes(8192))
    words = tmp_path / "words.txt"
    words.write_text(WORDS)
    zipped_words = tmp_path / "words.txt.gz"
    zipped_words.write_bytes(gzip.compress(WORDS.encode()))
    perf_words = tmp_path / "perf-like.txt"  # one perf header, then prose: mostly not perf's
    perf_words.write_text("mysqld 12 [000] 1.000: 1 cycles:\n\tab f+0x1 (/bin/x)\n\n" + WORDS)
    for f, says in [
        (
            _perf_data(tmp_path),
            "a binary perf.data file (perf record's own): turn it into text with "
            "'perf script -i perf.data > perf.data.txt' on the host that recorded it",
        ),
        (noise, "binary data, 8,192 bytes: not folded stacks, perf script or an SVG"),
        (words, "a text of 80 lines that is none of folded stacks"),
        (
            zipped_words,
            "perf script output (no sample header such as 'comm pid time: period event:') or an SVG (inside",
        ),
        (perf_words, "mostly not perf script output: 80 of 82 lines are neither sample headers nor frames"),
    ]:
        out = bd(env, "import", "profile", "5", str(f))
        assert out.returncode == 1, (f, out.stdout)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        assert lines[0].startswith(f"benchdeck: {f}: ")
        assert says in lines[0]
    assert "no stored profile" in bd(env, "profile", "5").stderr, "nothing was stored"


def test_real_perf_script_svgs_and_their_gzip_are_read(env: dict[str, str], tmp_path: Path) -> None:
    script = (DATA / "cpp_templates.script.txt").read_bytes()
    zipped = tmp_path / "cpp.perf.txt.gz"
    zipped.write_bytes(gzip.compress(script))
    ours = tmp_path / "ours.svg"
    ours.write_text(flame_svg(build_tree([(s, n, 0.0) for s, n in BASE_STACKS.items()]), "t"))
    # perf script says its event and, by a cpu-clock sample's period (5,076,142 ns), its frequency
    for f, args, says in [
        (DATA / "cpp_templates.script.txt", [], "21 stacks imported (perf-script, cpu-clock at 197 Hz)"),
        (zipped, [], "21 stacks imported (perf-script, cpu-clock at 197 Hz)"),
        (
            DATA / "cpp_templates.flamegraph.svg.gz",
            ["--frequency", "197"],
            "21 stacks imported (svg, cpu-clock at 197 Hz)",
        ),
        (ours, ["--frequency", "1000"], "5 stacks imported (svg, cpu-clock at 1000 Hz)"),
    ]:
        out = bd(env, "import", "profile", "5", str(f), *args, "--seconds", "0.75")
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[0] == f"run 5: {says}"
    folded = bd(env, "profile", "5", "--format", "folded").stdout
    assert folded == "".join(f"{s} {n}\n" for s, n in sorted(BASE_STACKS.items())), "the last import"
    # the flamegraph.pl SVG's counts are perf's periods: its stacks are the script's, x the period
    svg_gz = str(DATA / "cpp_templates.flamegraph.svg.gz")
    assert bd(env, "import", "profile", "5", svg_gz, "--event", "cycles").returncode == 0
    svg = dict(ln.rsplit(" ", 1) for ln in bd(env, "profile", "5", "--format", "folded").stdout.splitlines())
    expected = dict(
        ln.rsplit(" ", 1) for ln in (DATA / "cpp_templates.stackcollapse.folded").read_text().splitlines()
    )
    assert svg == expected
    # a cycles perf script is weighed as stackcollapse-perf.pl weighs it: in cycles, as its SVG
    cycles = tmp_path / "cycles.txt"
    cycles.write_text(
        "postgres 7 [000] 1.0: 250000 cycles:P:\n\t a f+0x1 (/bin/pg)\n\n"
        "postgres 7 [000] 1.1: 750000 cycles:P:\n\t a f+0x1 (/bin/pg)\n\t b g+0x1 (/bin/pg)\n\n"
    )
    out = bd(env, "import", "profile", "5", str(cycles), "--seconds", "1")
    assert out.stdout.splitlines()[0] == "run 5: 2 stacks imported (perf-script, cycles)"
    assert bd(env, "profile", "5", "--format", "folded").stdout == "postgres;f 250000\npostgres;g;f 750000\n"


def test_an_import_beside_a_captured_profile_keeps_it(env: dict[str, str], tmp_path: Path) -> None:
    with Store.open(Path(env["BENCHDECK_DB"])) as store:
        rid = add_run(store, BASE, None)
        stacks = tuple(sorted(BASE_STACKS.items()))
        captured = [
            ProfileWindow(n, 10.0, "cpu-clock", 1000.0, stacks, 5.0 + 12 * n, "all") for n in range(2)
        ]
        with store.transaction() as cur:
            append_profiles(cur, [(rid, captured)])  # as the capture stores its windows
    f = tmp_path / "other.folded"
    f.write_text("mysqld;other 700\n")
    before = bd(env, "profile", str(rid), "--format", "json").stdout
    out = bd(env, "import", "profile", str(rid), str(f))
    assert out.returncode == 1
    assert f"run {rid} has a captured profile (2 windows): give --beside" in out.stderr
    assert bd(env, "profile", str(rid), "--format", "json").stdout == before
    out = bd(env, "import", "profile", str(rid), str(f), "--beside")
    assert out.returncode == 0, out.stderr
    assert (
        f"kept beside its captured profile (2 windows): benchdeck profile {rid} --source imported"
        in out.stdout
    )
    assert bd(env, "profile", str(rid), "--format", "json").stdout == before, "the captured windows stay"
    imported = bd(env, "profile", str(rid), "--source", "imported", "--format", "folded").stdout
    assert imported == "mysqld;other 700\n"
    again = bd(env, "import", "profile", str(rid), str(f), "--beside", "--seconds", "5")
    assert again.returncode == 0, again.stderr
    with Store.open(Path(env["BENCHDECK_DB"])) as store:
        rows = (
            store.cursor()
            .execute("SELECT window_no, source FROM profile_windows WHERE run_id = ? ORDER BY 1", [rid])
            .fetchall()
        )
    assert rows == [(0, "perf record -g"), (1, "perf record -g"), (2, "folded")], "one import, replaced"
    with Store.open(Path(env["BENCHDECK_DB"])) as store, store.transaction() as cur:
        set_status(cur, rid, "running")  # its capture may still store windows
    running = bd(env, "import", "profile", str(rid), str(f), "--beside")
    assert f"run {rid} is running: import its profile when it has ended" in running.stderr


def test_an_import_of_unknown_length_gives_ratios_only(env: dict[str, str], tmp_path: Path) -> None:
    f = tmp_path / "p.folded"
    f.write_text("mysqld;a 300\nmysqld;a;b 700\n")
    out = bd(env, "import", "profile", "5", str(f), "--event", "cycles")
    assert out.returncode == 0, out.stderr
    assert "run 5: how long perf recorded is unknown: shares of the samples (%) only" in out.stdout
    text = bd(env, "profile", "5").stdout
    assert text.splitlines()[0].endswith(
        "1,000 samples; how long perf recorded is unknown: "
        "shares of the samples (%) only, no figure per query (import with --seconds for one)"
    )
    assert "cycles/q" not in text
    assert "queries" not in text
    data = json.loads(bd(env, "profile", "5", "--format", "json").stdout)
    assert (data["base"]["unit"], data["base"]["queries"], data["base"]["cpu_per_query"]) == ("%", None, None)
    assert {f["function"]: round(f["self"], 6) for f in data["functions"]} == {
        "b": 70.0,
        "a": 30.0,
        "mysqld": 0.0,
    }
    # against a run measured per query: both sides in shares
    diff = bd(env, "profile", "1", "5").stdout
    assert "diff %" in diff
    assert "us/q" not in diff
