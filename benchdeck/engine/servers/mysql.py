"""MariaDB and MySQL: mariadb-install-db / ``mysqld --initialize-insecure``, a generated
option file, ``mariadbd --defaults-file`` started detached, ``mariadb-admin`` ping/shutdown.

Files beside the datadir ``D`` (in its parent ``P``): ``P/benchdeck.cnf`` and the run dir
``P/benchdeck-run`` (server output, error log, pid files). Admin commands use ``root``
(no password) over the unix socket; clients and sysbench use the benchmark user over TCP.
"""

from __future__ import annotations

import posixpath

from benchdeck.engine.servers.base import ManagedServer, ProbeState, ServerError, ServerSpec, check_name
from benchdeck.engine.transport import DetachedProcess, Transport

# Defaults the user's config_file (and ``extra``) can override.
DEFAULT_OPTIONS: tuple[tuple[str, str], ...] = (
    ("skip-name-resolve", ""),
    ("skip-log-bin", ""),
    ("innodb_buffer_pool_size", "128M"),
    ("innodb_log_file_size", "48M"),
    ("innodb_flush_log_at_trx_commit", "2"),
    ("max_connections", "500"),
)
MYSQL_ONLY_OPTIONS: tuple[tuple[str, str], ...] = (("mysqlx", "OFF"),)  # no clash on port 33060

# Constant SQL; identifiers are validated names (they cannot be bound parameters).
SQL_PROLOGUE = "SET SESSION sql_mode = '';\nCREATE DATABASE IF NOT EXISTS `{db}`;\n"
SQL_PER_HOST = (
    "CREATE USER IF NOT EXISTS '{user}'@'{host}' IDENTIFIED BY {password};\n"
    "ALTER USER '{user}'@'{host}' IDENTIFIED BY {password};\n"
    "GRANT ALL PRIVILEGES ON *.* TO '{user}'@'{host}';\n"
)
USER_HOSTS = ("%", "localhost", "127.0.0.1")  # explicit entries beat anonymous ones


def option_value(value: str) -> str:
    """A double-quoted option-file value (the parser undoes ``\\\\`` and ``\\"``)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def sql_string(value: str) -> str:
    """A MySQL string literal, valid with backslash escapes on (we set sql_mode = '')."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


def option_lines(options: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> list[str]:
    return [f"{key} = {option_value(value)}" if value else key for key, value in options]


class MySQLServer(ManagedServer):
    """MariaDB (``dbms="mariadb"``) or Oracle MySQL (``dbms="mysql"``)."""

    SERVER_NAME = "mysqld"

    def __init__(self, transport: Transport, spec: ServerSpec) -> None:
        super().__init__(transport, spec)
        self.mariadb = spec.dbms == "mariadb"
        self.SERVER_NAME = "mariadbd" if self.mariadb else "mysqld"
        if self.mariadb:
            self.wanted = {
                "server": ("mariadbd", "mysqld"),
                "install": ("mariadb-install-db", "mysql_install_db"),
                "admin": ("mariadb-admin", "mysqladmin"),
                "client": ("mariadb", "mysql"),
            }
        else:
            self.wanted = {"server": ("mysqld",), "admin": ("mysqladmin",), "client": ("mysql",)}
        self.run_dir = posixpath.join(spec.parent, "benchdeck-run")
        self.cnf = posixpath.join(spec.parent, "benchdeck.cnf")
        self.error_log = posixpath.join(self.run_dir, "mysqld.err")
        self.pid_file = posixpath.join(self.run_dir, "mysqld.pid")  # written by the server
        self.proc: DetachedProcess | None = None

    def _log_paths(self) -> list[str]:
        return [self.error_log, posixpath.join(self.run_dir, "server.out")]

    async def _run_as(self) -> str:
        """The OS account the server runs as: os_user, else whoever we log in as."""
        return self.spec.os_user or (await self.login())[1]

    def admin_argv(self, tool: str, *args: str) -> list[str]:
        """``mariadb-admin``/``mariadb`` as root over the socket (no option files read)."""
        return [self.tools[tool], "--no-defaults", f"--socket={self.spec.socket_path}", "-uroot", *args]

    # --- lifecycle -----------------------------------------------------------------------------

    async def exists(self) -> bool:
        return await self.is_dir(posixpath.join(self.spec.datadir, "mysql"))

    async def create(self) -> None:
        await self.refuse_clobber()
        tools = await self.locate()
        spec, user = self.spec, await self._run_as()
        await self.make_dir(spec.datadir, "0750", spec.os_user)
        basedir = [f"--basedir={spec.basedir}"] if spec.basedir else []
        if self.mariadb:
            argv = [
                tools["install"],
                "--no-defaults",
                f"--user={user}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
                f"--datadir={spec.datadir}",
                *basedir,
            ]
        else:
            argv = [
                tools["server"],
                "--no-defaults",
                "--initialize-insecure",
                f"--user={user}",
                f"--datadir={spec.datadir}",
                *basedir,
            ]
        await self.run(argv, f"initialising {spec.datadir}", timeout=600)

    def config_text(self, user: str) -> str:
        """The generated option file: defaults, the user's file, then what we must control."""
        spec = self.spec
        defaults = [*DEFAULT_OPTIONS, *(() if self.mariadb else MYSQL_ONLY_OPTIONS)]
        ours = [
            ("port", str(spec.port)),
            ("bind-address", spec.host),
            ("socket", spec.socket_path),
            ("datadir", spec.datadir),
            ("pid-file", self.pid_file),
            ("log-error", self.error_log),
            ("user", user),
            *((("basedir", spec.basedir),) if spec.basedir else ()),
        ]
        lines = ["# Generated by benchdeck; rewritten on every start.", "[mysqld]"]
        lines += option_lines(defaults)
        if spec.config_file:
            lines.append(f"!include {spec.config_file}")
        lines += ["", "[mysqld]", *option_lines(ours), *option_lines(list(spec.extra)), ""]
        return "\n".join(lines)

    async def start(self) -> None:
        if not await self.exists():
            raise ServerError(f"{self.label}: {self.spec.datadir} is not initialised (create it first)")
        if await self.is_running():
            raise ServerError(f"{self.label}: already running")
        tools = await self.locate()
        await self.make_dir(self.run_dir, "0755", self.spec.os_user)
        await self.write_file(self.cnf, self.config_text(await self._run_as()))
        await self.rotate_logs()
        self.proc = await self.transport.start_detached(
            self.spec.placed([tools["server"], f"--defaults-file={self.cnf}"]),
            run_dir=self.run_dir,
            stdout_name="server.out",
        )

    async def _probe(self) -> ProbeState:
        await self.locate()
        if await self.probe_command(self.admin_argv("admin", "--connect-timeout=2", "ping")):
            return "ready"
        pid = await self.server_pid()
        return "starting" if pid is not None and await self.transport.is_alive(pid) else "dead"

    async def server_pid(self) -> int | None:
        """The server's pid: from our start record, else from the server's pid-file."""
        if self.proc is not None:
            return self.proc.pid
        record = await self.read_pid(posixpath.join(self.run_dir, "server.pid"))
        return record if record is not None else await self.read_pid(self.pid_file)

    async def pid(self) -> int | None:
        return await self.server_pid()

    async def is_running(self) -> bool:
        pid = await self.server_pid()
        return pid is not None and await self.transport.is_alive(pid)

    async def stop(self) -> None:
        pid = await self.server_pid()
        if pid is None or not await self.transport.is_alive(pid):
            return
        await self.locate()
        await self.run(self.admin_argv("admin", "shutdown"), "shutdown", timeout=120, check=False)
        if await self.wait_gone(pid, 120):
            return
        pgid = (
            self.proc.pgid if self.proc else await self.read_pid(posixpath.join(self.run_dir, "server.pgid"))
        )
        for sig, wait in (("TERM", 30.0), ("KILL", 10.0)):
            if pgid is not None:
                await self.transport.kill_group(pgid, sig)
            else:
                await self.run(["kill", f"-{sig}", str(pid)], "kill", check=False)
            if await self.wait_gone(pid, wait):
                return
        raise ServerError(f"{self.label}: {self.SERVER_NAME} (pid {pid}) would not stop")

    async def setup_database(self) -> None:
        spec = self.spec
        db, user = check_name(spec.database, "database"), check_name(spec.user, "user")
        password = sql_string(spec.password)
        sql = SQL_PROLOGUE.format(db=db) + "".join(
            SQL_PER_HOST.format(user=user, host=host, password=password) for host in USER_HOSTS
        )
        await self.locate()
        await self.run(self.admin_argv("client", "--batch"), "creating the database and user", stdin=sql)

    # --- clients -------------------------------------------------------------------------------

    def client_argv(self) -> list[str]:
        spec = self.spec
        client = self.tools.get("client", "mariadb" if self.mariadb else "mysql")
        password = [f"--password={spec.password}"] if spec.password else []
        return [
            client,
            "--no-defaults",
            "--protocol=TCP",
            f"--host={spec.connect_host}",
            f"--port={spec.port}",
            f"--user={spec.user}",
            *password,
            f"--database={spec.database}",
        ]

    def sysbench_args(self) -> list[str]:
        spec = self.spec
        return [
            "--db-driver=mysql",
            f"--mysql-host={spec.connect_host}",
            f"--mysql-port={spec.port}",
            f"--mysql-user={spec.user}",
            f"--mysql-password={spec.password}",
            f"--mysql-db={spec.database}",
        ]
