"""What samples a replica's lag once a second: a small shell loop around the node's SQL client.

It runs detached on a node's host (a replica's for MariaDB/MySQL and Galera, the primary's for
PostgreSQL, whose ``pg_stat_replication`` sees every standby) and writes one line a second::

    <epoch seconds>\\t<client exit code>\\t<the client's output, newlines as \\x1f, tabs as spaces>

The epoch is the host's clock when the query started, so a line's ``t`` on the run's clock is
that minus the epoch the measured phase started at (:mod:`engine.cluster.lag_parse` reads the
lines). The queries are constants: no value of the user's ever becomes SQL; the client's argv
(host, port, user) is passed as separate words, never through a shell string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FIELD_SEP = "\x1f"  # the client's newlines inside one probe line

# $1 seconds between queries, $2 how many, then the client's argv (with the query's words).
PROBE_LOOP = r"""iv=$1 n=$2; shift 2
i=0
while [ "$i" -lt "$n" ]; do
  ts=$(date +%s.%N)
  out=$("$@" 2>&1); rc=$?
  printf '%s\t%s\t%s\n' "$ts" "$rc" "$(printf '%s' "$out" | tr '\n\t' '\037 ')"
  i=$((i+1))
  sleep "$iv"
done
"""

MARIADB_QUERY = "SHOW REPLICA STATUS; SELECT @@gtid_slave_pos AS Gtid_Slave_Pos"
MYSQL_QUERY = "SHOW REPLICA STATUS"
GALERA_QUERY = (
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_flow_control_paused_ns',"
    " 'wsrep_local_state_comment', 'wsrep_ready', 'wsrep_local_recv_queue', 'wsrep_cluster_status')"
)
POSTGRES_QUERY = (
    "SELECT application_name, state, coalesce(extract(epoch FROM replay_lag)::text, ''),"
    " coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint::text, '')"
    " FROM pg_stat_replication ORDER BY application_name"
)


@dataclass(frozen=True, slots=True)
class ProbeKind:
    """Which query a probe runs and how its lines read: ``replica`` (SHOW REPLICA STATUS on the
    replica), ``galera`` (the node's wsrep status), ``streaming`` (the primary's view)."""

    name: str
    client_args: tuple[str, ...]


def probe_kind(dbms: str, cluster_kind: str) -> ProbeKind:
    """The probe for a cluster of ``cluster_kind`` on ``dbms`` (``ValueError`` if none)."""
    if cluster_kind == "streaming" and dbms == "postgres":
        return ProbeKind("streaming", ("-X", "-A", "-t", "-F", "|", "-c", POSTGRES_QUERY))
    if cluster_kind == "galera" and dbms == "mariadb":
        return ProbeKind("galera", ("-B", "-N", "-e", GALERA_QUERY))
    if cluster_kind in ("async", "semisync") and dbms in ("mariadb", "mysql", "fbmysql"):
        query = MARIADB_QUERY if dbms == "mariadb" else MYSQL_QUERY
        return ProbeKind("replica", ("-E", "-e", query))
    raise ValueError(f"no lag probe for a {cluster_kind} cluster of {dbms} servers")


def probe_argv(kind: ProbeKind, client: Sequence[str], count: int, interval_s: float = 1.0) -> list[str]:
    """argv of the probe loop: ``count`` queries, ``interval_s`` apart, through ``client``."""
    if count <= 0 or interval_s <= 0:
        raise ValueError("a lag probe needs count > 0 and interval_s > 0")
    return [
        "sh",
        "-c",
        PROBE_LOOP,
        "benchdeck-lag",
        f"{interval_s:g}",
        str(count),
        *client,
        *kind.client_args,
    ]
