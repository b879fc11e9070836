"""db_bench parser against real recorded output (RocksDB 7.8.3, Debian) and garbage."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdeck.engine.parsers.dbbench import DbBenchParser, parse_command, parse_dbbench_output
from tests.parsers.conftest import RECORDED

# the argv of each recorded run, as README_families.md lists it (shape flags left out)
ARGV = {
    "dbbench_fillseq_byrx.txt": "--benchmarks=fillseq --threads=1",
    "dbbench_readww_byrx.txt": "--benchmarks=readwhilewriting --threads=2 --duration=3",
    "dbbench_fwdrangeww_iobuf.txt": "--benchmarks=seekrandomwhilewriting --threads=2 --duration=3",
    "dbbench_revrangeww_iodir.txt": "--benchmarks=seekrandomwhilewriting --threads=2 --duration=3",
    "dbbench_overwrite_iodir.txt": "--benchmarks=overwrite --threads=2 --duration=3",
    "dbbench_multi_fillseq_overwrite_readww.txt": "--benchmarks=fillseq,overwrite,readwhilewriting --threads=2",  # noqa: E501
    "dbbench_fillseq_progress_cr.txt": "--benchmarks=fillseq --num=300000",
    "dbbench_fillseq_stats_per_interval.txt": "--benchmarks=fillseq --stats_per_interval=1",
    "dbbench_open_error.txt": "--benchmarks=fillseq --num=10",
    "dbbench_unknown_flag.txt": "--benchmarks=fillseq --nosuchflag=1",
    "dbbench_unknown_benchmark.txt": "--benchmarks=fillseq,bogus --num=1000",
    "dbbench_readww_cmdline.txt": None,  # the command is the file's first line
}
# file -> (intervals with the argv, messages)
FILES = {
    "dbbench_fillseq_byrx.txt": (5, 0),
    "dbbench_readww_byrx.txt": (2, 0),
    "dbbench_fwdrangeww_iobuf.txt": (2, 0),
    "dbbench_revrangeww_iodir.txt": (2, 0),
    "dbbench_overwrite_iodir.txt": (2, 0),
    "dbbench_multi_fillseq_overwrite_readww.txt": (4, 0),
    "dbbench_fillseq_progress_cr.txt": (0, 0),
    "dbbench_fillseq_stats_per_interval.txt": (4, 0),
    "dbbench_open_error.txt": (0, 1),
    "dbbench_unknown_flag.txt": (0, 1),
    "dbbench_unknown_benchmark.txt": (0, 1),
    "dbbench_readww_cmdline.txt": (2, 0),
}
RESULT = re.compile(r"^(\S+)\s+:\s+[\d.]+ micros/op (\d+) ops/sec", re.M)
STATS = re.compile(r"thread (\d+): \(\d+,\d+\) ops and \(([\d.]+),")


def lines_of(name: str) -> list[str]:
    """The file split on newlines only (``\\r`` stays inside lines, as the follower delivers it)."""
    return (RECORDED / name).read_bytes().decode("utf-8").split("\n")[:-1]


def argv_of(name: str) -> list[str] | None:
    args = ARGV[name]
    return None if args is None else ["db_bench", *args.split()]


def feed_all(name: str, with_argv: bool = True) -> DbBenchParser:
    p = parse_dbbench_output(lines_of(name), argv_of(name) if with_argv else None)
    assert p.recognised + len(p.skipped) + len(p.messages) == len(lines_of(name))
    return p


def test_recorded_files_listed() -> None:
    assert sorted(p.name for p in RECORDED.glob("dbbench_*.txt")) == sorted(FILES) == sorted(ARGV)


@pytest.mark.parametrize("name", sorted(FILES))
@pytest.mark.parametrize("with_argv", [True, False])
def test_recorded_file_parses_cleanly(name: str, with_argv: bool) -> None:
    text = (RECORDED / name).read_bytes().decode("utf-8")
    p = feed_all(name, with_argv)
    n_intervals, n_messages = FILES[name]
    assert p.skipped == []
    assert len(p.messages) == n_messages
    printed = {n: float(ops) for n, ops in RESULT.findall(text)}
    assert p.results == printed
    s = p.summary()
    if printed:
        assert s.qps == float(RESULT.findall(text)[-1][1]) > 0
        assert s.lat_avg_ms is not None
        assert s.lat_avg_ms > 0
    else:
        assert s.qps is None
    if with_argv:
        assert len(p.intervals) == n_intervals
    ts = [iv.t for iv in p.intervals]
    assert ts == sorted(set(ts))
    assert all(iv.qps is not None and iv.qps > 0 and iv.tps == iv.qps for iv in p.intervals)
    assert p.version == ("7.8.3" if "RocksDB:" in text else None)


def test_single_thread_intervals_are_the_stats_lines() -> None:
    name = "dbbench_fillseq_byrx.txt"
    rates = [float(r) for _, r in STATS.findall((RECORDED / name).read_text())]
    p = DbBenchParser(argv_of(name))
    returned = [iv for line in lines_of(name) if (iv := p.feed(line)) is not None]
    assert [iv.qps for iv in returned] == rates  # each interval as soon as its line arrives
    assert [iv.t for iv in returned] == [1.001155, 2.01393, 3.021966, 4.023089, 5.02439]
    assert {iv.threads for iv in returned} == {1}
    s = p.summary()
    assert (s.qps, s.total_time_s, s.total_events, s.threads) == (256013.0, 5.859, 1500000, 1)
    # latency from the --histogram block (microseconds in the file)
    assert (s.lat_avg_ms, s.lat_max_ms) == (3.9058 / 1000, 319.228)
    assert (s.lat_pct, s.lat_pct_ms) == (99.0, 3.69 / 1000)


def test_writer_thread_excluded_when_the_benchmark_is_known() -> None:
    name = "dbbench_readww_byrx.txt"
    p = DbBenchParser(argv_of(name))
    returned = [(i, iv) for i, line in enumerate(lines_of(name)) if (iv := p.feed(line)) is not None]
    # rounds of readers 2 and 1 (thread 0 is the rate-limited writer)
    assert [iv.qps for _, iv in returned] == [round(12893.3 + 11699.4, 1), round(28673.9 + 27375.9, 1)]
    assert [i for i, _ in returned] == [6, 8]  # emitted on the line completing the round
    assert {iv.threads for _, iv in returned} == {2}
    assert p.results == {"readwhilewriting": 54149.0}
    assert p.summary().threads == 2
    assert p.ended
    # without the command, the writer counts and each round waits for the next one
    q = feed_all(name, with_argv=False)
    assert [iv.qps for iv in q.intervals] == [round(16753.8 + 12893.3 + 11699.4, 1), 72924.0]


def test_command_line_in_the_output() -> None:
    p = feed_all("dbbench_readww_cmdline.txt", with_argv=False)
    assert (p.command or "").startswith("/usr/bin/db_bench ")
    assert (p.options["benchmarks"], p.options["threads"]) == ("readwhilewriting", "2")
    assert all(iv.threads == 2 for iv in p.intervals)
    assert p.summary().options["duration"] == "3"


def test_multiple_benchmarks() -> None:
    p = feed_all("dbbench_multi_fillseq_overwrite_readww.txt")
    assert list(p.results) == ["fillseq", "overwrite", "readwhilewriting"]
    assert [r.operations for r in p.result_list] == [800000, 133998, 45998]
    assert p.result_list[-1].message == "(22999 of 22999 found)"
    assert p.summary().qps == 21987.0  # the last result
    # t keeps growing across benchmarks: overwrite starts after fillseq's 2.956 s
    expected = [1.040635, 2.058236, 2.956 + 1.070155, 2.956 + 2.019 + 1.083138]
    assert [iv.t for iv in p.intervals] == pytest.approx(expected)
    assert p.intervals[-1].threads == 2  # readers 1 and 2; the writer (thread 0) left out


def test_progress_chain_with_carriage_returns() -> None:
    name = "dbbench_fillseq_progress_cr.txt"
    lines = lines_of(name)
    assert sum("\r" in x for x in lines) == 1
    p = feed_all(name)
    assert p.results == {"fillseq": 296254.0}
    # split on every line break (splitlines), each progress segment is a line of its own
    q = parse_dbbench_output((RECORDED / name).read_bytes().decode().splitlines(), argv_of(name))
    assert q.skipped == []
    assert q.results == p.results


def test_error_messages() -> None:
    assert feed_all("dbbench_open_error.txt").messages[0].text.startswith("open error: IO error: ")
    assert feed_all("dbbench_unknown_flag.txt").messages[0].text.startswith("ERROR: unknown command line")
    p = feed_all("dbbench_unknown_benchmark.txt")
    assert p.messages[0].text == "unknown benchmark 'bogus'"
    assert p.results == {"fillseq": 118807.0}


def test_older_result_format_and_message_without_rate() -> None:
    p = DbBenchParser()
    p.feed("overwrite    :       7.939 micros/op 125963 ops/sec;   50.5 MB/s")
    p.feed("readrandom   :  2.000 micros/op 500000 ops/sec 1.000 seconds 500000 operations; (5 of 9 found)")
    assert p.results == {"overwrite": 125963.0, "readrandom": 500000.0}
    assert (p.result_list[0].seconds, p.result_list[0].mb_s) == (None, 50.5)
    assert (p.result_list[1].mb_s, p.result_list[1].message) == (None, "(5 of 9 found)")
    assert p.skipped == []


def test_parse_command() -> None:
    cmd = parse_command("/usr/bin/time -f '%e' ./db_bench --benchmarks=fillseq -threads=4 --histogram 2>&1")
    assert cmd is not None
    assert cmd[1] == {"benchmarks": "fillseq", "threads": "4", "histogram": "true"}
    assert parse_command("db_bench") is None
    assert parse_command("echo hello") is None
    assert parse_command(["/opt/db_bench_7", "--num=5"]) == ("/opt/db_bench_7 --num=5", {"num": "5"})


GARBAGE = ["", "x", "nan", "-1", "... thread 0: (1,2) ops", "fillseq : fast", "thread 0:", ":", "\r", "a\rb"]


@pytest.mark.parametrize("line", GARBAGE)
def test_garbage_is_skipped_or_blank(line: str) -> None:
    p = DbBenchParser()
    assert p.feed(line) is None
    assert p.recognised + len(p.skipped) == 1
    assert p.messages == []
    assert (p.recognised == 1) == (line.strip() == "")


real_lines = st.sampled_from([x for name in sorted(FILES) for x in lines_of(name)])
any_line = st.one_of(st.text(max_size=120), real_lines, real_lines.map(lambda s: s[: len(s) // 2]))


@settings(max_examples=300, deadline=None)
@given(st.lists(any_line, max_size=30))
def test_never_raises_and_accounts_for_every_line(lines: list[str]) -> None:
    p = DbBenchParser(["db_bench", "--benchmarks=readwhilewriting,fillseq", "--threads=2"])
    for line in lines:
        p.feed(line)
    p.flush()
    assert p.recognised + len(p.skipped) + len(p.messages) == len(lines)
    assert all(math.isfinite(iv.t) and iv.qps is not None and math.isfinite(iv.qps) for iv in p.intervals)
    s = p.summary()
    assert s.qps is None or math.isfinite(s.qps)
