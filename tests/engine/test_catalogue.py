from pathlib import Path

import pytest

from benchdeck.engine.catalogue import (
    CLASSIC_42,
    MODERN_33,
    SUITES,
    default_catalogue,
    family_of,
    load_group_overrides,
    merged_order,
    split_workload_name,
)
from benchdeck.engine.mytools_names import parse_mytools_suffix


def test_classic_suite_has_the_posts_42_steps_and_group_sizes() -> None:
    assert len(CLASSIC_42) == 42
    assert len({n for n, _ in CLASSIC_42}) == 42
    sizes: dict[str, int] = {}
    for _, g in CLASSIC_42:
        sizes[g] = sizes.get(g, 0) + 1
    assert sizes == {"point-1": 11, "point-2": 6, "range-1": 9, "range-2": 6, "writes": 10}


def test_modern_suite_drops_pre_steps_and_adds_read_only_variants() -> None:
    names = [n for n, _ in MODERN_33]
    assert len(names) == 33
    assert not [n for n in names if ".pre" in n]
    assert "scan.warm_range=100" in names
    assert default_catalogue().group_of("read-only-sum_range=1000") == "range-2"


def test_order_follows_the_posts_and_unknown_names_sort_last() -> None:
    cat = default_catalogue()
    names = ["update-index_range=100", "zzz-custom", "hot-points_range=100", "scan_range=100"]
    assert sorted(names, key=cat.sort_key) == [
        "hot-points_range=100",
        "scan_range=100",
        "update-index_range=100",
        "zzz-custom",
    ]
    assert cat.group_of("zzz-custom") == "other"


def test_user_can_override_groups(tmp_path: Path) -> None:
    f = tmp_path / "groups.toml"
    f.write_text('[groups]\n"scan_range=100" = "scans"\n"my-step" = "writes"\n')
    cat = default_catalogue(load_group_overrides(f))
    assert cat.group_of("scan_range=100") == "scans"
    assert cat.group_of("my-step") == "writes"
    assert cat.group_of("hot-points_range=100") == "point-1"


def test_bad_group_override_is_a_clear_error(tmp_path: Path) -> None:
    f = tmp_path / "groups.toml"
    f.write_text("[groups]\nscan = 3\n")
    with pytest.raises(ValueError, match=r"groups\.toml.*\[groups\]"):
        load_group_overrides(f)


@pytest.mark.parametrize(
    ("suffix", "workload", "dop"),
    [
        ("point-query.pre.range100.pk1.dop24", "point-query.pre_range=100", 24),
        ("random-points.range1000.pk1.dop1", "random-points_range=1000", 1),
        ("scan.warm.range100.pk1.dop40", "scan.warm_range=100", 40),
        ("read-only-count.range1000.pk1.dop8", "read-only-count_range=1000", 8),
        ("update-index.range100.pk1", "update-index_range=100", None),
    ],
)
def test_mytools_suffixes(suffix: str, workload: str, dop: int | None) -> None:
    r = parse_mytools_suffix(suffix)
    assert r is not None
    assert (r.workload, r.dop) == (workload, dop)


def test_non_result_suffixes_are_not_workloads() -> None:
    assert parse_mytools_suffix("myvac.show.1") is None
    assert split_workload_name("point-query.pre_range=100") == ("point-query.pre", 100)


def test_newer_steps_are_merged_where_the_newer_suite_puts_them() -> None:
    names = default_catalogue().names()
    assert names.index("range-notcovered-si_range=100") < names.index("read-only-count_range=1000")
    assert names.index("read-only-count_range=1000") < names.index("read-only_range=10000")
    assert (
        names.index("scan_range=100") < names.index("scan.warm_range=100") < names.index("delete_range=100")
    )
    assert names[:42] != [n for n, _ in CLASSIC_42]  # extras are interleaved, not appended
    assert [n for n in names if n in dict(CLASSIC_42)] == [n for n, _ in CLASSIC_42]


def test_a_suite_orders_its_own_steps_first() -> None:
    cat = default_catalogue(suite="modern")
    modern = [n for n, _ in MODERN_33]
    assert [n for n in cat.names() if n in modern] == modern
    with pytest.raises(ValueError, match="unknown suite"):
        default_catalogue(suite="nope")


# --- the other workload families -------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "family"),
    [
        ("l.i0", "insertbench"),
        ("l.x", "insertbench"),
        ("l.i2", "insertbench"),
        ("qr100", "insertbench"),
        ("qp1000", "insertbench"),
        ("qp2000", "insertbench"),  # any qrN / qpN
        ("fillseq.byrx", "dbbench"),
        ("readww.iobuf", "dbbench"),
        ("revrangeww.iodir", "dbbench"),
        ("fwdrangeww.byrx", "dbbench"),
        ("overwrite.iodir", "dbbench"),
        ("readww", "dbbench"),  # no setup: the db_bench planner says what is missing
        ("pgbench.select-only", "pgbench"),
        ("pgbench.tpcb-like", "pgbench"),
        ("tpcc.w1", "tpcc"),
        ("tpcc.w128", "tpcc"),  # any tpcc.wN
        ("tpcc.w0", "sysbench"),
        ("point-query.pre_range=100", "sysbench"),
        ("scan.warm_range=100", "sysbench"),
        ("qx100", "sysbench"),
        ("zzz-custom", "sysbench"),
    ],
)
def test_family_of_tells_the_families_apart_by_name(name: str, family: str) -> None:
    assert family_of(name) == family


def test_insertbench_suite_is_the_ten_classic_steps_loads_then_queries() -> None:
    assert SUITES["insertbench"] == (
        ("l.i0", "load"),
        ("l.x", "load"),
        ("l.i1", "load"),
        ("l.i2", "load"),
        ("qr100", "queries"),
        ("qp100", "queries"),
        ("qr500", "queries"),
        ("qp500", "queries"),
        ("qr1000", "queries"),
        ("qp1000", "queries"),
    )


@pytest.mark.parametrize(
    ("suite", "setup"), [("dbbench", "byrx"), ("dbbench-iobuf", "iobuf"), ("dbbench-iodir", "iodir")]
)
def test_dbbench_suites_name_step_and_setup(suite: str, setup: str) -> None:
    assert SUITES[suite] == (
        (f"fillseq.{setup}", "write"),
        (f"revrangeww.{setup}", "read"),
        (f"fwdrangeww.{setup}", "read"),
        (f"readww.{setup}", "read"),
        (f"overwrite.{setup}", "write"),
    )
    assert {family_of(n) for n, _ in SUITES[suite]} == {"dbbench"}


def test_pgbench_suite() -> None:
    assert SUITES["pgbench"] == (("pgbench.select-only", "pgbench"), ("pgbench.tpcb-like", "pgbench"))


def test_every_suite_step_is_of_the_suites_family() -> None:
    expected = {
        "classic": "sysbench",
        "modern": "sysbench",
        "insertbench": "insertbench",
        "pgbench": "pgbench",
        "tpcc": "tpcc",
    }
    for suite, steps in SUITES.items():
        assert {family_of(n) for n, _ in steps} == {expected.get(suite, "dbbench")}, suite


def test_default_catalogue_keeps_sysbench_first_and_groups_the_other_families() -> None:
    cat = default_catalogue()
    sysbench = [n for n, _ in merged_order(CLASSIC_42, MODERN_33)]
    assert cat.names()[: len(sysbench)] == sysbench
    assert cat.group_of("qp100") == "queries"
    assert cat.group_of("l.x") == "load"
    assert cat.group_of("readww.iodir") == "read"
    assert cat.group_of("pgbench.tpcb-like") == "pgbench"
    assert cat.sort_key("l.i0") < cat.sort_key("qp1000") < cat.sort_key("zzz-custom")
    w = cat.workload("fillseq.byrx")
    assert (w.group, w.family) == ("write", "dbbench")
    assert cat.workload("point-query_range=100").family == "sysbench"
    assert cat.groups()[:5] == ["point-1", "point-2", "range-1", "range-2", "writes"]


def test_a_family_suite_orders_its_own_steps_first() -> None:
    cat = default_catalogue(suite="insertbench")
    assert cat.names()[:10] == [n for n, _ in SUITES["insertbench"]]
    assert default_catalogue(suite="dbbench-iodir").names()[0] == "fillseq.iodir"
    assert default_catalogue(suite="pgbench").group_of("pgbench.select-only") == "pgbench"


@pytest.mark.parametrize(
    "overrides",
    [None, {"point-query_range=100": "mine", "fillseq.byrx": "loads", "zzz-custom": "custom"}],
)
def test_the_default_catalogue_reads_the_families_late_with_the_same_answers(
    overrides: dict[str, str] | None,
) -> None:
    """The families' steps are read on the first name that may be theirs: every name gets the
    group and order an eagerly built catalogue gives, whatever is asked first."""
    from benchdeck.engine.catalogue import (
        CLASSIC_42,
        MODERN_33,
        Catalogue,
        _family_entries,
        _may_be_family,
        merged_order,
    )

    eager = Catalogue(merged_order(CLASSIC_42, MODERN_33) + _family_entries(), overrides)
    names = [*eager.names(), "read-only-count_range=1000", "qr7", "zzz-custom", "nope"]
    for first in ("point-query_range=100", "read-only-count_range=1000", "fillseq.byrx", "zzz-custom"):
        lazy = default_catalogue(overrides)
        assert lazy.sort_key(first) == eager.sort_key(first)
        assert [lazy.sort_key(n) for n in names] == [eager.sort_key(n) for n in names]
        assert [lazy.group_of(n) for n in names] == [eager.group_of(n) for n in names]
        assert lazy.groups() == eager.groups()
        assert lazy.names() == eager.names()
    assert all(_may_be_family(n) for n, _ in _family_entries())  # the rule the late read relies on
    assert not any(_may_be_family(n) for n, _ in merged_order(CLASSIC_42, MODERN_33))
