"""Running the real ``benchdeck`` CLI in a subprocess, and reading the store it wrote."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb

CLI = [sys.executable, "-c", "from tui.cli import main; main()"]
ROOT = Path(__file__).resolve().parent.parent


def bd(env: dict[str, str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``benchdeck ARGS`` with ``env`` (BENCHDECK_DB, BENCHDECK_CONFIG ...), output captured."""
    return subprocess.run([*CLI, *args], env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def db_rows(env: dict[str, str], sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    con = duckdb.connect(env["BENCHDECK_DB"], read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def remote_output(env: dict[str, str], run_id: int) -> str:
    """The benchmark's own output file of a run, from its remote (here: local) run directory."""
    ((remote_dir,),) = db_rows(env, "SELECT remote_dir FROM remote_runs WHERE run_id = ?", [run_id])
    return Path(str(remote_dir), "bench.out").read_text()
