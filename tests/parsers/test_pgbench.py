"""pgbench parser against real recorded output (PostgreSQL 15.18), older hand-written layouts, garbage."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdeck.engine.parsers.pgbench import PgbenchParser, parse_command, parse_pgbench_output
from tests.parsers.conftest import RECORDED, field

# file -> (intervals, messages, aborted, version)
FILES = {
    "pgbench_init_s2_q.txt": (0, 0, False, None),
    "pgbench_select_only_c2_j2_T3.txt": (2, 0, False, "15.18"),
    "pgbench_tpcb_like_c2_j1_T3.txt": (3, 0, False, "15.18"),
    "pgbench_tpcb_like_rate_limit_r.txt": (3, 0, False, "15.18"),
    "pgbench_select_only_progress_timestamp.txt": (2, 0, False, "15.18"),
    "pgbench_tpcb_like_t500_max_tries.txt": (1, 0, False, "15.18"),
    "pgbench_tpcb_like_aborted.txt": (1, 3, True, "15.18"),
    "pgbench_tpcb_like_simple_aborted.txt": (1, 7, True, "15.18"),
    "pgbench_no_tables.txt": (0, 4, False, "15.18"),
    "pgbench_connection_refused.txt": (0, 3, False, None),
    "pgbench_pg13_hand.txt": (3, 0, False, "13.11"),
    "pgbench_pg96_custom_rate_hand.txt": (2, 1, True, None),
}
PROGRESS = re.compile(r"^progress: ([\d.]+) s, ([\d.]+) tps, lat ([\d.]+) ms", re.M)


def lines_of(name: str) -> list[str]:
    return (RECORDED / name).read_bytes().decode("utf-8").split("\n")[:-1]


def feed_all(name: str, argv: list[str] | None = None) -> PgbenchParser:
    p = parse_pgbench_output(lines_of(name), argv)
    assert len(p.intervals) + p.recognised + len(p.skipped) + len(p.messages) == len(lines_of(name))
    return p


def test_recorded_files_listed() -> None:
    assert sorted(p.name for p in RECORDED.glob("pgbench_*.txt")) == sorted(FILES)


@pytest.mark.parametrize("name", sorted(FILES))
def test_recorded_file_parses_cleanly(name: str) -> None:
    lines = lines_of(name)
    text = "\n".join(lines)
    p = feed_all(name)
    n_intervals, n_messages, aborted, version = FILES[name]
    assert p.skipped == []
    assert (len(p.intervals), len(p.messages)) == (n_intervals, n_messages)
    assert (p.aborted, p.version) == (aborted, version)
    printed = PROGRESS.findall(text)
    assert [(iv.tps, iv.latency_ms) for iv in p.intervals] == [(float(b), float(c)) for _, b, c in printed]
    if "timestamp" not in name:
        assert [iv.t for iv in p.intervals] == [float(a) for a, _, _ in printed]
    s = p.summary()
    if "tps = " not in text:
        assert (s.tps, s.eps) == (None, None)
        return
    tps = float(field(lines, r"^tps = ([\d.]+) \((?:without|excluding)"))
    assert s.tps == s.eps == tps > 0
    assert s.qps is None
    assert s.threads == int(field(lines, r"number of clients: (\d+)"))
    assert s.transactions == s.total_events == int(field(lines, r"actually processed: (\d+)"))
    assert s.lat_avg_ms == float(field(lines, r"latency average = ([\d.]+) ms"))
    assert p.lat_stddev_ms == float(field(lines, r"latency stddev = ([\d.]+) ms"))
    assert p.ended


def test_report_details() -> None:
    p = feed_all("pgbench_select_only_c2_j2_T3.txt")
    s = p.summary()
    assert s.options == {
        "builtin": "select-only", "scale": "2", "protocol": "prepared", "client": "2", "jobs": "2",
    }  # fmt: skip
    assert (s.total_time_s, s.ignored_errors, p.connection_ms) == (3.0, 0, 29.639)
    assert feed_all("pgbench_tpcb_like_t500_max_tries.txt").summary().options["transactions"] == "500"
    old = feed_all("pgbench_pg13_hand.txt").summary()
    assert old.tps == 840.581604  # excluding connections establishing, not including
    assert feed_all("pgbench_pg96_custom_rate_hand.txt").summary().options["file"] == "insert_one.sql"


def test_intervals_carry_clients_from_the_command() -> None:
    argv = ["/usr/lib/postgresql/15/bin/pgbench", "-h", "127.0.0.1", "-p", "5432", "-U", "bench"]
    argv += ["-b", "tpcb-like", "-c", "2", "-j", "1", "-T", "3", "--progress=1", "-M", "prepared", "sbtest"]
    p = PgbenchParser(argv)
    returned = [iv for line in lines_of("pgbench_tpcb_like_c2_j1_T3.txt") if (iv := p.feed(line)) is not None]
    assert [iv.threads for iv in returned] == [2, 2, 2]
    assert (p.options["client"], p.options["time"], p.options["dbname"]) == ("2", "3", "sbtest")
    assert {iv.threads for iv in feed_all("pgbench_tpcb_like_c2_j1_T3.txt").intervals} == {0}  # unknown


def test_progress_timestamp_counts_from_the_first_report() -> None:
    p = feed_all("pgbench_select_only_progress_timestamp.txt")
    assert [iv.t for iv in p.intervals] == [0.0, 1.002]


def test_rate_limit_and_retries_columns() -> None:
    p = feed_all("pgbench_tpcb_like_rate_limit_r.txt")
    assert [iv.latency_ms for iv in p.intervals] == [4.962, 9.058, 4.742]
    q = PgbenchParser()
    iv = q.feed("progress: 2.0 s, 100.0 tps, lat 1.000 ms stddev 0.100, 4 failed, 2 retried, 3 retries")
    assert iv is not None
    assert iv.errors_s == 2.0  # 4 failed in 2 s
    assert q.feed("progress: 3.0 s, 0.0 tps, lat 0.000 ms stddev -nan") == q.intervals[-1]
    assert q.intervals[-1].latency_ms is None  # no transaction: no latency


def test_error_messages_keep_their_continuation_lines() -> None:
    p = feed_all("pgbench_tpcb_like_simple_aborted.txt")
    assert [m.text.split(":")[0] for m in p.messages[:3]] == ["pgbench", "LINE 1", "               ^"]
    assert p.messages[-1].text == "pgbench: error: Run was aborted; the above results are incomplete."
    refused = feed_all("pgbench_connection_refused.txt")
    assert refused.messages[1].text.startswith("\tIs the server running")


def test_parse_command() -> None:
    cmd = parse_command("pgbench -nS -c4 -j 2 --time 60 -P 1 --protocol=prepared bench > out.txt")
    assert cmd is not None
    assert cmd[1] == {"no-vacuum": "on", "builtin": "select-only", "client": "4", "jobs": "2", "time": "60",
                      "progress": "1", "protocol": "prepared", "dbname": "bench"}  # fmt: skip
    assert parse_command("echo pgbench") is None


GARBAGE = ["x", "nan", "-1", "progress:", "progress: 1.0 s, fast", "tps = lots", ":", "latency average = x"]


@pytest.mark.parametrize("line", GARBAGE)
def test_garbage_is_skipped(line: str) -> None:
    p = PgbenchParser()
    assert p.feed(line) is None
    assert (len(p.skipped), p.recognised, len(p.messages)) == (1, 0, 0)


real_lines = st.sampled_from([x for name in sorted(FILES) for x in lines_of(name)])
any_line = st.one_of(st.text(max_size=120), real_lines, real_lines.map(lambda s: s[: len(s) // 2]))


@settings(max_examples=300, deadline=None)
@given(st.lists(any_line, max_size=30))
def test_never_raises_and_accounts_for_every_line(lines: list[str]) -> None:
    p = PgbenchParser()
    for line in lines:
        p.feed(line)
    assert len(p.intervals) + p.recognised + len(p.skipped) + len(p.messages) == len(lines)
    assert all(math.isfinite(iv.t) and math.isfinite(iv.tps) for iv in p.intervals)
    s = p.summary()
    assert s.tps is None or math.isfinite(s.tps)
