"""Checks of the seed 001 fixture generator itself (no benchdeck code involved).

The files written by tests/fixtures/seed001.py must (1) be laid out like a mytools result tree,
(2) encode the post's numbers when read correctly, and (3) give different numbers when read
the naive way of the old scripts -- otherwise they could not catch an importer that reads them
naively.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fixtures import seed001 as s

# --------------------------------------------------------------------------------------------
# Readers: a correct one (docs/domain.md) and the naive one of mytools' an.sh
# --------------------------------------------------------------------------------------------

_QUERIES = re.compile(r"^\s*queries:\s+\d+\s+\(([\d.]+) per sec\.\)", re.M)
_AVG = re.compile(r"^\s*avg:\s+([\d.]+)\s*$", re.M)


def sb_qps(path: Path) -> float:
    """QPS by docs/domain.md: the final ``queries:`` per-second figure; rows/s for scan."""
    text = path.read_text()
    first = text.splitlines()[0]
    if "oltp_scan.lua" in first:
        table_size = int(re.search(r"--table-size=(\d+)", first).group(1))  # type: ignore[union-attr]
        avg_ms = float(_AVG.findall(text)[-1])
        return table_size / (avg_ms / 1000.0)
    return float(_QUERIES.findall(text)[-1])


def sb_queries_per_sec(path: Path) -> float:
    return float(_QUERIES.findall(path.read_text())[-1])


def vm_rows_correct(path: Path) -> list[dict[str, int]]:
    """Columns by header name; since-boot row dropped; banner/header lines are not rows."""
    header: list[str] | None = None
    rows: list[dict[str, int]] = []
    for line in path.read_text().splitlines():
        tokens = line.split()
        if "swpd" in tokens:
            header = tokens
            continue
        if header is None or len(tokens) != len(header) or not all(t.isdigit() for t in tokens):
            continue
        rows.append(dict(zip(header, map(int, tokens), strict=True)))
    return rows[1:]


def vm_rows_keep_boot(path: Path) -> list[dict[str, int]]:
    header = " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
    cols = header.split()
    return [
        dict(zip(cols, map(int, ln.split()), strict=True))
        for ln in path.read_text().splitlines()
        if ln.split() and all(t.isdigit() for t in ln.split())
    ]


def vm_rows_banner_zero(path: Path) -> list[dict[str, int]]:
    """Since-boot row dropped, but every repeated banner counts as a row of zeros."""
    rows = vm_rows_correct(path)
    n_banners = sum(1 for ln in path.read_text().splitlines() if ln.startswith("procs"))
    zero = dict.fromkeys(rows[0], 0)
    return rows + [zero] * (n_banners - 1)


def vm_naive_an_sh(path: Path) -> tuple[float, float]:
    """``grep -v swpd | awk 'NR>1 { cs += $12; cpu += $13 + $14; c++ }'`` -> (cpu, cs) means."""
    lines = [ln for ln in path.read_text().splitlines() if "swpd" not in ln][1:]
    cpu = cs = 0.0
    for ln in lines:
        f = ln.split()
        cs += float(f[11]) if len(f) > 11 else 0.0
        cpu += (float(f[12]) if len(f) > 12 else 0.0) + (float(f[13]) if len(f) > 13 else 0.0)
    return cpu / len(lines), cs / len(lines)


def io_rows_correct(path: Path, device: str) -> list[dict[str, float]]:
    """Rows of exactly ``device``, columns by the Device header's names."""
    header: list[str] | None = None
    rows: list[dict[str, float]] = []
    for line in path.read_text().splitlines():
        tokens = line.split()
        if tokens[:1] == ["Device"]:
            header = tokens
        elif header is not None and tokens[:1] == [device]:
            rows.append(dict(zip(header[1:], map(float, tokens[1:]), strict=True)))
    return rows


def io_naive_grep(path: Path, device: str) -> tuple[float, float, float]:
    """``grep nvme0n1 | awk '{ rs += $2; rkb += $3; wkb += $9 }'`` -> means."""
    rows = [ln.split() for ln in path.read_text().splitlines() if device in ln]
    n = len(rows)
    return (
        sum(float(r[1]) for r in rows) / n,
        sum(float(r[2]) for r in rows) / n,
        sum(float(r[8]) for r in rows) / n,
    )


def per_op(vm: list[dict[str, int]], io: list[dict[str, float]], qps: float) -> dict[str, float]:
    return {
        "cpu/o": statistics.fmean(r["us"] + r["sy"] for r in vm) / qps,
        "cs/o": statistics.fmean(r["cs"] for r in vm) / qps,
        "r/o": statistics.fmean(r["r/s"] for r in io) / qps,
        "rKB/o": statistics.fmean(r["rkB/s"] for r in io) / qps,
        "wKB/o": statistics.fmean(r["wkB/s"] for r in io) / qps,
        "o/s": qps,
    }


def printed(value: float, column: str) -> str:
    return f"{value:.{s.PER_OP_DECIMALS[column]}f}"


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return s.write_dell32_tree(tmp_path_factory.mktemp("seed001"))


def _dir(tree: Path, build: str) -> Path:
    return tree / f"x.{build}.{s.CONFIG}.pk1"


def _sb(tree: Path, build: str, name: str, dop: int) -> Path:
    return _dir(tree, build) / f"sb.o.{s.file_suffix(name, dop)}"


# --------------------------------------------------------------------------------------------
# Layout
# --------------------------------------------------------------------------------------------


def test_tree_layout(tree: Path) -> None:
    assert sorted(p.name for p in tree.iterdir()) == [
        "x.my8028_rel_o2nofp.z11a_c32r128.pk1",
        "x.my8040_rel_o2nofp.z11a_c32r128.pk1",
        "x.my8040adv_rel_o2nofp.z11a_c32r128.pk1",
    ]
    for build in s.BUILDS:
        d = _dir(tree, build)
        dop24 = sorted(p.name for p in d.glob("sb.o.*.dop24"))
        assert len(dop24) == 42
        for name in (
            "point-query.pre_range=100",
            "random-points_range=1000",
            "scan_range=100",
            "read-only.pre_range=10000",
        ):
            assert _sb(tree, build, name, 24).is_file()
        assert (d / "sb.o.point-query.pre.range100.pk1.dop24").is_file()
        assert (d / "sb.o.random-points.range1000.pk1.dop24").is_file()
        assert (d / "sb.o.scan.range100.pk1.dop24").is_file()
        assert (d / "sb.o.read-only.pre.range10000.pk1.dop24").is_file()
        # vmstat/iostat only for the two dop40 runs
        for kind in ("o", "vm", "io"):
            assert sorted(p.name for p in d.glob(f"sb.{kind}.*.dop40")) == [
                f"sb.{kind}.update-index.range100.pk1.dop40",
                f"sb.{kind}.update-nonindex.range100.pk1.dop40",
            ]
        assert not list(d.glob("sb.vm.*.dop24"))


def test_sysbench_files_look_like_run_sh_output(tree: Path) -> None:
    versions: dict[str, set[str]] = {b: set() for b in s.BUILDS}
    for build in s.BUILDS:
        for path in _dir(tree, build).glob("sb.o.*"):
            lines = path.read_text().splitlines()
            dop = int(path.name.rsplit(".dop", 1)[1])
            cmd = lines[0].split()
            assert cmd[0].endswith("/bin/sysbench")
            assert f"--threads={dop}" in cmd
            assert cmd[cmd.index("run") - 1].endswith(".lua")
            assert lines[1] == "32 CPUs"
            assert lines[2].startswith("sysbench 1.")
            assert f"Number of threads: {dop}" in lines
            if "Throughput:" in lines:
                versions[build].add("1.1")
                assert lines[2].startswith("sysbench 1.1")
                assert "--warmup-time=5" in cmd
            else:
                versions[build].add("1.0")
                assert "General statistics:" in lines
                assert lines[2].startswith("sysbench 1.0.20")
                assert not any(a.startswith("--warmup-time") for a in cmd)
    assert set().union(*versions.values()) == {"1.0", "1.1"}
    assert versions[s.WITH[1]] == {"1.0", "1.1"}  # mixed within one build too


def test_command_lines_follow_the_workload(tree: Path) -> None:
    def cmd(name: str) -> str:
        return _sb(tree, s.BASE, name, 24).read_text().splitlines()[0]

    assert "/oltp_point_select.lua run" in cmd("point-query.pre_range=100")
    assert "--random-points=1000" in cmd("random-points_range=1000")
    assert "--hot-points" in cmd("hot-points_range=100")
    assert "/oltp_points_covered.lua" in cmd("points-notcovered-si_range=100")
    assert "--on-id=false --covered=false" in cmd("points-notcovered-si_range=100")
    assert "/oltp_range_covered.lua" in cmd("range-covered-pk_range=100")
    assert "/oltp_read_only.lua" in cmd("read-only.pre_range=10000")
    assert "--range-size=10000" in cmd("read-only.pre_range=10000")
    assert "/oltp_inlist_update.lua" in cmd("update-inlist_range=100")
    assert "/oltp_update_non_index.lua" in cmd("update-zipf_range=100")
    assert "--rand-type=zipfian" in cmd("update-zipf_range=100")
    assert "--table-size=1 " in cmd("update-one_range=100")
    assert "/oltp_scan.lua" in cmd("scan_range=100")
    assert "--time=300" in cmd("point-query_range=100")
    assert "--time=600" in cmd("update-index_range=100")


# --------------------------------------------------------------------------------------------
# QPS: the files encode the post's rQPS table
# --------------------------------------------------------------------------------------------


def test_rqps_from_files_rounds_to_post(tree: Path) -> None:
    for name, c1, c2 in s.RQPS_DELL32:
        base = sb_qps(_sb(tree, s.BASE, name, 24))
        for build, post in zip(s.WITH, (c1, c2), strict=True):
            ratio = sb_qps(_sb(tree, build, name, 24)) / base
            assert f"{ratio:.2f}" == f"{post:.2f}", (name, build, ratio)
            assert ratio == pytest.approx(post, abs=1e-9), (name, build)


def test_scan_needs_rows_per_second(tree: Path) -> None:
    """Taking the queries/s figure for scan would not reproduce the post."""
    base = sb_queries_per_sec(_sb(tree, s.BASE, s.SCAN, 24))
    for build, post in zip(s.WITH, (0.91, 0.85), strict=True):
        naive = sb_queries_per_sec(_sb(tree, build, s.SCAN, 24)) / base
        assert f"{naive:.2f}" != f"{post:.2f}"


def test_group_table_matches_domain() -> None:
    assert [n for n, _, _ in s.RQPS_DELL32][:3] == [
        "hot-points_range=100",
        "point-query.pre_range=100",
        "point-query_range=100",
    ]
    counts = {g: list(s.GROUPS.values()).count(g) for g in s.GROUP_NAMES}
    assert counts == {"point-1": 11, "point-2": 6, "range-1": 9, "range-2": 6, "writes": 10}
    assert s.GROUPS["scan_range=100"] == "range-1"
    assert s.GROUPS["read-only.pre_range=10000"] == "range-2"
    assert s.GROUPS["write-only_range=10000"] == "writes"
    assert s.GROUPS["random-points.pre_range=10"] == "point-2"


# --------------------------------------------------------------------------------------------
# Per-op metrics: correct reading reproduces the post; naive readings do not
# --------------------------------------------------------------------------------------------

DOP40 = list(s.PER_OP_DOP40)


def _files40(tree: Path, build: str, wl: str) -> tuple[Path, Path, Path]:
    d = _dir(tree, build)
    sfx = s.file_suffix(wl, 40)
    return d / f"sb.o.{sfx}", d / f"sb.vm.{sfx}", d / f"sb.io.{sfx}"


@pytest.mark.parametrize("wl", DOP40)
def test_correct_reading_reproduces_post_absolute_rows(tree: Path, wl: str) -> None:
    block = s.PER_OP_DOP40[wl]
    for build in s.BUILDS:
        sb, vm, io = _files40(tree, build, wl)
        vm_rows = vm_rows_correct(vm)
        io_rows = io_rows_correct(io, s.DEVICE)
        assert len(vm_rows) == s.N_SAMPLES
        assert len(io_rows) == s.N_SAMPLES
        got = per_op(vm_rows, io_rows, sb_qps(sb))
        for col in s.PER_OP_COLUMNS:
            assert float(printed(got[col], col)) == pytest.approx(block.abs_value(build, col), abs=1e-12), (
                wl,
                build,
                col,
                got[col],
            )
            assert got[col] == pytest.approx(s.EXPECTED_HW_DOP40[wl][build][col], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("wl", DOP40)
def test_correct_reading_reproduces_post_relative_rows(tree: Path, wl: str) -> None:
    block = s.PER_OP_DOP40[wl]
    figures = {}
    for build in s.BUILDS:
        sb, vm, io = _files40(tree, build, wl)
        figures[build] = per_op(vm_rows_correct(vm), io_rows_correct(io, s.DEVICE), sb_qps(sb))
    for build in s.WITH:
        for col in s.PER_OP_COLUMNS:
            base = figures[s.BASE][col]
            rel = 1.0 if base == 0 and figures[build][col] == 0 else figures[build][col] / base
            assert f"{rel:.2f}" == f"{block.rel_value(build, col):.2f}", (wl, build, col, rel)


def test_post_relative_rows_as_printed() -> None:
    rows = {wl: [" ".join(b.relative[x]) for x in s.WITH] for wl, b in s.PER_OP_DOP40.items()}
    assert rows["update-index_range=100"] == ["1.09 1.03 1 1 1.37 0.90", "0.85 0.66 1 1 0.89 1.18"]
    assert rows["update-nonindex_range=100"] == ["1.06 1.00 1 1 1.07 0.96", "0.85 0.66 1 1 1.02 1.05"]


def _naive_differs(correct: float, naive: float, col: str) -> bool:
    return printed(correct, col) != printed(naive, col)


Reader = Callable[[Path], list[dict[str, int]]]


@pytest.mark.parametrize("wl", DOP40)
@pytest.mark.parametrize(
    "reader", [vm_rows_keep_boot, vm_rows_banner_zero], ids=["since-boot-row-kept", "banners-as-zero-rows"]
)
def test_each_vmstat_trap_changes_cpu_and_cs(tree: Path, wl: str, reader: Reader) -> None:
    for build in s.BUILDS:
        sb, vm, io = _files40(tree, build, wl)
        qps = sb_qps(sb)
        io_rows = io_rows_correct(io, s.DEVICE)
        good = per_op(vm_rows_correct(vm), io_rows, qps)
        bad = per_op(reader(vm), io_rows, qps)
        for col in ("cpu/o", "cs/o"):
            assert _naive_differs(good[col], bad[col], col), (wl, build, col)


@pytest.mark.parametrize("wl", DOP40)
def test_substring_device_match_changes_wkb(tree: Path, wl: str) -> None:
    for build in s.BUILDS:
        sb, _, io = _files40(tree, build, wl)
        qps = sb_qps(sb)
        good = statistics.fmean(r["wkB/s"] for r in io_rows_correct(io, s.DEVICE)) / qps
        _, _, wkb = io_naive_grep(io, s.DEVICE)
        assert _naive_differs(good, wkb / qps, "wKB/o"), (wl, build)
        # the file really holds other devices, and a partition of the device
        text = io.read_text()
        assert "\nnvme0n1p1 " in text
        assert "\nnvme1n1 " in text


@pytest.mark.parametrize("wl", DOP40)
def test_an_sh_reading_gives_other_figures(tree: Path, wl: str) -> None:
    """All traps at once, exactly as mytools' an.sh reads the files."""
    block = s.PER_OP_DOP40[wl]
    for build in s.BUILDS:
        sb, vm, io = _files40(tree, build, wl)
        qps = sb_qps(sb)
        cpu, cs = vm_naive_an_sh(vm)
        _, _, wkb = io_naive_grep(io, s.DEVICE)
        assert printed(cpu / qps, "cpu/o") != block.absolute[build][0]
        assert printed(cs / qps, "cs/o") != block.absolute[build][1]
        assert printed(wkb / qps, "wKB/o") != block.absolute[build][4]


def test_vmstat_has_repeated_banner_and_since_boot_row(tree: Path) -> None:
    _, vm, _ = _files40(tree, s.BASE, DOP40[0])
    lines = vm.read_text().splitlines()
    assert lines[0] == s.VM_BANNER
    assert lines[1] == s.VM_HEADER
    banners = [i for i, ln in enumerate(lines) if ln == s.VM_BANNER]
    assert len(banners) >= 2
    assert all(lines[i + 1] == s.VM_HEADER for i in banners)
    assert 2 < banners[1] < len(lines) - 2  # in the middle
    boot = lines[2].split()
    samples = vm_rows_correct(vm)
    assert int(boot[11]) < min(r["cs"] for r in samples) / 10
    assert int(boot[12]) + int(boot[13]) < min(r["us"] + r["sy"] for r in samples) / 4


def test_iostat_layout_is_sysstat_12(tree: Path) -> None:
    _, _, io = _files40(tree, s.BASE, DOP40[0])
    lines = io.read_text().splitlines()
    assert lines[0].startswith("Linux 5.15.0-119-generic (dell32) \t")
    assert lines[0].endswith("\t(32 CPU)")
    real = (
        "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s"
        "   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await"
        " dareq-sz     f/s f_await  aqu-sz  %util"
    )
    assert lines.count(real) == s.N_SAMPLES
    assert lines.count("avg-cpu:  %user   %nice %system %iowait  %steal   %idle") == s.N_SAMPLES


# --------------------------------------------------------------------------------------------
# Single-run files
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", [0, 1])
def test_single_run_files(tmp_path: Path, variant: int) -> None:
    files = s.write_single_run_files(tmp_path, variant)
    text = files["sysbench"].read_text()
    intervals = re.findall(r"^\[ \d+s \] thds: 24 tps: [\d.]+ qps: ([\d.]+) ", text, re.M)
    assert len(intervals) == 10
    qps = sb_qps(files["sysbench"])
    assert qps == files["qps"]
    assert float(intervals[-1]) != qps
    assert f"{statistics.fmean(map(float, intervals)):.2f}" != f"{qps:.2f}"
    assert "General statistics:" in text
    assert "Number of threads: 24" in text

    vm_rows = vm_rows_correct(files["vmstat"])
    io_rows = io_rows_correct(files["iostat"], s.DEVICE)
    assert len(vm_rows) == len(io_rows) == 10
    got = per_op(vm_rows, io_rows, qps)
    for col in s.PER_OP_COLUMNS:
        assert got[col] == pytest.approx(files["per_op"][col], rel=1e-9), col
    assert got["r/o"] > 0

    # naive readings differ here too
    bad_vm = per_op(vm_rows_keep_boot(files["vmstat"]), io_rows, qps)
    assert bad_vm["cpu/o"] != pytest.approx(got["cpu/o"], rel=1e-3)
    assert bad_vm["cs/o"] != pytest.approx(got["cs/o"], rel=1e-3)
    rs, rkb, wkb = io_naive_grep(files["iostat"], s.DEVICE)
    assert rs / qps != pytest.approx(got["r/o"], rel=1e-3)
    assert rkb / qps != pytest.approx(got["rKB/o"], rel=1e-3)
    assert wkb / qps != pytest.approx(got["wKB/o"], rel=1e-3)


def test_single_run_variants_differ(tmp_path: Path) -> None:
    a = s.write_single_run_files(tmp_path / "a", 0)
    b = s.write_single_run_files(tmp_path / "b", 1)
    assert f"{b['qps'] / a['qps']:.2f}" == "1.06"
    for col in s.PER_OP_COLUMNS:
        assert a["per_op"][col] != b["per_op"][col]
