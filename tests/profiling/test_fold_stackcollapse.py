"""fold.py against FlameGraph's stackcollapse-perf.pl: its output on the same ``perf script``
text, made once with the real script and kept as fixtures (tests/data/perf/README.md says how).

``cpp_templates`` is real perf output of a C++ program (templates, ``operator()``, lambdas,
``(__gnu_cxx::_Lock_policy)2`` template arguments); the script sums perf's periods, benchdeck
counts samples, so each of its counts is ours times the file's one period."""

from __future__ import annotations

import re
from pathlib import Path

from benchdeck.engine.profiling.fold import Folder, fold, tidy

DATA = Path(__file__).parent.parent / "data" / "perf"


def _folded(path: Path) -> dict[str, int]:
    out = {}
    for line in path.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        out[stack] = int(n)
    return out


def test_cpp_frames_fold_as_stackcollapse_perf_pl() -> None:
    text = (DATA / "cpp_templates.script.txt").read_text()
    periods = set(re.findall(r"^\S.*:\s+(\d+) cpu-clock", text, re.MULTILINE))
    assert len(periods) == 1, "one period in the whole file"
    period = int(periods.pop())
    ours = fold(text.splitlines(keepends=True))
    expected = _folded(DATA / "cpp_templates.stackcollapse.folded")
    assert {s: n * period for s, n in ours.items()} == expected
    # what stackcollapse-perf.pl does to C++ names, seen in the recorded file
    frames = {f for s in ours for f in s.split(";")}
    assert "std::function<double " in frames  # std::function<double (int)>::operator()
    assert "spin<double, 20>" in frames  # a template without an argument list
    assert not any("Accumulator" in f for f in frames)  # "(anonymous namespace)::..." frames left out
    assert not any(f.endswith("operator()") for f in frames)


def test_edge_cases_fold_as_stackcollapse_perf_pl() -> None:
    folder = Folder()
    for line in (DATA / "stackcollapse_edges.script.txt").read_text().splitlines(keepends=True):
        folder.feed(line)
    got = "".join(f"{s} {n}\n" for s, n in sorted(folder.stacks.items()))
    assert got == (DATA / "stackcollapse_edges.folded").read_text()
    # the line that is not perf's and the frame outside a sample are what it could not read
    assert (folder.headers, folder.unmatched) == (4, 2)


def test_tidy_keeps_go_methods_and_anonymous_namespaces() -> None:
    assert tidy("net/http.(*Client).Do", "go") == "net/http.(*Client).Do"
    assert tidy("ns::(anonymous namespace)::f(int)", "x") == "ns::(anonymous namespace)::f"
    assert (
        tidy("std::__shared_count<(__gnu_cxx::_Lock_policy)2>::~__shared_count", "x")
        == "std::__shared_count<"
    )
    assert tidy("Lorg/a/B;.call(I)V", "java") == "org/a/B:.call"
