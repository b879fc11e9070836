"""The Runs table at 80 columns: the author's long names are cut in their middle so QPS and
status stay in view (they were pushed past the edge: "100,49" of a QPS showed)."""

from __future__ import annotations

from datetime import datetime

from rich.console import Console

from benchdeck.store.storage.run_lists import HistoryRow
from benchdeck.tui.app.screens.runs_table import (
    COLUMNS,
    PADDING,
    SCROLLBAR,
    BuildCut,
    MiddleCut,
    fitted,
    run_cells,
    widths,
)


def _render(text: MiddleCut, width: int) -> str:
    """The cell as a DataTable draws it: one line, ``width`` wide (rendered, not printed)."""
    console = Console(width=200, color_system=None)
    lines = console.render_lines(text, console.options.update_width(width), pad=False)
    return "".join(segment.text for segment in lines[0])


def test_the_columns_to_status_fit_80_with_the_archives_names() -> None:
    row = ["3412", "hetz", "ma100244_rel_withdbg", "update-index_range=100", "100,492.7", "finished"]
    row += ["2025-11-21 04:38", "40", "z12b", "", ""]
    natural = widths([row])
    got = fitted(natural, 80)
    shown = COLUMNS.index("status") + 1
    assert sum(w + PADDING for w in natural[:shown]) + SCROLLBAR > 80, "the row is too wide as it is"
    assert sum(w + PADDING for w in got[:shown]) + SCROLLBAR <= 80
    assert got[COLUMNS.index("QPS")] == natural[COLUMNS.index("QPS")], "QPS is never cut"
    assert got[COLUMNS.index("status")] == natural[COLUMNS.index("status")]
    assert fitted(natural, 200) == natural, "a wide terminal cuts nothing"


def test_names_are_cut_in_the_middle_and_keep_their_plain_text() -> None:
    build = BuildCut("my8040_rel_o2nofp", no_wrap=True, end="")
    assert _render(build, 14) == "my8040…_o2nofp"
    assert _render(build, 30) == "my8040_rel_o2nofp"
    assert build.plain == "my8040_rel_o2nofp"
    workload = MiddleCut("update-index_range=100", no_wrap=True, end="")
    cut = _render(workload, 16)
    assert cut == "update-…ange=100"


def test_at_60_columns_qps_keeps_its_decimals() -> None:
    """Issue 38 item 14: at 60x20 the QPS column was cut at the edge (``3,37`` of ``3,375.0``)."""
    row = ["35", "beelink", "my8040_rel_o2nofp", "insert_range=100", "3,375.0", "finished"]
    row += ["2024-11-01 13:05", "24", "z11a_c32r128", "", ""]
    natural = widths([row])
    got = fitted(natural, 60)
    upto_qps = COLUMNS.index("QPS") + 1
    assert sum(w + PADDING for w in got[:upto_qps]) + SCROLLBAR <= 60
    assert got[COLUMNS.index("QPS")] == natural[COLUMNS.index("QPS")], "QPS is never cut"
    assert got[COLUMNS.index("build")] >= 10
    assert fitted(natural, 80) == natural, "80 columns: this row fits as it is"


def test_at_100_columns_the_date_shows_whole() -> None:
    """Issue 38 item 14: at 100x30 the date was cut (``2026-11-29 08``); it now follows status
    and the names give way to it, as they do to QPS at 80."""
    row = ["3412", "hetz", "ma100244_rel_withdbg", "update-index_range=100", "100,492.7", "finished"]
    row += ["2025-11-21 04:38", "40", "z12b", "", ""]
    natural = widths([row])
    got = fitted(natural, 100)
    upto_date = COLUMNS.index("date") + 1
    assert COLUMNS.index("date") == COLUMNS.index("status") + 1
    assert sum(w + PADDING for w in got[:upto_date]) + SCROLLBAR <= 100
    assert got[COLUMNS.index("date")] == len("2025-11-21 04:38")
    assert got[COLUMNS.index("QPS")] == natural[COLUMNS.index("QPS")]


def test_a_date_of_this_year_leaves_out_the_year() -> None:
    run = HistoryRow(1, "h", "b", "", "w", 1, "finished", 1.0, datetime(2026, 11, 29, 8, 12), ())
    date = COLUMNS.index("date")
    assert run_cells(run, [], year=2026)[date] == "11-29 08:12"
    assert run_cells(run, [], year=2027)[date] == "2026-11-29 08:12"
