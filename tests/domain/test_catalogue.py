from pathlib import Path

import pytest

from engine.catalogue import (
    CLASSIC_42,
    MODERN_33,
    default_catalogue,
    load_group_overrides,
    parse_mytools_suffix,
    split_workload_name,
)


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
