"""The TPC-C-like client's output, hand-written (tests/cli/test_tpcc.py runs the real client):
every line is an interval, a recognised line, a message or a skipped line with its reason."""

from __future__ import annotations

import pytest

from benchdeck.engine.catalogue import family_of
from benchdeck.engine.parsers.families import parser_for
from benchdeck.engine.parsers.tpcc import TpccParser, parse_interval

TXNS = " | new_order 90 2.00 4.00 6.00 | payment 86 1.00 2.00 3.00 | order_status 8 0.50 0.90 1.00 "
TXNS += "| delivery 8 9.00 12.00 14.00 | stock_level 8 3.00 5.00 5.50"
OUTPUT = [
    "python3 -m benchdeck.engine.families.tpcc.client --dbms=mariadb --password=*** --step=run --threads=2",
    "dbms: mariadb 10.11.9-MariaDB",
    "[ 1s ] thds: 2 tps: 199.00 tpmC: 5340.00 rollbacks: 1 retries: 2" + TXNS,
    "[ 2s ] thds: 2 tps: 199.00 tpmC: 5340.00 rollbacks: 1 retries: 0 | new_order 90 2.00",  # cut short
    "threads: 2",
    "warehouses: 1",
    "transactions: 398 (199.00 per sec.)",
    "tpmC: 5340.00",
    "NOPM: 5340.00",
    "new_order: 180 avg 2.00 p95 4.00 p99 6.00 max 9.00 ms rollbacks 2 retries 1",
    "payment: 172 avg 1.00 p95 2.00 p99 3.00 max 4.00 ms rollbacks 0 retries 1",
    "order_status: 16 avg 0.50 p95 0.90 p99 1.00 max 1.10 ms rollbacks 0 retries 0",
    "delivery: 16 avg 9.00 p95 12.00 p99 14.00 max 15.00 ms rollbacks 0 retries 0",
    "stock_level: 16 avg 3.00 p95 5.00 p99 5.50 max 6.00 ms rollbacks 0 retries 0",
    "ERROR: terminal 1: OperationalError: (2013, 'Lost connection')",
    "errors: 1",
    "elapsed: 2.00 s",
]


def parsed() -> TpccParser:
    p = parser_for(family_of("tpcc.w1"))
    assert isinstance(p, TpccParser)
    for line in OUTPUT:
        p.feed(line)
    return p


def test_intervals_carry_tpmc_rates_and_new_order_p95() -> None:
    (iv,) = parsed().intervals
    assert (iv.t, iv.threads, iv.tps, iv.qps) == (1.0, 2, 199.0, 5340.0)
    assert iv.reads == pytest.approx(16.0)  # order_status + stock_level, over 1 s
    assert iv.writes == pytest.approx(184.0)  # new_order + payment + delivery
    assert (iv.other, iv.errors_s) == (pytest.approx(1.0), pytest.approx(2.0))  # rollbacks, retries
    assert (iv.latency_ms, iv.latency_pct) == (4.0, 95.0)
    detail = parse_interval(OUTPUT[2])
    assert detail is not None
    assert [(t.name, t.count, t.p99_ms) for t in detail.txns][3] == ("delivery", 8, 14.0)


def test_summary_is_tpmc_with_each_transaction_type() -> None:
    p = parsed()
    s = p.summary()
    assert (s.qps, s.tps, s.transactions, s.threads, s.total_time_s) == (5340.0, 199.0, 398, 2, 2.0)
    assert (s.lat_avg_ms, s.lat_pct_ms, s.lat_max_ms, s.ignored_errors) == (2.0, 4.0, 9.0, 2)
    assert list(s.per_type) == ["new_order", "payment", "order_status", "delivery", "stock_level"]
    no = {"count": 180, "avg_ms": 2.0, "p95_ms": 4.0, "p99_ms": 6.0, "max_ms": 9.0, "rollbacks": 2}
    assert s.per_type["new_order"] == {**no, "retries": 1}
    assert (p.dbms, p.server_version, p.finished) == ("mariadb", "10.11.9-MariaDB", True)
    assert s.options["threads"] == "2"


def test_a_malformed_line_is_skipped_with_its_reason_and_nothing_is_lost() -> None:
    p = parsed()
    assert [(k.lineno, k.reason) for k in p.skipped] == [(4, "malformed interval line")]
    assert [m.text for m in p.messages] == [OUTPUT[14]]
    hostile = "[ 3s ] thds: 2 tps: " + "9" * 5000 + ".00 tpmC: 1.00 rollbacks: 0 retries: 0" + TXNS
    p.feed(hostile)
    p.feed("new_order: 1 avg 1.00")
    assert [k.reason for k in p.skipped[1:]] == ["malformed interval line", "unrecognised line"]
    assert len(p.intervals) == 1
