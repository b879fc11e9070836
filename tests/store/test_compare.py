"""Compare on a store filled through the store API: medians, noise, per-op conventions, errors."""

import json
import math
import statistics
from pathlib import Path

import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.catalogue import default_catalogue
from benchdeck.engine.metrics import PerOp
from benchdeck.store.analysis.compare import CompareError, Comparison, compare
from benchdeck.store.reports.compare_report import render, render_text, to_json
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status

CAT = default_catalogue()


def add_run(
    store: Store,
    build: str,
    workload: str,
    qps: float,
    *,
    host: str = "h1",
    dop: int = 1,
    config: str = "cfg",
    per_op: PerOp | None = None,
    status: str = "finished",
) -> int:
    with store.transaction() as cur:
        rid = create_run(
            cur, NewRun(host, parse_build_name(build), workload, "test", config=config, threads=dop)
        )
        save_summary(cur, rid, RunSummary(qps=qps, per_op=per_op))
        set_status(cur, rid, status)
    return rid


def run_compare(store: Store, base: str, *with_: str, **kw: object) -> Comparison:
    return compare(
        store.cursor(),
        host=str(kw.pop("host", "h1")),
        base=base,
        with_builds=list(with_),
        group_of=CAT.group_of,
        sort_key=CAT.sort_key,
        **kw,
    )  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "s.duckdb")


def test_rqps_rows_follow_catalogue_order_with_null_for_missing(store: Store) -> None:
    for wl, q in [
        ("update-index_range=100", 100.0),
        ("hot-points_range=100", 200.0),
        ("scan_range=100", 50.0),
    ]:
        add_run(store, "my8028_rel", wl, q)
    add_run(store, "my8040_rel", "update-index_range=100", 56.0)
    add_run(store, "my8040_rel", "hot-points_range=100", 212.0)
    c = run_compare(store, "my8028_rel", "my8040_rel")
    assert [r.workload for r in c.rqps] == [
        "hot-points_range=100",
        "scan_range=100",
        "update-index_range=100",
    ]
    assert [r.values[0] for r in c.rqps] == [pytest.approx(1.06), None, pytest.approx(0.56)]
    assert [r.group for r in c.rqps] == ["point-1", "range-1", "writes"]


def test_repeated_runs_use_the_median_and_mark_noise(store: Store) -> None:
    for q in (100.0, 90.0, 110.0):
        add_run(store, "my8028_rel", "point-query_range=100", q)
    for q in (104.0, 103.0):
        add_run(store, "my8040_rel", "point-query_range=100", q)
    add_run(store, "my8028_rel", "insert_range=100", 100.0)
    add_run(store, "my8040_rel", "insert_range=100", 80.0)
    add_run(store, "my8040_rel", "insert_range=100", 80.0)
    c = run_compare(store, "my8028_rel", "my8040_rel")
    pq, ins = c.rqps
    assert pq.values[0] == pytest.approx(103.5 / 100.0)
    assert pq.within_noise == (True,), "1.035 is inside the base's 20% spread"
    assert pq.repeats == (2,)
    assert ins.within_noise == (False,), "0.80 is outside a 0% spread"
    assert "~" in render_text(c).splitlines()[4]


def test_unfinished_runs_are_not_compared(store: Store) -> None:
    add_run(store, "my8028_rel", "insert_range=100", 100.0)
    add_run(store, "my8028_rel", "delete_range=100", 100.0)
    add_run(store, "my8040_rel", "insert_range=100", 10.0, status="failed")
    add_run(store, "my8040_rel", "delete_range=100", 90.0)
    c = run_compare(store, "my8028_rel", "my8040_rel")
    assert {r.workload: r.values for r in c.rqps} == {
        "delete_range=100": (pytest.approx(0.9),),
        "insert_range=100": (None,),
    }
    add_run(store, "my8050_rel", "insert_range=100", 10.0, status="failed")
    with pytest.raises(CompareError, match="build 'my8050_rel' has no finished runs on host 'h1'"):
        run_compare(store, "my8028_rel", "my8050_rel")


def test_group_stats_and_geometric_mean(store: Store) -> None:
    vals = {
        "point-query_range=100": 0.5,
        "hot-points_range=100": 2.0,
        "points-covered-pk_range=100": 1.0,
    }
    for wl, r in vals.items():
        add_run(store, "my8028_rel", wl, 100.0)
        add_run(store, "my8040_rel", wl, 100.0 * r)
    (g,) = run_compare(store, "my8028_rel", "my8040_rel").groups
    assert (g.group, g.min, g.max) == ("point-1", 0.5, 2.0)
    assert g.avg == pytest.approx(statistics.fmean(vals.values()))
    assert g.median == pytest.approx(1.0)
    assert g.gmean == pytest.approx(1.0)


def test_per_op_relative_conventions(store: Store) -> None:
    base = PerOp(ops=100.0, cpu_o=0.001, cs_o=2.0, r_o=0.0, rkb_o=0.0, wkb_o=0.0)
    other = PerOp(ops=50.0, cpu_o=0.002, cs_o=1.0, r_o=0.0, rkb_o=3.0, wkb_o=0.0)
    add_run(store, "my8028_rel", "update-index_range=100", 100.0, per_op=base)
    add_run(store, "my8040_rel", "update-index_range=100", 50.0, per_op=other)
    (block,) = run_compare(store, "my8028_rel", "my8040_rel").hw
    rel = block.rows[1].rel
    assert rel["cpu/o"] == pytest.approx(2.0)
    assert rel["r/o"] == 1.0, "0/0 counts as 1"
    assert rel["rKB/o"] == math.inf, "x/0 is inf"
    assert rel["o/s"] == pytest.approx(0.5)
    text = render_text(run_compare(store, "my8028_rel", "my8040_rel"))
    assert "2.00\t0.50\t1\tinf\t1\t0.50\tmy8040_rel" in text
    j = to_json(run_compare(store, "my8028_rel", "my8040_rel"))
    assert j["hw"][0]["rows"][1]["rel"]["rKB/o"] is None, "no strings in numeric fields: inf is null"
    json.dumps(j, allow_nan=False)


def test_several_concurrencies_are_kept_apart(store: Store) -> None:
    for dop, q in [(1, 100.0), (24, 1000.0)]:
        add_run(store, "my8028_rel", "insert_range=100", q, dop=dop)
        add_run(store, "my8040_rel", "insert_range=100", q * 0.9, dop=dop)
    c = run_compare(store, "my8028_rel", "my8040_rel")
    assert [(r.dop, r.values[0]) for r in c.rqps] == [
        (1, pytest.approx(0.9)),
        (24, pytest.approx(0.9)),
    ]
    assert "insert_range=100@dop24" in render_text(c)
    only = run_compare(store, "my8028_rel", "my8040_rel", dop=24)
    assert [r.dop for r in only.rqps] == [24]
    assert "@dop" not in render_text(only)


def test_ambiguous_configs_must_be_picked(store: Store) -> None:
    add_run(store, "my8028_rel", "insert_range=100", 100.0, config="z11a")
    add_run(store, "my8028_rel", "insert_range=100", 100.0, config="z11b")
    add_run(store, "my8040_rel", "insert_range=100", 100.0, config="z11a")
    with pytest.raises(CompareError, match="configs z11a, z11b: pick one with --config"):
        run_compare(store, "my8028_rel", "my8040_rel")
    assert run_compare(store, "my8028_rel", "my8040_rel", config="z11a").rqps[0].values == (1.0,)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"host": "nope"}, "unknown host 'nope' \\(known: h1\\)$"),
        ({"host": "h11"}, "unknown host 'h11' \\(known: h1\\); did you mean 'h1'\\?"),
        (
            {"base": "my8029_rel"},
            "unknown build 'my8029_rel' on host h1 \\(known: my8028_rel, my8040_rel\\); "
            "did you mean 'my8028_rel'\\?",
        ),
        ({"with_": ("my8028_rel",)}, "named more than once"),
        ({"dop": 64}, "no finished runs on host 'h1' with dop 64"),
    ],
)
def test_errors_name_what_is_wrong(store: Store, kw: dict[str, object], message: str) -> None:
    add_run(store, "my8028_rel", "insert_range=100", 100.0)
    add_run(store, "my8040_rel", "insert_range=100", 100.0)
    base = str(kw.pop("base", "my8028_rel"))
    with_ = kw.pop("with_", ("my8040_rel",))
    with pytest.raises(CompareError, match=message):
        run_compare(store, base, *with_, **kw)  # type: ignore[misc]


@pytest.mark.parametrize("fmt", ["text", "md", "csv", "json"])
def test_every_format_renders(store: Store, fmt: str) -> None:
    add_run(store, "my8028_rel", "insert_range=100", 100.0, per_op=PerOp(ops=100.0, cpu_o=0.1, cs_o=1.0))
    add_run(store, "my8040_rel", "insert_range=100", 96.0, per_op=PerOp(ops=96.0, cpu_o=0.1, cs_o=1.0))
    out = render(run_compare(store, "my8028_rel", "my8040_rel"), fmt)
    assert "0.96" in out
    assert "insert_range=100" in out


def test_a_store_without_counter_windows_compares_without_counters(store: Store) -> None:
    """A team store made before migration 12 has no counter tables (lakes do not follow
    migrations): compare answers as on any store, with no counters."""
    add_run(store, "my8028_rel", "point-query_range=100", 100.0)
    add_run(store, "my8040_rel", "point-query_range=100", 90.0)
    before = run_compare(store, "my8028_rel", "my8040_rel")
    with store.transaction() as cur:
        sql = "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'counter%'"
        tables = [r[0] for r in cur.execute(sql).fetchall()]
        assert "counter_windows" in tables
        for t in sorted(tables, key=lambda t: t != "counter_values"):  # (the values refer to the windows)
            cur.execute(f"DROP TABLE {t}")
    after = run_compare(store, "my8028_rel", "my8040_rel")
    assert after.counters == ()
    assert after.rqps == before.rqps
