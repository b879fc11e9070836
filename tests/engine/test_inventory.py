"""The inventory: the example loads into typed configs; every error names file:line: key."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchdeck.engine.builds import Build
from benchdeck.engine.hosts.inventory import (
    INVENTORY_ENV,
    LEGACY_INVENTORY_ENV,
    ConfigError,
    Inventory,
    default_config_path,
)
from benchdeck.engine.hosts.inventory_file import load_inventory, parse_inventory
from benchdeck.engine.hosts.inventory_keys import key_lines

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "benchdeck.example.toml"
DEFAULT_WORKDIR = "~/benchdeck-runs"


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the user's real config and $BENCHDECK_INVENTORY (old name too) out of every test."""
    monkeypatch.delenv(INVENTORY_ENV, raising=False)
    monkeypatch.delenv(LEGACY_INVENTORY_ENV, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "benchdeck.toml"
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


def error_of(tmp_path: Path, text: str) -> tuple[Path, str]:
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as exc:
        load_inventory(p)
    return p, str(exc.value)


def test_example_loads_typed_with_defaults_inherited() -> None:
    inv = load_inventory(EXAMPLE)
    assert isinstance(inv, Inventory)
    assert (inv.from_file, inv.path) == (True, EXAMPLE)
    assert list(inv.hosts) == ["local", "dell32", "pn53"]
    local, dell, pn53 = inv.hosts.values()
    assert (local.spec.transport, local.builds) == ("local", {})
    assert (local.workdir, local.threads, local.tables, local.table_size) == (DEFAULT_WORKDIR, 1, 1, 100000)
    # dell32: ssh alias, own benchmark sizes, workdir inherited
    assert (dell.spec.hostname, dell.spec.use_ssh_config, dell.spec.port) == ("dell32", True, 22)
    assert (dell.device, dell.threads, dell.tables, dell.table_size) == ("nvme0n1", 24, 8, 10_000_000)
    assert dell.workdir == "~/benchdeck-runs"
    my, ma = dell.builds.values()
    assert my.build == Build("my8028_rel_o2nofp", "mysql", "8.0.28", "", "rel_o2nofp")
    assert (my.lifecycle, my.port, my.password) == ("managed", 3306, "pw")
    assert (my.config, my.config_file) == ("z11a_c32r128", "/home/me/etc/my.cnf.z11a_c32r128")
    assert "pw" not in repr(my)
    assert (ma.lifecycle, ma.start) == ("scripts", ("/home/me/bin/start-mariadb.sh", "ma110406_rel"))
    assert (ma.build.dbms, ma.build.version) == ("mariadb", "11.4.6")
    assert (ma.socket, ma.host, ma.database) == ("/tmp/mariadb.sock", "127.0.0.1", "sbtest")
    # pn53: explicit address; ~/.ssh/config not used
    assert (pn53.spec.hostname, pn53.spec.user) == ("10.1.2.3", "bench")
    assert (pn53.spec.key_files, pn53.spec.use_ssh_config) == (("~/.ssh/id_ed25519",), False)
    pg = pn53.builds["pg174_o2nofp"]
    assert (pg.lifecycle, pg.basedir, pg.build.dbms) == ("external", None, "postgres")
    assert inv.suites == {"quick": ("point-query_range=100", "insert_range=100")}
    addresses = [h.address for h in inv.hosts.values()]
    assert addresses == ["localhost", "dell32 (ssh config)", "bench@10.1.2.3:22"]
    # the Python each host runs the shipped clients with: its own, else the SSH session's python3
    assert [h.python for h in inv.hosts.values()] == ["python3", "python3", "/usr/bin/python3"]


def test_overrides_relative_paths_and_key_lists(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        """
        [defaults]
        threads = 4
        workdir = "/data/runs"

        [hosts.a]
        hostname = "10.0.0.1"
        port = 2222
        key = ["keys/id_a", "/abs/id_b"]
        known_hosts = "kh"

        [[hosts.a.builds]]
        name = "odd-name"
        dbms = "mysql"
        version = "8.0.99"
        """,
    )
    a = load_inventory(p).host("a")
    assert (a.threads, a.workdir, a.spec.port) == (4, "/data/runs", 2222)
    assert a.spec.key_files == (str(tmp_path / "keys/id_a"), "/abs/id_b")
    assert a.spec.known_hosts == str(tmp_path / "kh")
    assert a.builds["odd-name"].build == Build("odd-name", "mysql", "8.0.99")


def test_wrong_type_names_file_line_and_key(tmp_path: Path) -> None:
    p, msg = error_of(
        tmp_path,
        """
        [defaults]
        threads = 2

        [hosts.dell32]
        ssh = "dell32"
        threads = "24x"
        """,
    )
    assert msg == f'{p}:6: hosts.dell32.threads: expected an integer, got "24x"'


def test_key_in_second_array_of_tables_entry(tmp_path: Path) -> None:
    p, msg = error_of(
        tmp_path,
        """
        [hosts.x]
        ssh = "x"

        [[hosts.x.builds]]
        name = "my8028_rel"
        port = 3306

        [[hosts.x.builds]]
        name = "my8032_rel"
        managed = true
        port = "3306"
        """,
    )
    assert msg == f'{p}:11: hosts.x.builds[1].port: expected an integer, got "3306"'


@pytest.mark.parametrize(
    ("text", "line", "key", "words"),
    [
        ('[hosts.h]\nssh = "h"\nthread = 3\n', 3, "hosts.h.thread", "did you mean threads?"),
        ('color = "red"\n', 1, "color", "unknown key"),
        ('[hosts.h]\nssh = "h"\nhostname = "10.1.1.1"\n', 3, "hosts.h.hostname", "either ssh"),
        ('[hosts.h]\nuser = "me"\n', 1, "hosts.h", 'needs ssh = "ALIAS" or hostname'),
        ('[hosts.h]\ntransport = "telnet"\n', 2, "hosts.h.transport", 'expected "ssh" or "local"'),
        ('[hosts.h]\ntransport = "local"\nport = 22\n', 3, "hosts.h.port", "not used with"),
        ('[hosts.h]\ntransport = "local"\npython = "/p"\n', 3, "hosts.h.python", "benchdeck's own Python"),
        ('[hosts.h]\nssh = "h"\npython = ""\n', 3, "hosts.h.python", "expected a non-empty string"),
        ('[hosts.h]\nhostname = "a"\nport = 70000\n', 3, "hosts.h.port", "out of range"),
        ('[hosts."bad name"]\ntransport = "local"\n', 1, 'hosts."bad name"', "host names use"),
        ("[defaults]\ntable_size = 1.5\n", 2, "defaults.table_size", "expected an integer, got 1.5"),
        ("[defaults]\nworkdir = 3\n", 2, "defaults.workdir", "expected a non-empty string, got 3"),
        ("[suites.q]\nworkloads = []\n", 2, "suites.q.workloads", "non-empty array of strings"),
        ("[suites.q]\n", 1, "suites.q", "missing key workloads"),
        ('hosts = "x"\n', 1, "hosts", "expected a table of hosts"),
        ("[hosts]\nh = { ssh = 1 }\n", 2, "hosts.h.ssh", "expected a non-empty string, got 1"),
        ('[hosts.h]\nssh = "h"\nbuilds = "x"\n', 3, "hosts.h.builds", "expected [[hosts.h.builds]]"),
    ],
)
def test_error_classes(tmp_path: Path, text: str, line: int, key: str, words: str) -> None:
    p = tmp_path / "c.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as exc:
        load_inventory(p)
    assert str(exc.value).startswith(f"{p}:{line}: {key}: "), str(exc.value)
    assert words in str(exc.value)
    assert (exc.value.file, exc.value.line, exc.value.key) == (p, line, key)


@pytest.mark.parametrize(
    ("build", "line", "key", "words"),
    [
        ('name = "whatever"', 5, "hosts.h.builds[0].name", "cannot parse build name 'whatever'"),
        ('name = "my8028_rel"\nmanaged = "yes"', 6, "hosts.h.builds[0].managed", 'true or false, got "yes"'),
        ('name = "my8028_rel"\nstart = "/bin/start.sh --now"', 6, "hosts.h.builds[0].start", "never a shell"),
        ('name = "my8028_rel"\nstart = ["/s"]', 6, "hosts.h.builds[0].start", "start and stop go together"),
        ('name = "my8028_rel"\nmanaged = true\nstop = ["/s"]', 7, "hosts.h.builds[0].stop", "no start/stop"),
        ('config = "c"', 4, "hosts.h.builds[0]", "missing key name"),
        ('name = "my8028_rel"\nsockt = "/s"', 6, "hosts.h.builds[0].sockt", "did you mean socket?"),
        (
            'name = "my8028_rel"\nconfigs = { "../x" = "/f" }',
            6,
            'hosts.h.builds[0].configs."../x"',
            "config name",
        ),
        ('name = "my8028_rel"\nconfigs = { b = 3 }', 6, "hosts.h.builds[0].configs.b", "non-empty string"),
        ('name = "my8028_rel"\nconfigs = ["b"]', 6, "hosts.h.builds[0].configs", "expected a table"),
        (
            'name = "my8028_rel"\n\n[[hosts.h.builds]]\nname = "my8028_rel"',
            8,
            "hosts.h.builds[1].name",
            "duplicate",
        ),
    ],
)
def test_build_errors(tmp_path: Path, build: str, line: int, key: str, words: str) -> None:
    p = tmp_path / "c.toml"
    p.write_text(f'[hosts.h]\nssh = "h"\n\n[[hosts.h.builds]]\n{build}\n')
    with pytest.raises(ConfigError) as exc:
        load_inventory(p)
    assert str(exc.value).startswith(f"{p}:{line}: {key}: "), str(exc.value)
    assert words in str(exc.value)


def test_syntax_error_keeps_tomllib_line(tmp_path: Path) -> None:
    p, msg = error_of(tmp_path, '[hosts.a]\nssh = "a"\nthreads = 24x\n')
    assert msg.startswith(f"{p}:3: invalid TOML: ")
    assert "line 3" in msg


def test_locator_skips_multiline_strings_and_counts_array_tables() -> None:
    text = textwrap.dedent(
        '''
        note = """
        [hosts.fake]
        threads = 1
        """
        [hosts.a]  # comment
        "quoted.key" = 1
        sub.key = 2
        [[hosts.a.builds]]
        name = "x"
        [[hosts.a.builds]]
        name = "y"
        start = [
          "/a",
        ]
        stop = ["/b"]
        '''
    ).lstrip("\n")
    lines = key_lines(text)
    assert ("hosts", "fake") not in lines
    assert lines[("hosts", "a")] == 5
    assert lines[("hosts", "a", "quoted.key")] == 6
    assert lines[("hosts", "a", "sub", "key")] == 7
    assert lines[("hosts", "a", "builds", 0, "name")] == 9
    assert lines[("hosts", "a", "builds", 1)] == 10
    assert lines[("hosts", "a", "builds", 1, "stop")] == 15


def test_missing_default_file_gives_local_only(tmp_path: Path) -> None:
    inv = load_inventory()
    assert (inv.from_file, list(inv.hosts)) == (False, ["local"])
    assert inv.path == default_config_path() == tmp_path / "xdg-config" / "benchdeck" / "benchdeck.toml"
    assert inv.host("local").spec.transport == "local"


def test_default_file_is_read(tmp_path: Path) -> None:
    default_config_path().parent.mkdir(parents=True)
    default_config_path().write_text('[hosts.b]\nhostname = "b"\n')
    assert list(load_inventory().hosts) == ["b"]


def test_env_points_at_another_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write(tmp_path, '[hosts.envhost]\ntransport = "local"\n')
    monkeypatch.setenv(INVENTORY_ENV, str(p))
    inv = load_inventory()
    assert (inv.path, list(inv.hosts)) == (p, ["envhost"])
    monkeypatch.setenv(INVENTORY_ENV, str(tmp_path / "nope.toml"))
    with pytest.raises(ConfigError, match=r"nope\.toml: config file not found"):
        load_inventory()


def test_the_inventory_env_has_a_name_of_its_own_and_the_old_one_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25 item 18: $BENCHDECK_CONFIG named the inventory beside --config (a DBMS config)."""
    old = write(tmp_path, '[hosts.oldname]\ntransport = "local"\n')
    new = tmp_path / "new.toml"
    new.write_text('[hosts.newname]\ntransport = "local"\n')
    monkeypatch.setenv(LEGACY_INVENTORY_ENV, str(old))
    assert list(load_inventory().hosts) == ["oldname"]
    monkeypatch.setenv(INVENTORY_ENV, str(new))
    assert list(load_inventory().hosts) == ["newname"], "the new name wins"
    assert (INVENTORY_ENV, LEGACY_INVENTORY_ENV) == ("BENCHDECK_INVENTORY", "BENCHDECK_CONFIG")


def test_explicit_missing_file_and_unknown_host(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_inventory(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match=r"unknown host nope \(known: dell32, local, pn53\)"):
        load_inventory(EXAMPLE).host("nope")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="[].\"=\n abhostdl1#{},'", max_size=80))
def test_any_text_loads_or_raises_config_error(text: str) -> None:
    with contextlib.suppress(ConfigError):
        parse_inventory(text, Path("/x.toml"))


def test_server_configs_of_a_build_and_the_matrix_they_make(tmp_path: Path) -> None:
    """A build's default config plus named others; a queue runs the picked ones each build has."""
    p = write(
        tmp_path,
        """
        [hosts.h]
        transport = "local"

        [[hosts.h.builds]]
        name = "my8028_rel"
        managed = true
        config = "z11a"
        config_file = "/etc/z11a.cnf"
        configs = { z12a = "/etc/z12a.cnf", z13a = "/etc/z13a.cnf" }

        [[hosts.h.builds]]
        name = "my8040_rel"
        managed = true
        configs = { z12a = "/etc/z12a-80.cnf" }
        """,
    )
    inv = load_inventory(p)
    old, new = inv.hosts["h"].builds.values()
    assert old.config_names == ("z11a", "z12a", "z13a")
    assert new.config_names == ("", "z12a")
    assert old.with_config(None) is old
    assert old.with_config("z11a") is old
    z12 = old.with_config("z12a")
    assert (z12.config, z12.config_file, z12.name) == ("z12a", "/etc/z12a.cnf", "my8028_rel")
    with pytest.raises(ValueError, match=r"build my8028_rel has no config 'z9' \(configs: 'z11a', 'z12a'"):
        old.with_config("z9")

    builds = ["my8028_rel", "my8040_rel", "sqlite"]
    assert inv.config_names(["h"], builds) == ["z11a", "", "z12a", "z13a"]  # defaults first, "" last
    assert inv.config_matrix(["h"], builds, []) == {
        ("h", "my8028_rel"): (None,),
        ("h", "my8040_rel"): (None,),
        ("h", "sqlite"): (None,),
    }
    assert inv.config_matrix(["h"], builds, ["z13a", "z12a"]) == {
        ("h", "my8028_rel"): ("z13a", "z12a"),
        ("h", "my8040_rel"): ("z12a",),
        ("h", "sqlite"): (),
    }
    assert inv.config_matrix(["h"], builds, [""]) == {
        ("h", "my8028_rel"): (),
        ("h", "my8040_rel"): ("",),
        ("h", "sqlite"): ("",),
    }
