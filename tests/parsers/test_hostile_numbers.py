"""Hostile input for every parser: numbers past any range, the reproductions of issue 11, and
mutated recorded outputs. No exception escapes; every line is a record, recognised or skipped."""

from __future__ import annotations

import math
import re
import shlex
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdeck.engine.parsers import IostatParser, SysbenchParser, VmstatParser
from benchdeck.engine.parsers.command import command_words, split_shell
from benchdeck.engine.parsers.dbbench import DbBenchParser
from benchdeck.engine.parsers.insertbench import InsertBenchParser
from benchdeck.engine.parsers.pgbench import PgbenchParser
from benchdeck.engine.parsers.sysbench import parse_sysbench_output
from tests.parsers.conftest import RECORDED, read_lines

BIG = "9" * 5000  # past Python's 4,300-digit int() limit
B400 = "9" * 400  # a float of it is inf; an int of it overflows a float
HUGE = ["9223372036854775808", "2147483648", "4294967296", "1" + "0" * 39, B400, BIG, "1e400"]

PARSERS: dict[str, Callable[[], Any]] = {
    "sysbench": SysbenchParser,
    "vmstat": VmstatParser,
    "iostat": IostatParser,
    "dbbench": DbBenchParser,
    "pgbench": PgbenchParser,
    "insertbench": InsertBenchParser,
}
FILES = {
    name: sorted(p.name for p in RECORDED.glob(f"{name}*.txt")) for name in PARSERS
}  # fmt: skip


def feed_all(name: str, lines: list[str]) -> Any:
    """Feed every line, end the input, read the summary: nothing may raise."""
    p = PARSERS[name]()
    for line in lines:
        p.feed(line)
    if hasattr(p, "flush"):
        p.flush()
    if hasattr(p, "summary"):
        s = p.summary()
        for v in (s.eps, s.qps, s.tps, s.total_time_s):
            assert v is None or math.isfinite(v)
    return p


SYSBENCH_REPRODUCTIONS = [
    f"[ 1s ] thds: {BIG} tps: 1.00 qps: 2.00 (r/w/o: 1.00/1.00/0.00) lat (ms,95%): 1.00 "
    "err/s: 0.00 reconn/s: 0.00",
    f"[ 1s ] thds: {BIG} eps: 1.00 lat (ms,95%): 1.00",
    f"1,{BIG},1.00,1.00,1.00,1.00,1.00,1.00,1.00,1.00",
    f"Number of threads: {BIG}",
    f"    queries performed: {BIG}",
    f"    queries:          {BIG} (1.00 per sec.)",
    f"    transactions:     1 ({B400}.00 per sec.)",
    f"    {B400}th percentile: 1.64",
    '{"time": 1, "threads": ' + B400 + ', "tps": 1, "qps": {"total": 1, "reads": 1, '
    '"writes": 0, "other": 0}, "latency": 1, "errors": 0, "reconnects": 0}',
    f"    total number of events:  {B400}",
]


@pytest.mark.parametrize("line", SYSBENCH_REPRODUCTIONS, ids=range(len(SYSBENCH_REPRODUCTIONS)))
def test_sysbench_huge_numbers_are_skipped_lines(line: str) -> None:
    sections = ["SQL statistics:", "queries performed:", "General statistics:", "Latency (ms):"]
    for section in sections:
        r = parse_sysbench_output([section, line])
        assert [s.text for s in r.skipped] == [line], section
        assert r.skipped[0].reason
        assert not r.intervals


def test_th_percentile_without_a_number_is_an_unrecognised_line() -> None:
    r = parse_sysbench_output(["Latency (ms):", "         th percentile:  1.64"])
    assert [s.reason for s in r.skipped] == ["unrecognised line"]
    assert r.summary.lat_pct is None


def test_eps_fallback_stays_finite() -> None:
    r = parse_sysbench_output(
        ["General statistics:", "    total time:   0." + "0" * 400 + "1s",
         "    total number of events:  9000000000000000000"]
    )  # fmt: skip
    assert r.summary.total_events == 9_000_000_000_000_000_000
    assert r.summary.eps is None


@st.composite
def hostile(draw: st.DrawFn, name: str) -> list[str]:
    """A recorded output of ``name`` with a few tokens replaced by huge or odd numbers."""
    lines = read_lines(draw(st.sampled_from(FILES[name])))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        tokens = lines[i].split(" ")
        j = draw(st.integers(0, len(tokens) - 1))
        huge = draw(st.sampled_from(HUGE))
        tok = tokens[j]
        kind = draw(st.sampled_from(["replace", "digits", "append", "prefix"]))
        if kind == "replace":
            tokens[j] = huge
        elif kind == "digits":  # keep the token's shape: every digit run becomes huge
            tokens[j] = re.sub(r"\d+", huge, tok)
        elif kind == "append":
            tokens[j] = tok + huge
        else:
            tokens[j] = huge + tok
        lines[i] = " ".join(tokens)
    return lines


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_hostile_numbers_never_raise(name: str) -> None:
    assert FILES[name], f"no recorded {name} outputs"

    @settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hostile(name))
    def check(lines: list[str]) -> None:
        p = feed_all(name, lines)
        kept = len(getattr(p, "intervals", getattr(p, "samples", [])))
        skipped = len(p.skipped) + len(getattr(p, "messages", []))
        assert kept + skipped <= len(lines) + 1  # iostat --pretty may merge rows
        for rec in getattr(p, "intervals", getattr(p, "samples", [])):
            for v in vars(rec).values() if hasattr(rec, "__dict__") else ():
                assert not isinstance(v, float) or math.isfinite(v)

    check()


shellish = st.text(st.sampled_from(list("ab '\"\\\t\n#$=-|;")), max_size=40)


@settings(max_examples=400, derandomize=True)
@given(shellish)
def test_split_shell_is_shlex_split(line: str) -> None:
    try:
        expected: list[str] | None = shlex.split(line)
    except ValueError:
        expected = None
    try:
        got: list[str] | None = split_shell(line)
    except ValueError:
        got = None
    assert got == expected


@pytest.mark.parametrize(
    "line",
    [
        "sysbench --mysql-password=" + "x" * 1_000_000 + " oltp_read_only run",
        "sysbench --mysql-password='" + "x\\" * 500_000 + "' run",
        'sysbench --mysql-password="' + "x\\" * 500_000,  # unclosed: split at whitespace
        "sysbench " + "--a=b " * 170_000,
        "sysbench " + '"a"' * 300_000,
    ],
    ids=["password", "quoted", "unclosed", "many-words", "many-quotes"],
)
def test_one_megabyte_command_line_is_read_in_linear_time(line: str) -> None:
    """shlex.split took 7.4 s at 800k characters; the reader must stay well under a second."""
    start = time.perf_counter()
    words, _ = command_words(line)
    elapsed = time.perf_counter() - start
    assert words[0] == "sysbench"
    assert elapsed < 1.5, elapsed  # ~0.02-0.25 s here; shared 2-core CI machines are slow


@pytest.mark.parametrize("size", ["1" + "0" * 39, "9" * 400, "9" * 5000])
def test_scan_rate_from_a_huge_table_size_never_raises(size: str) -> None:
    from benchdeck.engine.metrics import run_qps
    from benchdeck.engine.records import SysbenchSummary

    s = SysbenchSummary(lat_avg_ms=0.01, options={"table-size": size})
    qps = run_qps(s, "scan_range=100")
    assert qps is None or math.isfinite(qps)
