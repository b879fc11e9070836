"""Build names as users write them: ``my8040adv_rel_o2nofp`` -> MySQL 8.0.40, fork ``adv``,
variant ``rel_o2nofp``.

Known prefixes: ``my`` MySQL, ``fbmy`` FB MySQL (MyRocks), ``ma`` MariaDB, ``pg`` PostgreSQL;
a bare dotted version (``9.7.2``) is RocksDB. Explicit ``dbms``/``version``/``variant``
arguments override what the name says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DBMS_PREFIXES: dict[str, str] = {
    "fbmy": "fbmysql",
    "my": "mysql",
    "ma": "mariadb",
    "pg": "postgres",
    "rx": "rocksdb",
}
DBMS_NAMES = frozenset({*DBMS_PREFIXES.values(), "sqlite"})

# First tokens of a build variant; tokens between the version and these are fork tags.
VARIANT_HEADS = (
    "rel",
    "o2",
    "o3",
    "os",
    "o2nofp",
    "o3nofp",
    "lto",
    "pgo",
    "native",
    "dbg",
    "debug",
    "def",
    "withdbg",
    "clang",
    "gcc",
)

_NAME = re.compile(r"^(?P<prefix>fbmy|my|ma|pg|rx)(?P<digits>\d+)(?P<tail>[A-Za-z0-9]*)(?:_(?P<rest>.*))?$")
_DOTTED = re.compile(
    r"^v?(?P<ver>\d+(?:\.\d+){1,3})(?P<pre>[-.]?(?:alpha|beta|rc)\d*)?(?:[_-](?P<rest>.*))?$"
)
_PRE = re.compile(r"^(?P<kind>alpha|beta|rc)(?P<num>\d*)$")
_PRE_RANK = {"alpha": 0, "beta": 1, "rc": 2}


class BuildNameError(ValueError):
    """A build name that cannot be understood, with a hint of what would be."""


@dataclass(frozen=True, slots=True)
class Build:
    """A DBMS build: what was compiled, from which version, how."""

    name: str
    dbms: str
    version: str
    fork: str = ""
    variant: str = ""

    @property
    def version_key(self) -> str:
        """A string that sorts like the version (``8.0.9`` before ``8.0.28``, beta before GA)."""
        return version_sort_key(self.version)


def version_sort_key(version: str) -> str:
    """Zero-padded sort key of a dotted version with an optional pre-release tail."""
    m = re.match(r"^(\d+(?:\.\d+)*)(.*)$", version)
    if not m:
        return version
    nums = [int(p) for p in m.group(1).split(".")][:4]
    nums += [0] * (4 - len(nums))
    tail = m.group(2).lstrip("-.")
    pre = _PRE.match(tail)
    rank, num = (_PRE_RANK[pre.group("kind")], int(pre.group("num") or 0)) if pre else (9, 0)
    return ".".join(f"{n:05d}" for n in nums) + f"-{rank}{num:03d}"


def _split_digits(dbms: str, digits: str) -> list[str]:
    """Split the packed version digits by each DBMS's naming habit."""
    if dbms in ("mysql", "fbmysql"):
        # my8028 -> 8.0.28, my5651 -> 5.6.51, my9500 -> 9.5.0
        if len(digits) < 3:
            return list(digits)
        return [digits[0], digits[1], str(int(digits[2:]))]
    if dbms == "mariadb":
        # ma100230 -> 10.2.30, ma101104 -> 10.11.4, ma5568 -> 5.5.68
        if digits.startswith("1") and len(digits) >= 4:
            parts = [digits[:2], digits[2:4], digits[4:]]
        else:
            parts = [digits[:1], digits[1:2], digits[2:]]
        return [str(int(p)) for p in parts if p]
    if dbms == "postgres":
        # pg174 -> 17.4, pg1110 -> 11.10, pg110 -> 11.0, pg96 -> 9.6, pg9624 -> 9.6.24
        if digits.startswith(("7", "8", "9")):
            parts = [digits[:1], digits[1:2], digits[2:]]
        else:
            parts = [digits[:2], digits[2:]]
        return [str(int(p)) for p in parts if p]
    return list(digits)


def _split_rest(rest: str) -> tuple[str, str]:
    """Split what follows the version into (fork tags, variant)."""
    if not rest:
        return "", ""
    tokens = rest.split("_")
    for i, tok in enumerate(tokens):
        if tok.lower().startswith(VARIANT_HEADS):
            return "_".join(tokens[:i]), "_".join(tokens[i:])
    return "", rest


def parse_build_name(
    name: str,
    *,
    dbms: str | None = None,
    version: str | None = None,
    variant: str | None = None,
    fork: str | None = None,
) -> Build:
    """Parse a build name; explicit keyword values win over what the name implies.

    Raises :class:`BuildNameError` when the name is not understood and no explicit
    ``dbms`` and ``version`` were given.
    """
    name = name.strip()
    if not name:
        raise BuildNameError("empty build name")
    p_dbms, p_version, p_fork, p_variant = _parse(name)
    if dbms is not None and dbms not in DBMS_NAMES:
        raise BuildNameError(f"unknown DBMS {dbms!r} (expected one of {', '.join(sorted(DBMS_NAMES))})")
    final_dbms = dbms or p_dbms
    final_version = version or p_version
    if not final_dbms or not final_version:
        raise BuildNameError(
            f"cannot parse build name {name!r}: expected e.g. my8028_rel_o2nofp, ma110406_rel, "
            "pg174_o2nofp, fbmy8032_rel_lto or 9.7.2; or give --dbms and --version"
        )
    return Build(
        name=name,
        dbms=final_dbms,
        version=final_version,
        fork=p_fork if fork is None else fork,
        variant=p_variant if variant is None else variant,
    )


def _parse(name: str) -> tuple[str, str, str, str]:
    m = _NAME.match(name)
    if m:
        dbms = DBMS_PREFIXES[m.group("prefix")]
        tail = m.group("tail") or ""
        pre = _PRE.match(tail.lower())
        version = ".".join(_split_digits(dbms, m.group("digits")))
        fork = ""
        if pre:
            version += pre.group(0)
        elif tail:
            fork = tail
        tags, variant = _split_rest(m.group("rest") or "")
        fork = "_".join(t for t in (fork, tags) if t)
        return dbms, version, fork, variant
    m = _DOTTED.match(name)
    if m:
        version = m.group("ver") + (m.group("pre") or "").lstrip("-.")
        tags, variant = _split_rest(m.group("rest") or "")
        return "rocksdb", version, tags, variant
    return "", "", "", ""
