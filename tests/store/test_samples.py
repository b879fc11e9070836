"""Samples go in as batches (store.bulk) and come back unchanged."""

from datetime import datetime
from pathlib import Path

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.records import BenchInterval, IostatSample, SkippedLine, VmstatSample
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, create_run, save_host_facts
from benchdeck.store.storage.samples import append_bench, append_iostat, append_skipped, append_vmstat


def _vm(seq: int, gu: int | None, ts: str | None) -> VmstatSample:
    return VmstatSample(seq, 3, 0, 0, 100, 200, 300, 0, 0, 5, 7, 900, 1200 + seq, 30, 10, 60, 0, 0, gu, ts)


def test_samples_roundtrip_through_batches(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.duckdb") as s, s.transaction() as cur:
        rid = create_run(cur, NewRun("h", parse_build_name("pg174_o2nofp"), "insert_range=100", "test"))
        bench = [
            BenchInterval(
                t=float(i),
                threads=4,
                tps=10.0 * i,
                qps=200.0 * i,
                reads=1.0,
                writes=2.0,
                other=3.0,
                latency_ms=1.5,
                latency_pct=95.0,
            )
            for i in range(1, 101)
        ]
        bench.append(BenchInterval(t=101.0, threads=1, tps=55.5))  # eps-only line: no qps
        assert append_bench(cur, rid, bench) == 101
        assert append_vmstat(cur, rid, [_vm(0, None, None), _vm(1, 2, "2026-11-21 19:52:23")]) == 2
        io = [
            IostatSample(0, "nvme0n1", 1.0, 2.0, 3.0, 4.0, util=50.0),
            IostatSample(0, "nvme0n1p1", 9, 9, 9, 9),
        ]
        assert append_iostat(cur, rid, io) == 2
        assert append_skipped(cur, rid, "vmstat", [SkippedLine(7, "garbage ###", "not numeric")]) == 1
        assert append_bench(cur, rid, []) == 0

        assert cur.execute("SELECT count(*), sum(qps), count(qps) FROM bench_samples").fetchone() == (
            101,
            sum(200.0 * i for i in range(1, 101)),
            100,
        )
        assert cur.execute('SELECT seq, "in", cs, gu, ts FROM vmstat_samples ORDER BY seq').fetchall() == [
            (0, 900, 1200, None, None),
            (1, 900, 1201, 2, datetime(2026, 11, 21, 19, 52, 23)),  # TIMESTAMP since migration 11
        ]
        assert cur.execute("SELECT device, wkb_s, util FROM iostat_samples ORDER BY device").fetchall() == [
            ("nvme0n1", 4.0, 50.0),
            ("nvme0n1p1", 9.0, None),
        ]
        assert cur.execute("SELECT lineno, text, reason FROM skipped_lines").fetchall() == [
            (7, "garbage ###", "not numeric")
        ]


def test_host_facts_are_kept_as_json_with_ncpu(tmp_path: Path) -> None:
    facts = {"ncpu": 48, "cpu_model": "AMD EPYC 9454P 48-Core", "smt": False, "ram_gb": 128}
    with Store.open(tmp_path / "s.duckdb") as s, s.transaction() as cur:
        save_host_facts(cur, "ax162-s", facts)
        row = cur.execute("SELECT ncpu, facts->>'cpu_model', facts_at IS NOT NULL FROM hosts").fetchone()
    assert row == (48, "AMD EPYC 9454P 48-Core", True)
