"""The import's fast row paths (iostat rows by position, a repeated header or avg-cpu line
without a split, vmstat rows by position, the C-level range check) give the rows and the
skipped lines the line-by-line parse gives, on hand-written files with malformed lines; the
expected values are the ones the code before the fast paths produced for these files."""

# ruff: noqa: E501 (the files' lines as the tools print them)
from __future__ import annotations

import gc
from pathlib import Path

import numpy as np

from benchdeck.engine.parsers import parse_iostat, parse_vmstat
from benchdeck.engine.records import IostatSample, VmstatSample
from benchdeck.store.importers import import_mytools_tree
from benchdeck.store.importers.checked import Checked
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.limits import INT32_MAX, record_problem
from tests.store import mytools_tree as t

H12 = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz  aqu-sz  %util"
HMB = "Device:         rrqm/s   wrqm/s     r/s     w/s    rMB/s    wMB/s avgrq-sz avgqu-sz   await  %util"
HNOW = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz"
CPU = "avg-cpu:  %user   %nice %system %iowait  %steal   %idle"


def row(dev: str, *v: str) -> str:
    return f"{dev:<12}" + " ".join(f"{x:>8}" for x in v)


Z12 = ["0.00"] * 15
# fmt: off
IOSTAT = "\n".join([
    "Linux 5.15.0-119-generic (host) \t03/19/2025 \t_x86_64_\t(96 CPU)",
    "",
    CPU,
    "           8.32    0.00   85.74    0.00    0.00    5.94",
    "",
    H12,
    row("loop0", *Z12[:14]),
    row("md2", "1.00", "8.00", "0.00", "0.00", "0.10", "8.00", "3.00", "36.00", "0.00", "0.00", "0.20", "12.00", "0.01", "0.40"),
    row("sdb", *Z12[:14]),
    "",
    CPU,
    "           8.32    x   85.74    0.00    0.00    5.94",  # a bad avg-cpu values line
    "",
    H12,
    H12,  # the header again at once: a report of its own
    row("md2", "1.00", "abc", "0.00", "0.00", "0.10", "8.00", "3.00", "36.00", "0.00", "0.00", "0.20", "12.00", "0.01", "0.40"),
    row("md2", "1.00", "8.00"),  # too few fields
    row("md2", "2,50", "8,00", "0,00", "0,00", "0,10", "8,00", "3,00", "36,00", "0,00", "0,00", "0,20", "12,00", "0,01", "0,40"),
    row("sdb", *Z12[:13], "bad"),  # another device's row, malformed
    "",
    "03/19/2025 07:52:23 PM",
    CPU,
    "           8.32    0.00   85.74    0.00    0.00    5.94",
    "",
    HMB,
    row("md2", "0.00", "1.00", "4.00", "6.00", "0.50", "0.25", "8.00", "0.30", "0.10", "2.00"),
    row("loop0", *Z12[:10]),
    "",
    HNOW,
    row("md2", "1.00", "8.00", "0.00", "0.00", "0.10", "8.00"),  # the header has no w/s, wkB/s
    "",
    H12,
    row("md2", "1e3", *Z12[:13]),
    row("12", *Z12[:14]),  # no device name
    row("md2", "99999999999", *Z12[:13]),  # fits a DOUBLE
]) + "\n"

VMSTAT = "\n".join([
    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
    " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st",
    "44  0 116456 4468368 819076 122018400    9    9  2924  3863    0    0 17 10 71  2  0",  # since boot
    "49  0 116456 4568312 819076 122018592    0    0     0   476 25687 59562  8 86  6  0  0",
    "43  0 116456 4160664 819076 122018728    0    0     0   185 17130 97744 35 49 16  0",  # 16 fields
    "43  0 116456 4160664 819076 122018728    0    0     0   185 17130 97744 35 x 16  0  0",
    "4\u00b2  0 116456 4160664 819076 122018728    0    0     0   185 17130 97744 35 49 16  0  0",
    "42  0 116456 4149692 819076 122018728    0    0     0     9 22268 129590 43 41 16  0  0",
    "42  0 116456 4149692 819076 122018728    0    0     0     9 22268 129590 4300000000 41 16  0  0",
    "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----",
    " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st gu",
    "40  0 116456 4143508 819084 122018720    0    0     0   191 35190 187632 60 24 16  0  0  3",
    "r b swpd free buff cache si so bi bo in cs us sy id wa st",
    " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st                 UTC",
    "41  0 116456 4143508 819084 122018720    0    0     0   191 35190 187632 60 24 16  0  0 2025-03-19 20:57:01",
    "41  0 116456 4143508 819084 122018720    0    0     0   191 35190 187632 60 24 16  0  0",
    "",
]) + "\n"
# fmt: on


def io(seq: int, r_s: float, w_s: float, rkb: float, wkb: float, util: float, **kw: object) -> IostatSample:
    rest: dict[str, object] = {"rrqm_s": 0.0, "wrqm_s": 0.0, "r_await": 0.0, "w_await": 0.0, "aqu_sz": 0.0}
    return IostatSample(seq, "md2", r_s, w_s, rkb, wkb, util=util, **(rest | kw))  # type: ignore[arg-type]


def test_iostat_rows_and_skipped_lines_as_the_line_by_line_parse() -> None:
    checked = Checked.iostat(IOSTAT, "md2")  # other devices' lines passed over, the rest fed
    every = parse_iostat(IOSTAT.splitlines(), "md2")  # each line fed
    assert checked.samples == list(every.samples)
    assert checked.skipped == list(every.skipped)
    assert checked.samples == [
        io(0, 1.0, 3.0, 8.0, 36.0, 0.4, r_await=0.1, w_await=0.2, aqu_sz=0.01),
        io(2, 2.5, 3.0, 8.0, 36.0, 0.4, r_await=0.1, w_await=0.2, aqu_sz=0.01),  # decimal commas
        io(3, 4.0, 6.0, 512.0, 256.0, 2.0, wrqm_s=1.0, r_await=None, w_await=None, aqu_sz=0.3,
           timestamp="03/19/2025 07:52:23 PM"),  # MB/s to kB/s; no r_await, w_await columns
        io(5, 99999999999.0, 0.0, 0.0, 0.0, 0.0),
    ]  # fmt: skip
    assert [(s.lineno, s.reason) for s in checked.skipped] == [
        (12, "6 fields, header has 15"),  # the bad avg-cpu values line
        (16, "non-numeric value 'abc'"),
        (17, "3 fields, header has 15"),
        (30, "header lacks w/s, wkB/s"),
        (33, "non-numeric value '1e3'"),
        (34, "no device name"),
    ]
    every_device = Checked.iostat(IOSTAT)  # no device: every row parsed; md2's are the same
    assert [s for s in every_device.samples if s.device == "md2"] == checked.samples
    assert {s.device for s in every_device.samples} == {"md2", "loop0", "sdb"}
    assert [s.lineno for s in every_device.skipped] == [12, 16, 17, 19, 30, 33, 34]


def test_vmstat_rows_and_skipped_lines_as_the_line_by_line_parse() -> None:
    checked = Checked.vmstat(VMSTAT)
    every = parse_vmstat(VMSTAT.splitlines())
    assert [(s.lineno, s.reason) for s in checked.skipped] == [
        (5, "16 fields, header has 17"),
        (6, "non-numeric value 'x'"),
        (7, "non-numeric value '4\u00b2'"),
        (9, "us 4300000000 is out of range (the store holds 0..2147483647)"),
        (16, "no timestamp at the end of a -t row"),
    ]
    assert [s for s in every.samples if s.us < 2**31] == checked.samples  # the parser keeps line 9's
    base = (116456, 4143508, 819084, 122018720, 0, 0, 0, 191, 35190, 187632, 60, 24, 16, 0, 0)
    assert checked.samples == [
        VmstatSample(0, 49, 0, 116456, 4568312, 819076, 122018592, 0, 0, 0, 476, 25687, 59562, 8, 86, 6, 0, 0),
        VmstatSample(1, 42, 0, 116456, 4149692, 819076, 122018728, 0, 0, 0, 9, 22268, 129590, 43, 41, 16, 0, 0),
        VmstatSample(3, 40, 0, *base, gu=3),
        VmstatSample(4, 41, 0, *base, timestamp="2025-03-19 20:57:01"),
    ]  # fmt: skip


def test_the_plain_range_check_sends_odd_values_the_long_way() -> None:
    ok = VmstatSample(0, 1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 98, 0, 0)
    assert record_problem(ok) is None
    assert record_problem(IostatSample(0, "md2", 1.5, 0.0, 0.0, 1e300)) is None  # a DOUBLE holds it
    assert (
        record_problem(IostatSample(0, "md2", 1.5, 0.0, 0.0, float("nan"))) == "wkb_s is not a finite number"
    )
    assert record_problem(IostatSample(0, "md2", 1.5, 0.0, 0.0, 2.0, util=None)) is None  # the general check
    assert (
        record_problem(IostatSample(-1, "md2", 1.5, 0.0, 0.0, 2.0))
        == "seq -1 is out of range (the store holds 0..2147483647)"
    )
    assert record_problem(VmstatSample(0, 1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 98, 0, 0, gu=2**31)) == (
        "gu 2147483648 is out of range (the store holds 0..2147483647)"
    )
    big = VmstatSample(0, 1, 0, 0, 2**40, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 98, 0, 0)
    assert record_problem(big) is None  # past INT32_MAX, in a BIGINT column
    assert record_problem(VmstatSample(0, 1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, INT32_MAX + 1, 1, 98, 0, 0))
    for odd in (True, np.int64(7), np.float64(2.0)):  # not int or float: checked field by field
        assert record_problem(VmstatSample(0, odd, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 98, 0, 0)) is None  # type: ignore[arg-type]
    assert record_problem(VmstatSample(0, -1, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 98, 0, 0)) == (
        "r -1 is out of range (the store holds 0..9223372036854775807)"
    )


def test_the_imports_duckdb_settings_are_put_back(tmp_path: Path) -> None:
    tree = t.write_tree(tmp_path / "tree")
    with Store.open(tmp_path / "s.duckdb") as store:
        store.cursor().execute("SET threads = 2")
        settings = "SELECT current_setting('threads'), current_setting('checkpoint_threshold')"
        before = store.cursor().execute(settings).fetchone()
        seen: list[object] = []
        res = import_mytools_tree(
            store, tree, "h", progress=lambda _: seen.append(store.cursor().execute(settings).fetchone())
        )
        assert res.run_ids
        assert not res.failed
        assert store.cursor().execute(settings).fetchone() == before == (2, "16.0 MiB")
    assert (1, "61.0 MiB") in seen  # while it imported: one thread, a checkpoint per 64 MB of WAL


def test_the_collector_is_put_back_after_an_import(tmp_path: Path) -> None:
    """The import runs the cyclic collector rarely, its objects frozen; after it, the caller's
    thresholds and freeze are as they were (none frozen: none; its own freeze: kept)."""
    tree = t.write_tree(tmp_path / "tree")
    before = gc.get_threshold()
    seen: list[tuple[tuple[int, int, int], int]] = []
    try:
        gc.set_threshold(900, 11, 12)
        with Store.open(tmp_path / "s.duckdb") as store:
            import_mytools_tree(
                store, tree, "h", progress=lambda _: seen.append((gc.get_threshold(), gc.get_freeze_count()))
            )
            assert gc.get_threshold() == (900, 11, 12)
            assert gc.get_freeze_count() == 0
            assert seen
            assert all(th == (50_000, 50, 50) and frozen > 0 for th, frozen in seen[:-1])  # while it read
            assert seen[-1] == ((900, 11, 12), 0)  # its last word, after
            gc.freeze()
            kept = gc.get_freeze_count()
            import_mytools_tree(store, t.write_tree(tmp_path / "tree2"), "h2")
            assert gc.get_freeze_count() >= kept  # the caller's freeze not undone
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
