"""Import one sysbench run from files: its output, and optionally vmstat and iostat output."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.builds import Build
from engine.metrics import per_op, run_qps
from engine.records import IostatSample, SysbenchSummary
from store.db import Store, StoreError
from store.importers.checked import Checked
from store.limits import INT32_MAX, INT64_MAX, fit_int, int_problem, path_problem
from store.runs import NewRun, RunSummary, create_run, save_raw, save_summary, set_status
from store.samples import append_bench, append_iostat, append_skipped, append_vmstat

_NCPU = re.compile(r"^\s*(\d+) CPUs?\s*$")
_IOSTAT_NCPU = re.compile(r"\((\d+) CPU\)")


class ImportError_(StoreError):
    """A file that cannot be imported, with the reason; nothing was written."""


@dataclass(frozen=True, slots=True)
class RunFiles:
    """The files of one run and what the user says about it."""

    host: str
    build: Build
    workload: str
    sysbench: Path
    config: str = ""
    vmstat: Path | None = None
    iostat: Path | None = None
    device: str | None = None
    threads: int | None = None
    source: str = "import"


@dataclass(frozen=True, slots=True)
class ImportedRun:
    run_id: int
    qps: float
    skipped: int
    warnings: tuple[str, ...] = field(default=())


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise ImportError_(f"{path}: no such file") from None
    except OSError as exc:
        raise ImportError_(f"{path}: cannot read ({exc.strerror})") from None


def _ncpu(*texts: str) -> int | None:
    for text in texts:
        for line in text.splitlines()[:5]:
            m = _NCPU.match(line) or _IOSTAT_NCPU.search(line)
            if m:
                return int(m.group(1))
    return None


def _int(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def import_run_files(store: Store, f: RunFiles) -> ImportedRun:
    """Parse the files, then store run, samples, summary and raw text in one transaction."""
    for path in (f.sysbench, f.vmstat, f.iostat):
        if path is not None and (why := path_problem(path.absolute())):
            raise ImportError_(why)
    sb_text = _read(f.sysbench)
    vm_text = _read(f.vmstat) if f.vmstat else None
    io_text = _read(f.iostat) if f.iostat else None
    if f.iostat and not f.device:
        raise ImportError_(f"{f.iostat}: iostat needs --device (the benchmark's storage device)")

    if why := int_problem("threads", f.threads, INT32_MAX):
        raise ImportError_(f"{f.sysbench}: {why}")
    sb = Checked.sysbench(sb_text)
    s = sb.summary or SysbenchSummary()
    warnings: list[str] = []
    table_size = fit_int(_int(s.options.get("table-size")), "table-size", INT64_MAX, warnings)
    qps = run_qps(s, f.workload, table_size)
    if qps is None:
        raise ImportError_(f"{f.sysbench}: no final sysbench summary with a QPS figure (interrupted run?)")
    vm = Checked.vmstat(vm_text) if vm_text is not None else None
    io = Checked.iostat(io_text) if io_text is not None else None
    dev_rows: list[IostatSample] = []
    if io is not None:
        dev_rows = [r for r in io.samples if r.device == f.device]
        if not dev_rows:
            seen = sorted({r.device for r in io.samples})
            raise ImportError_(
                f"{f.iostat}: no rows for device {f.device!r} (devices seen: {', '.join(seen) or 'none'})"
            )
    ncpu = fit_int(_ncpu(sb_text, io_text or ""), "CPU count", INT32_MAX, warnings)
    threads = f.threads or fit_int(
        s.threads or _int(s.options.get("threads")), "threads", INT32_MAX, warnings
    )
    tables = fit_int(_int(s.options.get("tables")), "tables", INT32_MAX, warnings)
    metrics = per_op(qps, vm.samples if vm else (), dev_rows, ncpu)

    with store.transaction() as cur:
        run_id = create_run(
            cur,
            NewRun(
                host=f.host,
                build=f.build,
                workload=f.workload,
                source=f.source,
                config=f.config,
                threads=threads,
                tables=tables,
                table_size=table_size,
                device=f.device,
                source_path=str(f.sysbench.resolve()),
                command=s.command,
                params=dict(s.options),
                status="running",
            ),
            ncpu=ncpu,
        )
        append_bench(cur, run_id, sb.intervals)
        skipped = append_skipped(cur, run_id, "sysbench", sb.skipped)
        save_raw(cur, run_id, "sysbench", f.sysbench.name, sb_text)
        if vm is not None and vm_text is not None and f.vmstat:
            append_vmstat(cur, run_id, vm.samples)
            skipped += append_skipped(cur, run_id, "vmstat", vm.skipped)
            save_raw(cur, run_id, "vmstat", f.vmstat.name, vm_text)
        if io is not None and io_text is not None and f.iostat:
            append_iostat(cur, run_id, io.samples)
            skipped += append_skipped(cur, run_id, "iostat", io.skipped)
            save_raw(cur, run_id, "iostat", f.iostat.name, io_text)
        save_summary(
            cur,
            run_id,
            RunSummary(
                qps=qps,
                tps=s.tps,
                eps=s.eps,
                lat_avg_ms=s.lat_avg_ms,
                lat_pct_ms=s.lat_pct_ms,
                lat_pct=s.lat_pct,
                lat_max_ms=s.lat_max_ms,
                total_events=s.total_events,
                elapsed_s=s.total_time_s,
                per_op=metrics,
                bench_samples=len(sb.intervals),
                vm_samples=len(vm.samples) if vm else 0,
                io_samples=len(dev_rows),
                tool_version=s.sysbench_version,
            ),
        )
        set_status(cur, run_id, "finished")
    if skipped:
        warnings.append(f"{skipped} unparsed line(s) kept in the store (skipped_lines)")
    return ImportedRun(run_id=run_id, qps=qps, skipped=skipped, warnings=tuple(warnings))
