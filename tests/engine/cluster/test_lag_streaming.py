"""The lag probe on a real PostgreSQL primary + streaming standby over the test sshd: the
standby's replay paused mid-writes makes its lag rise and fall, as pg_stat_replication says."""

from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

from benchdeck.engine.cluster.lag_parse import LagParser
from benchdeck.engine.cluster.lag_probe import probe_argv, probe_kind
from benchdeck.engine.transport import SSHTransport
from tests.engine.cluster.helpers import ProbeFile
from tests.fixtures.servers import run_checked, wait_until
from tests.fixtures.servers.postgres import PostgresServer
from tests.fixtures.servers.replication import PostgresStreaming

VIEW = (
    "SELECT coalesce(extract(epoch FROM replay_lag)::text, ''),"
    " pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn)::bigint FROM pg_stat_replication"
)


def psql(server: PostgresServer, sql: str) -> str:
    return run_checked(server.psql_argv("-Atc", sql), sql).stdout.strip()


class Watch:
    """pg_stat_replication as the test sees it, four times a second: (epoch, lag s, bytes)."""

    def __init__(self, primary: PostgresServer):
        self.primary, self.seen = primary, list[tuple[float, float | None, int]]()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            t = time.time()
            out = subprocess.run(self.primary.psql_argv("-Atc", VIEW), capture_output=True, text=True).stdout
            if "|" in out:
                lag, nbytes = out.strip().split("|")
                self.seen.append((t, float(lag) if lag else None, int(nbytes)))
            self._stop.wait(0.25)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


async def test_paused_replay_makes_the_lag_rise_and_fall_as_pg_stat_replication_says(
    ssh: SSHTransport, postgres_streaming: PostgresStreaming, tmp_path: Path
) -> None:
    pg = postgres_streaming
    psql(pg.primary, "CREATE TABLE IF NOT EXISTS lagt (id serial PRIMARY KEY, v int)")
    pg.sync()
    t0 = time.time()
    argv = probe_argv(probe_kind("postgres", "streaming"), pg.primary.psql_argv(), count=120)
    dp = await ssh.start_detached(argv, run_dir=str(tmp_path), stdout_name="p.lag.out")
    probe = ProbeFile(tmp_path / "p.lag.out", LagParser("streaming", ["s1"], t0))
    samples, parser = probe.poll, probe.parser

    writes = "INSERT INTO lagt (v) VALUES (1); SELECT pg_sleep(0.1);\n" * 300
    load = subprocess.Popen(  # noqa: ASYNC220 - a writer beside the test, never awaited
        pg.primary.psql_argv("-q"), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    assert load.stdin is not None
    load.stdin.write(writes)
    load.stdin.close()
    watch = Watch(pg.primary)
    try:
        psql(pg.standby, "SELECT pg_wal_replay_pause()")
        paused_from = len(samples())
        try:
            wait_until(
                lambda: sum((s.behind_bytes or 0) > 0 for s in samples()[paused_from:]) >= 4,
                timeout=60,
                what="bytes behind",
            )
        finally:
            psql(pg.standby, "SELECT pg_wal_replay_resume()")
        resumed_from = len(samples())
        wait_until(
            lambda: any(s.behind_bytes == 0 for s in samples()[resumed_from:]), timeout=60, what="caught up"
        )
    finally:
        load.kill()
        load.wait()
        watch.stop()
        await ssh.kill_group(dp.pgid)
    got = samples()
    assert not parser.skipped
    assert not parser.faults  # a paused replay still streams: no fault
    paused = [s.behind_bytes or 0 for s in got[paused_from:resumed_from]]
    assert max(paused) > 0
    assert paused[-1] >= max(paused[:2])  # piling up while paused
    assert got[-1].behind_bytes == 0
    # replay_lag grows while the replay waits, and falls once it is replayed, as the view says
    lags = [(s.t + t0, s.lag_s) for s in got if s.lag_s is not None]
    during = [s.lag_s for s in got[paused_from:resumed_from] if s.lag_s is not None]
    assert during[-1] >= 3
    assert during == sorted(during)
    assert got[-1].lag_s is not None
    assert got[-1].lag_s < 1
    checked = 0
    for epoch, v in lags:
        near = [w for t, w, _ in watch.seen if w is not None and epoch - 0.3 <= t <= epoch + 1.2]
        if near:
            assert min(abs(v - w) for w in near) <= 1.0, (v, near)
            checked += 1
    assert checked >= 4
