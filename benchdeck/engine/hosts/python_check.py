"""The interpreter a remote host runs benchdeck's shipped clients with, and its DB drivers.

TPC-C and the Insert Benchmark run as Python clients on the host (``hosts.NAME.python``, by
default the ``python3`` an SSH session finds); they need PyMySQL (MySQL, MariaDB) or psycopg
(PostgreSQL) there. ``hosts check`` asks the host with :func:`probe_python`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchdeck.engine.transport.errors import TransportError

if TYPE_CHECKING:
    from benchdeck.engine.transport.base import Transport

DRIVERS: tuple[tuple[str, str, str, str], ...] = (  # module, its name, pip's name, for which DBMS
    ("pymysql", "PyMySQL", "PyMySQL", "MySQL and MariaDB"),
    ("psycopg", "psycopg", "psycopg[binary]", "PostgreSQL"),
)
_PROBE = (
    "import importlib.util, sys\n"
    "print('%d.%d.%d' % sys.version_info[:3])\n"
    "for m in sys.argv[1:]: print(m, 'yes' if importlib.util.find_spec(m) else 'no')\n"
)


@dataclass(frozen=True, slots=True)
class PythonCheck:
    """What the host said of ``python``: its version and which drivers import, or why not."""

    python: str
    version: str | None
    drivers: dict[str, bool]
    error: str = ""


async def probe_python(transport: Transport, python: str) -> PythonCheck:
    """Run ``python`` on the host (an argv, never a shell line) and ask for its drivers."""
    modules = [d[0] for d in DRIVERS]
    try:
        res = await transport.run([python, "-c", _PROBE, *modules], timeout=20)
    except TransportError as exc:
        return PythonCheck(python, None, {}, str(exc))
    lines = res.stdout.split()
    if not res.ok or not lines:
        why = (res.stderr or res.stdout).strip().splitlines()
        return PythonCheck(python, None, {}, why[-1] if why else f"exited {res.exit_status}")
    pairs = dict(zip(lines[1::2], lines[2::2], strict=False))
    return PythonCheck(python, lines[0], {m: pairs.get(m) == "yes" for m in modules})


def python_lines(host: str, check: PythonCheck) -> list[str]:
    """``hosts check``'s lines for the host's interpreter: found with its drivers, or the fix."""
    if check.version is None:
        return [f"{host}: python {check.python} does not run there ({check.error}): install it or name "
                f"another interpreter (hosts.{host}.python)"]  # fmt: skip
    have = ", ".join(f"{name} {'yes' if check.drivers.get(m) else 'no'}" for m, name, _, _ in DRIVERS)
    out = [f"  {host}: python {check.python} ({check.version}): {have}"]
    for module, name, package, dbms in DRIVERS:
        if not check.drivers.get(module):
            fix = f"{check.python} -m pip install '{package}'"
            fix += f", or name another interpreter (hosts.{host}.python)"
            out.append(f"  {host}: {name} is missing for {dbms} TPC-C and Insert Benchmark runs: {fix}")
    return out
