"""What a run ran on, captured at run time, and its raw outputs once it has ended.

:func:`capture` asks the host and the DBMS, just before the run: the host's facts, the server's
version string and variables (``SHOW GLOBAL VARIABLES`` / ``pg_settings``), the config files'
content, the server binary's ``--version`` and the basedir's git commit, and the command lines
(passwords masked). Nothing here fails a run: what cannot be found out becomes a note.
:func:`with_outputs` passes a run's events through and, before its end, reads the output files
the tools wrote into the run directory.
"""

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from benchdeck.engine.events import RawOutputs, RunCancelled, RunEvent, RunFailed, RunFinished
from benchdeck.engine.hosts.facts import gather_facts
from benchdeck.engine.hosts.inventory import BuildConfig
from benchdeck.engine.planning.plan import RunPlan
from benchdeck.engine.records import RunRecord
from benchdeck.engine.servers import ManagedServer
from benchdeck.engine.transport import Transport, TransportError

TIMEOUT = 30.0
MAX_CONFIG_BYTES = 1 << 20
MAX_OUTPUT_BYTES = 64 << 20  # per file; a longer one keeps its first 64 MiB
OUTPUT_NAMES = ("prepare.out", "warmup.out", "bench.out", "vmstat.out", "iostat.out")
MYSQL_VARIABLES = "SHOW GLOBAL VARIABLES"
# version() first, under a name no setting has, then every setting as the server shows it
PG_VARIABLES = (
    "SELECT '@version', version() UNION ALL "
    "(SELECT name, current_setting(name) FROM pg_settings ORDER BY name)"
)
# Prints the git commit of directory "$1" when it is (inside) a git work tree.
GIT_COMMIT = 'cd -- "$1" 2>/dev/null && git rev-parse HEAD 2>/dev/null'
# Prints the first executable among "$@".
FIRST_EXECUTABLE = 'for f do if [ -x "$f" ] && [ ! -d "$f" ]; then printf %s "$f"; exit 0; fi; done; exit 1'
SERVER_BINARIES = ("mariadbd", "mysqld", "postgres")


@dataclass(frozen=True, slots=True)
class DbAccess:
    """How to ask a run's DBMS about itself (built by the session for the run's build)."""

    dbms: str  # "mysql" (MySQL or MariaDB) or "postgres"
    client: tuple[str, ...]  # the SQL client connected to the benchmark database
    env: tuple[tuple[str, str], ...] = ()
    config_paths: tuple[str, ...] = ()  # the server's config files on the host, in load order
    server_binary: str | None = None  # the server program (for --version), when known
    basedir: str | None = None
    placement: tuple[str, ...] = ()  # numactl and its options in front of the server's start


def db_access(
    build: BuildConfig | None, server: ManagedServer | None, client: Sequence[str] | None
) -> DbAccess | None:
    """How to ask the run's DBMS about itself: the managed server, else the build's own
    settings with ``client`` (None for builds without an SQL server: RocksDB, built-in)."""
    if build is None or build.build.dbms not in ("mysql", "mariadb", "fbmysql", "postgres"):
        return None
    dbms = "postgres" if build.build.dbms == "postgres" else "mysql"
    if server is None:
        if client is None:
            return None
        env = (("PGPASSWORD", build.password),) if dbms == "postgres" and build.password else ()
        files = (build.config_file,) if build.config_file else ()
        placed = build.placement if build.start else ()  # start scripts run behind it too
        return DbAccess(dbms, tuple(client), env, files, None, build.basedir, placed)
    sp = server.spec
    env = (("PGPASSWORD", sp.password),) if dbms == "postgres" and sp.password else ()
    if dbms == "postgres":
        generated = [getattr(server, "conf", None), posixpath.join(sp.datadir, "postgresql.conf")]
        pg_ctl = server.tools.get("pg_ctl")
        binary = posixpath.join(posixpath.dirname(pg_ctl), "postgres") if pg_ctl else None
    else:
        generated = [getattr(server, "cnf", None)]
        binary = server.tools.get("server")
    paths = tuple(p for p in (*generated, sp.config_file) if isinstance(p, str) and p)
    return DbAccess(dbms, tuple(server.client_argv()), env, paths, binary, sp.basedir, sp.placement)


def command_lines(plan: RunPlan) -> tuple[tuple[str, str], ...]:
    """Every command the run starts, as one shell-quoted line each, passwords masked."""
    r = plan.redacted()
    env = [f"{k}={v}" for k, v in r.env]
    steps: list[tuple[str, Sequence[str] | None]] = [
        ("prepare", r.prepare_argv),
        ("warmup", r.warmup_argv),
        ("bench", r.bench_argv),
        ("vmstat", r.vmstat_argv() if r.monitors else None),
        ("iostat", r.iostat_argv() if r.monitors else None),
    ]
    out = [(name, shlex.join(argv)) for name, argv in steps if argv]
    return (("env", " ".join(env)), *out) if env else tuple(out)


def placement_line(db: DbAccess | None) -> tuple[tuple[str, str], ...]:
    """The server's NUMA placement as a command of the run (``server-placement``), when it has one."""
    return (("server-placement", shlex.join(db.placement)),) if db is not None and db.placement else ()


def parse_variables(dbms: str, text: str) -> tuple[tuple[str, str], ...]:
    """``name<TAB>value`` lines (the clients' batch output) as sorted pairs."""
    pairs = []
    for line in text.splitlines():
        name, sep, value = line.partition("\t")
        if sep and name:
            pairs.append((name, value))
    return tuple(sorted(pairs))


async def _run(transport: Transport, argv: Sequence[str], env: dict[str, str] | None = None) -> str:
    res = await transport.run(list(argv), timeout=TIMEOUT, env=env)
    if not res.ok:
        lines = (res.stderr or res.stdout).strip().splitlines()
        raise TransportError(
            f"{posixpath.basename(argv[0])} exited {res.exit_status}: {lines[-1] if lines else ''}"
        )
    return res.stdout


async def _variables(transport: Transport, db: DbAccess) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    env = dict(db.env) or None
    if db.dbms == "postgres":
        argv = [db.client[0], "-X", *db.client[1:], "-At", "-F", "\t", "-c", PG_VARIABLES]
        pairs = parse_variables(db.dbms, await _run(transport, argv, env))
        found = dict(pairs)
        return found.pop("@version", None), tuple(sorted(found.items()))
    argv = [*db.client, "-N", "-B", "-e", MYSQL_VARIABLES]
    pairs = parse_variables(db.dbms, await _run(transport, argv, env))
    found = dict(pairs)
    version = found.get("version")
    if version and found.get("version_comment"):
        version = f"{version} ({found['version_comment']})"
    return version, pairs


async def _binary(transport: Transport, db: DbAccess) -> str | None:
    binary = db.server_binary
    if binary is None and db.basedir:
        where = [
            posixpath.join(db.basedir, d, b) for d in ("bin", "sbin", "libexec") for b in SERVER_BINARIES
        ]
        res = await transport.run(["sh", "-c", FIRST_EXECUTABLE, "-", *where], timeout=TIMEOUT)
        binary = res.stdout.strip() if res.ok else None
    if not binary:
        return None
    out = await _run(transport, [binary, "--version"])
    return out.strip().splitlines()[0] if out.strip() else None


async def _text(transport: Transport, path: str) -> str:
    return (await transport.read_from(path, 0, MAX_CONFIG_BYTES)).decode(errors="replace")


async def capture(transport: Transport, plan: RunPlan, db: DbAccess | None) -> RunRecord:
    """The run's record; each part that fails is left empty with a note saying why."""
    notes: list[str] = []
    facts = version = binary = commit = None
    variables: tuple[tuple[str, str], ...] = ()
    configs: list[tuple[str, str]] = []
    try:
        facts = json.dumps((await gather_facts(transport)).as_dict(), sort_keys=True)
    except TransportError as exc:
        notes.append(f"host facts: {exc}")
    if db is not None:
        try:
            version, variables = await _variables(transport, db)
        except TransportError as exc:
            notes.append(f"variables: {exc}")
        for path in db.config_paths:
            try:
                configs.append((path, await _text(transport, path)))
            except (TransportError, FileNotFoundError) as exc:
                notes.append(f"config file {path}: {exc or 'not found'}")
        try:
            binary = await _binary(transport, db)
        except TransportError as exc:
            notes.append(f"binary version: {exc}")
        if db.basedir:
            try:
                git = await transport.run(["sh", "-c", GIT_COMMIT, "-", db.basedir], timeout=TIMEOUT)
                commit = (git.stdout.strip() or None) if git.ok else None
            except TransportError as exc:
                notes.append(f"git commit: {exc}")
    return RunRecord(
        host_facts=facts,
        dbms_version=version,
        variables=variables,
        config_files=tuple(configs),
        binary_version=binary,
        git_commit=commit,
        commands=command_lines(plan) + placement_line(db),
        notes=tuple(notes),
    )


async def read_outputs(transport: Transport, remote_dir: str) -> tuple[tuple[str, bytes], ...]:
    """The tools' output files in the run directory (those that exist)."""
    files = []
    for name in OUTPUT_NAMES:
        path = posixpath.join(remote_dir, name)
        try:
            size = await transport.file_size(path)
            if size is None:
                continue
            data = b""
            while len(data) < min(size, MAX_OUTPUT_BYTES):
                chunk = await transport.read_from(path, len(data), min(1 << 20, MAX_OUTPUT_BYTES - len(data)))
                if not chunk:
                    break
                data += chunk
        except (TransportError, FileNotFoundError):
            continue
        files.append((name, data))
    return tuple(files)


async def with_outputs(
    transport: Transport, plan: RunPlan, events: AsyncIterator[RunEvent]
) -> AsyncIterator[RunEvent]:
    """``events``, with the run's raw outputs (:class:`RawOutputs`) just before its end."""
    async for ev in events:
        if isinstance(ev, RunFinished | RunFailed | RunCancelled):
            files = await read_outputs(transport, plan.remote_dir)
            if files:
                yield RawOutputs(ev.run_id, files)
        yield ev
