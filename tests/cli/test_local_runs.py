"""Built-in runs on this machine, through the real CLI: where their run directories go and the
name a run is stored under (issue 25 items 4 and 16)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import bd, db_rows

pytestmark = pytest.mark.integration  # real sqlite_bench runs with vmstat and iostat


def test_each_store_keeps_its_local_runs_beside_it_and_names_them(tmp_path: Path) -> None:
    """Two stores' built-in runs both wrote ~/benchdeck-runs/runs/run1-<hex>, whatever the store;
    ``--workload point-query`` was stored as ``point-query``, never compared with the rest."""
    home = tmp_path / "home"
    home.mkdir()
    for name in ("alpha", "beta"):
        env = dict(os.environ, HOME=str(home), BENCHDECK_DB=str(tmp_path / f"{name}.duckdb"))
        env.pop("BENCHDECK_CONFIG", None)  # no inventory: the implicit local host
        env["XDG_CONFIG_HOME"] = str(home / ".config")
        r = bd(env, "run", "--host", "local", "--build", "sqlite", "--workload", "point-query",
               "--time", "1", "--table-size", "100")  # fmt: skip
        assert r.returncode == 0, r.stderr
        summary = r.stdout.splitlines()[-1]  # with the config and dop (issue 38 item 14)
        assert summary.startswith("run 1 finished qps ")
        assert summary.endswith("  local sqlite point-query_range=100 config default dop 1"), summary
        ((workload, remote_dir),) = db_rows(
            env,
            "SELECT w.name, rr.remote_dir FROM runs r JOIN workloads w USING (workload_id) "
            "JOIN remote_runs rr USING (run_id)",
        )
        assert workload == "point-query_range=100"
        run_dir = Path(str(remote_dir))
        assert run_dir.parent == tmp_path / f"{name}-runs" / "runs"
        assert run_dir.name.startswith(f"run1-{name}-")
        assert (run_dir / "bench.out").is_file()
        assert (tmp_path / f"{name}-runs" / "builtin-sqlite.sqlite").is_file()
    assert not (home / "benchdeck-runs").exists(), "nothing written to ~/benchdeck-runs"
