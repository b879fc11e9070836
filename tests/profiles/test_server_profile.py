"""Acceptance: a planted regression on the real PostgreSQL, through the real ``run`` path, as far
as Debian's stripped binary allows.

Debian's ``postgres`` (15 here) has no ``.symtab`` but exports its global functions in
``.dynsym`` (10,259 of them: extensions link against them), so perf names those; a ``static``
function shows as the nearest it can (``[postgres]``, the binary). The variant moves CPU into
one exported function: a row-level-security policy on the benchmark's table whose check
hashes 60 KB per row read (``hashtext(repeat(c, 500))``: ``hash_bytes``, exported, over
``repeat``'s copy), so every point select pays it in the backend. Same server, database and
tables; the variant's build differs only by its user, one the policy applies to (the test
server's ``bench`` is a superuser, which row-level security never checks). perf watches the
postmaster and its children (the backends), found by the server's port.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import bd, inventory_env, local_host, postgres_build
from tests.fixtures.servers.postgres import PostgresServer

pytestmark = pytest.mark.integration

BUILD = "pg15_plain"
VARIANT = "pg15_policy"
POLICY = "CREATE POLICY burn ON sbtest1 USING (hashtext(repeat(c, 500)) <> 7)"


def _psql(pg: PostgresServer, db: str, sql: str) -> None:
    argv = pg.psql_argv("-v", "ON_ERROR_STOP=1", "-c", sql)
    argv[argv.index("-d") + 1] = db
    subprocess.run(argv, check=True, capture_output=True)


def _run(env: dict[str, str], build: str) -> int:
    args = ("run", "--host", "here", "--build", build, "--workload", "point-query_range=100")
    res = bd(
        env,
        *args,
        "--time",
        "4",
        "--profile",
        "cpu",
        "--profile-window",
        "1",
        "--profile-period",
        "1",
        timeout=300,
    )
    assert res.returncode == 0, res.stdout + res.stderr
    m = re.search(r"^run (\d+) finished", res.stdout, re.M)
    assert m is not None, res.stdout
    return int(m.group(1))


def test_postgres_function_the_variant_burns_tops_the_difference(
    postgres_server: PostgresServer, tmp_path: Path
) -> None:
    pg = postgres_server
    db = f"plant_{tmp_path.name.replace('-', '_').lower()}"[:60]
    _psql(pg, pg.database, f"CREATE DATABASE {db} OWNER {pg.bench_user}")
    host = local_host("here", tmp_path / "remote", "threads = 1\ntables = 1\ntable_size = 10000")
    role = db  # roles are the cluster's: one of this test's own
    builds = postgres_build("here", BUILD, pg, database=db)
    builds += postgres_build("here", VARIANT, pg, user=role, database=db)
    env = inventory_env(tmp_path, host + builds)
    plain = _run(env, BUILD)  # prepares the tables
    grants = f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {role}; "
    grants += f"GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO {role}"
    _psql(pg, db, f"CREATE ROLE {role} LOGIN; {grants}")
    _psql(pg, db, f"ALTER TABLE sbtest1 ENABLE ROW LEVEL SECURITY; {POLICY}")
    variant = _run(env, VARIANT)

    out = bd(env, "profile", str(plain), str(variant), "--format", "json", "--limit", "5")
    assert out.returncode == 0, out.stderr
    top = json.loads(out.stdout)["functions"]
    assert top[0]["function"] == "hash_bytes", out.stdout
    assert top[0]["diff"] > 0
