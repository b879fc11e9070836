"""The parsers' many-line feeds (``IostatParser.feed_many_at``, ``VmstatParser.feed_many``) and
``checked.split_lines`` give what one feed per line and ``str.splitlines`` give: the same
samples, skipped lines, counts and state after, on the recorded files mutated line by line."""

# ruff: noqa: E501 (the files' lines as the tools print them)
from __future__ import annotations

from dataclasses import fields

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdeck.engine.parsers import IostatParser, VmstatParser
from benchdeck.engine.parsers.iostat import _plain_numbers, other_devices, repeated_reports
from benchdeck.engine.record_columns import RecordColumns, columns_of
from benchdeck.engine.records import IostatSample, VmstatSample
from benchdeck.store.importers.checked import Checked, split_lines
from benchdeck.store.storage.limits import columns_fit, feed_checked, feed_checked_at, record_problem
from tests.parsers.test_properties import IOSTAT, VMSTAT, line_text, mutated

DEVICES = st.sampled_from(["vda", "nvme0n1", "md0", "sdb", "sda", "dm-0"])


def _state(p: IostatParser | VmstatParser) -> dict[str, object]:
    return {k: getattr(p, k) for k in p.__dict__ if k != "_pick"}


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(IOSTAT), DEVICES, st.booleans(), st.integers(0, 3))
def test_iostat_feed_many_at_is_one_feed_at_a_line(
    lines: list[str], device: str, drop: bool, gap: int
) -> None:
    numbered = [(n * (1 + gap), line) for n, line in enumerate(lines, 1)]  # lines passed over too
    one, many = IostatParser(device, drop), IostatParser(device, drop)
    expected = [s for n, line in numbered for s in one.feed_at(n, line)]
    assert many.feed_many_at(numbered) == expected
    assert _state(many) == _state(one)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(VMSTAT))
def test_vmstat_feed_many_is_one_feed_a_line(lines: list[str]) -> None:
    one, many = VmstatParser(), VmstatParser()
    expected = [s for line in lines if (s := one.feed(line)) is not None]
    assert many.feed_many(lines) == expected
    assert _state(many) == _state(one)


def test_a_devices_row_by_position_as_feed_has_it() -> None:
    header = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz  aqu-sz  %util"
    rows = [
        "md2 1.00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 0.40",
        "md2 1.00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 .40",
        "md2 1.00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 40.",
        "md2 1.00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 0.4.0",
        "md2 1.00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 1e3",
        "md2 1.00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 \u00b2",
        "md2 1,00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 0.40",
        "md2\t1.00 8.00 0.00 0.00 0.10 8.00 3.00 36.00 0.00 0.00 0.20 12.00 0.01 0.40\r",
    ]
    numbered = list(enumerate([header, *rows], 1))
    one, many = IostatParser("md2"), IostatParser("md2")
    expected = [s for n, line in numbered for s in one.feed_at(n, line)]
    assert many.feed_many_at(numbered) == expected
    assert [s.r_s for s in expected] == [1.0, 1.0, 1.0]  # rows 1, 7 (a decimal comma), 8 (a tab)
    assert [s.lineno for s in many.skipped] == [3, 4, 5, 6, 7]
    assert _state(many) == _state(one)


@given(
    st.lists(
        st.sampled_from(["0", "12", "1.5", ".5", "5.", "1.2.3", "1,5", "1e3", "\u0662", "x", "00.00"]),
        min_size=1,
        max_size=5,
    )
)
def test_plain_numbers_is_number_fullmatch_without_commas(tokens: list[str]) -> None:
    expected = all(
        t.isascii() and t.replace(".", "", 1).isdigit() and not t.startswith(".") and not t.endswith(".")
        for t in tokens
    )
    assert _plain_numbers(["dev", *tokens]) == expected


@given(
    st.lists(
        st.one_of(line_text, st.sampled_from(["", " ", "\t", "a\rb", "\x1c", "\x1f", "\u2028", "é"])),
        max_size=8,
    ),
    st.booleans(),
)
def test_split_lines_is_splitlines(parts: list[str], end: bool) -> None:
    text = "\n".join(parts) + ("\n" if end else "")
    assert split_lines(text) == text.splitlines()


HEADER = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util"
CPU = "avg-cpu:  %user   %nice %system %iowait  %steal   %idle"


def _report(rng: st.DataObject) -> list[str]:
    def row(dev: str) -> str:
        values = rng.draw(st.lists(st.integers(0, 99999), min_size=22, max_size=22))
        return f"{dev:<12}" + " ".join(f"{v / 100:>8.2f}" for v in values)

    cpu = " ".join(
        f"{v / 100:6.2f}" for v in rng.draw(st.lists(st.integers(0, 9999), min_size=6, max_size=6))
    )
    return ["", CPU, "          " + cpu, "", HEADER, row("loop0"), row("md2"), row("nvme0n1"), ""]


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.integers(2, 6), st.booleans())
def test_repeated_reports_read_by_position_as_fed(data: st.DataObject, reports: int, end: bool) -> None:
    """A text of reports that repeat the first's lines, mutated here and there (a line changed,
    dropped, doubled, a timestamp or another device's row added): Checked.iostat gives what
    feeding every line gives."""
    lines = ["Linux 5.15.0-119-generic (host) \t03/20/2025 \t_x86_64_\t(96 CPU)", ""]
    for _ in range(reports):
        lines += _report(data)
    for _ in range(data.draw(st.integers(0, 2))):
        i = data.draw(st.integers(0, len(lines) - 1))
        kind = data.draw(st.sampled_from(["garbage", "drop", "dup", "stamp", "other", "comma", "space"]))
        if kind == "garbage":
            lines[i] = data.draw(
                st.one_of(line_text, st.sampled_from(["md2 1 2", "md2 " + "x " * 22, "1.5 2.5"]))
            )
        elif kind == "drop":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "stamp":
            lines.insert(i, "03/20/2025 07:52:23 PM")
        elif kind == "other":
            lines.insert(i, "sdb " + " ".join(["1.00"] * 22))
        elif kind == "comma":
            lines[i] = lines[i].replace(".", ",")
        else:
            lines[i] = lines[i] + " "
    text = "\n".join(lines) + ("\n" if end else "")
    checked = Checked.iostat(text, "md2")
    fed = _every_line_fed(text, "md2")
    assert checked.samples == fed.samples
    assert checked.skipped == fed.skipped


def _every_line_fed(text: str, device: str) -> Checked:
    """Checked.iostat as it was before reports were read by position: every line kept fed."""
    p = IostatParser(device)
    lines = text.splitlines()
    others = other_devices(lines, device)
    numbered = [
        (n, s) for n, s in enumerate(lines, 1) if s and not s.isspace() and s.partition(" ")[0] not in others
    ]
    kept, bad = feed_checked_at(p.feed_at, numbered)
    return Checked(kept, sorted([*p.skipped, *bad], key=lambda s: s.lineno))


def test_repeated_reports_unchanged_are_read_by_position() -> None:
    """The test above reaches the path it is about: unmutated reports are read by position."""
    lines = ["Linux (host)  (96 CPU)", ""]
    for i in range(4):
        lines += ["", CPU, "          1.00 2.00 3.00 4.00 5.00 6.00", "", HEADER]
        lines += [f"{d} " + " ".join([f"{i}.50"] * 22) for d in ("loop0", "md2", "nvme0n1")]
    got = repeated_reports(lines, "md2", frozenset({"loop0", "nvme0n1"}))
    assert got is not None
    assert [(s.seq, s.r_s) for s in got[0]] == [(0, 0.5), (1, 1.5), (2, 2.5), (3, 3.5)]
    assert Checked.iostat("\n".join(lines), "md2").samples == got[0]
    for text in ("\n".join(lines), "\n".join(lines) + "\n", "\n".join(lines) + "\n\n"):  # its lines counted
        assert Checked.iostat(text, "md2").newlines == text.count("\n")
    assert Checked.iostat("\r\n".join(lines), "md2").newlines is None  # split by splitlines: counted after


MUTATIONS = {
    "blank": lambda s: "",
    "spaces": lambda s: "   ",
    "space after": lambda s: s + " ",
    "comma": lambda s: s.replace(".", ","),
    "garbage": lambda s: "zz top",
    "short row": lambda s: "md2 1.00 2.00",
    "device row": lambda s: "md2 " + " ".join(["3.00"] * 22),
    "letters": lambda s: "md2 " + " ".join(["x"] * 22),
    "stamp": lambda s: "03/20/2025 07:52:23 PM",
    "other": lambda s: "sdb " + " ".join(["1.00"] * 22),
    "numbers": lambda s: "1.5 2.5",
    "e-notation": lambda s: s.replace("0.", "1e"),
    "avg-cpu": lambda s: CPU,
    "header": lambda s: HEADER,
}


def test_every_line_of_a_later_report_changed_reads_as_fed() -> None:
    """Each line of the reports after the first, changed in each way, dropped or doubled: the
    same samples and skipped lines as feeding every line (the path by position, or back to it)."""
    base = ["Linux (host)  (96 CPU)", ""]
    for i in range(3):
        base += ["", CPU, f"          1.0{i} 2.00 3.00 4.00 5.00 6.00", "", HEADER]
        base += [f"{d} " + " ".join([f"{i}.50"] * 22) for d in ("loop0", "md2", "nvme0n1")]
    for i in range(10, len(base)):
        variants = [base[:i] + base[i + 1 :], [*base[:i], base[i], *base[i:]]]
        variants += [[*base[:i], change(base[i]), *base[i + 1 :]] for change in MUTATIONS.values()]
        for lines in variants:
            text = "\n".join(lines)
            assert Checked.iostat(text, "md2") == _every_line_fed(text, "md2"), (i, lines[i - 1 : i + 2])


VM_BANNER = "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
VM_HEADER = " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
VM_ROW = "44  0 116456 4468368 819076 122018400    9    9  2924  3863    0    0 17 10 71  2  0"

VM_MUTATIONS = {
    **{k: MUTATIONS[k] for k in ("blank", "spaces", "space after", "garbage", "numbers", "stamp")},
    "16 fields": lambda s: s.rsplit(" ", 1)[0],
    "letter": lambda s: s.replace("9", "x", 1),
    "superscript": lambda s: "4\u00b2" + s[2:],
    "past INT32": lambda s: s.replace(" 17 ", " 4300000000 ", 1),
    "past INT64": lambda s: s.replace("4468368", "99999999999999999999", 1),
    "gu header": lambda s: VM_HEADER + " gu",
    "t header": lambda s: VM_HEADER + "                 UTC",
    "banner": lambda s: VM_BANNER,
    "header": lambda s: VM_HEADER,
}


def _vmstat_every_line_fed(text: str) -> Checked:
    p = VmstatParser()
    kept, bad = feed_checked(p.feed, text.splitlines())
    return Checked(kept, sorted([*p.skipped, *bad], key=lambda s: s.lineno))


def test_every_vmstat_line_after_the_first_rows_changed_reads_as_fed() -> None:
    """vmstat rows read a few C calls for them all (plain_rows) give what one feed a line gives,
    whatever line after the since-boot row is changed, dropped or doubled."""
    base = [VM_BANNER, VM_HEADER, VM_ROW]
    for i in range(3):
        base += [VM_ROW.replace("116456", f"11645{i}"), VM_ROW.replace(" 17 ", f" 1{i} ")]
        base += [VM_BANNER, VM_HEADER] if i == 1 else []
    assert Checked.vmstat("\n".join(base)) == _vmstat_every_line_fed("\n".join(base))
    assert isinstance(Checked.vmstat("\n".join(base)).samples, RecordColumns)  # the path this is about
    early = "\n".join(["1 2 3", *base, "1 2 3", VM_ROW])  # skipped before the header: skipped after it too
    assert Checked.vmstat(early) == _vmstat_every_line_fed(early)
    for i in range(3, len(base)):
        variants = [base[:i] + base[i + 1 :], [*base[:i], base[i], *base[i:]]]
        variants += [[*base[:i], change(base[i]), *base[i + 1 :]] for change in VM_MUTATIONS.values()]
        for lines in variants:
            text = "\n".join(lines)
            assert Checked.vmstat(text) == _vmstat_every_line_fed(text), (i, lines[i - 1 : i + 2])


def test_gu_and_the_records_of_columns() -> None:
    text = "\n".join([VM_BANNER, VM_HEADER + " gu", VM_ROW + "  0", VM_ROW + "  3", VM_ROW + "  4"])
    rows = Checked.vmstat(text).samples
    assert isinstance(rows, RecordColumns)
    assert rows == list(rows) == _vmstat_every_line_fed(text).samples
    assert [r.gu for r in rows] == [3, 4]
    assert rows[1].seq == 1
    assert rows[-1] == rows[1:][0]
    assert rows != [*rows, rows[0]]
    assert rows != "ab"
    assert (
        columns_of(list(rows), ("gu", "seq")) == [rows.column("gu"), rows.column("seq")] == [[3, 4], [0, 1]]
    )


@given(st.lists(st.sampled_from([0, 1, 2**31 - 1, 2**31, 2**63 - 1, 2**63, -1, None, 1.5, True]), min_size=1, max_size=4),
       st.lists(st.sampled_from([0.0, 1e300, float("nan"), float("inf"), None, 3, "x"]), min_size=1, max_size=4))  # fmt: skip
def test_columns_fit_is_every_record_fitting(ints: list[object], floats: list[object]) -> None:
    vm = [VmstatSample(0, v, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 98, 0, 0, gu=v) for v in ints]  # type: ignore[arg-type]
    io = [IostatSample(0, "md2", 1.0, 2.0, 3.0, 4.0, util=v) for v in floats]  # type: ignore[arg-type]
    for records, record in ((vm, VmstatSample), (io, IostatSample)):
        names = tuple(f.name for f in fields(record))
        as_columns = RecordColumns(record, names, columns_of(records, names))
        fits = not any(map(record_problem, records))
        assert columns_fit(as_columns, record) is False or fits  # never says a misfit fits
    # as the parsers make them (ints in int columns, floats in float ones): decided on the columns
    plain = all(type(v) in (int, type(None)) for v in ints) and all(
        type(v) in (float, type(None)) for v in floats
    )
    if plain:
        assert columns_fit(RecordColumns(VmstatSample, VM_NAMES, columns_of(vm, VM_NAMES)), VmstatSample) == (
            not any(map(record_problem, vm))
        )
        assert columns_fit(RecordColumns(IostatSample, IO_NAMES, columns_of(io, IO_NAMES)), IostatSample) == (
            not any(map(record_problem, io))
        )


VM_NAMES = tuple(f.name for f in fields(VmstatSample))
IO_NAMES = tuple(f.name for f in fields(IostatSample))
