"""iostat parser against real sysstat 12.6 output and fixtures in the sysstat 10/11 layouts."""

from __future__ import annotations

import pytest

from benchdeck.engine.parsers import IostatParser, parse_iostat
from benchdeck.engine.records import IostatSample
from tests.parsers.conftest import read_lines


def rows_of(lines: list[str], device: str) -> list[list[str]]:
    return [x.split() for x in lines if x.split()[:1] == [device]]


@pytest.mark.parametrize("name", ["iostat_y_kx_1_3.txt", "iostat_t_y_kx_1_3.txt", "iostat_kx_1_3.txt"])
def test_recorded_rows_match_text(name: str) -> None:
    lines = read_lines(name)
    res = parse_iostat(lines, device="vda")
    assert res.skipped == ()
    assert res.reports == 3
    assert [s.seq for s in res.samples] == [0, 1, 2]
    header = next(x for x in lines if x.startswith("Device")).split()
    col = {n: header.index(n) for n in ("r/s", "w/s", "rkB/s", "wkB/s", "aqu-sz", "%util")}
    for sample, row in zip(res.samples, rows_of(lines, "vda"), strict=True):
        assert sample.device == "vda"
        assert sample.r_s == float(row[col["r/s"]])
        assert sample.w_s == float(row[col["w/s"]])
        assert sample.rkb_s == float(row[col["rkB/s"]])
        assert sample.wkb_s == float(row[col["wkB/s"]])
        assert sample.aqu_sz == float(row[col["aqu-sz"]])
        assert sample.util == float(row[col["%util"]])


def test_y_values() -> None:
    res = parse_iostat(read_lines("iostat_y_kx_1_3.txt"))
    assert res.samples[0] == IostatSample(
        seq=0, device="vda", r_s=0.0, w_s=14217.0, rkb_s=0.0, wkb_s=43380.0, rrqm_s=0.0,
        wrqm_s=1717.0, r_await=0.0, w_await=0.03, aqu_sz=0.59, util=35.6,
    )  # fmt: skip


def test_without_y_drop_first_report() -> None:
    lines = read_lines("iostat_kx_1_3.txt")
    kept = parse_iostat(lines)
    assert kept.samples[0].w_s == 262.92  # the since-boot average
    dropped = parse_iostat(lines, drop_first_report=True)
    assert dropped.reports == 2
    assert [(s.seq, s.w_s, s.wkb_s) for s in dropped.samples] == [
        (0, 14228.0, 43408.0),
        (1, 16476.0, 49180.0),
    ]
    assert dropped.skipped == ()


def test_timestamps() -> None:
    res = parse_iostat(read_lines("iostat_t_y_kx_1_3.txt"))
    assert [s.timestamp for s in res.samples] == [
        "11/21/26 19:59:11",
        "11/21/26 19:59:12",
        "11/21/26 19:59:13",
    ]
    iso = parse_iostat(read_lines("iostat_iso_t_y_kx_1_2.txt"))
    assert [s.timestamp for s in iso.samples] == [
        "2026-11-21T19:59:37+0000",
        "2026-11-21T19:59:38+0000",
    ]
    assert iso.samples[0].wkb_s == 16.0
    old = parse_iostat(read_lines("iostat_sysstat10_xtk_hand.txt"), "sdb", drop_first_report=True)
    assert [s.timestamp for s in old.samples] == ["11/21/2026 07:52:22 PM", "11/21/2026 07:52:23 PM"]


def test_exact_device_match() -> None:
    lines = read_lines("iostat_sysstat12_multidev_t_hand.txt")
    every = parse_iostat(lines)
    assert len(every.samples) == 12
    assert every.skipped == ()
    nvme = parse_iostat(lines, device="nvme0n1")
    assert [(s.device, s.seq, s.r_s, s.rkb_s) for s in nvme.samples] == [
        ("nvme0n1", 0, 2210.0, 35360.0),
        ("nvme0n1", 1, 2251.0, 36016.0),
    ]
    part = parse_iostat(lines, device="nvme0n1p1")
    assert [s.r_s for s in part.samples] == [3.0, 0.0]
    md0 = parse_iostat(lines, device="md0")
    assert [(s.w_s, s.wkb_s, s.aqu_sz) for s in md0.samples] == [
        (8777.0, 70216.0, 0.78),
        (8801.0, 70408.0, 0.81),
    ]
    assert [s.w_s for s in parse_iostat(lines, device="md01").samples] == [0.0, 3.0]
    assert parse_iostat(lines, device="nvme0").samples == ()
    assert parse_iostat(lines, device="md").samples == ()


def test_sysstat10_layout() -> None:
    lines = read_lines("iostat_sysstat10_xtk_hand.txt")
    res = parse_iostat(lines, device="sdb")
    assert res.reports == 3
    assert res.skipped == ()
    s = res.samples[1]
    assert (s.rrqm_s, s.wrqm_s, s.r_s, s.w_s, s.rkb_s, s.wkb_s) == (
        0.0, 88.0, 1204.0, 2311.0, 38528.0, 73952.0,
    )  # fmt: skip
    assert (s.aqu_sz, s.r_await, s.w_await, s.util) == (1.83, 0.31, 0.63, 74.10)  # avgqu-sz
    assert [x.r_s for x in parse_iostat(lines, device="md01").samples] == [0.02, 0.0, 1.0]


def test_sysstat11_layout() -> None:
    res = parse_iostat(read_lines("iostat_sysstat11_ykx_hand.txt"), device="nvme0n1")
    assert [(s.r_s, s.w_s, s.rkb_s, s.wkb_s, s.wrqm_s, s.aqu_sz, s.util) for s in res.samples] == [
        (2210.0, 4388.0, 35360.0, 140416.0, 42.0, 0.27, 46.8),
        (2251.0, 4402.0, 36016.0, 140864.0, 37.0, 0.28, 47.2),
    ]


def test_megabytes_converted_to_kb() -> None:
    res = parse_iostat(read_lines("iostat_y_mx_1_2.txt"))
    assert [s.wkb_s for s in res.samples] == [19.86 * 1024, 23.60 * 1024]
    assert [s.w_s for s in res.samples] == [7726.0, 9330.0]


def test_pretty_groups_are_merged() -> None:
    res = parse_iostat(read_lines("iostat_y_x_pretty_1_2.txt"))
    assert res.skipped == ()
    assert res.reports == 2
    assert res.samples[0] == IostatSample(
        seq=0, device="vda", r_s=0.0, w_s=7718.0, rkb_s=0.0, wkb_s=20312.0, rrqm_s=0.0,
        wrqm_s=0.0, r_await=0.0, w_await=0.03, aqu_sz=0.34, util=19.20,
    )  # fmt: skip
    assert res.samples[1].wkb_s == 24160.0


def test_basic_report_rows_are_skipped_with_reason() -> None:
    res = parse_iostat(read_lines("iostat_y_k_basic_1_2.txt"))
    assert res.samples == ()
    assert [s.reason for s in res.skipped] == ["header lacks r/s, w/s, rkB/s, wkB/s"] * 2


HEADER = "Device            r/s     w/s     rkB/s     wkB/s   rrqm/s   wrqm/s  %rrqm  %wrqm r_await w_await aqu-sz rareq-sz wareq-sz  svctm  %util"  # noqa: E501
ROW = "sda               1,50    2,00      6,00     8,00     0,00     0,00   0,00   0,00    0,10    0,20   0,00     4,00     4,00   0,10   0,05"  # noqa: E501


def test_bad_rows_and_decimal_comma() -> None:
    p = IostatParser()
    lines = [ROW, HEADER, ROW, ROW.replace("6,00", "x"), ROW[:60], "1.0 " + ROW[4:], ""]
    out = [p.feed(x) for x in lines]
    assert [len(o) for o in out] == [0, 0, 1, 0, 0, 0, 0]
    assert (p.samples[0].r_s, p.samples[0].rkb_s, p.samples[0].util) == (1.5, 6.0, 0.05)
    assert [(s.lineno, s.reason) for s in p.skipped] == [
        (1, "no header yet"),
        (4, "non-numeric value 'x'"),
        (5, "6 fields, header has 16"),
        (6, "no device name"),
    ]
