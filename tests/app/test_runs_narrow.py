"""The Runs table at 80 columns: the author's long names are cut in their middle so QPS and
status stay in view (they were pushed past the edge: "100,49" of a QPS showed)."""

from __future__ import annotations

from rich.console import Console

from benchdeck.tui.app.screens.runs_table import (
    COLUMNS,
    PADDING,
    SCROLLBAR,
    BuildCut,
    MiddleCut,
    fitted,
    widths,
)


def _render(text: MiddleCut, width: int) -> str:
    """The cell as a DataTable draws it: one line, ``width`` wide (rendered, not printed)."""
    console = Console(width=200, color_system=None)
    lines = console.render_lines(text, console.options.update_width(width), pad=False)
    return "".join(segment.text for segment in lines[0])


def test_the_columns_to_status_fit_80_with_the_archives_names() -> None:
    row = ["3412", "hetz", "ma100244_rel_withdbg", "update-index_range=100", "100,492.7", "finished"]
    row += ["40", "z12b", "2025-11-21 04:38", "", ""]
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
    row += ["24", "z11a_c32r128", "2024-11-01 13:05", "", ""]
    natural = widths([row])
    got = fitted(natural, 60)
    upto_qps = COLUMNS.index("QPS") + 1
    assert sum(w + PADDING for w in got[:upto_qps]) + SCROLLBAR <= 60
    assert got[COLUMNS.index("QPS")] == natural[COLUMNS.index("QPS")], "QPS is never cut"
    assert got[COLUMNS.index("build")] >= 10
    assert fitted(natural, 80) == natural, "80 columns: this row fits as it is"
