"""Build recipes: read from the inventory (errors name file:line: key), made concrete per variant."""

from __future__ import annotations

import shlex
import subprocess
import textwrap
from pathlib import Path

import pytest

from benchdeck.engine.building.recipes import (
    PGO_VARIANTS,
    Recipe,
    RecipeError,
    Variant,
    build_spec,
    default_stem,
    missing_profiles,
)
from benchdeck.engine.building.runner import build_script
from benchdeck.engine.hosts.inventory import ConfigError
from benchdeck.engine.hosts.inventory_file import parse_inventory

pytestmark = pytest.mark.integration  # real compiles with gcc

SQLITE = """
[hosts.h]
transport = "local"

[recipes.sqlite]
dbms = "sqlite"
version = "3.53.2"
source = "/src/sqlite"
binary = "lib/libsqlite3.so.0"
compiler = "gcc"
build = [
  ["gcc", "{cflags}", "-fPIC", "-c", "{source}/sqlite3.c", "-o", "{builddir}/sqlite3.o"],
  ["gcc", "-shared", "{ldflags}", "-o", "{builddir}/libsqlite3.so.0", "{builddir}/sqlite3.o"],
]
install = [["install", "-D", "{builddir}/libsqlite3.so.0", "{prefix}/lib/libsqlite3.so.0"]]

[recipes.my8040]
dbms = "mysql"
version = "8.0.40"
source = "~/src/mysql-8.0.40"
binary = "bin/mysqld"
configure = [
  ["cmake", "{source}", "-DCMAKE_C_FLAGS_RELEASE={cflags} -DNDEBUG", "-DCMAKE_INSTALL_PREFIX={prefix}",
   "{args}"],
]
build = [["make", "-j{jobs}"]]
install = [["make", "install"]]

[recipes.my8040.variants.lto]
args = ["-DWITH_LTO=ON"]
"""


def recipes(text: str = SQLITE) -> dict[str, Recipe]:
    return parse_inventory(textwrap.dedent(text), Path("/cfg/benchdeck.toml")).recipes


def test_variants_flags_and_word_expansion() -> None:
    r = recipes()["sqlite"]
    spec = build_spec(r, "o2nofp", host="h", workdir="/w", jobs=2)
    assert spec.name == "sqlite3532_rel_o2nofp"
    assert (spec.build.dbms, spec.build.version, spec.build.variant) == ("sqlite", "3.53.2", "rel_o2nofp")
    compile_argv = spec.steps[0][1]
    # a lone {cflags} is one word per flag; the prefix and build dir are the variant's own
    assert compile_argv[:3] == ("gcc", "-O2", "-fno-omit-frame-pointer")
    assert spec.builddir == "/w/builds/obj/sqlite3532_rel_o2nofp"
    assert spec.binary == "/w/builds/sqlite3532_rel_o2nofp/lib/libsqlite3.so.0"
    assert spec.library_dir == "/w/builds/sqlite3532_rel_o2nofp/lib"
    assert spec.steps[1][1] == (
        "gcc",
        "-shared",
        "-o",
        f"{spec.builddir}/libsqlite3.so.0",
        f"{spec.builddir}/sqlite3.o",
    )
    assert build_spec(r, "native", host="h", workdir="/w", jobs=2).cflags == "-O3 -march=native -mtune=native"
    assert "-flto=auto" in build_spec(r, "lto", host="h", workdir="/w", jobs=2).ldflags
    with pytest.raises(RecipeError, match="unknown variant 'o4'"):
        build_spec(r, "o4", host="h", workdir="/w", jobs=2)


def test_pgo_pair_compiles_at_one_path_with_one_profile_dir() -> None:
    """gcc names profiles after the object path: gen and use must share the build directory."""
    r = recipes()["sqlite"]
    gen, use = (build_spec(r, v, host="h", workdir="/w", jobs=2) for v in PGO_VARIANTS)
    assert (gen.name, use.name) == ("sqlite3532_rel_pgo_gen", "sqlite3532_rel_pgo_use")
    assert gen.builddir == use.builddir == "/w/builds/obj/sqlite3532_rel_pgo"
    assert gen.profile_dir == use.profile_dir == "/w/builds/profiles/sqlite3532_rel_pgo"
    assert gen.prefix != use.prefix  # installed side by side
    assert gen.cflags.startswith("-O2 -fno-omit-frame-pointer -fprofile-generate=/w/builds/profiles/")
    assert "-fprofile-use=/w/builds/profiles/sqlite3532_rel_pgo" in use.cflags
    assert "-fprofile-partial-training" in use.cflags
    assert "-fprofile-correction" in use.cflags
    assert "-Wno-missing-profile" not in use.cflags  # a missing profile must show
    assert gen.profile_dir in gen.wipe
    assert use.profile_dir not in use.wipe
    assert "-fprofile-use=/w/builds/profiles/sqlite3532_rel_pgo" in use.steps[1][1]  # link flags too
    o3 = build_spec(r, "pgo_use", host="h", workdir="/w", jobs=2, base="o3")
    assert (o3.name, o3.cflags.split()[0]) == ("sqlite3532_rel_o3_pgo_use", "-O3")


def test_cmake_recipe_flags_inside_an_element_and_variant_args() -> None:
    r = recipes()["my8040"]
    spec = build_spec(r, "lto", host="h", workdir="/w", jobs=8)
    assert spec.name == "my8040_rel_lto"
    configure = spec.steps[0][1]
    assert f"-DCMAKE_C_FLAGS_RELEASE={spec.cflags} -DNDEBUG" in configure
    assert configure[-1] == "-DWITH_LTO=ON"  # the recipe's own variant args
    assert spec.steps[1][1] == ("make", "-j8")
    # without args, {args} disappears
    assert (
        build_spec(r, "o2nofp", host="h", workdir="/w", jobs=8).steps[0][1][-1].startswith("-DCMAKE_INSTALL")
    )


def test_build_names_follow_the_posts() -> None:
    assert default_stem("mysql", "8.0.40") == "my8040"
    assert default_stem("mariadb", "11.4.6") == "ma110406"
    assert default_stem("postgres", "17.4") == "pg174"
    assert default_stem("sqlite", "3.53.2") == "sqlite3532"


def test_script_quotes_every_word(tmp_path: Path) -> None:
    """The steps become a shell script; a word with spaces, quotes or $ reaches argv intact."""
    r = Recipe(
        "odd",
        "sqlite",
        "1.0",
        str(tmp_path / "src dir"),
        {"build": (("printf", "%s|", "{cflags}", "a b", "$(touch pwned)", "'q'"),)},
        "x",
        variants={"o2nofp": Variant("-O2 -DX='1 2'")},
    )
    spec = build_spec(r, "o2nofp", host="h", workdir=str(tmp_path / "w"), jobs=1)
    script = build_script(spec)
    out = subprocess.run(["sh", "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert "-O2|-DX=1 2|a b|$(touch pwned)|'q'|" in out.stdout
    assert not (tmp_path / "w" / "builds" / "obj" / "sqlite10_rel_o2nofp" / "pwned").exists()
    assert shlex.join(["rm", "-rf", "--", *spec.wipe, spec.prefix]) in script


def test_missing_profile_warnings() -> None:
    log = [
        "sqlite3.c: In function 'f':",
        "sqlite3.c:9: warning: '/w/p/#w#obj#sqlite3.gcda' profile count data file not found "
        "[-Wmissing-profile]",
        "all fine",
    ]
    assert missing_profiles(log) == [log[1]]
    assert missing_profiles(["profile for function 'g' not found in profile data"]) != []


@pytest.mark.parametrize(
    ("text", "line", "key", "words"),
    [
        (
            '[recipes.r]\ndbms = "mysql"\nversion = "8.0.40"\nsource = "/s"\n',
            1,
            "recipes.r",
            "missing key binary",
        ),
        (
            '[recipes.r]\ndbms = "mysql"\nversion = "8"\nsource = "/s"\nbinary = "b"\n',
            1,
            "recipes.r",
            "needs at least one of configure, build, install",
        ),
        (
            '[recipes.r]\ndbms = "mysql"\nversion = "8"\nsource = "/s"\nbinary = "b"\nbuild = "make -j8"\n',
            6,
            "recipes.r.build",
            "never a shell string",
        ),
        (
            '[recipes.r]\ndbms = "mysql"\nversion = "8"\nsource = "/s"\nbinary = "b"\n'
            'build = [["make", "{cflag}"]]\n',
            6,
            "recipes.r.build[0]",
            "unknown placeholder {cflag}",
        ),
        (
            '[recipes.r]\ndbms = "mysql"\nversion = "8"\nsource = "/s"\nbinary = "b"\nbuild = [["make"]]\n'
            "[recipes.r.variants.fast]\nldflags = '-s'\n",
            7,
            "recipes.r.variants.fast",
            "a new variant needs its compiler flags",
        ),
        (
            '[recipes.r]\ndbms = "mysql"\nversion = "8"\nsource = "/s"\nbinary = "b"\nbuild = [["make"]]\n'
            'profile_check = "some"\n',
            7,
            "recipes.r.profile_check",
            'expected "all" or "any"',
        ),
        ('[recipes.r]\ndbms = "mysql"\nsourc = "/s"\n', 3, "recipes.r.sourc", "did you mean source?"),
    ],
)
def test_recipe_errors_name_file_line_and_key(text: str, line: int, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as exc:
        parse_inventory(text, Path("/cfg/b.toml"))
    msg = str(exc.value)
    assert msg.startswith(f"/cfg/b.toml:{line}: {key}: "), msg
    assert words in msg


def test_doc_templates_parse_and_make_every_variant() -> None:
    """The MySQL, MariaDB and PostgreSQL templates in docs/build-recipes.md are valid recipes."""
    import re

    doc = Path(__file__).resolve().parents[2] / "docs" / "build-recipes.md"
    blocks = re.findall(r"```toml\n(.*?)```", doc.read_text(), re.S)
    found = parse_inventory("\n".join(blocks), doc).recipes
    assert {r.dbms for r in found.values()} == {"mysql", "mariadb", "postgres"}
    for r in found.values():
        for variant in r.variant_names:
            spec = build_spec(r, variant, host="h", workdir="/w", jobs=4)
            assert spec.steps
            assert spec.name.startswith(r.build_stem + "_rel_")
    assert found["my8040"].profile_check == "any"
