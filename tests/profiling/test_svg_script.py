"""The flame graph SVG's own script (issue 38 item 11: the SVG was static, no zoom or search as
flamegraph.pl's have). No browser here: node runs the script against a minimal DOM
(svg_dom.js, a stand-in for the browser we cannot start) built from the frames of a real SVG."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from benchdeck.engine.profiling.svg import SIDE, WIDTH, flame_svg
from benchdeck.engine.profiling.svg_script import SCRIPT
from benchdeck.engine.profiling.tree import build_tree

SVG = "{http://www.w3.org/2000/svg}"
DOM = Path(__file__).with_name("svg_dom.js")
STACKS = [
    ("mysqld;do_command;row_upd_sec_index_entry", 600, 0.0),
    ("mysqld;do_command;btr_cur_search_to_nth_level", 300, 0.0),
    ("mysqld;buf_flush_page_cleaner", 100, 0.0),
]
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node runs the SVG's script")


def _frames(svg: str) -> list[dict[str, Any]]:
    out = []
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if g.get("class") == "frame":
            rect, title = g.find(f"{SVG}rect"), g.find(f"{SVG}title")
            assert rect is not None
            assert title is not None
            x, w, fill = float(rect.get("x", "0")), float(rect.get("width", "0")), rect.get("fill")
            out.append(
                {"x": x, "w": w, "depth": int(g.get("data-depth", "0")), "title": title.text, "fill": fill}
            )
    return out


def _run(
    svg: str, actions: list[list[object]], tmp_path: Path
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    frames = _frames(svg)
    script = tmp_path / "script.js"
    script.write_text(SCRIPT)
    data = json.dumps({"width": WIDTH, "side": SIDE, "frames": frames})
    res = subprocess.run(
        ["node", str(DOM), data, json.dumps(actions), str(script)], capture_output=True, text=True, check=True
    )
    out = json.loads(res.stdout)
    return frames, out


def _index(frames: list[dict[str, Any]], name: str) -> int:
    return next(i for i, f in enumerate(frames) if f["title"].startswith(name + " ("))


def test_the_svg_carries_its_script_inline_and_no_reference_outside(tmp_path: Path) -> None:
    svg = flame_svg(build_tree(STACKS), "t")
    root = ET.fromstring(svg)
    (script,) = root.iter(f"{SVG}script")
    assert script.get("href") is None
    assert script.get("{http://www.w3.org/1999/xlink}href") is None
    assert "http" not in (script.text or ""), "no network"
    assert {t.get("id") for t in root.iter(f"{SVG}text")} >= {"unzoom", "search", "matched", "details"}


def test_a_click_zooms_into_the_frame_and_reset_undoes_it(tmp_path: Path) -> None:
    svg = flame_svg(build_tree(STACKS), "t")
    frames, out = _run(svg, [["click", 2]], tmp_path)  # zoom: frame 2 by walk order
    zoomed = frames[2]
    full = WIDTH - 2 * SIDE
    after = out["frames"]
    assert after[2]["x"] == pytest.approx(SIDE)
    assert after[2]["w"] == pytest.approx(full)
    for f, a in zip(frames, after, strict=True):
        inside = (
            f["depth"] >= zoomed["depth"]
            and zoomed["x"] <= f["x"]
            and f["x"] + f["w"] <= zoomed["x"] + zoomed["w"] + 1e-6
        )
        above = f["depth"] < zoomed["depth"]
        if inside:
            assert a["display"] == ""
            assert a["w"] == pytest.approx(f["w"] * full / zoomed["w"])
        elif above:
            assert (a["display"], a["opacity"], a["w"]) == ("", "0.5", pytest.approx(full))
        else:
            assert a["display"] == "none"
    assert out["unzoom"] == "1"
    _, back = _run(svg, [["click", 2], ["unzoom"]], tmp_path)
    assert [(a["x"], a["w"], a["display"]) for a in back["frames"]] == [
        (pytest.approx(f["x"], abs=1e-3), pytest.approx(f["w"], abs=1e-3), "") for f in frames
    ]
    assert back["unzoom"] == "0"


def test_search_highlights_the_matches_and_says_their_share(tmp_path: Path) -> None:
    svg = flame_svg(build_tree(STACKS), "t")
    frames, out = _run(svg, [["search", "row_upd|btr_cur"]], tmp_path)
    hits = {_index(frames, "row_upd_sec_index_entry"), _index(frames, "btr_cur_search_to_nth_level")}
    for i, a in enumerate(out["frames"]):
        assert (a["fill"] == "rgb(230,0,230)") == (i in hits)
    assert out["matched"] == "Matched: 90.00%"  # 900 of 1,000 samples
    assert out["search"] == "Reset search"
    _, nested = _run(svg, [["search", "mysqld|row_upd"]], tmp_path)
    assert nested["matched"] == "Matched: 100.00%", "a match inside another counts once"
    _, cleared = _run(svg, [["search", "row_upd"], ["key", "Escape"]], tmp_path)
    assert [a["fill"] for a in cleared["frames"]] == [f["fill"] for f in frames]
    assert cleared["matched"] == " "


def test_the_bottom_line_names_the_frame_under_the_pointer(tmp_path: Path) -> None:
    svg = flame_svg(build_tree(STACKS), "t")
    frames, out = _run(svg, [["hover", 1]], tmp_path)
    assert out["details"] == frames[1]["title"]
