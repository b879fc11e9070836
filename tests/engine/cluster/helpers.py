"""What the lag tests share: a probe's output read back as it grows, a table locked on a server."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from benchdeck.engine.cluster.lag_parse import LagParser
from benchdeck.engine.cluster.records import LagSample
from tests.fixtures.servers import wait_until
from tests.fixtures.servers.mariadb import MariaDBServer


def tcp_client(s: MariaDBServer) -> list[str]:
    """``mariadb`` to ``s`` over TCP as its benchmark user (as a probe on its host runs it)."""
    return ["mariadb", "--no-defaults", "-h", s.host, "-P", str(s.port), f"-u{s.user}", f"-p{s.password}"]


class ProbeFile:
    """A probe's output file (written by the probe started over SSH), parsed as lines come."""

    def __init__(self, out: Path, parser: LagParser):
        self.out, self.parser = out, parser
        self._read = 0

    def poll(self) -> list[LagSample]:
        """All samples so far (complete lines only)."""
        lines = self.out.read_text().split("\n")[:-1] if self.out.exists() else []
        for ln in lines[self._read :]:
            self.parser.feed(ln)
        self._read = len(lines)
        return self.parser.samples

    def until(self, check: Callable[[LagSample], bool], what: str) -> None:
        """Wait until a sample passes ``check``."""
        wait_until(lambda: any(check(s) for s in self.poll()), timeout=60, what=what)


@contextmanager
def table_locked(server: MariaDBServer, table: str) -> Iterator[None]:
    """A session on ``server`` holds ``table``'s write lock: replicated writes to it wait."""
    argv = server.client_argv("-B", "-N", "--unbuffered")
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdin is not None
    assert p.stdout is not None
    p.stdin.write(f"LOCK TABLES {table} WRITE; SELECT 'locked';\n")
    p.stdin.flush()
    assert p.stdout.readline().strip() == "locked"
    try:
        yield
    finally:
        p.stdin.write("UNLOCK TABLES;\n")
        p.stdin.close()
        p.wait(10)
