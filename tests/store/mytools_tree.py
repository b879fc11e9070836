"""A small mytools result tree, hand-written in the author's formats (no tests here).

Three builds on one config, dop 40, written the way mdcallag/mytools lays out a published tree:
``sb.o.*`` (sysbench 1.1 output with the Lua scripts' EXPLAIN block, no interval lines),
``sb.met.*`` (the per-op table) and no raw vmstat/iostat, except where a test needs them:

* ``update-index``: sb.met files for A and C; B's table is appended to its sb.o instead (as in
  some of the author's trees);
* ``scan``: its o/s in sb.met is table rows per millisecond of average latency;
* ``point-query``: A also has ``sb.vm`` (vmstat): its per-op metrics are computed from that;
* folder C has ``sb.o.myvac`` (a dated log) and ``sb.prepare.o.*`` (the load's output).

``OMET`` is the o.met table the author's scripts would print for these files, worked out by
hand from the sb.met figures below.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

CONFIG = "z12a_c16r64"
BUILDS = ("my8028_rel_o2nofp", "my8040_rel_o2nofp", "my8040adv_rel_o2nofp")
A, B, C = BUILDS
TABLE_SIZE = 2_000_000
TABLES = 4
DOP = 40
NCPU = 16
MTIME_A = datetime(2025, 9, 1, 12, 0, 0)  # folder A's first run ends then (UTC), no dated line
MYVAC_C = "vac_my starts at Sat Oct 11 02:03:04 PM UTC 2025 with sleep_secs = 60"
DATED_C = datetime(2025, 10, 11, 14, 3, 4)


@dataclass(frozen=True)
class Met:
    """The figures of one sb.met file (as printed there)."""

    r_s: str
    w_s: str
    wmb_s: str
    r_o: str
    rkb_o: str
    wkb_o: str
    ops: str
    cs_s: str
    cpu_s: str
    cs_o: str
    cpu_o: str

    def text(self) -> str:
        return (
            "iostat, vmstat normalized by operation rate\n"
            "samp\tr/s\trMB/s\tw/s\twMB/s\tr/o\trKB/o\twKB/o\to/s\n"
            f"295\t{self.r_s}\t0.0\t{self.w_s}\t{self.wmb_s}\t{self.r_o}\t{self.rkb_o}\t{self.wkb_o}"
            f"\t{self.ops}\n"
            "\n"
            "samp\tcs/s\tcpu/s\tcs/o\tcpu/o\n"
            f"299\t{self.cs_s}\t{self.cpu_s}\t{self.cs_o}\t{self.cpu_o}\n"
        )


# step -> build -> (QPS or avg latency ms for the scan, sb.met figures)
MET: dict[str, dict[str, tuple[float, Met]]] = {
    "update-index": {
        A: (80000.00, Met("0.0", "1304.7", "652.3", "0.000", "0.000", "8.350", "80000.00",
                          "1000000", "40.0", "12.500", "0.000500")),
        B: (72000.00, Met("0.0", "1408.8", "704.4", "0.000", "0.000", "10.020", "72000.00",
                          "864000", "39.6", "12.000", "0.000550")),
        C: (96000.40, Met("0.0", "1409.0", "704.5", "0.000", "0.000", "7.515", "96000.40",
                          "780003", "39.4", "8.125", "0.000410")),
    },
    "scan": {  # (avg latency ms, ...): o/s = 2,000,000 rows / avg ms
        A: (500.00, Met("0.0", "1.0", "0.0", "0.000", "0.000", "0.004", "4000",
                        "640", "78.0", "0.160", "0.019500")),
        B: (625.00, Met("0.0", "1.0", "0.0", "0.000", "0.000", "0.005", "3200",
                        "640", "78.0", "0.200", "0.024375")),
        C: (500.00, Met("0.0", "1.0", "0.0", "0.000", "0.000", "0.004", "4000",
                        "640", "78.0", "0.160", "0.019500")),
    },
    "point-query": {
        A: (200000.00, Met("0.0", "0.5", "0.0", "0.000", "0.000", "0.000", "200000.00",
                           "2000000", "60.0", "10.000", "0.000300")),
        B: (190000.00, Met("0.0", "0.5", "0.0", "0.000", "0.000", "0.000", "190000.00",
                           "1900000", "60.8", "10.000", "0.000320")),
        C: (210000.00, Met("0.0", "0.5", "0.0", "0.000", "0.000", "0.000", "210000.00",
                           "2100000", "58.8", "10.000", "0.000280")),
    },
}  # fmt: skip

# What the author's o.met would print for the update-index and scan steps.
OMET = """\
sb.met.update-index.range100.pk1.dop40
--- absolute
cpu/o\t\tcs/o\tr/o\trKB/o\twKB/o\to/s\tdbms
0.000500\t12.500\t0\t0\t8.35\t80000\tx.my8028_rel_o2nofp.z12a_c16r64.pk1
0.000550\t12.000\t0\t0\t10.02\t72000\tx.my8040_rel_o2nofp.z12a_c16r64.pk1
0.000410\t8.125\t0\t0\t7.515\t96000\tx.my8040adv_rel_o2nofp.z12a_c16r64.pk1
--- relative to first result
1.10\t\t0.96\t1\t1\t1.20\t0.90\tx.my8040_rel_o2nofp.z12a_c16r64.pk1
0.82\t\t0.65\t1\t1\t0.90\t1.20\tx.my8040adv_rel_o2nofp.z12a_c16r64.pk1

sb.met.scan.range100.pk1.dop40
--- absolute
cpu/o\t\tcs/o\tr/o\trKB/o\twKB/o\to/s\tdbms
0.019500\t0.160\t0\t0\t0.004\t4000\tx.my8028_rel_o2nofp.z12a_c16r64.pk1
0.024375\t0.200\t0\t0\t0.005\t3200\tx.my8040_rel_o2nofp.z12a_c16r64.pk1
0.019500\t0.160\t0\t0\t0.004\t4000\tx.my8040adv_rel_o2nofp.z12a_c16r64.pk1
--- relative to first result
1.25\t\t1.25\t1\t1\t1.25\t0.80\tx.my8040_rel_o2nofp.z12a_c16r64.pk1
1.00\t\t1.00\t1\t1\t1.00\t1.00\tx.my8040adv_rel_o2nofp.z12a_c16r64.pk1
"""

LUA = {
    "update-index": "oltp_update_index.lua",
    "scan": "oltp_scan.lua",
    "point-query": "oltp_point_select.lua",
    "random-points": "oltp_inlist_select.lua",  # not in MET: the import benchmark writes it
}
STMT = {
    "update-index": ("index_updates", "UPDATE sbtest{t} SET k=k+1 WHERE id={id}"),
    "scan": ("scan", "SELECT * from sbtest{t} WHERE LENGTH(c) < 0"),
    "point-query": ("point_selects", "SELECT c FROM sbtest{t} WHERE id={id}"),
    "random-points": ("select-inlist", "SELECT c FROM sbtest{t} WHERE id IN ( {id} )"),
}
PLAN = {
    "update-index": "\t1\tUPDATE\tsbtest{t}\tnull\trange\tPRIMARY\tPRIMARY\t4\tconst\t1\t100.00",
    "scan": "\t1\tSIMPLE\tsbtest{t}\tnull\tALL\tnull\tnull\tnull\tnull\t1973421\t100.00\tUsing where",
    "point-query": "\t1\tSIMPLE\tsbtest{t}\tnull\tconst\tPRIMARY\tPRIMARY\t4\tconst\t1\t100.00",
    "random-points": "\t1\tSIMPLE\tsbtest{t}\tnull\trange\tPRIMARY\tPRIMARY\t4\tnull\t10\t100.00",
}


def command_line(step: str, table_size: bool = True) -> str:
    size = f" --table-size={TABLE_SIZE}" if table_size else ""
    return (
        "LUA_PATH=/home/u/mytools/bench/sysbench.lua/lua/?.lua "
        "/home/u/mytools/bench/sysbench.lua/lua/sysbench "
        f"--db-driver=mysql --range-size=100{size} --tables={TABLES} --threads={DOP} --events=0 "
        f"--warmup-time=5 --time=300 /home/u/mytools/bench/sysbench.lua/lua/{LUA[step]} run "
        "--mysql-user=root --mysql-password=pw --mysql-host=127.0.0.1 --mysql-db=test --rand-type=uniform"
    )


def explain_block(step: str, rounds: int = 2, seed: int = 0) -> list[str]:
    """The Lua scripts' EXPLAIN output: threads announce, one prints the plans ``rounds`` times
    for random rows (as the scripts do: ``seed`` makes them differ from file to file)."""
    name, sql = STMT[step]
    template = sql.replace("{t}", "%u").replace("{id}", "%u")
    announce = f"explain: for {name} :: explain {template}"
    lines = [announce] * 3 + [announce + announce]  # two threads' writes on one line
    rng = random.Random(seed)
    for _ in range(rounds):
        lines.append(f"for {name}")
        for t in range(1, TABLES + 1):
            n = 10 if " IN (" in sql else 1  # an IN-list of random ids, or one
            ids = ", ".join(str(rng.randrange(1, TABLE_SIZE)) for _ in range(n))
            lines.append(f"table {t} : explain {sql.format(t=t, id=ids)}")
            lines.append(PLAN[step].format(t=t))
            lines.append("")
    return lines + [announce] * 2


def sysbench_output(
    step: str,
    value: float,
    *,
    table_size: bool = True,
    met: Met | None = None,
    rounds: int = 2,
    seed: int = 0,
) -> str:
    """An sb.o file; ``value`` is the QPS, or the average latency (ms) of a scan."""
    scan = step == "scan"
    secs = 300.0042
    qps = 40 / (value / 1000) if scan else value
    events = round(qps * 300)
    avg = value if scan else 40 / value * 1000
    lines = [
        command_line(step, table_size), f"{NCPU} CPUs",
        "sysbench 1.1.0-9072687 (using bundled LuaJIT 2.1.0-beta3)", "",
        "Running the test with following options:", f"Number of threads: {DOP}", "Warmup time: 5s",
        "Initializing random number generator from current time", "", "",
        "Initializing worker threads...", "", *explain_block(step, rounds, seed), "Threads started!", "",
        "Warming up for 5 seconds...", "", "SQL statistics:", "    queries performed:",
        f"        read:                            {0 if step == 'update-index' else events}",
        f"        write:                           {events if step == 'update-index' else 0}",
        "        other:                           0",
        f"        total:                           {events}",
        f"    transactions:                        {events} ({qps:.2f} per sec.)",
        f"    queries:                             {events} ({qps:.2f} per sec.)",
        "    ignored errors:                      0      (0.00 per sec.)",
        "    reconnects:                          0      (0.00 per sec.)", "", "Throughput:",
        f"    events/s (eps):                      {qps:.4f}",
        f"    time elapsed:                        {secs}s",
        f"    total number of events:              {events}", "", "Latency (ms):",
        f"         min:                                    {avg * 0.5:.2f}",
        f"         avg:                                    {avg:.2f}",
        f"         max:                                    {avg * 3:.2f}",
        f"         95th percentile:                        {avg * 1.5:.2f}",
        f"         sum:                             {avg * events:.2f}", "", "Threads fairness:",
        f"    events (avg/stddev):           {events / DOP:.4f}/12.50",
        f"    execution time (avg/stddev):   299.9000/{0.01 + seed / 1000:.3f}", "",  # differs per run
    ]  # fmt: skip
    text = "\n".join(lines)
    return text + met.text() if met is not None else text


VMSTAT = """\
procs -----------memory---------- ---swap-- -----io---- -system-- ------cpu-----
 r  b   swpd   free   buff  cache   si   so    bi    bo   in   cs us sy id wa st
 5  0      0 900000  10000 500000    0    0     5    10  100  200  1  1 98  0  0
40  0      0 890000  10000 500000    0    0     0    12 9000 1900000 50 10 40  0  0
40  0      0 890000  10000 500000    0    0     0    12 9000 2100000 52 12 36  0  0
"""

# sb.ps as the author's run script writes it: a date line every 10 s, then ps of the server
PS_AT = datetime(2025, 10, 11, 15, 0, 2)
PS = """\
Sat Oct 11 03:00:02 PM UTC 2025
mysql    4242 90.1  9.5 9001234 3123456 ?  Ssl  14:31  12:10 /home/u/d/my8040/bin/mysqld
Sat Oct 11 03:00:12 PM UTC 2025
mysql    4242 91.0  9.5 9001234 3123456 ?  Ssl  14:31  12:19 /home/u/d/my8040/bin/mysqld
"""


def folder(root: Path, build: str) -> Path:
    d = root / f"x.{build}.{CONFIG}.pk1"
    d.mkdir(parents=True, exist_ok=True)
    return d


def write_tree(root: Path) -> Path:
    """Write the tree under ``root``; returns it."""
    for build in BUILDS:
        d = folder(root, build)
        for step, runs in MET.items():
            value, met = runs[build]
            rest = f"{step}.range100.pk1.dop{DOP}"
            tail = build == B and step == "update-index"  # B's table at the end of its sb.o
            seed = BUILDS.index(build)  # every run's EXPLAIN rows differ, as real runs' do
            text = sysbench_output(step, value, met=met if tail else None, seed=seed)
            (d / f"sb.o.{rest}").write_text(text)
            if not tail:
                (d / f"sb.met.{rest}").write_text(met.text())
        if build == A:
            (d / f"sb.vm.point-query.range100.pk1.dop{DOP}").write_text(VMSTAT)
        if build == C:
            (d / "sb.o.myvac").write_text(f"{MYVAC_C}\nnr is :: 8000000 :: and ntabs is :: 4 ::\n")
            # monitor output with an older date that says nothing about when the runs ran
            (d / "sb.o.myvac.es1").write_text("=====\n2020-01-02 03:04:05 0x7f INNODB MONITOR OUTPUT\n")
            (d / "sb.prepare.o.point-query.warm.range100.pk1").write_text(
                command_line("point-query").replace(" run ", " prepare ") + "\nCreating table 'sbtest1'...\n"
                f"Inserting {TABLE_SIZE} records into 'sbtest1'\n"
            )
    stamp = (MTIME_A - datetime(1970, 1, 1)).total_seconds()
    for p in folder(root, A).iterdir():  # the run outputs 10 minutes apart in the suite's order
        k = SUITE.index(p.name.split(".")[2]) if p.name.startswith("sb.o.") else 0
        os.utime(p, (stamp + 600 * k, stamp + 600 * k))
    for p in folder(root, B).iterdir():  # as a copy leaves them: one mtime, no evidence
        os.utime(p, (stamp, stamp))
    return root


SUITE = ("update-index", "scan", "point-query")  # the suite's order of the steps in MET
