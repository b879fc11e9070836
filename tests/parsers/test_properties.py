"""Property tests: arbitrary and mutated lines never raise, never invent numbers, never vanish.

Each parser accounts for every line exactly once: a record, ``recognised`` or ``skipped``
(sysbench also ``messages``). Any record yielded by a line only holds numbers written in it.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import astuple

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdeck.engine.parsers import IostatParser, SysbenchParser, VmstatParser
from benchdeck.engine.records import BenchInterval, IostatSample, VmstatSample
from tests.parsers.conftest import RECORDED, read_lines

SYSBENCH = sorted(p.name for p in RECORDED.glob("sysbench*.txt"))
VMSTAT = sorted(p.name for p in RECORDED.glob("vmstat*.txt"))
IOSTAT = sorted(p.name for p in RECORDED.glob("iostat*.txt"))
GARBAGE = ["", "x", "nan", "-1", "0", "1e5", "-nan", "inf", "12,5", "١٢", "[", "{", "}", ":"]

line_text = st.text(st.characters(blacklist_characters="\r\n"), max_size=200)
# lines that look like the tools' output: digits, separators, the tools' words
tool_words = st.sampled_from(
    ["[ 1s ]", "thds:", "tps:", "qps:", "eps:", "(r/w/o:", "lat", "(ms,95%):", "err/s:",
     "reconn/s:", "r", "b", "us", "sy", "Device", "r/s", "w/s", "rkB/s", "wkB/s", "procs",
     "avg-cpu:", "vda", "1", "0.00", "12.34", "1,2", "{", "}", '"time":', "sysbench"]
)  # fmt: skip
numbers = st.builds("{}.{:02d}".format, st.integers(0, 99999), st.integers(0, 99)) | st.integers(
    0, 10**6
).map(str)
toolish = st.lists(st.one_of(tool_words, numbers), max_size=25)
toolish_line = toolish.map(" ".join)
any_line = st.one_of(line_text, toolish_line)


def numbers_in(text: str) -> set[float]:
    """Numbers written in ``text`` (a comma read both as a separator and as a decimal point)."""
    found = re.findall(r"(?a)\d+(?:\.\d+)?", text) + re.findall(r"(?a)\d+,\d+", text)
    return {float(x.replace(",", ".")) for x in found}


def check_values(record: BenchInterval | VmstatSample | IostatSample, line: str) -> None:
    """Every number in a record comes from its line (so no made-up zeros)."""
    found = numbers_in(line)
    values = [v for v in astuple(record) if isinstance(v, int | float) and not isinstance(v, bool)]
    if isinstance(record, BenchInterval) and record.qps is None:
        values = values[:-2]  # eps lines carry no err/s and reconn/s
    if isinstance(record, VmstatSample | IostatSample):
        values = values[1:]  # seq is the parser's counter
    for v in values:
        assert math.isfinite(v)
        assert v in found or v / 1024 in found, (v, line)


def feed_sysbench(lines: list[str]) -> SysbenchParser:
    p = SysbenchParser()
    for line in lines:
        iv = p.feed(line)
        if iv is not None and line.strip() not in ("}", "},"):
            check_values(iv, line)
    p.flush()
    assert len(p.intervals) + p.recognised + len(p.skipped) + len(p.messages) == len(lines)
    return p


def feed_vmstat(lines: list[str]) -> VmstatParser:
    p = VmstatParser()
    for line in lines:
        if (sample := p.feed(line)) is not None:
            check_values(sample, line)
    assert len(p.samples) + p.recognised + len(p.skipped) == len(lines)
    assert [s.seq for s in p.samples] == list(range(len(p.samples)))
    return p


def feed_iostat(lines: list[str], **kw: object) -> IostatParser:
    p = IostatParser(**kw)  # type: ignore[arg-type]
    pretty = any(line.split()[-1:] == ["Device"] for line in lines)
    for i, line in enumerate(lines):
        out = p.feed(line)
        assert len(out) <= 1
        for sample in out:  # --pretty merges a device's rows of one report's four groups
            check_values(sample, "\n".join(lines[max(0, i - 11) : i + 1]) if pretty else line)
    assert len(p.samples) + p.recognised + len(p.skipped) == len(lines)
    return p


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(any_line, max_size=30))
def test_arbitrary_lines_never_raise(lines: list[str]) -> None:
    feed_sysbench(lines)
    feed_vmstat(lines)
    feed_iostat(lines)


@st.composite
def mutated(draw: st.DrawFn, names: list[str]) -> list[str]:
    lines = read_lines(draw(st.sampled_from(names)))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        tokens = lines[i].split(" ")
        kind = draw(st.sampled_from(["truncate", "garbage", "swap", "drop", "insert", "dup"]))
        if kind == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, max(0, len(lines[i]) - 1)))]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif tokens:
            j = draw(st.integers(0, len(tokens) - 1))
            k = draw(st.integers(0, len(tokens) - 1))
            if kind == "garbage":
                tokens[j] = draw(st.one_of(st.sampled_from(GARBAGE), line_text))
            elif kind == "swap":
                tokens[j], tokens[k] = tokens[k], tokens[j]
            elif kind == "drop":
                del tokens[j]
            else:
                tokens.insert(j, draw(st.sampled_from(GARBAGE)))
            lines[i] = " ".join(tokens)
    return lines


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(SYSBENCH))
def test_mutated_sysbench(lines: list[str]) -> None:
    feed_sysbench(lines)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(VMSTAT))
def test_mutated_vmstat(lines: list[str]) -> None:
    feed_vmstat(lines)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(IOSTAT), st.sampled_from([None, "vda", "nvme0n1", "md0", "sdb"]), st.booleans())
def test_mutated_iostat(lines: list[str], device: str | None, drop: bool) -> None:
    feed_iostat(lines, device=device, drop_first_report=drop)


def test_unrecognised_lines_land_in_skipped() -> None:
    junk = ["zz top", "zz 1 2 3", "zz [ 1s ] thds: 1", "zz procs", "zz Device"]
    for feed in (feed_sysbench, feed_vmstat, feed_iostat):
        p = feed(junk)
        assert [s.text for s in p.skipped] == junk
        assert all(s.reason for s in p.skipped)


def test_long_lines_stay_fast() -> None:
    """No regex backtracks badly: 100 kB lines of the tools' characters parse quickly."""
    cases = [
        "-" * 50000 + "c",
        "--procs-- " + "-" * 50000 + "c",
        "1," * 50000,
        "avg: " + "9" * 100000,
        "Linux x (y) " + "(" * 50000 + " CPU)",
        "[ 1s ] thds: " + "1 " * 50000,
        " " * 50000 + ":" + "x" * 50000,
        "Device r/s " + "x " * 50000,
        "value " + "-" * 50000 + " distribution",
    ]
    start = time.perf_counter()
    for feed in (feed_sysbench, feed_vmstat, feed_iostat):
        feed(cases)
    assert time.perf_counter() - start < 2.0
