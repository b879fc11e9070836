"""Check benchdeck's per-op tables against the ``o.met.*`` tables of a mytools result tree.

    python scripts/check_mytools_omet.py STORE.duckdb HOST TREE/o.met.all [TREE/o.met.x ...]

The tree must have been imported (``benchdeck --db STORE import mytools TREE --host HOST``).
Each ``sb.met.<step>...dop<N>`` block of an o.met file is rebuilt two ways and compared cell by
cell as printed (``--- absolute`` and ``--- relative to first result``):

* through ``compare`` (base = the block's first row), when all its columns share one config;
* from the stored per-run metrics of each (build, config) column, for every block.

Prints one line per file and the mismatches; exit 1 if any cell differs.

His quirk, not a mismatch: where benchdeck computed cpu/o and cs/o from the run's vmstat file,
his ``sb.met`` divides by a sample count that includes vmstat's repeated header lines (one per
screenful: ``samp 665`` for 634 samples on the packed mar25 tree, so his figures are
634/665 = 4.7% low). A cell that equals ours times samples/his ``samp`` is counted as his quirk
and said once per block; benchdeck's figure is the right one.

His other quirk: a relative cell of r/o, rKB/o or wKB/o where he printed the first result's
absolute figure as ``0`` (no reads or writes to speak of on the device) is ``1`` in his table;
benchdeck divides the unrounded figures (``0.98``, ``0.48``: ratios of a few KB over a
million operations, noise). On the packed mar25 PostgreSQL tree (``o.met.dop16``) that is
every r/o, rKB/o, wKB/o mismatch but two wKB/o cells (his ``0.001``, ours ``0``).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from benchdeck.engine.catalogue import default_catalogue
from benchdeck.engine.mytools_names import parse_mytools_suffix
from benchdeck.engine.parsers.mytools_met import parse_met
from benchdeck.store.analysis.compare import HW_KEYS, CompareError, compare
from benchdeck.store.importers.mytools_tree import split_run_dir
from benchdeck.store.reports.compare_report import fmt_hw, fmt_rel
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.raw import decompress


@dataclass
class Block:
    name: str
    workload: str
    dop: int
    columns: list[tuple[str, str]]  # (build, config)
    absolute: list[list[str]]
    rel: list[list[str]]


def parse_omet(path: Path) -> list[Block]:
    blocks: list[Block] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        name = lines[i].strip()
        if not name.startswith("sb.met.") or i + 2 >= len(lines) or lines[i + 1] != "--- absolute":
            i += 1
            continue
        suffix = parse_mytools_suffix(name.removeprefix("sb.met."))
        i += 3  # name, "--- absolute", header
        absolute, rel, cols = [], [], []
        while i < len(lines) and lines[i] != "--- relative to first result":
            toks = lines[i].split()
            parts = split_run_dir(toks[-1])
            assert parts, lines[i]
            cols.append(parts)
            absolute.append(toks[:-1])
            i += 1
        i += 1
        while i < len(lines) and lines[i].strip():
            rel.append(lines[i].split()[:-1])
            i += 1
        if suffix is not None and suffix.dop is not None:
            blocks.append(Block(name, suffix.workload, suffix.dop, cols, absolute, rel))
    return blocks


def stored(store: Store, host: str, col: tuple[str, str], workload: str, dop: int) -> dict[str, float | None]:
    row = (
        store.cursor()
        .execute(
            "SELECT median(s.cpu_o), median(s.cs_o), median(s.r_o), median(s.rkb_o), median(s.wkb_o), "
            "median(coalesce(s.per_op_ops, s.qps)) FROM runs r JOIN run_summary s USING (run_id) "
            "JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
            "JOIN workloads w USING (workload_id) "
            "WHERE h.name = ? AND b.name = ? AND r.config = ? AND w.name = ? AND r.threads = ?",
            [host, col[0], col[1], workload, dop],
        )
        .fetchone()
    )
    return dict(zip(HW_KEYS, row or (None,) * 6, strict=True))


QUIRK_KEYS = ("cpu/o", "cs/o")  # the vmstat averages his header-line count skews
IO_KEYS = ("r/o", "rKB/o", "wKB/o")  # his relative of a figure printed as 0 is 1


@dataclass(frozen=True)
class HisCount:
    """What his sb.met averaged over that benchdeck did not: ``samp`` rows (vmstat's samples,
    its since-boot row and its repeated header lines, as zeros) where benchdeck has ``n``; the
    since-boot row's us+sy and cs; the run's o/s."""

    n: int
    samp: int
    boot_cpu: float
    boot_cs: float
    ops: float


def his_count(store: Store, host: str, col: tuple[str, str], workload: str, dop: int) -> HisCount | None:
    """For a run whose per-op metrics benchdeck computed from vmstat; None when there is none."""
    cur = store.cursor()
    row = cur.execute(
        "SELECT r.run_id, s.vm_samples, s.qps FROM runs r JOIN run_summary s USING (run_id) "
        "JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
        "JOIN workloads w USING (workload_id) "
        "WHERE h.name = ? AND b.name = ? AND r.config = ? AND w.name = ? AND r.threads = ? "
        "AND s.per_op_source = 'computed' AND s.vm_samples > 0 ORDER BY r.run_id LIMIT 1",
        [host, col[0], col[1], workload, dop],
    ).fetchone()
    if row is None:
        return None
    files = {
        kind: decompress(codec, bytes(data)).decode("utf-8", "replace")
        for kind, codec, data in cur.execute(
            "SELECT kind, codec, data FROM raw_files WHERE run_id = ? AND kind IN ('met', 'vmstat')", [row[0]]
        ).fetchall()
    }
    met = parse_met(files.get("met", "").splitlines())
    lines = [line.split() for line in files.get("vmstat", "").splitlines()]
    header = next((t for t in lines if t[:2] == ["r", "b"]), None)
    boot = next((t for t in lines if t and t[0].isdigit()), None)
    if not met.samples or not met.samples[-1] or header is None or boot is None or len(boot) < len(header):
        return None
    cpu = float(boot[header.index("us")]) + float(boot[header.index("sy")])
    return HisCount(int(row[1]), met.samples[-1], cpu, float(boot[header.index("cs")]), float(row[2]))


def his_figures(vals: dict[str, float | None], c: HisCount | None) -> dict[str, float | None]:
    """Our figures as his sb.met computes them: the since-boot row added in, divided by samp
    (cpu/o is vmstat's us+sy per o/s, as benchdeck's)."""
    if c is None:
        return vals
    boot = {"cpu/o": c.boot_cpu / c.ops, "cs/o": c.boot_cs / c.ops}
    return {
        k: (v * c.n + boot[k]) / c.samp if k in QUIRK_KEYS and v is not None else v for k, v in vals.items()
    }


def same_printed(his: str, ours: str) -> bool:
    """Equal within one unit of his last printed digit: he averages vmstat's since-boot row in,
    benchdeck drops it (one sample in ~300 moves the last digit at times)."""
    try:
        h, o = float(his), float(ours)
    except ValueError:
        return his == ours
    decimals = len(his.split(".", 1)[1]) if "." in his else 0
    return abs(h - o) <= 10**-decimals * 1.0001


def check_file(store: Store, host: str, path: Path) -> tuple[int, int, int, int, list[str]]:
    cells = bad = via_compare = quirks = 0
    notes: list[str] = []
    cat = default_catalogue()
    for b in parse_omet(path):
        vals = [stored(store, host, c, b.workload, b.dop) for c in b.columns]
        if any(v["o/s"] is None for v in vals):
            missing = [f"{c[0]}.{c[1]}" for c, v in zip(b.columns, vals, strict=True) if v["o/s"] is None]
            notes.append(f"{b.name}: not in the store: {', '.join(missing)}")
            continue
        mine_abs = [[fmt_hw(k, v[k]) for k in HW_KEYS] for v in vals]
        mine_rel = [[fmt_rel(k, v, vals[0]) for k in HW_KEYS] for v in vals[1:]]
        samples = [his_count(store, host, c, b.workload, b.dop) for c in b.columns]
        his_vals = [his_figures(v, n) for v, n in zip(vals, samples, strict=True)]
        his_abs = [[fmt_hw(k, v[k]) for k in HW_KEYS] for v in his_vals]
        his_rel = [[fmt_rel(k, v, his_vals[0]) for k in HW_KEYS] for v in his_vals[1:]]
        if len({c[1] for c in b.columns}) == 1:  # the same block through compare
            try:
                cmp = compare(
                    store.cursor(), host=host, base=b.columns[0][0],
                    with_builds=[c[0] for c in b.columns[1:]], group_of=cat.group_of,
                    sort_key=cat.sort_key, config=b.columns[0][1], dop=b.dop,
                )  # fmt: skip
                hw = next(h for h in cmp.hw if h.workload == b.workload)
                mine_abs = [[fmt_hw(k, r.values[k]) for k in HW_KEYS] for r in hw.rows]
                base = hw.rows[0].values
                mine_rel = [[fmt_rel(k, r.values, base) for k in HW_KEYS] for r in hw.rows[1:]]
                via_compare += 1
            except (CompareError, StopIteration) as exc:
                notes.append(f"{b.name}: compare failed: {exc!r}")
                bad += 1
                continue
        quirk_here = zero_here = 0
        tables = (("abs", b.absolute, mine_abs, his_abs), ("rel", b.rel, mine_rel, his_rel))
        for kind, his_rows, my_rows, quirk_rows in tables:
            for col, his, mine, q in zip(
                b.columns[(kind == "rel") :], his_rows, my_rows, quirk_rows, strict=True
            ):
                for k, h, m, hq in zip(HW_KEYS, his, mine, q, strict=True):
                    cells += 1
                    if h == m:
                        continue
                    if k in QUIRK_KEYS and same_printed(h, hq):
                        quirk_here += 1
                        continue
                    if kind == "rel" and k in IO_KEYS and h == "1" and b.absolute[0][HW_KEYS.index(k)] == "0":
                        zero_here += 1
                        continue
                    bad += 1
                    notes.append(f"{b.name} {kind} {col[0]}.{col[1]} {k}: his {h} ours {m}")
        if quirk_here:
            quirks += quirk_here
            c = next(x for x in samples if x is not None)
            n, samp = c.n, c.samp
            notes.append(
                f"{b.name}: {quirk_here} cpu/o, cs/o cell(s) differ by his quirk, not a mismatch: his "
                f"sb.met counts vmstat's repeated header lines as samples (samp {samp} for {n}); ours right"
            )
        if zero_here:
            quirks += zero_here
            notes.append(
                f"{b.name}: {zero_here} r/o, rKB/o, wKB/o relative cell(s) are his quirk, not a mismatch: "
                "his first result printed as 0, his ratio 1; ours divides the unrounded figures"
            )
    return cells, bad, via_compare, quirks, notes


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    db, host, files = argv[0], argv[1], argv[2:]
    failed = False
    with Store.open_for_reading(db) as store:
        for f in files:
            cells, bad, via, quirks, notes = check_file(store, host, Path(f))
            his = f", {quirks} of them his quirks (below)" if quirks else ""
            print(f"{f}: {cells - bad}/{cells} cells equal ({via} blocks through compare{his})")
            for n in notes:
                print(f"  {n}")
            failed |= bad > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
