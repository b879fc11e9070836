"""Seed 001 as test data: the dell32 results of "Trying out Advanced MySQL" (Small Datum,
2024-10-29), and a generator of raw result files that encode them.

This module holds no tests. It provides

* the post's dell32 rQPS table (42 sysbench microbenchmarks, two compared builds) and the two
  ``sb.met.*.dop40`` per-operation blocks printed under it, exactly as printed;
* the default group of each workload (domain.md);
* :func:`write_dell32_tree`, which writes a result tree in the layout of the post author's
  scripts (mdcallag/mytools ``bench/sysbench.lua/run.sh``): one ``x.<build>.<config>.pk1``
  folder per build, with ``sb.o.*`` (sysbench output, command line first), ``sb.vm.*``
  (``vmstat 1 N``) and ``sb.io.*`` (``iostat -y -kx 1 N``) files whose numbers, read the way
  domain.md prescribes, reproduce the post;
* :func:`write_single_run_files`, one plain sysbench/vmstat/iostat triple for the single-file
  importer, with the numbers a correct reader must get.

The vmstat and iostat files carry the traps of real captures: vmstat's first data row is an
average since boot, its banner and header repeat every 21 rows (what ``vmstat`` does when its
output is not a terminal), and iostat lists ``nvme0n1p1`` and ``nvme1n1`` besides ``nvme0n1``.
Reading them the way the old ``an.sh`` did (since-boot row kept, banner rows counted as zeros,
``grep nvme0n1``) gives figures that do not round to the post's.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

# --------------------------------------------------------------------------------------------
# The post's data
# --------------------------------------------------------------------------------------------

HOST = "dell32"
BASE = "my8028_rel_o2nofp"
WITH = ["my8040_rel_o2nofp", "my8040adv_rel_o2nofp"]
BUILDS = [BASE, *WITH]
CONFIG = "z11a_c32r128"
DEVICE = "nvme0n1"
NCPU = 32
TABLES = 8
TABLE_SIZE = 10_000_000
DOP = 24  # "dell32 - 24 threads, 8 tables, 10M rows/table"
DOP_HW = 40  # the per-op blocks printed under "Results: dell32" are labelled dop40
READ_SECS = 300
WRITE_SECS = 600

# "Results: dell32": rQPS relative to my8028_rel_o2nofp; col-1 = my8040_rel_o2nofp,
# col-2 = my8040adv_rel_o2nofp. In the post's order.
RQPS_DELL32: list[tuple[str, float, float]] = [
    ("hot-points_range=100", 1.06, 1.07),
    ("point-query.pre_range=100", 0.95, 0.95),
    ("point-query_range=100", 0.95, 0.95),
    ("points-covered-pk.pre_range=100", 1.05, 1.05),
    ("points-covered-pk_range=100", 1.05, 1.05),
    ("points-covered-si.pre_range=100", 1.04, 1.06),
    ("points-covered-si_range=100", 1.05, 1.07),
    ("points-notcovered-pk.pre_range=100", 1.05, 1.05),
    ("points-notcovered-pk_range=100", 1.05, 1.06),
    ("points-notcovered-si.pre_range=100", 1.02, 1.05),
    ("points-notcovered-si_range=100", 1.01, 1.04),
    ("random-points.pre_range=1000", 1.89, 1.89),
    ("random-points.pre_range=100", 1.05, 1.05),
    ("random-points.pre_range=10", 0.96, 0.96),
    ("random-points_range=1000", 1.91, 1.92),
    ("random-points_range=100", 1.05, 1.05),
    ("random-points_range=10", 0.96, 0.96),
    ("range-covered-pk.pre_range=100", 0.99, 0.97),
    ("range-covered-pk_range=100", 0.99, 0.97),
    ("range-covered-si.pre_range=100", 0.99, 0.96),
    ("range-covered-si_range=100", 0.99, 0.97),
    ("range-notcovered-pk.pre_range=100", 0.96, 0.97),
    ("range-notcovered-pk_range=100", 0.96, 0.96),
    ("range-notcovered-si.pre_range=100", 0.97, 0.99),
    ("range-notcovered-si_range=100", 0.97, 0.98),
    ("read-only.pre_range=10000", 1.01, 1.01),
    ("read-only.pre_range=100", 0.95, 0.95),
    ("read-only.pre_range=10", 0.95, 0.95),
    ("read-only_range=10000", 1.01, 1.01),
    ("read-only_range=100", 0.95, 0.95),
    ("read-only_range=10", 0.95, 0.95),
    ("scan_range=100", 0.91, 0.85),
    ("delete_range=100", 0.93, 1.00),
    ("insert_range=100", 0.94, 0.96),
    ("read-write_range=100", 0.95, 0.95),
    ("read-write_range=10", 0.95, 0.95),
    ("update-index_range=100", 0.56, 0.84),
    ("update-inlist_range=100", 1.03, 1.03),
    ("update-nonindex_range=100", 0.95, 0.97),
    ("update-one_range=100", 0.94, 0.94),
    ("update-zipf_range=100", 0.96, 0.97),
    ("write-only_range=10000", 0.94, 0.98),
]

GROUP_NAMES = ["point-1", "point-2", "range-1", "range-2", "writes"]


def _default_group(name: str) -> str:
    test = name.split("_range=")[0].removesuffix(".pre")
    if test in ("hot-points", "point-query") or test.startswith("points-"):
        return "point-1"
    if test == "random-points":
        return "point-2"
    if test.startswith("range-") or test == "scan":
        return "range-1"
    if test == "read-only":
        return "range-2"
    return "writes"


# Default groups of the 42 (domain.md): 11 point-1, 6 point-2, 9 range-1, 6 range-2, 10 writes.
GROUPS: dict[str, str] = {name: _default_group(name) for name, _, _ in RQPS_DELL32}

PER_OP_COLUMNS = ("cpu/o", "cs/o", "r/o", "rKB/o", "wKB/o", "o/s")
# Decimals the post prints each absolute column with (r/o and rKB/o print as "0" there, the
# author's an.sh uses %.3f for them).
PER_OP_DECIMALS = {"cpu/o": 6, "cs/o": 3, "r/o": 3, "rKB/o": 3, "wKB/o": 3, "o/s": 0}
REL_DECIMALS = 2


@dataclass(frozen=True)
class PerOpBlock:
    """One ``sb.met.*`` block of the post: absolute rows, then rows relative to the first."""

    workload: str  # benchdeck's workload name, e.g. "update-index_range=100"
    title: str  # as printed, e.g. "sb.met.update-index.range100.pk1.dop40"
    dop: int
    absolute: dict[str, tuple[str, ...]]  # build -> values of PER_OP_COLUMNS, as printed
    relative: dict[str, tuple[str, ...]]  # build (not the base) -> values, as printed

    def abs_value(self, build: str, column: str) -> float:
        return float(self.absolute[build][PER_OP_COLUMNS.index(column)])

    def rel_value(self, build: str, column: str) -> float:
        return float(self.relative[build][PER_OP_COLUMNS.index(column)])


PER_OP_DOP40: dict[str, PerOpBlock] = {
    "update-index_range=100": PerOpBlock(
        workload="update-index_range=100",
        title="sb.met.update-index.range100.pk1.dop40",
        dop=40,
        absolute={
            "my8028_rel_o2nofp": ("0.000550", "12.157", "0", "0", "8.354", "83129"),
            "my8040_rel_o2nofp": ("0.000600", "12.514", "0", "0", "11.416", "74917"),
            "my8040adv_rel_o2nofp": ("0.000469", "8.063", "0", "0", "7.437", "98180"),
        },
        relative={
            "my8040_rel_o2nofp": ("1.09", "1.03", "1", "1", "1.37", "0.90"),
            "my8040adv_rel_o2nofp": ("0.85", "0.66", "1", "1", "0.89", "1.18"),
        },
    ),
    "update-nonindex_range=100": PerOpBlock(
        workload="update-nonindex_range=100",
        title="sb.met.update-nonindex.range100.pk1.dop40",
        dop=40,
        absolute={
            "my8028_rel_o2nofp": ("0.000363", "12.236", "0", "0", "2.611", "114970"),
            "my8040_rel_o2nofp": ("0.000383", "12.235", "0", "0", "2.794", "109896"),
            "my8040adv_rel_o2nofp": ("0.000310", "8.128", "0", "0", "2.663", "121196"),
        },
        relative={
            "my8040_rel_o2nofp": ("1.06", "1.00", "1", "1", "1.07", "0.96"),
            "my8040adv_rel_o2nofp": ("0.85", "0.66", "1", "1", "1.02", "1.05"),
        },
    ),
}


def rounds_to(value: float, printed: str, decimals: int, margin: float = 0.0) -> bool:
    """True if ``value`` printed with ``decimals`` decimals is ``printed`` (as a number), with
    ``margin`` of room to spare on both sides of the rounding window."""
    half = 0.5 * 10.0**-decimals
    return abs(value - float(printed)) <= half - margin


# --------------------------------------------------------------------------------------------
# Workload names, file names and sysbench command lines (mytools run.sh)
# --------------------------------------------------------------------------------------------


def split_workload(name: str) -> tuple[str, int]:
    """``"point-query.pre_range=100"`` -> ``("point-query.pre", 100)`` (mytools testType, range)."""
    test, _, rng = name.partition("_range=")
    return test, int(rng)


def file_suffix(name: str, dop: int) -> str:
    """``"point-query.pre_range=100"``, 24 -> ``"point-query.pre.range100.pk1.dop24"``."""
    test, rng = split_workload(name)
    return f"{test}.range{rng}.pk1.dop{dop}"


def build_dir_name(build: str, config: str = CONFIG) -> str:
    return f"x.{build}.{config}.pk1"


def lua_and_args(test: str, rng: int) -> tuple[str, list[str]]:
    """The Lua script and test arguments run.sh uses for a testType."""
    base = test.removesuffix(".pre")
    uni = "--rand-type=uniform"
    pts = f"--random-points={rng}"
    table: dict[str, tuple[str, list[str]]] = {
        "point-query": ("oltp_point_select.lua", [uni, "--skip-trx"]),
        "random-points": ("oltp_inlist_select.lua", [uni, pts, "--skip-trx"]),
        "hot-points": ("oltp_inlist_select.lua", [uni, pts, "--hot-points", "--skip-trx"]),
        "points-covered-pk": ("oltp_points_covered.lua", [uni, pts, "--skip-trx"]),
        "points-covered-si": ("oltp_points_covered.lua", [uni, pts, "--skip-trx", "--on-id=false"]),
        "points-notcovered-pk": ("oltp_points_covered.lua", [uni, pts, "--skip-trx", "--covered=false"]),
        "points-notcovered-si": (
            "oltp_points_covered.lua",
            [uni, pts, "--skip-trx", "--on-id=false", "--covered=false"],
        ),
        "range-covered-pk": ("oltp_range_covered.lua", [uni, pts, "--skip-trx"]),
        "range-covered-si": ("oltp_range_covered.lua", [uni, pts, "--skip-trx", "--on-id=false"]),
        "range-notcovered-pk": ("oltp_range_covered.lua", [uni, pts, "--skip-trx", "--covered=false"]),
        "range-notcovered-si": (
            "oltp_range_covered.lua",
            [uni, pts, "--skip-trx", "--on-id=false", "--covered=false"],
        ),
        "read-only": ("oltp_read_only.lua", [uni]),
        "read-write": ("oltp_read_write.lua", [uni]),
        "write-only": ("oltp_write_only.lua", [uni]),
        "delete": ("oltp_delete.lua", [uni]),
        "insert": ("oltp_insert.lua", [uni]),
        "update-inlist": ("oltp_inlist_update.lua", [uni]),
        "update-index": ("oltp_update_index.lua", [uni]),
        "update-nonindex": ("oltp_update_non_index.lua", [uni]),
        "update-one": ("oltp_update_non_index.lua", [uni]),
        "update-zipf": ("oltp_update_non_index.lua", ["--rand-type=zipfian"]),
        "scan": ("oltp_scan.lua", [uni]),
    }
    return table[base]


# Queries per event as (read, write, other): skip-trx selects run one statement per event;
# oltp_read_only: 10 point + 4 range selects inside BEGIN/COMMIT; oltp_read_write adds an index
# update, a non-index update, a delete and an insert; oltp_write_only is those 4 writes.
def queries_per_event(test: str) -> tuple[int, int, int]:
    base = test.removesuffix(".pre")
    if base == "read-only":
        return (14, 0, 2)
    if base == "read-write":
        return (14, 4, 2)
    if base == "write-only":
        return (0, 4, 2)
    if base in ("delete", "insert") or base.startswith("update-"):
        return (0, 1, 0)
    return (1, 0, 0)


def run_secs(test: str) -> int:
    base = test.removesuffix(".pre")
    if base in ("read-write", "delete", "insert") or base.startswith("update-"):
        return WRITE_SECS
    return READ_SECS  # all_small.sh runs write-only with $readsecs too


SYSB11_BIN = "/home/u/sysb/bin/sysbench"
SYSB11_LUA = "/home/u/sysb/share/sysbench"
SYSB10_BIN = "/usr/bin/sysbench"
SYSB10_LUA = "/usr/share/sysbench"


def sysbench_cmdline(
    name: str,
    dop: int,
    version: str,
    *,
    table_size: int | None = None,
    report_interval: int | None = None,
    secs: int | None = None,
) -> str:
    """The command line run.sh echoes as the first line of ``sb.o.*``."""
    test, rng = split_workload(name)
    lua, test_args = lua_and_args(test, rng)
    nr = table_size if table_size is not None else (1 if test == "update-one" else TABLE_SIZE)
    secs = secs if secs is not None else run_secs(test)
    if version == "1.1":
        binary, lua_path, warm = SYSB11_BIN, f"{SYSB11_LUA}/{lua}", ["--warmup-time=5"]
    else:  # 1.0.20 has no --warmup-time
        binary, lua_path, warm = SYSB10_BIN, f"{SYSB10_LUA}/{lua}", []
    rep = [f"--report-interval={report_interval}"] if report_interval else []
    parts = [
        binary,
        "--db-driver=mysql",
        f"--range-size={rng}",
        f"--table-size={nr}",
        f"--tables={TABLES}",
        f"--threads={dop}",
        "--events=0",
        *warm,
        f"--time={secs}",
        *rep,
        lua_path,
        "run",
        "--mysql-user=root",
        "--mysql-password=pw",
        "--mysql-host=127.0.0.1",
        "--mysql-db=ib",
        *test_args,
    ]
    return " ".join(parts)


# --------------------------------------------------------------------------------------------
# sysbench output
# --------------------------------------------------------------------------------------------

D2 = Decimal("0.01")
D4 = Decimal("0.0001")


def _q(x: Decimal, exp: Decimal = D2) -> Decimal:
    return x.quantize(exp, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True)
class SbRun:
    """What one sysbench run prints. ``qps`` is the per-second figure of ``queries:``."""

    version: str  # "1.1" (built from source) or "1.0" (Debian's 1.0.20)
    threads: int
    qps: Decimal
    rwo: tuple[int, int, int]  # queries per event: read, write, other
    elapsed: Decimal  # total time / time elapsed, seconds
    avg_lat_ms: Decimal | None = None  # None: threads / events-per-second
    intervals: tuple[Decimal, ...] = ()  # qps of --report-interval=1 lines (1.0 format)
    lat95_ms: Decimal | None = None
    seed: int = 0


def render_sysbench(run: SbRun) -> str:
    rng = random.Random(run.seed)
    qpe = sum(run.rwo)
    tps = _q(run.qps / qpe)
    # sysbench prints events/s with 4 decimals; keep it on the same 2-decimal figure.
    eps = tps + Decimal(rng.randint(0, 49)) * D4
    events = int(_q(eps * run.elapsed, Decimal(1)))
    reads, writes, other = (n * events for n in run.rwo)
    queries = events * qpe
    if run.avg_lat_ms is not None:  # long events (scan): a narrow latency distribution
        avg = run.avg_lat_ms
        lat_min, lat95, lat_max = (_q(avg * Decimal(f)) for f in ("0.83", "1.19", "1.64"))
    else:
        avg = _q(Decimal(run.threads) * 1000 / eps)
        lat_min = _q(avg * Decimal("0.18"))
        lat95 = run.lat95_ms if run.lat95_ms is not None else _q(avg * Decimal("2.31"))
        lat_max = _q(avg * Decimal(rng.randint(180, 900)))
    if run.avg_lat_ms is not None:
        lat_sum = _q(avg * events)
    else:  # threads are busy all the time; avg printed is rounded, the sum is not
        lat_sum = _q(Decimal(run.threads) * 1000 * run.elapsed * Decimal("0.9987"))
    ev_avg = Decimal(events) / run.threads
    ev_sd = _q(ev_avg * Decimal(rng.randint(2, 40)) / 10000)
    ex_avg = _q(lat_sum / 1000 / run.threads, D4)

    out: list[str] = []
    if run.version == "1.1":
        out += ["sysbench 1.1.0-9072687 (using bundled LuaJIT 2.1.0-beta3)", ""]
    else:
        out += ["sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)", ""]
    out += ["Running the test with following options:", f"Number of threads: {run.threads}"]
    if run.version == "1.1":
        out.append("Warmup time: 5s")
    if run.intervals:
        out.append("Report intermediate results every 1 second(s)")
    out += [
        "Initializing random number generator from current time",
        "",
        "",
        "Initializing worker threads...",
        "",
        "Threads started!",
        "",
    ]
    if run.version == "1.1":
        out += ["Warming up for 5 seconds...", ""]
    for i, iq in enumerate(run.intervals, start=1):
        itps = _q(iq / qpe)
        r, w, o = (_q(iq * n / qpe) for n in run.rwo)
        ilat = _q(lat95 * Decimal(rng.randint(90, 112)) / 100)
        out.append(
            f"[ {i}s ] thds: {run.threads} tps: {itps} qps: {iq} (r/w/o: {r}/{w}/{o}) "
            f"lat (ms,95%): {ilat} err/s: 0.00 reconn/s: 0.00"
        )
    out += [
        "SQL statistics:",
        "    queries performed:",
        f"        read:                            {reads}",
        f"        write:                           {writes}",
        f"        other:                           {other}",
        f"        total:                           {queries}",
        f"    transactions:                        {events:<6} ({tps} per sec.)",
        f"    queries:                             {queries:<6} ({run.qps} per sec.)",
        f"    ignored errors:                      {0:<6} (0.00 per sec.)",
        f"    reconnects:                          {0:<6} (0.00 per sec.)",
        "",
    ]
    if run.version == "1.1":
        out += [
            "Throughput:",
            f"    events/s (eps):                      {eps:.4f}",
            f"    time elapsed:                        {run.elapsed:.4f}s",
            f"    total number of events:              {events}",
        ]
    else:
        out += [
            "General statistics:",
            f"    total time:                          {run.elapsed:.4f}s",
            f"    total number of events:              {events}",
        ]
    out += [
        "",
        "Latency (ms):",
        f"         min: {lat_min:>39}",
        f"         avg: {avg:>39}",
        f"         max: {lat_max:>39}",
        f"         95th percentile: {lat95:>27}",
        f"         sum: {lat_sum:>39}",
        "",
        "Threads fairness:",
        f"    events (avg/stddev):           {ev_avg:.4f}/{ev_sd:.2f}",
        f"    execution time (avg/stddev):   {ex_avg:.4f}/0.01",
        "",
    ]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# vmstat and iostat output
# --------------------------------------------------------------------------------------------

VM_BANNER = "procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----"
VM_HEADER = " r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st"
VM_ROWS_PER_HEADER = 21  # procps vmstat repeats banner+header after 21 rows when not a tty

IO_COLUMNS = [
    "r/s",
    "rkB/s",
    "rrqm/s",
    "%rrqm",
    "r_await",
    "rareq-sz",
    "w/s",
    "wkB/s",
    "wrqm/s",
    "%wrqm",
    "w_await",
    "wareq-sz",
    "d/s",
    "dkB/s",
    "drqm/s",
    "%drqm",
    "d_await",
    "dareq-sz",
    "f/s",
    "f_await",
    "aqu-sz",
    "%util",
]
_IO_WIDTHS = [8, 10, 9, 7, 8, 9, 8, 10, 9, 7, 8, 9, 8, 10, 9, 7, 8, 9, 8, 8, 8, 7]
IO_HEADER = "Device".ljust(13) + "".join(
    " " + c.rjust(w - 1) for c, w in zip(IO_COLUMNS, _IO_WIDTHS, strict=True)
)
IO_CPU_HEADER = "avg-cpu:  %user   %nice %system %iowait  %steal   %idle"
IO_BANNER = f"Linux 5.15.0-119-generic ({HOST}) \t03/05/2025 \t_x86_64_\t({NCPU} CPU)"


@dataclass(frozen=True)
class VmSample:
    us: int
    sy: int
    cs: int
    in_: int
    r: int = 20
    b: int = 0
    wa: int = 0
    bi: int = 0
    bo: int = 0
    free: int = 10_512_344
    buff: int = 612_880
    cache: int = 14_031_772

    @property
    def id_(self) -> int:
        return 100 - self.us - self.sy - self.wa


def vm_row(s: VmSample) -> str:
    vals = [s.r, s.b, 0, s.free, s.buff, s.cache, 0, 0, s.bi, s.bo, s.in_, s.cs, s.us, s.sy, s.id_, s.wa, 0]
    widths = [2, 2, 6, 6, 6, 6, 4, 4, 5, 5, 4, 4, 2, 2, 2, 2, 2]
    return " ".join(str(v).rjust(w) for v, w in zip(vals, widths, strict=True))


def render_vmstat(boot: VmSample, samples: Sequence[VmSample]) -> str:
    """``vmstat 1 N`` written to a file: since-boot row first, header every 21 rows."""
    rows = [vm_row(boot)] + [vm_row(s) for s in samples]
    out: list[str] = []
    for i, row in enumerate(rows):
        if i % VM_ROWS_PER_HEADER == 0:
            out += [VM_BANNER, VM_HEADER]
        out.append(row)
    return "\n".join(out) + "\n"


@dataclass(frozen=True)
class IoRow:
    device: str
    values: tuple[Decimal, ...]  # one per IO_COLUMNS

    def get(self, column: str) -> Decimal:
        return self.values[IO_COLUMNS.index(column)]


def io_row(
    dev: str,
    *,
    rs: Decimal,
    rkb: Decimal,
    ws: Decimal,
    wkb: Decimal,
    w_await: Decimal,
    fs: Decimal,
    util: Decimal,
) -> IoRow:
    z = Decimal("0.00")
    rareq = _q(rkb / rs) if rs else z
    wareq = _q(wkb / ws) if ws else z
    wrqm = _q(ws * Decimal("0.04"))
    pwrqm = _q(wrqm * 100 / (ws + wrqm)) if ws else z
    r_await = Decimal("0.09") if rs else z
    aqu = _q(ws * w_await / 1000 + fs * Decimal("0.0002"))
    vals = (
        _q(rs),
        _q(rkb),
        z,
        z,
        r_await,
        rareq,
        _q(ws),
        _q(wkb),
        wrqm,
        pwrqm,
        _q(w_await),
        wareq,
        z,
        z,
        z,
        z,
        z,
        z,
        _q(fs),
        Decimal("0.21") if fs else z,
        aqu,
        _q(util),
    )
    return IoRow(dev, vals)


def render_iostat(reports: Sequence[tuple[VmSample, Sequence[IoRow]]]) -> str:
    """``iostat -y -kx 1 N`` (sysstat 12): no since-boot report."""
    out = [IO_BANNER, "", ""]
    for cpu, rows in reports:
        user = Decimal(cpu.us) + Decimal("0.37")
        system = Decimal(cpu.sy) - Decimal("0.21") if cpu.sy else Decimal("0.00")
        iowait = Decimal(cpu.wa)
        idle = Decimal(100) - user - system - iowait
        vals = [user, Decimal(0), system, iowait, Decimal(0), idle]
        out += [IO_CPU_HEADER, " " * 9 + "  ".join(f"{v:6.2f}" for v in vals), "", IO_HEADER]
        for row in rows:
            out.append(
                row.device.ljust(13)
                + "".join(" " + f"{v:.2f}".rjust(w - 1) for v, w in zip(row.values, _IO_WIDTHS, strict=True))
            )
        out += ["", ""]
    return "\n".join(out)


def _spread(total: int, n: int, rng: random.Random, noise: float, cap: int | None = None) -> list[int]:
    """``n`` non-negative integers around ``total / n`` that sum to exactly ``total``."""
    mean = total / n
    vals = [max(0, round(mean * (1 + rng.uniform(-noise, noise)))) for _ in range(n)]
    if cap is not None:
        vals = [min(v, cap) for v in vals]
    hi = cap if cap is not None else total
    if not 0 <= total <= hi * n:
        raise ValueError((total, n, cap))
    while diff := total - sum(vals):
        share = int(diff / n)  # spread the bulk evenly, then the rest one by one
        if share:
            vals = [min(max(v + share, 0), hi) for v in vals]
            continue
        i = rng.randrange(n)
        step = 1 if diff > 0 else -1
        if 0 <= vals[i] + step <= hi:
            vals[i] += step
    return vals


# --------------------------------------------------------------------------------------------
# The dop40 per-op runs: choose integer sample totals that reproduce the post
# --------------------------------------------------------------------------------------------

N_SAMPLES = 60  # vmstat samples (after the since-boot row) and iostat reports per dop40 run

# sysbench queries/s of the dop40 runs: the post's o/s plus a fraction below 0.5.
QPS_DOP40: dict[str, dict[str, Decimal]] = {
    "update-index_range=100": {
        "my8028_rel_o2nofp": Decimal("83129.21"),
        "my8040_rel_o2nofp": Decimal("74917.38"),
        "my8040adv_rel_o2nofp": Decimal("98180.07"),
    },
    "update-nonindex_range=100": {
        "my8028_rel_o2nofp": Decimal("114970.44"),
        "my8040_rel_o2nofp": Decimal("109896.12"),
        "my8040adv_rel_o2nofp": Decimal("121195.83"),
    },
}


def _solve_totals(
    qps: Sequence[float], n: int, absolute: Sequence[str], decimals: int, relative: Sequence[str], scale: int
) -> list[int]:
    """Integer totals T_b (sum over ``n`` samples of value * ``scale``) such that
    T_b / scale / n / qps_b prints as ``absolute[b]`` and, for b > 0, its ratio to b = 0 prints
    as ``relative[b]`` -- both with room to spare so any sane rounding agrees."""
    half = 0.5 * 10.0**-decimals
    margin = half * 0.05
    candidates: list[list[int]] = []
    for q, a in zip(qps, absolute, strict=True):
        lo = (float(a) - half + margin) * n * q * scale
        hi = (float(a) + half - margin) * n * q * scale
        centre = float(a) * n * q * scale
        cands = sorted(range(math.ceil(lo), math.floor(hi) + 1), key=lambda t: abs(t - centre))
        if not cands:
            raise AssertionError(f"no integer total prints as {a}")
        candidates.append(cands)
    for t0 in candidates[0]:
        chosen = [t0]
        for b in range(1, len(qps)):
            found = next(
                (
                    t
                    for t in candidates[b]
                    if rounds_to((t / qps[b]) / (t0 / qps[0]), relative[b], REL_DECIMALS, 2e-4)
                ),
                None,
            )
            if found is None:
                break
            chosen.append(found)
        if len(chosen) == len(qps):
            return chosen
    raise AssertionError(f"no totals reproduce {absolute} / {relative}")


@dataclass(frozen=True)
class HwPlan:
    """Integer sample totals of one dop40 run and the per-op figures they give."""

    cpu_total: int  # sum of us+sy over N_SAMPLES vmstat samples
    cs_total: int  # sum of cs
    wkb_total: int  # sum of nvme0n1 wkB/s over N_SAMPLES iostat reports, in hundredths
    qps: Decimal

    def expected(self) -> dict[str, float]:
        q = Fraction(self.qps)
        return {
            "cpu/o": float(Fraction(self.cpu_total, N_SAMPLES) / q),
            "cs/o": float(Fraction(self.cs_total, N_SAMPLES) / q),
            "r/o": 0.0,
            "rKB/o": 0.0,
            "wKB/o": float(Fraction(self.wkb_total, 100 * N_SAMPLES) / q),
            "o/s": float(q),
        }


def _plan_dop40() -> dict[str, dict[str, HwPlan]]:
    plans: dict[str, dict[str, HwPlan]] = {}
    for wl, block in PER_OP_DOP40.items():
        q = [float(QPS_DOP40[wl][b]) for b in BUILDS]
        totals: dict[str, list[int]] = {}
        for col, scale in (("cpu/o", 1), ("cs/o", 1), ("wKB/o", 100)):
            i = PER_OP_COLUMNS.index(col)
            absolute = [block.absolute[b][i] for b in BUILDS]
            relative = ["1", *(block.relative[b][i] for b in WITH)]
            totals[col] = _solve_totals(q, N_SAMPLES, absolute, PER_OP_DECIMALS[col], relative, scale)
        cpu, cs, wkb = totals["cpu/o"], totals["cs/o"], totals["wKB/o"]
        plans[wl] = {b: HwPlan(cpu[i], cs[i], wkb[i], QPS_DOP40[wl][b]) for i, b in enumerate(BUILDS)}
    return plans


HW_PLAN_DOP40 = _plan_dop40()

# What a correct reader gets from the dop40 files: workload -> build -> column -> value.
EXPECTED_HW_DOP40: dict[str, dict[str, dict[str, float]]] = {
    wl: {b: p.expected() for b, p in per.items()} for wl, per in HW_PLAN_DOP40.items()
}


def expected_rel(wl: str, build: str, column: str) -> float:
    """Relative figure a correct reader gets (0/0 counts as 1, as in the post)."""
    mine = EXPECTED_HW_DOP40[wl][build][column]
    base = EXPECTED_HW_DOP40[wl][BASE][column]
    if base == 0:
        return 1.0 if mine == 0 else math.inf
    return mine / base


def _check_dop40() -> None:
    for wl, block in PER_OP_DOP40.items():
        for b in BUILDS:
            for c in PER_OP_COLUMNS:
                got = EXPECTED_HW_DOP40[wl][b][c]
                if not rounds_to(got, block.absolute[b][PER_OP_COLUMNS.index(c)], PER_OP_DECIMALS[c]):
                    raise AssertionError((wl, b, c, got))
            for c in PER_OP_COLUMNS:
                if b == BASE:
                    continue
                printed = block.relative[b][PER_OP_COLUMNS.index(c)]
                # from the unrounded figures ...
                if not rounds_to(expected_rel(wl, b, c), printed, REL_DECIMALS):
                    raise AssertionError((wl, b, c, expected_rel(wl, b, c)))
                # ... and from the post's rounded absolute figures (0/0 -> 1)
                a, a0 = block.abs_value(b, c), block.abs_value(BASE, c)
                if not rounds_to(a / a0 if a0 else 1.0, printed, REL_DECIMALS):
                    raise AssertionError((wl, b, c, "post's own rounding"))


_check_dop40()


def _dop40_samples(wl: str, build: str) -> tuple[VmSample, list[VmSample], list[list[IoRow]]]:
    plan = HW_PLAN_DOP40[wl][build]
    rng = random.Random(zlib.crc32(f"{wl}/{build}".encode()))
    cpu = _spread(plan.cpu_total, N_SAMPLES, rng, 0.06, cap=98)
    cs = _spread(plan.cs_total, N_SAMPLES, rng, 0.04)
    wkb = _spread(plan.wkb_total, N_SAMPLES, rng, 0.08)
    boot = VmSample(
        us=4,
        sy=1,
        cs=35_071,
        in_=18_234,
        r=2,
        b=0,
        wa=0,
        bi=12,
        bo=2_105,
        free=96_402_112,
        buff=402_776,
        cache=9_877_340,
    )
    vms: list[VmSample] = []
    ios: list[list[IoRow]] = []
    for i in range(N_SAMPLES):
        us = round(cpu[i] * 0.79)
        wa = rng.choice((0, 0, 0, 1)) if cpu[i] < 98 else 0
        w0 = Decimal(wkb[i]) / 100
        vms.append(
            VmSample(
                us=us,
                sy=cpu[i] - us,
                cs=cs[i],
                in_=round(cs[i] * 0.41),
                r=rng.randint(14, 31),
                b=rng.choice((0, 0, 1)),
                wa=wa,
                bi=0,
                bo=int(w0 * 2 * Decimal(rng.randint(97, 103)) / 100),
                free=10_512_344 - 1_104 * i,
                buff=612_880 + 8 * i,
                cache=14_031_772 + 96 * i,
            )
        )
        ws0 = _q(w0 / (Decimal(rng.randint(9_600, 12_400)) / 100))
        fs = Decimal(rng.randint(1_400, 2_300))
        util = Decimal(rng.randint(3_100, 5_800)) / 100
        p1 = Decimal(rng.randint(955, 985)) / 1000
        w1 = Decimal(rng.randint(930, 1_070)) / 1000
        ios.append(
            [
                io_row(
                    "nvme1n1",
                    rs=Decimal(rng.randint(0, 300)) / 100,
                    rkb=Decimal(rng.randint(0, 4_800)) / 100,
                    ws=_q(ws0 * w1),
                    wkb=_q(w0 * w1),
                    w_await=Decimal("0.07"),
                    fs=fs,
                    util=util,
                ),
                io_row(
                    DEVICE,
                    rs=Decimal(0),
                    rkb=Decimal(0),
                    ws=ws0,
                    wkb=w0,
                    w_await=Decimal("0.06"),
                    fs=fs,
                    util=util,
                ),
                io_row(
                    f"{DEVICE}p1",
                    rs=Decimal(0),
                    rkb=Decimal(0),
                    ws=_q(ws0 * p1),
                    wkb=_q(w0 * p1),
                    w_await=Decimal("0.06"),
                    fs=_q(fs * p1),
                    util=_q(util * p1),
                ),
            ]
        )
    return boot, vms, ios


# --------------------------------------------------------------------------------------------
# The dop24 runs: QPS per workload and build
# --------------------------------------------------------------------------------------------

# Plausible dell32 QPS of my8028_rel_o2nofp at 24 threads. Integers, so base * rQPS has at most
# 2 decimals and prints exactly: every other build's QPS / base QPS is the post's value.
BASE_QPS_DOP24: dict[str, int] = {
    "hot-points_range=100": 31_862,
    "point-query.pre_range=100": 452_311,
    "point-query_range=100": 448_927,
    "points-covered-pk.pre_range=100": 28_473,
    "points-covered-pk_range=100": 28_119,
    "points-covered-si.pre_range=100": 22_634,
    "points-covered-si_range=100": 22_417,
    "points-notcovered-pk.pre_range=100": 27_305,
    "points-notcovered-pk_range=100": 27_088,
    "points-notcovered-si.pre_range=100": 9_512,
    "points-notcovered-si_range=100": 9_436,
    "random-points.pre_range=1000": 3_118,
    "random-points.pre_range=100": 29_240,
    "random-points.pre_range=10": 221_577,
    "random-points_range=1000": 3_097,
    "random-points_range=100": 29_015,
    "random-points_range=10": 219_826,
    "range-covered-pk.pre_range=100": 61_720,
    "range-covered-pk_range=100": 61_483,
    "range-covered-si.pre_range=100": 58_912,
    "range-covered-si_range=100": 58_644,
    "range-notcovered-pk.pre_range=100": 60_371,
    "range-notcovered-pk_range=100": 60_102,
    "range-notcovered-si.pre_range=100": 11_705,
    "range-notcovered-si_range=100": 11_639,
    "read-only.pre_range=10000": 16_583,
    "read-only.pre_range=100": 221_406,
    "read-only.pre_range=10": 356_972,
    "read-only_range=10000": 16_420,
    "read-only_range=100": 219_734,
    "read-only_range=10": 354_118,
    "scan_range=100": 15,  # not used: scan is encoded in latency, see SCAN_*
    "delete_range=100": 98_541,
    "insert_range=100": 74_308,
    "read-write_range=100": 152_870,
    "read-write_range=10": 214_653,
    "update-index_range=100": 51_319,
    "update-inlist_range=100": 19_644,
    "update-nonindex_range=100": 84_660,
    "update-one_range=100": 23_417,
    "update-zipf_range=100": 71_208,
    "write-only_range=10000": 109_746,
}

# scan: QPS is rows/s = table-size / avg latency. 1547 / 0.91 = 1700 and 1547 / 0.85 = 1820,
# so the rows/s ratios are exactly the post's 0.91 and 0.85.
SCAN = "scan_range=100"
SCAN_AVG_LAT_MS: dict[str, Decimal] = {
    "my8028_rel_o2nofp": Decimal("1547.00"),
    "my8040_rel_o2nofp": Decimal("1700.00"),
    "my8040adv_rel_o2nofp": Decimal("1820.00"),
}
# The queries/s figures of the scan runs are not proportional to rows/s (events still running
# when the time is up are not counted, and each event takes 1.5-1.8 s): a reader that takes the
# "queries: (X per sec.)" figure for scan gets 0.94 and 0.87, not the post's 0.91 and 0.85.
SCAN_QUERIES_PER_SEC: dict[str, Decimal] = {
    "my8028_rel_o2nofp": Decimal("15.06"),
    "my8040_rel_o2nofp": Decimal("14.10"),
    "my8040adv_rel_o2nofp": Decimal("13.10"),
}


_RQPS: dict[str, tuple[float, float]] = {n: (c1, c2) for n, c1, c2 in RQPS_DELL32}


def qps_dop24(name: str, build: str) -> Decimal:
    """The ``queries: (X per sec.)`` figure of a dop24 run (for scan, the queries/s figure)."""
    if name == SCAN:
        return SCAN_QUERIES_PER_SEC[build]
    base = Decimal(BASE_QPS_DOP24[name])
    if build == BASE:
        return _q(base)
    r = Decimal(f"{_RQPS[name][WITH.index(build)]:.2f}")
    value = base * r
    if value != _q(value):
        raise AssertionError((name, build, value))
    return _q(value)


def expected_qps_dop24(name: str, build: str) -> float:
    """The QPS benchdeck should derive (rows/s for scan)."""
    if name == SCAN:
        return TABLE_SIZE / (float(SCAN_AVG_LAT_MS[build]) / 1000.0)
    return float(qps_dop24(name, build))


def _check_dop24() -> None:
    if len(RQPS_DELL32) != 42 or set(GROUPS) != set(BASE_QPS_DOP24):
        raise AssertionError("table size")
    counts = {g: sum(1 for v in GROUPS.values() if v == g) for g in GROUP_NAMES}
    if counts != {"point-1": 11, "point-2": 6, "range-1": 9, "range-2": 6, "writes": 10}:
        raise AssertionError(counts)
    for name, c1, c2 in RQPS_DELL32:
        for build, post in zip(WITH, (c1, c2), strict=True):
            ratio = expected_qps_dop24(name, build) / expected_qps_dop24(name, BASE)
            if abs(ratio - post) > 1e-9:
                raise AssertionError((name, build, ratio, post))
    naive = float(SCAN_QUERIES_PER_SEC[WITH[0]] / SCAN_QUERIES_PER_SEC[BASE])
    if f"{naive:.2f}" == "0.91":
        raise AssertionError("scan queries/s must not give the post's ratio")


_check_dop24()


# --------------------------------------------------------------------------------------------
# Writers
# --------------------------------------------------------------------------------------------


def _version_for(build: str, index: int) -> str:
    """Mix sysbench 1.1 and 1.0.20 outputs across builds (and within one)."""
    if build == BASE:
        return "1.1"
    if build == WITH[0]:
        return "1.0"
    return "1.1" if index % 2 == 0 else "1.0"


def _elapsed(secs: int, seed: int) -> Decimal:
    frac = Decimal(random.Random(seed).randint(8, 61)) / 10000
    return Decimal(secs) + frac


def _write_sb_o(
    path: Path,
    name: str,
    build: str,
    dop: int,
    version: str,
    qps: Decimal,
    avg_lat_ms: Decimal | None,
    seed: int,
) -> None:
    test, _ = split_workload(name)
    secs = run_secs(test)
    cmd = sysbench_cmdline(name, dop, version)
    run = SbRun(
        version=version,
        threads=dop,
        qps=qps,
        rwo=queries_per_event(test),
        elapsed=_elapsed(secs, seed),
        avg_lat_ms=avg_lat_ms,
        seed=seed,
    )
    path.write_text(f"{cmd}\n{NCPU} CPUs\n{render_sysbench(run)}")


def _write_side_files(d: Path, name: str, build: str, dop: int, seed: int) -> None:
    """Files run.sh leaves next to sb.o.*: /usr/bin/time output and the sb.r.qps summary."""
    test, rng = split_workload(name)
    sfx = file_suffix(name, dop)
    r = random.Random(seed)
    secs = run_secs(test)
    user, system = r.randint(20, 40) * secs / 10, r.randint(10, 30) * secs / 10
    (d / f"sb.time.{sfx}").write_text(
        f"{user:.2f}user {system:.2f}system {secs // 60}:{secs % 60 + 5:02d}.{r.randint(10, 99)}"
        f"elapsed {r.randint(200, 700)}%CPU (0avgtext+0avgdata {r.randint(9000, 12000)}"
        f"maxresident)k\n0inputs+0outputs (0major+{r.randint(1500, 3000)}minor)pagefaults "
        "0swaps\n"
    )
    # run.sh prints Krows/s for scan
    qps = TABLE_SIZE / SCAN_AVG_LAT_MS[build] if name == SCAN else qps_dop24(name, build)
    (d / f"sb.r.qps.{test}.range{rng}.pk1").write_text(f"{qps:.0f}\tinnodb {test} range={rng}\n")


def write_dell32_tree(root: Path) -> Path:
    """Write the mytools-style result tree of seed 001's dell32 results under ``root``.

    Returns the tree folder (holding one ``x.<build>.<config>.pk1`` folder per build).
    All 42 workloads at dop24 (sysbench output only) plus update-index and update-nonindex at
    dop40 with ``sb.vm.*`` and ``sb.io.*``.
    """
    tree = root / HOST
    for build in BUILDS:
        d = tree / build_dir_name(build)
        d.mkdir(parents=True, exist_ok=True)
        for index, (name, _, _) in enumerate(RQPS_DELL32):
            seed = zlib.crc32(f"{build}/{name}/{DOP}".encode())
            qps = qps_dop24(name, build)
            lat = SCAN_AVG_LAT_MS[build] if name == SCAN else None
            _write_sb_o(
                d / f"sb.o.{file_suffix(name, DOP)}",
                name,
                build,
                DOP,
                _version_for(build, index),
                qps,
                lat,
                seed,
            )
            _write_side_files(d, name, build, DOP, seed)
        for index, wl in enumerate(PER_OP_DOP40):
            seed = zlib.crc32(f"{build}/{wl}/{DOP_HW}".encode())
            sfx = file_suffix(wl, DOP_HW)
            version = "1.0" if build == WITH[0] else "1.1"
            _write_sb_o(
                d / f"sb.o.{sfx}", wl, build, DOP_HW, version, QPS_DOP40[wl][build], None, seed + index
            )
            boot, vms, ios = _dop40_samples(wl, build)
            (d / f"sb.vm.{sfx}").write_text(render_vmstat(boot, vms))
            (d / f"sb.io.{sfx}").write_text(render_iostat(list(zip(vms, ios, strict=True))))
    return tree


SINGLE_WORKLOAD = "point-query_range=100"
SINGLE_DOP = 24
SINGLE_SECS = 10

# Two runs of point-query for the single-file importer: variant 0 and variant 1.
_SINGLE: dict[int, dict[str, Any]] = {
    0: {
        "qps": Decimal("398214.53"),
        "cpu": 61.4,
        "cs": 512_300,
        "rs": 3.1,
        "rkb": 49.6,
        "wkb": 1_830.0,
        "seed": 11,
    },
    1: {
        "qps": Decimal("421907.18"),
        "cpu": 58.2,
        "cs": 486_900,
        "rs": 2.4,
        "rkb": 38.4,
        "wkb": 1_712.0,
        "seed": 12,
    },
}


def write_single_run_files(dir: Path, variant: int = 0) -> dict[str, Any]:
    """Write one plain sysbench 1.0.20 output (``--report-interval=1``, 10 interval lines), a
    ``vmstat 1 10`` capture and an ``iostat -y -kx 1 10`` capture into ``dir``.

    Returns ``{"sysbench", "vmstat", "iostat"}`` paths, ``"workload"``, ``"dop"``, ``"qps"``
    (the final ``queries: (X per sec.)`` figure) and ``"per_op"`` (column -> value a correct
    reader gets, columns as in PER_OP_COLUMNS).
    """
    spec = _SINGLE[variant]
    rng = random.Random(spec["seed"])
    dir.mkdir(parents=True, exist_ok=True)
    qps: Decimal = spec["qps"]
    n = SINGLE_SECS
    # Interval qps around the final figure; neither the last one nor their mean equals it.
    intervals = tuple(_q(qps * Decimal(rng.randint(9_300, 10_650)) / 10_000) for _ in range(n))
    run = SbRun(
        version="1.0",
        threads=SINGLE_DOP,
        qps=qps,
        rwo=(1, 0, 0),
        elapsed=Decimal(n) + Decimal("0.0021"),
        intervals=intervals,
        lat95_ms=Decimal("0.09"),
        seed=spec["seed"],
    )
    sb = dir / f"sysbench.point-query.v{variant}.txt"
    sb.write_text(render_sysbench(run))

    cpu = _spread(round(spec["cpu"] * n), n, rng, 0.05, cap=98)
    cs = _spread(spec["cs"] * n, n, rng, 0.05)
    rs = _spread(round(spec["rs"] * 100 * n), n, rng, 0.5)
    rkb = _spread(round(spec["rkb"] * 100 * n), n, rng, 0.5)
    wkb = _spread(round(spec["wkb"] * 100 * n), n, rng, 0.3)
    boot = VmSample(
        us=7,
        sy=2,
        cs=61_208,
        in_=30_113,
        r=3,
        bi=233,
        bo=1_412,
        free=88_120_004,
        buff=398_112,
        cache=11_204_556,
    )
    vms = []
    ios = []
    for i in range(n):
        us = round(cpu[i] * 0.72)
        vms.append(
            VmSample(
                us=us,
                sy=cpu[i] - us,
                cs=cs[i],
                in_=round(cs[i] * 0.52),
                r=rng.randint(18, 27),
                bi=rkb[i] // 100,
                bo=wkb[i] * 2 // 100,
                free=10_504_112 - 84 * i,
                buff=612_990,
                cache=14_032_400,
            )
        )
        r0, k0, w0 = Decimal(rs[i]) / 100, Decimal(rkb[i]) / 100, Decimal(wkb[i]) / 100
        ws0 = _q(w0 / 16)
        ios.append(
            [
                io_row(
                    DEVICE,
                    rs=r0,
                    rkb=k0,
                    ws=ws0,
                    wkb=w0,
                    w_await=Decimal("0.05"),
                    fs=Decimal(38),
                    util=Decimal("1.20"),
                ),
                io_row(
                    f"{DEVICE}p1",
                    rs=_q(r0 * Decimal("0.8")),
                    rkb=_q(k0 * Decimal("0.8")),
                    ws=_q(ws0 * Decimal("0.9")),
                    wkb=_q(w0 * Decimal("0.9")),
                    w_await=Decimal("0.05"),
                    fs=Decimal(35),
                    util=Decimal("1.10"),
                ),
                io_row(
                    "nvme1n1",
                    rs=Decimal("41.00"),
                    rkb=Decimal("655.20"),
                    ws=_q(ws0 * 2),
                    wkb=_q(w0 * 2),
                    w_await=Decimal("0.07"),
                    fs=Decimal(40),
                    util=Decimal("2.30"),
                ),
            ]
        )
    vm = dir / f"vmstat.v{variant}.txt"
    vm.write_text(render_vmstat(boot, vms))
    io = dir / f"iostat.v{variant}.txt"
    io.write_text(render_iostat(list(zip(vms, ios, strict=True))))

    q = Fraction(qps)
    per_op = {
        "cpu/o": float(Fraction(sum(cpu), n) / q),
        "cs/o": float(Fraction(sum(cs), n) / q),
        "r/o": float(Fraction(sum(rs), 100 * n) / q),
        "rKB/o": float(Fraction(sum(rkb), 100 * n) / q),
        "wKB/o": float(Fraction(sum(wkb), 100 * n) / q),
        "o/s": float(q),
    }
    return {
        "sysbench": sb,
        "vmstat": vm,
        "iostat": io,
        "workload": SINGLE_WORKLOAD,
        "dop": SINGLE_DOP,
        "qps": float(qps),
        "per_op": per_op,
    }
