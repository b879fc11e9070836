"""A lag probe's lines (:mod:`engine.cluster.lag_probe`) as lag samples and faults.

Each line gives, per replica it covers, a :class:`LagSample` on the run's clock; a replica whose
state changes (``ok`` -> ``stopped`` or ``gone``, and back) also gives a :class:`NodeFault`
with the server's or the client's own words. A line that cannot be read is kept as a
:class:`SkippedLine` with the reason, never dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchdeck.engine.cluster.lag_probe import FIELD_SEP
from benchdeck.engine.cluster.records import LagSample, NodeFault
from benchdeck.engine.records import SkippedLine


@dataclass(frozen=True, slots=True)
class NodeState:
    """What one probe line says of one replica."""

    node: str
    state: str  # ok | stopped | gone
    reason: str = ""
    lag_s: float | None = None
    behind_bytes: int | None = None
    behind_trx: int | None = None
    paused_ns: int | None = None  # cumulative flow-control pause (Galera), turned into paused_s


class LagParser:
    """Reads one probe's lines; ``nodes`` are the replicas it covers (one, or a PostgreSQL
    primary's standbys), ``t0`` the epoch second the run's measured phase started at."""

    def __init__(self, kind: str, nodes: Sequence[str], t0: float) -> None:
        if kind not in _READERS:
            raise ValueError(f"unknown lag probe kind {kind!r}")
        self.kind, self.nodes, self.t0 = kind, tuple(nodes), t0
        self.samples: list[LagSample] = []
        self.faults: list[NodeFault] = []
        self.skipped: list[SkippedLine] = []
        self._lineno = 0
        self._state = dict.fromkeys(self.nodes, "ok")  # the cluster was checked before the run
        self._paused_ns: dict[str, int] = {}

    def feed(self, line: str) -> tuple[list[LagSample], list[NodeFault]]:
        """The samples and faults of one line (none for a skipped line)."""
        self._lineno += 1
        parts = line.rstrip("\r\n").split("\t", 2)
        try:
            epoch, rc = float(parts[0]), int(parts[1])
            output = parts[2]
        except (ValueError, IndexError):
            self.skipped.append(SkippedLine(self._lineno, line, "not <epoch> <exit code> <output>"))
            return [], []
        fields = [f.strip() for f in output.split(FIELD_SEP) if f.strip()]
        states = _READERS[self.kind](self.nodes, rc, fields)
        if isinstance(states, str):
            self.skipped.append(SkippedLine(self._lineno, line, states))
            return [], []
        t = round(epoch - self.t0, 3)
        samples = [self._sample(t, s) for s in states]
        faults = [f for s in states if (f := self._transition(t, s)) is not None]
        self.samples += samples
        self.faults += faults
        return samples, faults

    def silent(self, t: float, reason: str) -> list[NodeFault]:
        """No line came for a while (the host frozen or unreachable, the probe killed): every
        node it covers is ``gone`` from ``t`` on, until a line says otherwise."""
        states = [NodeState(n, "gone", reason) for n in self.nodes]
        faults = [f for s in states if (f := self._transition(t, s)) is not None]
        self.faults += faults
        return faults

    def _sample(self, t: float, s: NodeState) -> LagSample:
        paused = None
        if s.paused_ns is not None:
            before = self._paused_ns.get(s.node)
            self._paused_ns[s.node] = s.paused_ns
            paused = max(0, s.paused_ns - before) / 1e9 if before is not None else None
        return LagSample(s.node, t, s.lag_s, s.behind_bytes, s.behind_trx, paused, s.state)

    def _transition(self, t: float, s: NodeState) -> NodeFault | None:
        before, self._state[s.node] = self._state[s.node], s.state
        if s.state == before:
            return None
        if s.state == "ok":
            return NodeFault(s.node, t, "back", f"replicating again (was {before})")
        return NodeFault(s.node, t, s.state, s.reason)


def _last_words(fields: Sequence[str], rc: int) -> str:
    return fields[-1] if fields else f"the SQL client exited {rc} without a word"


def _key_values(fields: Sequence[str], sep: str) -> dict[str, str]:
    """``Key: value`` pieces (MariaDB's vertical output; a value's own newlines are joined)."""
    kv: dict[str, str] = {}
    last = None
    for f in fields:
        if f.startswith("***"):
            continue
        key, found, value = (f + sep if f.endswith(sep.strip()) and sep.strip() else f).partition(sep)
        if found and key and " " not in key:
            kv[key], last = value.strip(), key
        elif last is not None:
            kv[last] += " " + f
    return kv


def _first(kv: dict[str, str], *keys: str) -> str | None:
    return next((kv[k] for k in keys if k in kv), None)


def _gtids(pos: str) -> dict[int, int]:
    """MariaDB ``domain-server-seq`` list -> the highest seq per domain."""
    out: dict[int, int] = {}
    for g in pos.split(","):
        parts = g.strip().split("-")
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            out[int(parts[0])] = max(out.get(int(parts[0]), 0), int(parts[2]))
    return out


def _trx_behind(kv: dict[str, str]) -> int | None:
    """Transactions received but not applied yet (MariaDB's Gtid_IO_Pos vs gtid_slave_pos)."""
    if "Gtid_IO_Pos" not in kv or "Gtid_Slave_Pos" not in kv:
        return None
    got, applied = _gtids(kv["Gtid_IO_Pos"]), _gtids(kv["Gtid_Slave_Pos"])
    return sum(max(0, seq - applied.get(d, 0)) for d, seq in got.items())


def read_replica(nodes: Sequence[str], rc: int, fields: list[str]) -> list[NodeState] | str:
    """SHOW REPLICA STATUS (vertical) of one MariaDB/MySQL replica."""
    node = nodes[0]
    if rc != 0:
        return [NodeState(node, "gone", _last_words(fields, rc))]
    kv = _key_values(fields, ": ")
    if fields and not kv:
        return "no replica status in the client's output"
    io = _first(kv, "Slave_IO_Running", "Replica_IO_Running")
    sql = _first(kv, "Slave_SQL_Running", "Replica_SQL_Running")
    if io is None or sql is None:
        return [NodeState(node, "stopped", "not a replica: SHOW REPLICA STATUS is empty")]
    sbm = _first(kv, "Seconds_Behind_Master", "Seconds_Behind_Source") or "NULL"
    lag = float(sbm) if sbm.isdigit() else None
    trx = _trx_behind(kv)
    if io == "Yes" and sql == "Yes":
        return [NodeState(node, "ok", lag_s=lag, behind_trx=trx)]
    why = kv.get("Last_SQL_Error") or kv.get("Last_IO_Error") or ""
    reason = f"IO thread {io}, SQL thread {sql}" + (f": {why}" if why else "")
    return [NodeState(node, "stopped", reason, lag_s=lag, behind_trx=trx)]


def read_galera(nodes: Sequence[str], rc: int, fields: list[str]) -> list[NodeState] | str:
    """A Galera node's wsrep status (``name value`` rows)."""
    node = nodes[0]
    if rc != 0:
        return [NodeState(node, "gone", _last_words(fields, rc))]
    kv = _key_values(fields, " ")
    paused = kv.get("wsrep_flow_control_paused_ns", "")
    if not paused.isdigit():
        return "no wsrep_flow_control_paused_ns in the client's output"
    queue = kv.get("wsrep_local_recv_queue", "")
    trx = int(queue) if queue.isdigit() else None
    ok = kv.get("wsrep_ready") == "ON" and kv.get("wsrep_cluster_status", "Primary") == "Primary"
    comment = kv.get("wsrep_local_state_comment", "?")
    reason = "" if ok else f"wsrep_ready {kv.get('wsrep_ready', '?')}, state {comment}"
    return [NodeState(node, "ok" if ok else "stopped", reason, behind_trx=trx, paused_ns=int(paused))]


def read_streaming(nodes: Sequence[str], rc: int, fields: list[str]) -> list[NodeState] | str:
    """The primary's pg_stat_replication: a row per standby (``application_name|state|lag|bytes``),
    a standby found by its node name as application_name (the only row, for one standby)."""
    if rc != 0:
        why = f"the primary's pg_stat_replication unreadable: {_last_words(fields, rc)}"
        return [NodeState(n, "gone", why) for n in nodes]
    rows: dict[str, list[str]] = {}
    for f in fields:
        cols = f.split("|")
        if len(cols) != 4:
            return f"a pg_stat_replication row of {len(cols)} columns, not 4"
        rows[cols[0]] = cols
    if len(nodes) == 1 and len(rows) == 1:
        rows = {nodes[0]: next(iter(rows.values()))}
    return [_standby(n, rows.get(n)) for n in nodes]


def _standby(node: str, row: list[str] | None) -> NodeState:
    if row is None:
        return NodeState(node, "gone", "not in the primary's pg_stat_replication")
    _, state, lag, behind = row
    nbytes = int(behind) if behind.lstrip("-").isdigit() else None
    lag_s = float(lag) if lag else (0.0 if nbytes == 0 else None)
    if state != "streaming":
        return NodeState(node, "stopped", f"walsender state {state or '?'}", lag_s, nbytes)
    return NodeState(node, "ok", lag_s=lag_s, behind_bytes=nbytes)


_READERS = {"replica": read_replica, "galera": read_galera, "streaming": read_streaming}
