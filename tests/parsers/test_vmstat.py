"""vmstat parser against real procps 4.0.2 output and a fixture with a new column."""

from __future__ import annotations

import pytest

from benchdeck.engine.parsers import VmstatParser, parse_vmstat
from tests.parsers.conftest import read_lines

FIELDS = ("r", "b", "swpd", "free", "buff", "cache", "si", "so", "bi", "bo", "in_", "cs",
          "us", "sy", "id", "wa", "st")  # fmt: skip


def data_rows(lines: list[str]) -> list[list[str]]:
    return [x.split() for x in lines if x.split() and x.split()[0].isdigit()]


@pytest.mark.parametrize(
    ("name", "n_samples"),
    [
        ("vmstat_1_5.txt", 4),
        ("vmstat_t_1_5.txt", 4),
        ("vmstat_w_1_5.txt", 4),
        ("vmstat_tty_rows8_1_9.txt", 8),
        ("vmstat_newcol_t_repeat_hand.txt", 4),
    ],
)
def test_recorded_since_boot_row_dropped(name: str, n_samples: int) -> None:
    lines = read_lines(name)
    res = parse_vmstat(lines)
    rows = data_rows(lines)
    assert res.skipped == ()
    assert res.dropped_since_boot == 1
    assert len(res.samples) == n_samples == len(rows) - 1
    assert [s.seq for s in res.samples] == list(range(n_samples))
    # every sample is a real row, in order (the first row, since boot, is not among them)
    for sample, row in zip(res.samples, rows[1:], strict=True):
        assert str(sample.cs) in row
        assert str(sample.free) in row
        assert str(sample.id) in row


def test_plain_columns_by_name() -> None:
    res = parse_vmstat(read_lines("vmstat_1_5.txt"))
    first = res.samples[0]
    expected = [4, 0, 0, 22633284, 59884, 1843240, 0, 0, 0, 43556, 56621, 144556, 46, 25, 18, 10, 0]
    assert [getattr(first, f) for f in FIELDS] == expected
    assert first.gu is None
    assert first.timestamp is None
    assert [s.cs for s in res.samples] == [144556, 143019, 138917, 114131]


def test_wide_has_gu() -> None:
    res = parse_vmstat(read_lines("vmstat_w_1_5.txt"))
    assert [s.gu for s in res.samples] == [0, 0, 0, 0]
    assert [s.bo for s in res.samples] == [43496, 49240, 45500, 35376]
    assert res.samples[-1].id == 20


def test_timestamps() -> None:
    res = parse_vmstat(read_lines("vmstat_t_1_5.txt"))
    assert [s.timestamp for s in res.samples] == [f"2026-11-21 19:59:{n}" for n in ("11", "12", "13", "14")]
    assert res.samples[0].us == 46
    assert res.samples[0].st == 0


def test_repeated_banners_and_new_columns() -> None:
    p = VmstatParser()
    for line in read_lines("vmstat_tty_rows8_1_9.txt"):
        p.feed(line)
    assert [s.in_ for s in p.samples] == [103, 66, 61, 77, 59, 81, 61, 55]  # no zero rows
    assert p.recognised == 4 + 1  # two banners, two headers, the since-boot row
    assert p.skipped == []
    assert p.dropped_since_boot == 1
    res = parse_vmstat(read_lines("vmstat_newcol_t_repeat_hand.txt"))
    s = res.samples[0]
    assert (s.cache, s.si, s.bo, s.in_, s.cs, s.us, s.gu) == (
        35121880, 0, 48120, 61234, 284511, 71, 0,
    )  # fmt: skip
    assert s.timestamp == "2026-11-21 21:40:01"  # CEST header
    assert res.samples[2].timestamp == "2026-11-21 21:40:03"  # first row after a repeated header
    assert res.samples[2].r == 26


HEADER = " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
ROW = " 1  0      0 22745496  59840 1835668    0    0     0     4  213  235  1  1 99  0  0"


def test_bad_rows_are_skipped_never_zero() -> None:
    lines = [
        ROW,  # before any header
        HEADER,
        ROW,  # since boot
        ROW,
        ROW.rsplit(maxsplit=1)[0],  # one field short
        ROW.replace(" 213 ", " abc "),
        ROW + "  7",
        "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
        ROW,
    ]
    p = VmstatParser()
    yielded = [p.feed(x) for x in lines]
    assert [y is not None for y in yielded] == [False, False, False, True] + [False] * 4 + [True]
    assert [(s.lineno, s.reason) for s in p.skipped] == [
        (1, "no header yet"),
        (5, "16 fields, header has 17"),
        (6, "non-numeric value 'abc'"),
        (7, "18 fields, header has 17"),
    ]
    assert p.dropped_since_boot == 1
    assert [s.seq for s in p.samples] == [0, 1]
    assert all(s.in_ == 213 for s in p.samples)


def test_garbled_since_boot_row_is_skipped_and_consumes_the_slot() -> None:
    p = VmstatParser()
    for x in [HEADER, "hello", ROW.replace(" 0 ", " x ", 1), ROW]:
        p.feed(x)
    assert [s.reason for s in p.skipped] == [
        "1 fields, header has 17",
        "non-numeric value 'x' (the since-boot row)",
    ]
    assert p.dropped_since_boot == 0
    assert len(p.samples) == 1


def test_header_without_required_columns() -> None:
    active = " r  b   swpd   free  inact active   si   so    bi    bo   in   cs us sy id wa st"
    res = parse_vmstat([active, ROW, ROW])  # vmstat -a: no buff/cache
    assert res.samples == ()
    assert [s.reason for s in res.skipped] == ["header lacks buff, cache"] + ["no header yet"] * 2


def test_timestamp_header_needs_timestamp_rows() -> None:
    header = HEADER + "                 UTC"
    res = parse_vmstat([header, ROW + " 2026-11-21 19:55:57", ROW, ROW + " 2026-11-21 19:55:59"])
    assert [s.reason for s in res.skipped] == ["no timestamp at the end of a -t row"]
    assert [s.timestamp for s in res.samples] == ["2026-11-21 19:55:59"]
