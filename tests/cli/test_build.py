"""``benchdeck build`` and ``benchdeck pgo`` for real: SQLite's amalgamation compiled over the test
sshd, the built-in workloads run on each build's own libsqlite3, a killed build reattached or
restarted, a failing compile reported in one line with no build registered.

The o2nofp build of the first test is reused by the PGO loop (same recipe, flags and steps), so
the module compiles SQLite three times (o2nofp, pgo_gen, pgo_use).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import CLI, ROOT, bd, db_rows, remote_output
from tests.fixtures.servers.sshd import SshdServer
from tests.fixtures.sqlite_source import amalgamation

pytestmark = pytest.mark.integration  # real sshd and gcc

HOST = "box"
SQLITE_RECIPE = """
[recipes.sqlite]
dbms = "sqlite"
version = "{version}"
source = "{source}"
binary = "lib/libsqlite3.so.0"
compiler = "gcc"
build = [
  ["gcc", "{{cflags}}", "-fPIC", "-DSQLITE_THREADSAFE=1", "-DSQLITE_ENABLE_COLUMN_METADATA",
   "-c", "{{source}}/sqlite3.c", "-o", "{{builddir}}/sqlite3.o"],
  ["gcc", "-shared", "{{ldflags}}", "-Wl,-soname,libsqlite3.so.0", "-o", "{{builddir}}/libsqlite3.so.0",
   "{{builddir}}/sqlite3.o", "-lpthread", "-ldl", "-lm"],
]
install = [["install", "-D", "-m", "0755", "{{builddir}}/libsqlite3.so.0", "{{prefix}}/lib/libsqlite3.so.0"]]

[recipes.broken]
dbms = "sqlite"
version = "1.0"
stem = "broken1"
source = "{small}"
binary = "lib/libx.so"
compiler = "gcc"
build = [["gcc", "{{cflags}}", "-c", "{{source}}/broken.c", "-o", "{{builddir}}/broken.o"]]

[recipes.gated]
dbms = "sqlite"
version = "1.0"
stem = "gated1"
source = "{small}"
binary = "lib/libtiny.so"
compiler = "gcc"
build = [
  ["sh", "-c", "echo waiting for the gate; until [ -e \\"$1\\" ]; do sleep 0.05; done", "gate",
   "{{source}}/go"],
  ["gcc", "{{cflags}}", "-fPIC", "-shared", "-o", "{{builddir}}/libtiny.so", "{{source}}/tiny.c"],
]
install = [["install", "-D", "{{builddir}}/libtiny.so", "{{prefix}}/lib/libtiny.so"]]
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, sshd_server: SshdServer) -> Iterator[dict[str, str]]:
    base = tmp_path_factory.mktemp("build")
    source, version = amalgamation(base / "sqlite-src")
    small = base / "small-src"
    small.mkdir()
    (small / "broken.c").write_text("int broken(void) { return 0 }\n")
    (small / "tiny.c").write_text("int tiny(void) { return 42; }\n")
    cfg = base / "benchdeck.toml"
    cfg.write_text(
        f"""
[hosts.{HOST}]
hostname = "127.0.0.1"
port = {sshd_server.port}
user = "{sshd_server.user}"
key = "{sshd_server.client_key}"
known_hosts = "{sshd_server.known_hosts}"
workdir = "{base / "remote"}"
threads = 1
tables = 1
table_size = 2000
"""
        + SQLITE_RECIPE.format(version=version, source=source, small=small)
    )
    e = dict(os.environ)
    e.update(BENCHDECK_DB=str(base / "bd.duckdb"), BENCHDECK_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    e["SQLITE_VERSION_UNDER_TEST"] = version
    e["SMALL_SRC"] = str(small)
    return e


def build_rows(env: dict[str, str], name: str) -> list[tuple[object, ...]]:
    return db_rows(
        env,
        "SELECT build_run_id, status, cflags, ldflags, compiler, compiler_version, duration_s, binary_size, "
        "library_dir, training, measured, profile_files, missing_profiles, error "
        "FROM build_records WHERE name = ? ORDER BY build_run_id",
        [name],
    )


def test_build_o2nofp_is_recorded_and_runs_its_own_library(env: dict[str, str]) -> None:
    stem = "sqlite" + env["SQLITE_VERSION_UNDER_TEST"].replace(".", "")
    res = bd(
        env, "build", "--host", HOST, "--recipe", "sqlite", "--variant", "o2nofp", "--quiet-log", timeout=600
    )
    assert res.returncode == 0, res.stderr + res.stdout
    name = f"{stem}_rel_o2nofp"
    assert f"finished: {name} on {HOST}" in res.stdout
    assert "build: 1/3 gcc" in res.stdout
    assert "install: 3/3 install" in res.stdout
    ((_, status, cflags, ldflags, compiler, cver, dur, size, libdir, *_),) = build_rows(env, name)
    assert (status, cflags, ldflags, compiler) == ("finished", "-O2 -fno-omit-frame-pointer", "", "gcc")
    assert str(cver).startswith("gcc")
    assert float(str(dur)) > 1
    assert int(str(size)) > 500_000
    ((probe,),) = db_rows(env, "SELECT probe FROM build_records WHERE name = ?", [name])
    assert str(probe).startswith(f"{env['SQLITE_VERSION_UNDER_TEST']} {libdir}/libsqlite3.so.0 COMPILER=gcc-")
    listed = bd(env, "compiled", "--host", HOST)
    assert name in listed.stdout
    assert "-O2 -fno-omit-frame-pointer" in listed.stdout
    # the registered build runs the built-in workload over SSH, with ITS library loaded
    run = bd(
        env, "run", "--host", HOST, "--build", name, "--workload", "point-query_range=100", "--time", "1"
    )
    assert run.returncode == 0, run.stderr + run.stdout
    ((run_id, plan),) = db_rows(
        env,
        "SELECT r.run_id, rr.plan FROM runs r JOIN builds b USING (build_id) "
        "JOIN remote_runs rr USING (run_id) WHERE b.name = ?",
        [name],
    )
    p = json.loads(str(plan))
    assert ["LD_LIBRARY_PATH", libdir] in p["env"]
    assert f"--expect-lib={libdir}" in p["bench_argv"]
    version = env["SQLITE_VERSION_UNDER_TEST"]
    assert f"SQLite {version} {libdir}/libsqlite3.so.0" in remote_output(env, int(str(run_id)))


def test_pgo_loop_end_to_end_and_compare(env: dict[str, str]) -> None:
    stem = "sqlite" + env["SQLITE_VERSION_UNDER_TEST"].replace(".", "")
    base, gen, use = (f"{stem}_rel_{v}" for v in ("o2nofp", "pgo_gen", "pgo_use"))
    res = bd(
        env,
        "pgo",
        "--host", HOST, "--recipe", "sqlite",
        "--train", "read-write_range=10", "--train", "point-query_range=100",
        "--measure", "builtin", "--base-variant", "o2nofp",
        "--train-time", "2", "--time", "1", "--quiet-log",
        timeout=900,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr + res.stdout[-3000:]
    assert f"pgo: {base} reused" in res.stdout  # the first test's compile, not a second one
    assert f"Relative to: {base}\ncol-1 : {use}" in res.stdout
    # every built-in workload measured on both builds, alternating, all finished
    measured = db_rows(
        env,
        "SELECT b.name, w.name, r.status FROM runs r JOIN builds b USING (build_id) "
        "JOIN workloads w USING (workload_id) WHERE b.name IN (?, ?) AND r.status = 'finished'",
        [base, use],
    )
    from benchdeck.engine.families.builtin import BUILTIN_WORKLOADS

    for w in BUILTIN_WORKLOADS:
        assert (use, w, "finished") in measured
        assert (base, w, "finished") in measured
    trained = db_rows(
        env, "SELECT w.name FROM runs r JOIN builds b USING (build_id) JOIN workloads w USING (workload_id) "
        "WHERE b.name = ? AND r.status = 'finished' ORDER BY r.run_id", [gen],
    )  # fmt: skip
    assert [t[0] for t in trained] == ["read-write_range=10", "point-query_range=100"]
    ((_, status, cflags, ldflags, _, _, dur, size, _, training, measured_json, files, missing, _),) = (
        build_rows(env, use)
    )
    assert status == "finished"
    assert "-fprofile-use=" in str(cflags)
    assert "-fprofile-use=" in str(ldflags)
    assert float(str(dur)) > 1
    assert int(str(size)) > 500_000
    assert int(str(files)) >= 1
    assert missing == 0
    assert [t["workload"] for t in json.loads(str(training))] == [
        "read-write_range=10",
        "point-query_range=100",
    ]
    assert json.loads(str(measured_json)) == list(BUILTIN_WORKLOADS)
    ((gen_status, gen_cflags),) = [(r[1], r[2]) for r in build_rows(env, gen)]
    assert gen_status == "finished"
    assert "-fprofile-generate=" in str(gen_cflags)
    # compare shows the two builds from the store
    cmp = bd(env, "compare", "--host", HOST, "--base", base, "--with", use, "--format", "text")
    assert cmp.returncode == 0, cmp.stderr
    assert f"col-1 : {use}" in cmp.stdout
    assert "point-query_range=100" in cmp.stdout


def test_failing_compile_is_one_line_and_registers_nothing(env: dict[str, str]) -> None:
    res = bd(env, "build", "--host", HOST, "--recipe", "broken", "--variant", "o2nofp", "--quiet-log")
    assert res.returncode == 1
    first, *tail = res.stderr.splitlines()
    assert first.startswith("benchdeck: build broken1_rel_o2nofp failed at step build (gcc), exit 1: ")
    assert "error: expected" in first
    assert "Traceback" not in res.stderr
    assert any("return 0 }" in ln for ln in tail)  # the log's tail, indented
    assert all(ln.startswith("    ") for ln in tail)
    ((_, status, *_rest, error),) = build_rows(env, "broken1_rel_o2nofp")
    assert status == "failed"
    assert "exit 1" in str(error)
    assert "broken1" not in bd(env, "compiled").stdout
    run = bd(
        env, "run", "--host", HOST, "--build", "broken1_rel_o2nofp", "--workload", "point-query_range=100"
    )
    assert run.returncode == 2  # not registered: a name `run` does not know, checked before anything
    assert "unknown build 'broken1_rel_o2nofp'" in run.stderr


def _start_build(env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "build", "--host", HOST, "--recipe", "gated", "--variant", "o2nofp"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _read_until(proc: subprocess.Popen[str], marker: str) -> list[str]:
    """Lines of the CLI's output up to the first holding ``marker`` (EOF first: the test fails)."""
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if marker in line:
            return seen
    raise AssertionError(f"{marker!r} never came: {''.join(seen)}")


def _remote_dir(lines: list[str]) -> Path:
    started = next(ln for ln in lines if " started on " in ln)
    return Path(started.rsplit("(", 1)[1].rstrip(")\n"))


@pytest.mark.parametrize("host_survives", [True, False], ids=["reattached", "restarted"])
def test_killed_build_is_reattached_or_restarted(env: dict[str, str], host_survives: bool) -> None:
    gate = Path(env["SMALL_SRC"]) / "go"
    gate.unlink(missing_ok=True)
    first = _start_build(env)
    lines = _read_until(first, "waiting for the gate")
    remote = _remote_dir(lines)
    first.kill()  # benchdeck dies mid-build; the build runs on, detached
    first.wait(10)
    if not host_survives:  # the build's processes die too (a host reboot, an OOM kill)
        pgid = int((remote / "build.pgid").read_text())
        os.killpg(pgid, signal.SIGKILL)
    again = _start_build(env)
    seen = _read_until(again, "reattach" if host_survives else "waiting for the gate")
    gate.touch()
    assert again.stdout is not None
    out = "".join(seen) + again.stdout.read()
    assert again.wait(120) == 0, out
    rows = build_rows(env, "gated1_rel_o2nofp")
    if host_survives:
        assert f"reattach: {remote}" in out
        assert rows[-1][1] == "finished"
        assert f"build {rows[-1][0]} finished" in out
        assert rows[-1][0] == int(remote.name.rsplit("-", 1)[1])  # the same attempt, followed to its end
    else:
        assert "was interrupted: starting over" in out
        assert [r[1] for r in rows[-2:]] == ["interrupted", "finished"]
    assert [r[1] for r in rows].count("finished") == 1  # one registered build of that name
    assert "gated1_rel_o2nofp" in bd(env, "compiled").stdout


def test_pgo_refuses_a_workload_its_builds_cannot_run_before_compiling(env: dict[str, str]) -> None:
    before = bd(env, "compiled", "--all").stdout
    res = bd(
        env, "pgo", "--host", HOST, "--recipe", "sqlite", "--train", "oltp_nosuch", "--measure", "builtin"
    )
    assert res.returncode == 2
    assert res.stderr.startswith("benchdeck: oltp_nosuch: ")
    assert "built-in workloads" in res.stderr
    assert bd(env, "compiled", "--all").stdout == before
