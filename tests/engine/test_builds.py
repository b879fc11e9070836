import pytest

from benchdeck.engine.builds import BuildNameError, parse_build_name, version_sort_key


@pytest.mark.parametrize(
    ("name", "dbms", "version", "fork", "variant"),
    [
        ("my8028_rel_o2nofp", "mysql", "8.0.28", "", "rel_o2nofp"),
        ("my8040adv_rel_o2nofp", "mysql", "8.0.40", "adv", "rel_o2nofp"),
        ("my5651_rel_o2nofp", "mysql", "5.6.51", "", "rel_o2nofp"),
        ("my9500_rel_o2nofp", "mysql", "9.5.0", "", "rel_o2nofp"),
        ("my8406v2_rel_o2nofp", "mysql", "8.4.6", "v2", "rel_o2nofp"),
        ("pg174_o2nofp", "postgres", "17.4", "", "o2nofp"),
        ("pg1110_o2nofp", "postgres", "11.10", "", "o2nofp"),
        ("pg110_o2nofp", "postgres", "11.0", "", "o2nofp"),
        ("pg1023_o2nofp", "postgres", "10.23", "", "o2nofp"),
        ("pg18beta1_o2nofp", "postgres", "18beta1", "", "o2nofp"),
        ("pg96", "postgres", "9.6", "", ""),
        ("fbmy8032_rel_lto", "fbmysql", "8.0.32", "", "rel_lto"),
        ("ma100230_rel_withdbg", "mariadb", "10.2.30", "", "rel_withdbg"),
        ("ma101104_rel_withdbg", "mariadb", "10.11.4", "", "rel_withdbg"),
        ("ma120101_mdev16168_rel_withdbg", "mariadb", "12.1.1", "mdev16168", "rel_withdbg"),
        ("my8040_rel_lto_pgo_use", "mysql", "8.0.40", "", "rel_lto_pgo_use"),
        ("9.7.2", "rocksdb", "9.7.2", "", ""),
        ("v6.0.2", "rocksdb", "6.0.2", "", ""),
    ],
)
def test_parse_build_names_users_have(name: str, dbms: str, version: str, fork: str, variant: str) -> None:
    b = parse_build_name(name)
    assert (b.dbms, b.version, b.fork, b.variant) == (dbms, version, fork, variant)


def test_explicit_values_override_the_name() -> None:
    b = parse_build_name("my8028_rel_o2nofp", variant="rel_lto", dbms="mariadb")
    assert (b.dbms, b.version, b.variant) == ("mariadb", "8.0.28", "rel_lto")
    custom = parse_build_name("nightly-42", dbms="postgres", version="18.0")
    assert (custom.dbms, custom.version) == ("postgres", "18.0")


@pytest.mark.parametrize("bad", ["", "nightly", "mysql-latest"])
def test_unparseable_names_get_a_clear_error(bad: str) -> None:
    with pytest.raises(BuildNameError, match=r"build name|--dbms"):
        parse_build_name(bad)


def test_unknown_explicit_dbms_is_refused() -> None:
    with pytest.raises(BuildNameError, match="unknown DBMS"):
        parse_build_name("x", dbms="oracle", version="1")


def test_versions_sort_numerically_and_prereleases_first() -> None:
    names = ["my8040_rel", "my8028_rel", "my809_rel", "my5651_rel"]
    ordered = sorted(names, key=lambda n: parse_build_name(n).version_key)
    assert ordered == ["my5651_rel", "my809_rel", "my8028_rel", "my8040_rel"]
    assert version_sort_key("18beta1") < version_sort_key("18rc1") < version_sort_key("18.0")
    assert version_sort_key("9.7.2") < version_sort_key("10.0.0")
