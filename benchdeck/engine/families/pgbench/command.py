"""``pgbench`` command lines (init and run) as argv lists (values stay data).

Built-in scripts: ``tpcb-like`` (the default TPC-B-like transaction), ``select-only`` (``-S``)
and ``simple-update`` (``-N``). Runs report progress every second (``--progress=1``, printed on
stderr) and use prepared statements (``-M prepared``) unless told otherwise.

On Debian, ``pgbench`` on PATH is postgresql-common's wrapper; the binary itself is
``/usr/lib/postgresql/<version>/bin/pgbench``.
"""

from __future__ import annotations

from dataclasses import dataclass

BUILTINS = {"tpcb-like": ("-b", "tpcb-like"), "select-only": ("-S",), "simple-update": ("-N",)}
PROTOCOLS = ("simple", "extended", "prepared")


class PgbenchError(ValueError):
    """A pgbench command benchdeck cannot build as asked, with the reason."""


@dataclass(frozen=True, slots=True)
class PgConn:
    """Where pgbench connects; unset fields are left to libpq (PG* variables, defaults).

    A password is never put on the command line: use ``PGPASSWORD`` in the run's environment
    or a ``.pgpass`` file.
    """

    dbname: str
    host: str | None = None
    port: int | None = None
    user: str | None = None

    def args(self) -> list[str]:
        """``-h HOST -p PORT -U USER`` for the fields that are set (the dbname goes last)."""
        out: list[str] = []
        for flag, value in (("-h", self.host), ("-p", self.port), ("-U", self.user)):
            if value is not None:
                if str(value).startswith("-") or str(value) == "":
                    raise PgbenchError(f"bad connection value {value!r}")
                out += [flag, str(value)]
        return out

    def dbname_arg(self) -> str:
        if not self.dbname or self.dbname.startswith("-"):
            raise PgbenchError(f"bad database name {self.dbname!r}")
        return self.dbname


def init_argv(
    conn: PgConn,
    scale: int,
    *,
    pgbench: str = "pgbench",
    quiet: bool = True,
    fillfactor: int | None = None,
    unlogged: bool = False,
    partitions: int | None = None,
) -> list[str]:
    """``pgbench -i -s SCALE``: (re)creates the pgbench tables with ``100000 * SCALE`` accounts."""
    if scale < 1:
        raise PgbenchError("scale must be at least 1")
    argv = [pgbench, "-i", "-s", str(scale), *conn.args()]
    if quiet:
        argv.append("-q")  # a progress line every 5 s instead of every 100000 rows
    if fillfactor is not None:
        if not 10 <= fillfactor <= 100:
            raise PgbenchError("fillfactor must be between 10 and 100")
        argv += ["-F", str(fillfactor)]
    if unlogged:
        argv.append("--unlogged-tables")
    if partitions is not None:
        if partitions < 1:
            raise PgbenchError("partitions must be at least 1")
        argv.append(f"--partitions={partitions}")
    return [*argv, conn.dbname_arg()]


def run_argv(
    conn: PgConn,
    builtin: str = "tpcb-like",
    *,
    clients: int = 1,
    jobs: int | None = None,
    duration_s: int = 300,
    progress_s: int = 1,
    protocol: str = "prepared",
    pgbench: str = "pgbench",
    rate_tps: float | None = None,
    latency_limit_ms: float | None = None,
    per_statement: bool = False,
    no_vacuum: bool = False,
) -> list[str]:
    """A timed run of a built-in script: ``-c CLIENTS -j JOBS -T SECONDS --progress=N -M MODE``.

    ``jobs`` (pgbench worker threads) defaults to ``clients``.
    """
    if builtin not in BUILTINS:
        raise PgbenchError(f"unknown pgbench builtin {builtin!r} (known: {', '.join(BUILTINS)})")
    if protocol not in PROTOCOLS:
        raise PgbenchError(f"unknown query mode {protocol!r} (known: {', '.join(PROTOCOLS)})")
    jobs = clients if jobs is None else jobs
    if clients < 1 or jobs < 1 or duration_s < 1 or progress_s < 1:
        raise PgbenchError("clients, jobs, duration_s and progress_s must be at least 1")
    if jobs > clients:
        raise PgbenchError("jobs (threads) must not exceed clients")
    argv = [pgbench, *conn.args(), *BUILTINS[builtin]]
    argv += ["-c", str(clients), "-j", str(jobs), "-T", str(duration_s)]
    argv += [f"--progress={progress_s}", "-M", protocol]
    if rate_tps is not None:
        if rate_tps <= 0:
            raise PgbenchError("rate_tps must be positive")
        argv.append(f"--rate={rate_tps:g}")
    if latency_limit_ms is not None:
        if latency_limit_ms <= 0:
            raise PgbenchError("latency_limit_ms must be positive")
        argv.append(f"--latency-limit={latency_limit_ms:g}")
    if per_statement:
        argv.append("-r")
    if no_vacuum:
        argv.append("-n")
    return [*argv, conn.dbname_arg()]


def tables_exist_sql(scale: int) -> str:
    """A query printing the branch count only if ``pgbench -i -s SCALE`` completed: the branches
    at this scale, every account row (``100000 * SCALE``: an interrupted initialisation loads
    the accounts last) and the accounts' primary key (made after the rows)."""
    if scale < 1:
        raise PgbenchError("scale must be at least 1")
    # Counted through query_to_xml only when the tables exist: no error when they do not, so a
    # failing check always means the database itself is unreachable.
    counts = ", ".join(
        f"(xpath('/row/c/text()', query_to_xml('SELECT count(*) AS c FROM pgbench_{t}', "  # noqa: S608 - constant names
        f"false, true, '')))[1]::text::bigint AS {t[0]}"
        for t in ("branches", "accounts")
    )
    exist = " AND ".join(f"to_regclass('pgbench_{t}') IS NOT NULL" for t in ("branches", "accounts"))
    return (
        f"SELECT b FROM (SELECT {counts} WHERE {exist}) s "  # noqa: S608 - only ints and constants
        f"WHERE b = {int(scale)} AND a = {int(scale) * 100000} "
        "AND to_regclass('pgbench_accounts_pkey') IS NOT NULL"
    )


def tables_exist_argv(conn: PgConn, scale: int, *, psql: str = "psql") -> list[str]:
    """``psql`` printing the branch count when ``pgbench -i -s SCALE`` already ran (else nothing).

    Fits ``RunPlan.tables_exist_argv``: empty output or an error means "initialise".
    """
    return [psql, "-X", "-q", "-tA", *conn.args(), "-c", tables_exist_sql(scale), conn.dbname_arg()]
