"""The shared replication fixtures replicate for real: what the primary writes, the replicas hold."""

from __future__ import annotations

from tests.fixtures.servers import run_checked
from tests.fixtures.servers.replication import (
    MariaDBReplication,
    PostgresStreaming,
    mariadb_query,
    replica_status,
    sql_value,
)


def test_mariadb_replica_applies_the_primarys_rows(mariadb_replication: MariaDBReplication) -> None:
    p = mariadb_replication.primary
    mariadb_query(
        p,
        "CREATE TABLE sbtest.fixture_t (id INT PRIMARY KEY); INSERT INTO sbtest.fixture_t VALUES (1),(2),(3)",
    )
    mariadb_replication.sync()
    for r in mariadb_replication.replicas:
        assert sql_value(mariadb_query(r, "SELECT SUM(id) FROM sbtest.fixture_t")) == "6"
        st = replica_status(r)
        assert (st["Slave_IO_Running"], st["Slave_SQL_Running"], st["Master_Port"]) == (
            "Yes",
            "Yes",
            str(p.port),
        )
    mariadb_query(p, "DROP TABLE sbtest.fixture_t")


def test_postgres_standby_replays_the_primarys_rows(postgres_streaming: PostgresStreaming) -> None:
    p, s = postgres_streaming.primary, postgres_streaming.standby
    run_checked(
        p.psql_argv("-c", "CREATE TABLE fixture_t (id int); INSERT INTO fixture_t VALUES (4),(5)"), "write"
    )
    postgres_streaming.sync()
    assert sql_value(run_checked(s.psql_argv("-Atc", "SELECT sum(id) FROM fixture_t"), "read").stdout) == "9"
    assert sql_value(run_checked(s.psql_argv("-Atc", "SELECT pg_is_in_recovery()"), "recovery").stdout) == "t"
    run_checked(p.psql_argv("-c", "DROP TABLE fixture_t"), "drop")
