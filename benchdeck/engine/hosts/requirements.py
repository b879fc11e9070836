"""What to install for a workload family: tools and DBMS servers mapped to Debian/Ubuntu packages.

``what_to_install`` and ``install_hint`` are pure; ``local_missing`` only looks programs up
(``shutil.which`` over PATH, the sbin directories and ``/usr/lib/postgresql/*/bin``, where
Debian keeps the server's programs), ``remote_missing`` on a host's PATH. Without sysbench or a
DBMS, the built-in SQLite workloads need nothing installed.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from benchdeck.engine.transport import Transport

# program -> Debian/Ubuntu package that ships it
PACKAGES: dict[str, str] = {
    "sysbench": "sysbench",
    "vmstat": "procps",
    "iostat": "sysstat",
    "db_bench": "rocksdb-tools",
    "pgbench": "postgresql",
    "psql": "postgresql-client",
    "postgres": "postgresql",
    "initdb": "postgresql",
    "pg_ctl": "postgresql",
    "mariadb": "mariadb-client",
    "mysql": "mariadb-client",
    "mariadbd": "mariadb-server",
    "mysqld": "mariadb-server",
    "mariadb-install-db": "mariadb-server",
}
NOTES: dict[str, str] = {
    "pgbench": "Debian ships pgbench in the server package, postgresql-NN",
    "iostat": "iostat is part of sysstat",
    "vmstat": "vmstat is part of procps",
    "db_bench": "RocksDB's db_bench",
}
# DBMS name as users write it -> (what it is called in messages, server package)
DBMS_PACKAGES: dict[str, tuple[str, str]] = {
    "mariadb": ("MariaDB server", "mariadb-server"),
    "mysql": ("MySQL-compatible server (MariaDB)", "mariadb-server"),
    "postgresql": ("PostgreSQL server", "postgresql"),
    "postgres": ("PostgreSQL server", "postgresql"),
    "pgsql": ("PostgreSQL server", "postgresql"),
    "pg": ("PostgreSQL server", "postgresql"),
}
# workload family -> the programs a run of it starts (monitors apart)
FAMILY_TOOLS: dict[str, tuple[str, ...]] = {
    "sysbench": ("sysbench",),
    "db_bench": ("db_bench",),
    "pgbench": ("pgbench",),
    "builtin": (),
}
MONITORS = ("vmstat", "iostat")
BUILTIN_HINT = "nothing to install for the built-in SQLite workloads (sqlite_bench): they run as they are"
_EXTRA_DIRS = ("/usr/sbin", "/usr/local/sbin", "/sbin")
_PG_BIN = "/usr/lib/postgresql/*/bin"
# Prints each of "$@" that is not on PATH; a constant script, tools passed as data.
_MISSING_TOOLS = 'for t do command -v "$t" >/dev/null || echo "$t"; done'


def server_tools(dbms: str) -> tuple[str, ...]:
    """Programs whose presence means the DBMS server is installed."""
    pkg = DBMS_PACKAGES.get(dbms.lower(), ("", ""))[1]
    return tuple(t for t, p in PACKAGES.items() if p == pkg and t not in ("mariadb-install-db", "pg_ctl"))


def needed_tools(family: str, *, monitors: bool = True) -> list[str]:
    """The programs a run of ``family`` needs on its host."""
    return [*FAMILY_TOOLS.get(family, (family,)), *(MONITORS if monitors else ())]


def what_to_install(tools_missing: Iterable[str], dbms: str | None = None) -> list[str]:
    """One message per missing program (and for ``dbms``, a server that is missing), each naming
    the package, then one ``apt-get install`` line for all of them."""
    messages: list[str] = []
    packages: list[str] = []
    missing = list(dict.fromkeys(tools_missing))
    for tool in missing:
        pkg = PACKAGES.get(tool)
        if pkg is None:
            messages.append(f"{tool}: not found; no known package ships it, install it and put it on PATH")
            continue
        note = f" ({NOTES[tool]})" if tool in NOTES else ""
        messages.append(f"{tool}: apt-get install {pkg}{note}")
        packages.append(pkg)
    if dbms is not None:
        label, pkg = DBMS_PACKAGES.get(dbms.lower(), (f"{dbms} server", ""))
        if not pkg:
            messages.append(f"{label}: no known package; install it by hand")
        elif pkg not in packages:
            messages.append(f"{label}: apt-get install {pkg}")
            packages.append(pkg)
    unique = list(dict.fromkeys(packages))
    if len(unique) > 1:
        messages.append(f"all at once: sudo apt-get install {' '.join(unique)}")
    if "sysbench" in missing or dbms is not None:
        messages.append(f"or: {BUILTIN_HINT}")
    return messages


def local_missing(tools: Iterable[str]) -> list[str]:
    """The programs of ``tools`` not found on this machine (PATH, sbin, PostgreSQL's bin)."""
    pg_dirs = sorted(glob.glob(_PG_BIN), reverse=True)
    path = os.pathsep.join([os.environ.get("PATH", os.defpath), *_EXTRA_DIRS, *pg_dirs])
    return [t for t in dict.fromkeys(tools) if shutil.which(t, path=path) is None]


async def remote_missing(transport: Transport, tools: Sequence[str]) -> list[str]:
    """The programs of ``tools`` not on PATH on the host behind ``transport``."""
    res = await transport.run(["sh", "-c", _MISSING_TOOLS, "-", *tools])
    return res.stdout.split()


def install_hint(tools: Sequence[str]) -> str:
    """One line: the ``apt-get install`` for known programs, ``put X on PATH`` for the others."""
    known = sorted({PACKAGES[t] for t in tools if t in PACKAGES})
    unknown = [t for t in tools if t not in PACKAGES]
    hints = [f"apt-get install {' '.join(known)}"] if known else []
    hints += [f"put {t} on PATH" for t in unknown]
    return "; ".join(hints)
