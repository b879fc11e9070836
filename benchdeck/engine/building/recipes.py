"""Build recipes: how a DBMS is compiled from source on a host, and the variants it is built as.

A recipe (``[recipes.NAME]`` in the inventory) names the DBMS, its version, the source directory
on the host and argv steps (``configure``, ``build``, ``install``). Every argv element may hold
placeholders: ``{cflags}``, ``{ldflags}``, ``{prefix}``, ``{source}``, ``{builddir}``,
``{profile_dir}``, ``{jobs}``, ``{name}``, ``{variant}``. An element that is exactly ``{cflags}``,
``{ldflags}`` or ``{args}`` becomes one argv word per flag (for a compiler called directly);
inside a longer element it is the flags joined by spaces (``-DCMAKE_C_FLAGS={cflags}``).

Variants (the posts' build names, ``<dbms><version>_rel_<variant>``): ``o2nofp``, ``o3``,
``lto``, ``native``, and the PGO pair ``pgo_gen`` / ``pgo_use``, which take the flags of a base
variant (o2nofp unless told) and add the profile flags. gcc names each profile after the object
file's path, so both PGO builds compile in ONE build directory (``{builddir}`` is shared by the
pair) and write/read profiles in one ``{profile_dir}``; the use build fails loudly when it finds
no profile (see :func:`missing_profiles`). A recipe may override a variant's flags or add
``args`` (e.g. ``-DWITH_LTO=ON``) in ``[recipes.NAME.variants.VARIANT]``.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from benchdeck.engine.builds import Build

STEPS = ("configure", "build", "install")
PGO_VARIANTS = ("pgo_gen", "pgo_use")
WORD_LISTS = ("cflags", "ldflags", "args")
PLACEHOLDERS = frozenset(
    {*WORD_LISTS, "prefix", "source", "builddir", "profile_dir", "jobs", "name", "variant"}
)
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
# gcc's -Wmissing-profile: "profile for function 'f' not found in profile data"
MISSING_PROFILE = re.compile(r"profile for function .* not found in profile data|\[-Wmissing-profile\]")


class RecipeError(ValueError):
    """A recipe or variant that cannot be built as asked, in one line."""


@dataclass(frozen=True, slots=True)
class Variant:
    """Compiler and linker flags of one build variant, and extra configure words (``args``)."""

    cflags: str
    ldflags: str = ""
    args: tuple[str, ...] = ()


# The posts' variants (Small Datum's cmk.80.rel_*): rel is -O3; o2nofp is -O2 with frame pointers.
VARIANTS: dict[str, Variant] = {
    "o2nofp": Variant("-O2 -fno-omit-frame-pointer"),
    "o3": Variant("-O3"),
    "lto": Variant("-O3 -flto=auto -ffat-lto-objects", "-flto=auto"),
    "native": Variant("-O3 -march=native -mtune=native"),
}
PGO_GEN_FLAGS = "-fprofile-generate={profile_dir} -fprofile-update=prefer-atomic"
# -fprofile-partial-training: code the training never ran keeps its normal optimisation
# instead of being optimised for size; -fprofile-correction: counters from threads may be
# slightly inconsistent. No -Wno-missing-profile: a profile the build cannot find must show.
PGO_USE_FLAGS = "-fprofile-use={profile_dir} -fprofile-correction -fprofile-partial-training"
ALL_VARIANTS = (*VARIANTS, *PGO_VARIANTS)


@dataclass(frozen=True, slots=True)
class Recipe:
    """How to build one DBMS version from source on a host (see the module docstring)."""

    name: str
    dbms: str
    version: str
    source: str
    steps: Mapping[str, tuple[tuple[str, ...], ...]]
    binary: str  # relative to the prefix: its size is recorded, it must exist after install
    stem: str = ""  # the build names' start, e.g. my8040 (default: from dbms and version)
    prefix: str = ""  # install directory; default WORKDIR/builds/NAME
    compiler: str = "cc"  # whose --version the build records
    jobs: int | None = None  # default: the host's CPU count
    env: Mapping[str, str] = field(default_factory=dict)
    variants: Mapping[str, Variant] = field(default_factory=dict)  # overrides and additions
    profile_check: str = "all"  # all: any missing profile fails the use build; any: none found

    @property
    def build_stem(self) -> str:
        return self.stem or default_stem(self.dbms, self.version)

    def build_name(self, variant: str, base: str = "o2nofp") -> str:
        """``<stem>_rel_<variant>``; a PGO pair on another base than o2nofp says so."""
        if variant in PGO_VARIANTS and base != "o2nofp":
            return f"{self.build_stem}_rel_{base}_{variant}"
        return f"{self.build_stem}_rel_{variant}"

    def build_of(self, variant: str, base: str = "o2nofp") -> Build:
        name = self.build_name(variant, base)
        return Build(name=name, dbms=self.dbms, version=self.version, variant=name.split("_", 1)[1])

    def variant(self, name: str) -> Variant:
        if name in self.variants:
            return self.variants[name]
        if name in VARIANTS:
            return VARIANTS[name]
        raise RecipeError(f"unknown variant {name!r} (variants: {', '.join(self.variant_names)})")

    @property
    def variant_names(self) -> tuple[str, ...]:
        return (
            *VARIANTS,
            *(v for v in self.variants if v not in VARIANTS and v not in PGO_VARIANTS),
            *PGO_VARIANTS,
        )


def default_stem(dbms: str, version: str) -> str:
    """The posts' name start: MySQL 8.0.40 -> my8040, MariaDB 11.4.6 -> ma110406,
    PostgreSQL 17.4 -> pg174, SQLite 3.53.2 -> sqlite3532."""
    parts: list[str] = re.findall(r"\d+", version)
    if dbms == "mariadb":
        return "ma" + parts[0] + "".join(f"{int(p):02d}" for p in parts[1:])
    prefix = {"mysql": "my", "fbmysql": "fbmy", "postgres": "pg"}.get(dbms, dbms)
    return prefix + "".join(parts)


@dataclass(frozen=True, slots=True)
class BuildSpec:
    """One variant of a recipe, made concrete for a host: every path and argv resolved."""

    recipe: str
    build: Build
    variant: str
    base_variant: str
    host: str
    source: str
    prefix: str
    builddir: str
    profile_dir: str | None
    cflags: str
    ldflags: str
    steps: tuple[tuple[str, tuple[str, ...]], ...]  # (step name, argv)
    binary: str  # absolute
    compiler: str
    env: tuple[tuple[str, str], ...] = ()
    wipe: tuple[str, ...] = ()  # directories removed before the first step
    profile_check: str = "all"

    @property
    def name(self) -> str:
        return self.build.name

    @property
    def library_dir(self) -> str:
        return posixpath.dirname(self.binary)


def build_spec(
    recipe: Recipe,
    variant: str,
    *,
    host: str,
    workdir: str,
    jobs: int,
    base: str = "o2nofp",
) -> BuildSpec:
    """The concrete build of ``variant`` on a host whose work directory is ``workdir``."""
    if base in PGO_VARIANTS:
        raise RecipeError(f"the PGO base variant must be a plain one, not {base}")
    base_flags = recipe.variant(base)
    build = recipe.build_of(variant, base)
    root = posixpath.join(workdir, "builds")
    profile_dir: str | None = None
    wipe: list[str] = []
    if variant in PGO_VARIANTS:
        pair = recipe.build_name("pgo", base)  # one build dir and profile dir for gen and use
        builddir = posixpath.join(root, "obj", pair)
        profile_dir = posixpath.join(root, "profiles", pair)
        extra = (PGO_GEN_FLAGS if variant == "pgo_gen" else PGO_USE_FLAGS).format(profile_dir=profile_dir)
        own = recipe.variants.get(variant)
        v = Variant(
            f"{base_flags.cflags} {extra}" if own is None else own.cflags,
            f"{base_flags.ldflags} {extra}".strip() if own is None else own.ldflags,
            base_flags.args + (own.args if own else ()),
        )
        if variant == "pgo_gen":
            wipe.append(profile_dir)  # stale counts from an older gen build would merge in
    else:
        v = recipe.variant(variant)
        builddir = posixpath.join(root, "obj", build.name)
    wipe.append(builddir)  # a clean build: nothing left from an earlier or killed attempt
    prefix = (
        recipe.prefix.replace("{name}", build.name) if recipe.prefix else posixpath.join(root, build.name)
    )
    values = {
        "cflags": v.cflags,
        "ldflags": v.ldflags,
        "args": " ".join(v.args),
        "prefix": prefix,
        "source": recipe.source,
        "builddir": builddir,
        "profile_dir": profile_dir or "",
        "jobs": str(recipe.jobs or jobs),
        "name": build.name,
        "variant": variant,
    }
    lists = {"cflags": shlex.split(v.cflags), "ldflags": shlex.split(v.ldflags), "args": list(v.args)}
    steps = tuple(
        (step, expand(argv, values, lists)) for step in STEPS for argv in recipe.steps.get(step, ())
    )
    steps = tuple((s, a) for s, a in steps if a)
    return BuildSpec(
        recipe=recipe.name,
        build=build,
        variant=variant,
        base_variant=base,
        host=host,
        source=recipe.source,
        prefix=prefix,
        builddir=builddir,
        profile_dir=profile_dir,
        cflags=v.cflags,
        ldflags=v.ldflags,
        steps=steps,
        binary=posixpath.join(prefix, recipe.binary),
        compiler=recipe.compiler,
        env=tuple((k, substitute(val, values)) for k, val in recipe.env.items()),
        wipe=tuple(wipe),
        profile_check=recipe.profile_check,
    )


def substitute(text: str, values: Mapping[str, str]) -> str:
    """``text`` with every ``{placeholder}`` replaced; an unknown one is a RecipeError."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise RecipeError(f"unknown placeholder {m.group(0)} in {text!r}")
        return values[m.group(1)]

    return _PLACEHOLDER.sub(one, text)


def expand(argv: Sequence[str], values: Mapping[str, str], lists: Mapping[str, list[str]]) -> tuple[str, ...]:
    """One argv: a lone ``{cflags}``/``{ldflags}``/``{args}`` becomes its words (none if empty)."""
    out: list[str] = []
    for word in argv:
        m = _PLACEHOLDER.fullmatch(word)
        if m and m.group(1) in lists:
            out += lists[m.group(1)]
        else:
            out.append(substitute(word, values))
    return tuple(out)


def missing_profiles(log_lines: Sequence[str]) -> list[str]:
    """gcc's missing-profile warnings in a use build's log (each a function built unprofiled)."""
    return [ln for ln in log_lines if MISSING_PROFILE.search(ln)]


def check_placeholders(argv: Sequence[str]) -> str | None:
    """The first unknown placeholder in ``argv`` (for the inventory's error message), or None."""
    for word in argv:
        for m in _PLACEHOLDER.finditer(word):
            if m.group(1) not in PLACEHOLDERS:
                return m.group(0)
    return None


# --- reading recipes from the inventory ---------------------------------------------------------

RECIPE_KEYS = {"dbms", "version", "source", "binary", "stem", "prefix", "compiler", "jobs", "env", "variants"}
RECIPE_KEYS |= {*STEPS, "profile_check"}
KeyPath = tuple[str | int, ...]


class _Loader(Protocol):
    """What the inventory's loader offers for validating a table (errors carry file:line)."""

    def error(self, where: KeyPath, message: str) -> Exception: ...
    def table(self, v: Any, where: KeyPath, allowed: set[str]) -> dict[str, Any]: ...
    def opt(self, t: Mapping[str, Any], key: str, where: KeyPath, kind: type, default: Any = None) -> Any: ...


def parse_recipe(loader: _Loader, name: str, raw: Any) -> Recipe:
    """``[recipes.NAME]`` validated into a :class:`Recipe`."""
    at: KeyPath = ("recipes", name)
    t = loader.table(raw, at, RECIPE_KEYS)
    for key in ("dbms", "version", "source", "binary"):
        if key not in t:
            raise loader.error(at, f"missing key {key}")
    if not any(t.get(s) for s in STEPS):
        raise loader.error(at, f"needs at least one of {', '.join(STEPS)} (lists of argv arrays)")
    steps = {s: _argv_list(loader, t[s], (*at, s)) for s in STEPS if s in t}
    env = loader.table(
        t.get("env", {}), (*at, "env"), set(t.get("env", {})) if isinstance(t.get("env"), dict) else set()
    )
    variants: dict[str, Variant] = {}
    raw_variants = t.get("variants", {})
    vt = loader.table(
        raw_variants, (*at, "variants"), set(raw_variants) if isinstance(raw_variants, dict) else set()
    )
    for vname, vraw in vt.items():
        vat = (*at, "variants", vname)
        if not re.fullmatch(r"[a-z0-9]+(?:_[a-z0-9]+)*", vname):
            raise loader.error(vat, "a variant name is lower-case letters and digits, e.g. o2nofp_lto")
        v = loader.table(vraw, vat, {"cflags", "ldflags", "args"})
        default = VARIANTS.get(vname, Variant(""))
        cflags = loader.opt(v, "cflags", vat, str, default.cflags)
        if not cflags:
            raise loader.error(vat, "missing key cflags (a new variant needs its compiler flags)")
        variants[vname] = Variant(
            cflags, loader.opt(v, "ldflags", vat, str, default.ldflags), loader.opt(v, "args", vat, tuple, ())
        )
    check = loader.opt(t, "profile_check", at, str, "all")
    if check not in ("all", "any"):
        raise loader.error((*at, "profile_check"), f'expected "all" or "any", got "{check}"')
    for k, val in env.items():
        if not isinstance(val, str):
            raise loader.error((*at, "env", k), "expected a string")
    return Recipe(
        name=name,
        dbms=loader.opt(t, "dbms", at, str),
        version=loader.opt(t, "version", at, str),
        source=loader.opt(t, "source", at, str),
        steps=steps,
        binary=loader.opt(t, "binary", at, str),
        stem=loader.opt(t, "stem", at, str, ""),
        prefix=loader.opt(t, "prefix", at, str, ""),
        compiler=loader.opt(t, "compiler", at, str, "cc"),
        jobs=loader.opt(t, "jobs", at, int),
        env=dict(env),
        variants=variants,
        profile_check=check,
    )


def _argv_list(loader: _Loader, raw: Any, at: KeyPath) -> tuple[tuple[str, ...], ...]:
    if not isinstance(raw, list) or not all(isinstance(a, list) for a in raw):
        raise loader.error(
            at, 'expected a list of argv arrays, e.g. [["make", "-j{jobs}"]] (never a shell string)'
        )
    out = []
    for i, argv in enumerate(raw):
        if not argv or not all(isinstance(w, str) and w for w in argv):
            raise loader.error((*at, i), "expected a non-empty array of non-empty strings")
        if (bad := check_placeholders(argv)) is not None:
            known = ", ".join("{" + p + "}" for p in sorted(PLACEHOLDERS))
            raise loader.error((*at, i), f"unknown placeholder {bad} (known: {known})")
        out.append(tuple(argv))
    return tuple(out)
