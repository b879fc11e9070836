"""The parsers' many-line feeds (``IostatParser.feed_many_at``, ``VmstatParser.feed_many``) and
``checked.split_lines`` give what one feed per line and ``str.splitlines`` give: the same
samples, skipped lines, counts and state after, on the recorded files mutated line by line."""

# ruff: noqa: E501 (the files' lines as the tools print them)
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchdeck.engine.parsers import IostatParser, VmstatParser
from benchdeck.engine.parsers.iostat import _plain_numbers
from benchdeck.store.importers.checked import split_lines
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
