"""sysbench parser against real recorded output (1.0.20) and fixtures modelled on 1.1."""

from __future__ import annotations

import re

import pytest

from benchdeck.engine.parsers import SysbenchParser, parse_interval, parse_sysbench_output
from benchdeck.engine.records import BenchInterval
from tests.parsers.conftest import field, read_lines

# file -> (interval count, version, test has SQL statistics)
FILES = {
    "sysbench_cpu_time3.txt": (2, "1.0.20", False),
    "sysbench_cpu_pct0.txt": (2, "1.0.20", False),
    "sysbench_cpu_pct99_histogram.txt": (1, "1.0.20", False),
    "sysbench_memory_time2.txt": (0, "1.0.20", False),
    "sysbench_oltp_point_select.txt": (5, "1.0.20", True),
    "sysbench_oltp_read_write_cmdline.txt": (5, "1.0.20", True),
    "sysbench_oltp_read_write_report_csv.txt": (5, "1.0.20", True),
    "sysbench_oltp_read_write_report_json.txt": (5, "1.0.20", True),
    "sysbench_oltp_read_write_report_default.txt": (5, "1.0.20", True),
    "sysbench11_update_index_hand.txt": (0, "1.1.0-df89d34", True),
    "sysbench11_read_only_intervals_hand.txt": (3, "1.1.0-2ca9e3f", True),
    "sysbench11_cpu_hand.txt": (0, "1.1.0-df89d34", False),
}
INTERVAL_TEXT = re.compile(r'^\[ \d+s \] thds: |^\d+,\d+,[\d.,]+$|^\s*"time":')


@pytest.mark.parametrize("name", sorted(FILES))
def test_recorded_file_parses_cleanly(name: str) -> None:
    lines = read_lines(name)
    n_intervals, version, sql = FILES[name]
    res = parse_sysbench_output(lines)
    assert res.skipped == ()
    assert res.messages == ()
    assert len(res.intervals) == n_intervals == sum(bool(INTERVAL_TEXT.search(x)) for x in lines)
    s = res.summary
    assert s.sysbench_version == version
    assert s.threads == int(field(lines, r"Number of threads: (\d+)"))
    assert s.total_events == int(field(lines, r"total number of events:\s+(\d+)"))
    assert s.total_time_s == float(field(lines, r"(?:total time|time elapsed):\s+([\d.]+)s"))
    assert s.lat_avg_ms == float(field(lines, r"^\s+avg:\s+([\d.]+)"))
    assert s.lat_max_ms == float(field(lines, r"^\s+max:\s+([\d.]+)"))
    assert s.lat_sum_ms == float(field(lines, r"^\s+sum:\s+([\d.]+)"))
    if sql:
        assert s.qps == float(field(lines, r"queries:\s+\d+\s+\(([\d.]+) per sec"))
        assert s.queries == int(field(lines, r"queries:\s+(\d+)"))
        assert s.tps == float(field(lines, r"transactions:\s+\d+\s+\(([\d.]+) per sec"))
        assert s.transactions == int(field(lines, r"transactions:\s+(\d+)"))
        assert s.reads == int(field(lines, r"read:\s+(\d+)"))
        assert s.writes == int(field(lines, r"write:\s+(\d+)"))
        assert s.other == int(field(lines, r"other:\s+(\d+)"))
        assert s.queries_total == int(field(lines, r"total:\s+(\d+)"))
        assert s.ignored_errors == int(field(lines, r"ignored errors:\s+(\d+)"))
        assert s.reconnects == 0
    else:
        assert s.qps is None
        assert s.tps is None
        assert s.queries is None


def test_point_select_values() -> None:
    res = parse_sysbench_output(read_lines("sysbench_oltp_point_select.txt"))
    s = res.summary
    assert (s.qps, s.tps, s.queries, s.total_time_s) == (92964.88, 92964.88, 465213, 5.0029)
    assert (s.lat_min_ms, s.lat_pct, s.lat_pct_ms) == (0.01, 95.0, 0.03)
    assert s.eps == pytest.approx(465213 / 5.0029)  # 1.0 has no eps line: events / time
    assert s.command is None
    assert s.options == {}
    assert res.intervals[0] == BenchInterval(
        t=1.0, threads=2, tps=92984.40, qps=92984.40, reads=92984.40, writes=0.0, other=0.0,
        latency_ms=0.03, latency_pct=95.0, errors_s=0.0, reconnects_s=0.0,
    )  # fmt: skip
    assert [iv.t for iv in res.intervals] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_command_line_first_line() -> None:
    lines = read_lines("sysbench_oltp_read_write_cmdline.txt")
    s = parse_sysbench_output(lines).summary
    assert s.command == lines[0]
    assert s.options["test"] == "oltp_read_write"
    assert s.options["table-size"] == "10000"
    assert s.options["tables"] == "1"
    assert s.options["threads"] == "2"
    assert s.options["range-size"] == "100"
    assert s.options["mysql-socket"].endswith("/sock")
    assert "run" not in s.options.values()  # the command verb is not an option
    assert (s.reads, s.writes, s.other, s.queries_total) == (118230, 33780, 16890, 168900)
    assert (s.tps, s.qps) == (1687.61, 33752.17)


def test_sysbench_11_throughput_block_and_options() -> None:
    lines = read_lines("sysbench11_update_index_hand.txt")
    s = parse_sysbench_output(lines).summary
    assert s.eps == 71522.1843  # from "events/s (eps):", not recomputed
    assert (s.total_time_s, s.total_events) == (300.0017, 21456790)
    assert (s.qps, s.tps, s.writes, s.reads) == (71522.17, 71522.18, 21456789, 0)
    assert s.command == lines[0]
    assert s.options == {
        "db-driver": "pgsql", "range-size": "100", "table-size": "2000000", "tables": "4",
        "threads": "16", "events": "0", "warmup-time": "5", "time": "300",
        "pgsql_conn_id": "true", "test": "oltp_update_index", "pgsql-user": "root",
        "pgsql-password": "pw", "pgsql-host": "127.0.0.1", "pgsql-db": "ib",
        "rand-type": "uniform",
    }  # fmt: skip


def test_sysbench_11_intervals_percentile_99() -> None:
    res = parse_sysbench_output(read_lines("sysbench11_read_only_intervals_hand.txt"))
    assert res.summary.options["test"] == "oltp_read_only"
    assert (res.summary.lat_pct, res.summary.lat_pct_ms) == (99.0, 4.57)
    assert [iv.latency_pct for iv in res.intervals] == [99.0, 99.0, 99.0]
    assert res.intervals[2].errors_s == 0.10
    assert res.intervals[1].other == 16403.80


def test_cpu_and_memory_eps() -> None:
    cpu = parse_sysbench_output(read_lines("sysbench_cpu_time3.txt"))
    assert cpu.summary.eps == 2228.94
    assert [(iv.tps, iv.qps, iv.latency_ms) for iv in cpu.intervals] == [
        (2187.72, None, 0.48),
        (2180.67, None, 0.48),
    ]
    mem = parse_sysbench_output(read_lines("sysbench_memory_time2.txt"))
    assert mem.summary.eps == 4890611.11  # "Total operations: N (X per second)"
    assert mem.intervals == ()  # "[ 1s ] 4580.45 MiB/sec" has no threads/eps: not an interval
    cpu11 = parse_sysbench_output(read_lines("sysbench11_cpu_hand.txt"))
    assert cpu11.summary.eps == 9876.5432  # the Throughput block wins over "events per second"


def test_percentile_zero_and_histogram() -> None:
    res = parse_sysbench_output(read_lines("sysbench_cpu_pct0.txt"))
    assert res.intervals[0].latency_ms is None  # "lat (ms,0%): 0.00" is not a latency
    assert res.intervals[0].latency_pct is None
    assert res.summary.lat_pct is None
    assert res.summary.lat_pct_ms is None
    hist = parse_sysbench_output(read_lines("sysbench_cpu_pct99_histogram.txt"))
    assert (hist.summary.lat_pct, hist.summary.lat_pct_ms, hist.summary.lat_max_ms) == (
        99.0,
        0.48,
        1.60,
    )


def test_csv_and_json_hooks_match_text() -> None:
    csv_lines = read_lines("sysbench_oltp_read_write_report_csv.txt")
    csv = parse_sysbench_output(csv_lines).intervals
    first = next(x for x in csv_lines if re.match(r"\d+,", x)).split(",")
    assert csv[0] == BenchInterval(
        t=float(first[0]), threads=int(first[1]), tps=float(first[2]), qps=float(first[3]),
        reads=float(first[4]), writes=float(first[5]), other=float(first[6]),
        latency_ms=float(first[7]), latency_pct=None, errors_s=float(first[8]),
        reconnects_s=float(first[9]),
    )  # fmt: skip
    assert csv[0].errors_s == 1.0  # this run really hit one ignored deadlock
    js = parse_sysbench_output(read_lines("sysbench_oltp_read_write_report_json.txt")).intervals
    assert [iv.t for iv in js] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert js[0] == BenchInterval(
        t=1.0, threads=2, tps=1440.89, qps=28820.73, reads=20173.41, writes=5763.55,
        other=2883.77, latency_ms=2.07, latency_pct=None, errors_s=0.0, reconnects_s=0.0,
    )  # fmt: skip
    assert js[4].tps == 2013.29
    assert js[4].latency_ms == 1.58


def test_feed_is_incremental() -> None:
    lines = read_lines("sysbench_oltp_read_write_report_json.txt")
    p = SysbenchParser()
    got = [(i, iv) for i, line in enumerate(lines) if (iv := p.feed(line)) is not None]
    # each JSON report completes on its closing brace line
    assert [lines[i].strip() for i, _ in got] == ["},", "},", "},", "},", "}"]
    assert p.intervals == [iv for _, iv in got]
    assert p.summary().qps == 37567.84
    assert p.recognised + len(p.intervals) == len(lines)


def test_lua_report_default_without_colon() -> None:
    line = "[ 2s ] thds: 2 tps: 1557.47 qps: 31124.44 (r/w/o: 21779.61/6229.89/3114.95) "
    iv = parse_interval(line + "lat (ms,95%): 1.79 err/s 0.00 reconn/s: 0.00")
    assert iv is not None
    assert iv.qps == 31124.44
    assert iv.latency_ms == 1.79


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "[ 1s ] thds: 4 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) "
            "lat (ms,95%): 3.13 err/s: 0.00 reconn/s: 0.00",
            BenchInterval(1.0, 4, 1234.56, 24691.20, 17283.84, 4938.24, 2469.12, 3.13, 95.0),
        ),
        (
            "[ 1s ] thds: 1 eps: 1234.56 lat (ms,95%): 0.81",
            BenchInterval(1.0, 1, 1234.56, latency_ms=0.81, latency_pct=95.0),
        ),
        (
            "1,4,1234.56,24691.20,17283.84,4938.24,2469.12,3.13,0.00,0.00",
            BenchInterval(1.0, 4, 1234.56, 24691.20, 17283.84, 4938.24, 2469.12, 3.13, None),
        ),
        (
            '{"time": 7, "threads": 3, "tps": 10.50, "qps": {"total": 20.00, "reads": 15.00, '
            '"writes": 4.00, "other": 1.00}, "latency": 2.50, "errors": 0.25, "reconnects": 0.00}',
            BenchInterval(7.0, 3, 10.5, 20.0, 15.0, 4.0, 1.0, 2.5, None, 0.25, 0.0),
        ),
        ("[ 52.0s ] thds: 16 tps: 530.74 qps: 10585.69 (r/w/o: 7404.27/2119.94/1061.47) "
         "lat (ms,95%): 87.56 err/s: 0.00 reconn/s: 0.00",
         BenchInterval(52.0, 16, 530.74, 10585.69, 7404.27, 2119.94, 1061.47, 87.56, 95.0)),
    ],
)  # fmt: skip
def test_parse_interval_formats(line: str, expected: BenchInterval) -> None:
    assert parse_interval(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "",
        "SQL statistics:",
        "[ 1s ] 4580.45 MiB/sec",
        "[ 1s ] queue length: 0, concurrency: 4",
        # truncated or garbled interval lines never give an interval with made-up zeros
        "[ 1s ] thds: 4 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) lat (ms,95%): 3.13",
        "[ 1s ] thds: 4 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469.12) "
        "lat (ms,95%): 3.13 err/s: 0.00 reconn/s: 0.0",
        "[ 1s ] thds: 1 eps: 1234.5",
        "[ 1s ] thds: 1 eps: nan lat (ms,95%): 0.81",
        "1,4,1234.56,24691.20,17283.84,4938.24,2469.12,3.13,0.00",
        "1,4,1234.56,-nan,17283.84,4938.24,2469.12,3.13,0.00,0.00",
        '{"time": 7, "threads": 3, "tps": 10.50}',
        '{"time": 7, "threads": 3, "tps": true, "qps": {"total": 1, "reads": 1, "writes": 0, '
        '"other": 0}, "latency": 2.50, "errors": 0, "reconnects": 0}',
    ],
)
def test_parse_interval_rejects(line: str) -> None:
    assert parse_interval(line) is None


def test_garbage_goes_to_skipped_and_messages_are_kept() -> None:
    lines = [
        "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)",
        "FATAL: mysql_stmt_execute() returned error 1213 (Deadlock found) for query 'UPDATE'",
        "[ 1s ] thds: 4 tps: 1234.56 qps: 24691.20 (r/w/o: 17283.84/4938.24/2469",
        "hello world",
        "    transactions:                        abc (1.00 per sec.)",
        "General statistics:",
        "    total time:                          10.0012s",
        "    total number of events:              12345",
    ]
    res = parse_sysbench_output(lines)
    assert [(s.lineno, s.reason) for s in res.skipped] == [
        (3, "malformed interval line"),
        (4, "unrecognised line"),
        (5, "unrecognised line"),
    ]
    assert [m.lineno for m in res.messages] == [2]
    assert res.summary.transactions is None  # never a made-up zero
    assert res.summary.eps == pytest.approx(12345 / 10.0012)


def test_incomplete_json_report_is_skipped() -> None:
    lines = read_lines("sysbench_oltp_read_write_report_json.txt")
    start = lines.index("  {")
    cut = [*lines[: start + 6], *lines[start + 14 :]]  # first report loses its tail
    res = parse_sysbench_output(cut)
    assert len(res.intervals) == 4
    assert {s.reason for s in res.skipped} == {"incomplete JSON interval report"}
    assert [s.lineno for s in res.skipped] == list(range(start + 1, start + 7))
    p = SysbenchParser()
    for line in lines[start : start + 5]:
        p.feed(line)
    p.flush()  # end of input inside a report
    assert len(p.skipped) == 5
    assert p.recognised == 0


def test_several_percentiles_keep_the_first() -> None:
    lines = [
        "Latency (ms):",
        "         min:                                    2.41",
        "         95th percentile:                        9.39",
        "         99th percentile:                       27.17",
        "        999th percentile:                      816.63",
    ]
    s = parse_sysbench_output(lines).summary
    assert (s.lat_pct, s.lat_pct_ms, s.lat_min_ms) == (95.0, 9.39, 2.41)
