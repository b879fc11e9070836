"""Probe lines as the parser reads them: hand-written lines of each probe kind, bad ones kept."""

from __future__ import annotations

from benchdeck.engine.cluster.lag_parse import LagParser
from benchdeck.engine.cluster.lag_probe import probe_argv, probe_kind

US = "\x1f"


def replica_line(
    epoch: float, io: str, sql: str, sbm: str, io_pos: str = "0-1-9", applied: str = "0-1-9"
) -> str:
    row = "*************************** 1. row ***************************"
    rows = [row, f"Slave_IO_Running: {io}", f"Slave_SQL_Running: {sql}", f"Seconds_Behind_Master: {sbm}",
            "Last_SQL_Error:", f"Gtid_IO_Pos: {io_pos}", row, f"Gtid_Slave_Pos: {applied}"]  # fmt: skip
    return f"{epoch}\t0\t{US.join(rows)}"


def test_malformed_lines_are_kept_as_skipped_with_their_number() -> None:
    p = LagParser("replica", ["r1"], t0=100.0)
    assert p.feed("garbage") == ([], [])
    assert p.feed("101.5\tx\tout") == ([], [])
    assert p.feed("102.0\t0\tjust some words") == ([], [])
    samples, _ = p.feed(replica_line(103.25, "Yes", "Yes", "2", "0-1-12", "0-1-9"))
    assert [(s.lineno, s.text) for s in p.skipped] == [
        (1, "garbage"),
        (2, "101.5\tx\tout"),
        (3, "102.0\t0\tjust some words"),
    ]
    assert samples[0].t == 3.25
    assert samples[0].lag_s == 2.0
    assert samples[0].behind_trx == 3


def test_a_state_change_is_a_fault_once_and_back() -> None:
    p = LagParser("replica", ["r1"], t0=0.0)
    p.feed(replica_line(1, "Yes", "Yes", "0"))
    p.feed(replica_line(2, "Yes", "No", "NULL"))
    p.feed(replica_line(3, "Yes", "No", "NULL"))
    p.feed("4.0\t1\tERROR 2002 (HY000): Can't connect to server on '127.0.0.1' (115)")
    p.feed(replica_line(5, "Yes", "Yes", "7"))
    assert [(f.t, f.kind) for f in p.faults] == [(2, "stopped"), (4, "gone"), (5, "back")]
    assert p.faults[1].reason.startswith("ERROR 2002")
    assert [s.state for s in p.samples] == ["ok", "stopped", "stopped", "gone", "ok"]


def test_galera_paused_time_is_the_second_s_share_of_the_counter() -> None:
    p = LagParser("galera", ["g2"], t0=0.0)
    line = "{}\t0\twsrep_flow_control_paused_ns {}{}wsrep_ready ON{}wsrep_local_recv_queue 4"
    p.feed(line.format(1, 1_000_000, US, US))
    p.feed(line.format(2, 251_000_000, US, US))
    assert [s.paused_s for s in p.samples] == [None, 0.25]
    assert p.samples[1].behind_trx == 4
    assert p.samples[1].state == "ok"


def test_streaming_rows_go_to_their_standby_and_a_missing_one_is_gone() -> None:
    p = LagParser("streaming", ["s1", "s2"], t0=10.0)
    p.feed(f"11\t0\ts1|streaming|1.5|8192{US}s2|streaming||0")
    p.feed("12\t0\ts1|catchup||100")
    assert [(s.node, s.lag_s, s.behind_bytes, s.state) for s in p.samples] == [
        ("s1", 1.5, 8192, "ok"), ("s2", 0.0, 0, "ok"),
        ("s1", None, 100, "stopped"), ("s2", None, None, "gone"),
    ]  # fmt: skip
    assert [(f.node, f.kind) for f in p.faults] == [("s1", "stopped"), ("s2", "gone")]


def test_the_probe_argv_keeps_each_client_word_apart() -> None:
    argv = probe_argv(probe_kind("mariadb", "async"), ["mariadb", "-p pass; rm -rf /"], count=5)
    assert argv[:2] == ["sh", "-c"]
    assert argv[4:7] == ["1", "5", "mariadb"]
    assert "-p pass; rm -rf /" in argv  # one word, never shell text
