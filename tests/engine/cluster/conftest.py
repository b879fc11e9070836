"""A two-node MariaDB Galera cluster on loopback for the Galera lag probe's test.

A stand-in until a Galera fixture joins tests/fixtures/servers/replication.py (h41-setup): node 1
is the shared :func:`start_mariadb` bootstrapping a new cluster; node 2 joins it by an rsync
state transfer (its datadir belongs to ``nobody``: the joiner's rsync daemon, started by root,
writes as nobody), so it has node 1's users and ``sbtest``.
"""

from __future__ import annotations

import os
import pwd
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fixtures.servers import MissingBinary, ServerStartError, die_with_parent, free_port, wait_until
from tests.fixtures.servers.mariadb import CONFIG, MariaDBServer, start_mariadb

PROVIDER = "/usr/lib/galera/libgalera_smm.so"
GALERA = """wsrep_on = ON
wsrep_provider = {provider}
wsrep_cluster_name = benchdeck_test
wsrep_cluster_address = gcomm://{peer}
wsrep_node_address = 127.0.0.1
wsrep_provider_options = "gmcast.listen_addr=tcp://127.0.0.1:{gcomm};ist.recv_addr=127.0.0.1:{ist};gcache.size=16M"
wsrep_sst_method = rsync
wsrep_sst_receive_address = 127.0.0.1:{sst}
binlog_format = ROW
innodb_autoinc_lock_mode = 2
"""


@dataclass
class GaleraPair:
    first: MariaDBServer
    second: MariaDBServer


def _galera(peer: str, gcomm: int) -> str:
    return GALERA.format(provider=PROVIDER, peer=peer, gcomm=gcomm, ist=free_port(), sst=free_port())


def _join(first: MariaDBServer, first_gcomm: int) -> MariaDBServer:
    base = Path(tempfile.mkdtemp(prefix="benchdeck-galera-"))
    base.chmod(0o755)
    data = base / "data"
    data.mkdir()
    nobody = pwd.getpwnam("nobody")
    os.chown(data, nobody.pw_uid, nobody.pw_gid)
    port = free_port()
    cfg = base / "my.cnf"
    cfg.write_text(CONFIG.format(dir=base, port=port, extra=_galera(f"127.0.0.1:{first_gcomm}", free_port())))
    proc = subprocess.Popen(
        [*die_with_parent(), "mariadbd", f"--defaults-file={cfg}"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=base,
    )
    sock, log = base / "mysqld.sock", base / "mysqld.err"
    user, password, db = first.user, first.password, first.database  # node 1's, copied by the transfer
    server = MariaDBServer("127.0.0.1", port, sock, user, password, db, base, cfg, log, proc.pid, proc)

    def synced() -> bool:
        if proc.poll() is not None:
            raise ServerStartError(f"the joining mariadbd exited with {proc.returncode}")
        argv = server.client_argv("-N", "-e", "SHOW STATUS LIKE 'wsrep_local_state_comment'")
        return "Synced" in subprocess.run(argv, capture_output=True, text=True).stdout

    try:
        wait_until(synced, timeout=90, what="the second Galera node", log=server.log)
    except BaseException:
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def galera_pair() -> Iterator[GaleraPair]:
    if not Path(PROVIDER).exists():
        pytest.fail(f"{PROVIDER} not found: install it with `apt-get install -y galera-4`", pytrace=False)
    gcomm = free_port()
    try:
        first = start_mariadb(extra_config=_galera("", gcomm))
    except (MissingBinary, ServerStartError) as exc:
        pytest.fail(str(exc), pytrace=False)
    try:
        second = _join(first, gcomm)
    except ServerStartError as exc:
        first.stop()
        pytest.fail(str(exc), pytrace=False)
    try:
        yield GaleraPair(first, second)
    finally:
        second.stop()
        first.stop()
