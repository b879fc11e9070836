"""A planted scalability limit is found (issue 28): the built-in SQLite under config ``serial``
(one exclusive lock held per query, reads too, as a server with one global mutex) against the
plain build, swept through the real ``benchdeck queue`` at 1 and 4 threads. ``scaling`` shows
the serial config's scale-up below the plain one's, and Triage's flags point at it.

The workload is a scan: most of a query's time is in SQLite, outside Python's GIL, so the serial
lock's cost shows (scale-up at 4 threads here: plain 0.46-0.50, serial 0.21-0.23). With point
queries the client's Python dominates and both configs sit near the GIL's limit (a loaded CI
run measured plain 0.52, serial 0.47: the 0.9 margin failed)."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest

from benchdeck.engine.catalogue import default_catalogue
from benchdeck.store.analysis.compare import compare
from benchdeck.store.storage.db import Store
from benchdeck.tui.app.screens.triage import rank
from benchdeck.tui.app.state.choices import scaling_flags
from tests.fixtures.cli_helpers import ROOT, bd, db_rows

pytestmark = pytest.mark.integration

WORKLOAD = "scan_range=100"


def test_serial_config_scales_worse_and_triage_flags_it(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BENCHDECK_", "XDG_"))}
    env.update(BENCHDECK_DB=str(tmp_path / "bd.duckdb"), HOME=str(tmp_path), PYTHONPATH=str(ROOT))
    sweep = ["--host", "local", "--build", "sqlite", "--workload", WORKLOAD, "--threads", "1,4"]
    sweep += ["--time", "3", "--table-size", "2000"]
    for config in ([], ["--config", "serial"]):
        r = bd(env, "queue", *sweep, *config, timeout=300)
        assert r.returncode == 0, r.stdout + r.stderr
    assert db_rows(env, "SELECT config, dop, count(*) FROM run_results GROUP BY ALL ORDER BY ALL") == [
        ("", 1, 1),
        ("", 4, 1),
        ("serial", 1, 1),
        ("serial", 4, 1),
    ], "the config is recorded with each run"

    out = bd(env, "scaling", "--host", "local", "--build", "sqlite", "--format", "csv")
    assert out.returncode == 0, out.stderr
    up = {(r["config"], int(r["dop"])): float(r["scaleup"]) for r in csv.DictReader(io.StringIO(out.stdout))}
    assert up[("serial", 4)] < 0.9 * up[("", 4)], f"the serialised config scales worse: {up}"

    with Store.open_for_reading(Path(env["BENCHDECK_DB"])) as store:
        cur = store.cursor()
        cat = default_catalogue()
        cmp = compare(cur, host="local", base="sqlite:", with_builds=["sqlite:serial"], group_of=cat.group_of,
                      sort_key=cat.sort_key, dop=4, intervals=False)  # fmt: skip
        flags = scaling_flags(cur, cmp)
    assert list(flags) == [("sqlite.serial", WORKLOAD)]
    (item,) = rank(cmp, 0, flags)
    assert item.scaling.startswith("scale-up @4 ")
    assert item.line().endswith(item.scaling), "Triage's line names the collapse"
