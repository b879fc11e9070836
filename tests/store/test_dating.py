"""A run's own date lines (issue 37.5): a start before sysbench's report, an end after it or
when its words say so, numbered as in the file."""

from __future__ import annotations

from datetime import datetime

from benchdeck.store.importers.dating import DateLine, date_line, first_stamp
from tests.store import mytools_tree as t

AT = datetime(2025, 10, 12, 9, 30)
STAMP = "Sun Oct 12 09:30:00 AM UTC 2025"


def test_a_date_line_before_the_report_is_the_start_and_after_it_the_end() -> None:
    body = t.sysbench_output("point-query", 1000.0).splitlines()
    first = [body[0], STAMP, *body[1:]]
    assert date_line("\n".join(first)) == DateLine(2, AT, is_end=False)
    assert date_line("\n".join([*body, STAMP])) == DateLine(len(body) + 1, AT, is_end=True)
    assert date_line("\n".join([*body, f"Done at {STAMP}"])) == DateLine(len(body) + 1, AT, is_end=True)
    started = [body[0], f"run ends at {STAMP}", *body[1:]]  # its words say end, wherever it is
    assert date_line("\n".join(started)) == DateLine(2, AT, is_end=True)


def test_only_the_head_and_the_tail_are_read() -> None:
    filler = ["x" * 99] * 100  # 10,000 characters each side of the date line
    assert date_line("\n".join([*filler, STAMP, *filler])) is None
    assert date_line("\n".join([*filler, *filler, STAMP])) == DateLine(201, AT, is_end=False)
    assert first_stamp(t.PS) == t.PS_AT
    assert first_stamp("no date\n") is None
