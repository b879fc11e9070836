"""Reading one run's files: EXPLAIN output among other lines, sb.met tables, dates, raw files."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.parsers.explain import find_explain
from benchdeck.engine.parsers.mytools_met import parse_met, split_met_tail
from benchdeck.store.importers import ImportError_, RunFiles, import_run_files
from benchdeck.store.importers.dating import parse_stamp
from benchdeck.store.importers.read_run import read_run
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.raw import read_raw
from benchdeck.store.storage.schema import MIGRATIONS
from tests.store import mytools_tree as t

BUILD = parse_build_name(t.A)


def _files(path: Path, workload: str = "update-index_range=100", **kw: object) -> RunFiles:
    return RunFiles(host="h", build=BUILD, workload=workload, sysbench=path, **kw)  # type: ignore[arg-type]


def test_explain_block_is_found_whole() -> None:
    text = t.sysbench_output("update-index", 1000.0)
    span = find_explain(text)
    assert span is not None
    lines = text.splitlines()
    assert lines[span.first - 1] == "Initializing worker threads..."
    assert lines[span.first + span.count] == "Threads started!"
    assert span.count == len(t.explain_block("update-index")) + 1


def test_an_unknown_line_inside_the_explain_block_is_the_only_one_skipped(tmp_path: Path) -> None:
    text = t.sysbench_output("update-index", 1000.0)
    lines = text.splitlines()
    at = lines.index("for index_updates") + 3
    lines.insert(at, "something nobody expected")
    text = "\n".join(lines) + "\n"
    assert find_explain(text) is None, "not every line of the zone is EXPLAIN output"
    (tmp_path / "sb.o").write_text(text)
    run = read_run(_files(tmp_path / "sb.o"))
    ((source, (skipped,)),) = run.skipped
    assert (source, skipped.lineno, skipped.text) == ("sysbench", at + 1, "something nobody expected")
    assert run.explain_lines == len(t.explain_block("update-index")) + 1
    assert run.qps == pytest.approx(1000.0)


def test_skipped_line_numbers_count_the_explain_block(tmp_path: Path) -> None:
    text = t.sysbench_output("update-index", 1000.0).replace("Warming up for 5 seconds...", "odd line")
    (tmp_path / "sb.o").write_text(text)
    run = read_run(_files(tmp_path / "sb.o"))
    ((_, (skipped,)),) = run.skipped
    assert text.splitlines()[skipped.lineno - 1] == "odd line"


def test_met_table_by_header_name_and_garbage_kept() -> None:
    met = t.MET["update-index"][t.B][1]
    body, tail = split_met_tail("sysbench output\n" + met.text())
    assert body == "sysbench output\n"
    assert tail is not None
    table = parse_met([*tail.splitlines(), "12 oops", "samp\tx", "1\tnan"])
    assert table.values["o/s"] == 72000.0
    assert table.values["cpu/o"] == 0.00055
    assert table.samples == (295, 299)
    assert [s.text for s in table.skipped] == ["12 oops", "1\tnan"]
    op = table.per_op(ncpu=16)
    assert op is not None
    assert op.cpu_us_o == pytest.approx(0.00055 * 16 * 1e4)
    assert parse_met(["samp\tcs/s", "1\t2"]).per_op() is None, "no o/s: no per-op metrics"


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("vac_my starts at Fri Nov 21 04:38:01 AM UTC 2025 with", datetime(2025, 11, 21, 4, 38, 1)),
        ("pg_vac starts at Fri Sep  5 11:02:03 PM UTC 2025 with", datetime(2025, 9, 5, 23, 2, 3)),
        ("Run for nt 8 at Tue Oct 29 10:11:12 PDT 2024", datetime(2024, 10, 29, 10, 11, 12)),
        (" 1  0 0 1 2 3 0 0 0 0 1 1 1 1 98 0 0 2024-11-01 10:00:01", datetime(2024, 11, 1, 10, 0, 1)),
        ("11/01/2024 10:00:01 PM", datetime(2024, 11, 1, 22, 0, 1)),
        ("2024-11-01T10:00:01+0000", datetime(2024, 11, 1, 10, 0, 1)),
        ("no date here 99/99/2024 25:61:00", None),
    ],
)
def test_stamps(text: str, when: datetime | None) -> None:
    assert parse_stamp(text) == when


def test_vmstat_timestamps_date_a_single_run(tmp_path: Path) -> None:
    (tmp_path / "sb.o").write_text(t.sysbench_output("point-query", 2000.0))
    lines = t.VMSTAT.splitlines()  # as `vmstat -t 1` prints it
    vm = [lines[0] + " -----timestamp-----", lines[1] + "                 UTC"]
    stamps = ["2024-11-01 09:59:59", "2024-11-01 10:00:00", "2024-11-01 10:00:01"]
    vm += [f"{row} {s}" for row, s in zip(lines[2:], stamps, strict=True)]
    (tmp_path / "sb.vm").write_text("\n".join(vm) + "\n")
    run = read_run(_files(tmp_path / "sb.o", "point-query_range=100", vmstat=tmp_path / "sb.vm"))
    assert run.dated_from == "vmstat"
    assert run.run.started_at == datetime(2024, 11, 1, 10, 0, 0), "the first sample (since-boot row dropped)"


def test_scan_without_table_size_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "sb.o").write_text(t.sysbench_output("scan", 500.0, table_size=False))
    with Store.open(tmp_path / "s.duckdb") as store:
        with pytest.raises(ImportError_, match=r"scan step scan_range=100: .* give --table-size N") as exc:
            import_run_files(store, _files(tmp_path / "sb.o", "scan_range=100"))
        assert "\n" not in str(exc.value)
        assert store.scalar("SELECT count(*) FROM runs") == 0
        run = import_run_files(store, _files(tmp_path / "sb.o", "scan_range=100", table_size=t.TABLE_SIZE))
        assert run.qps == pytest.approx(t.TABLE_SIZE / 0.5)
        assert store.scalar("SELECT table_size FROM runs") == t.TABLE_SIZE


def test_raw_files_of_a_v5_store_stay_readable(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP)")
    for version, ddl in MIGRATIONS:
        if version <= 5:
            con.execute(ddl)
            con.execute("INSERT INTO schema_version (version) VALUES (?)", [version])
    con.execute("INSERT INTO raw_files VALUES (7, 'sysbench', 'sb.o.x', 'queries: 1 (1 per sec.) é\n')")
    con.close()
    with Store.open(db) as store:
        (raw,) = read_raw(store.cursor(), 7)
        assert (raw.kind, raw.name, raw.text) == ("sysbench", "sb.o.x", "queries: 1 (1 per sec.) é\n")
        assert store.scalar("SELECT codec || ' ' || size FROM raw_files") == "none 27"
