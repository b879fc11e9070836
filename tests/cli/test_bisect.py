"""``benchdeck bisect`` for real: a git history of SQLite's amalgamation made here (17 commits),
each tested commit compiled over the test sshd with the recipe and measured with the built-in
workload on its own libsqlite3.

Commit 11 plants a busy loop in ``sqlite3_step`` (about 60 us per step at -O0: the built-in
point query's QPS falls to a fraction of the parent's, past this shared 2-core machine's
run-to-run noise, which at a load average of 10-12 spreads one build's runs from 8,000 to
27,000 QPS; two runs per commit, more where unclear); commit 12 does
not compile (``#error``), commit 13 mends it. The search over 16 commits tests 8, then 12
(skipped), 11, 9, 10: six builds that compile, within ceil(log2 16) + 2. The first invocation
is killed as the endpoints' step ends and the same command resumes it. The no-regression case
reuses the endpoints' builds (good = 0, bad = 8), is killed before it measures and is
finished by ``benchdeck resume``.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.fixtures.cli_helpers import CLI, ROOT, bd, db_rows, sshd_host
from tests.fixtures.servers.sshd import SshdServer
from tests.fixtures.sqlite_source import amalgamation

pytestmark = pytest.mark.integration  # real sshd, git and gcc

HOST = "box"
COMMITS = 16
PLANTED = 11
BROKEN = 12
SPIN = 20000  # iterations of a volatile loop per sqlite3_step (~3 ns each at -O0)
STEP_SIG = "SQLITE_API int sqlite3_step(sqlite3_stmt *pStmt){\n"
SPIN_LINE = "  { volatile unsigned bisect_i; for (bisect_i = 0; bisect_i < %d; bisect_i++) {} }\n"
RECIPE = """
[recipes.sqlite-git]
dbms = "sqlite"
version = "{version}"
source = "{source}"
binary = "lib/libsqlite3.so.0"
compiler = "gcc"
build = [
  ["gcc", "{{cflags}}", "-fPIC", "-DSQLITE_THREADSAFE=1", "-c", "{{source}}/sqlite3.c",
   "-o", "{{builddir}}/sqlite3.o"],
  ["gcc", "-shared", "-Wl,-soname,libsqlite3.so.0", "-o", "{{builddir}}/libsqlite3.so.0",
   "{{builddir}}/sqlite3.o", "-lpthread", "-ldl", "-lm"],
]
install = [["install", "-D", "-m", "0755", "{{builddir}}/libsqlite3.so.0", "{{prefix}}/lib/libsqlite3.so.0"]]

[recipes.sqlite-git.variants.o0]
cflags = "-O0"
"""
ARGS = ["--host", HOST, "--recipe", "sqlite-git", "--workload", "point-query_range=100", "--variant", "o0"]
RUN = ["--time", "2", "--repeat", "2"]


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Ada Bisect",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada Bisect",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    res = subprocess.run(["git", "-C", str(repo), *args], env=env, capture_output=True, text=True, check=True)
    return res.stdout.strip()


def make_history(repo: Path) -> tuple[list[str], str]:
    """Commit 0 is the amalgamation; 1..16 each change it (see the module docstring)."""
    _, version = amalgamation(repo)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "sqlite3.c", "sqlite3.h")
    git(repo, "commit", "-q", "-m", "sqlite amalgamation")
    c = repo / "sqlite3.c"
    for k in range(1, COMMITS + 1):
        text = c.read_text(errors="surrogateescape")
        subject = f"comment {k}"
        if k == PLANTED:
            assert text.count(STEP_SIG) == 1
            text = text.replace(STEP_SIG, STEP_SIG + SPIN_LINE % SPIN)
            subject = "vdbe: check the statement once more per step"
        elif k == BROKEN:
            text += "#error this commit does not compile\n"
            subject = "half a change that does not compile"
        elif k == BROKEN + 1:
            text = text.replace("#error this commit does not compile\n", "")
            subject = "mend the build"
        text += f"/* bisect fixture change {k} */\n"
        c.write_text(text, errors="surrogateescape")
        git(repo, "commit", "-q", "-am", subject)
    return git(repo, "log", "--reverse", "--format=%H").splitlines(), version


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory, sshd_server: SshdServer) -> dict[str, str]:
    base = tmp_path_factory.mktemp("bisect")
    repo = base / "sqlite-git"
    shas, version = make_history(repo)
    cfg = base / "benchdeck.toml"
    host = sshd_host(HOST, sshd_server, base / "remote", "threads = 1\ntables = 1\ntable_size = 2000")
    cfg.write_text(host + RECIPE.format(version=version, source=repo))
    e = dict(os.environ)
    e.update(BENCHDECK_DB=str(base / "bd.duckdb"), BENCHDECK_CONFIG=str(cfg), PYTHONPATH=str(ROOT))
    e["SHAS"] = " ".join(shas)
    return e


def shas(env: dict[str, str]) -> list[str]:
    return env["SHAS"].split()


def _start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*CLI, "bisect", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _read_until(proc: subprocess.Popen[str], marker: str) -> str:
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:
        seen.append(line)
        if marker in line:
            return "".join(seen)
    raise AssertionError(f"{marker!r} never came: {''.join(seen)}")


def test_killed_bisect_resumes_and_names_the_planted_commit(env: dict[str, str]) -> None:
    s = shas(env)
    args = [*ARGS, "--good", s[0], "--bad", s[COMMITS], *RUN, "--format", "json"]
    t0 = time.monotonic()
    first = _start(env, *args)
    seen = _read_until(first, "step 1: endpoints")  # the next thing is commit 8's build
    time.sleep(1)  # (not synchronisation: let the build start so the kill lands inside it)
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    again = bd(env, "bisect", *args, timeout=1800)
    minutes = (time.monotonic() - t0) / 60
    assert again.returncode == 0, again.stderr + again.stdout
    assert "bisect: resuming" in again.stderr
    out = json.loads(again.stdout)
    assert out["outcome"] == "culprit", seen + again.stderr
    saved = [
        json.loads(p.read_text()) for p in (Path(env["BENCHDECK_DB"]).parent / "bd-bisect").glob("*.json")
    ]
    assert any(d["done"] and d["eta"][0] == 0.0 for d in saved)  # the app's ETA: each step's, 0 at the end
    assert out["culprit"]["sha"] == s[PLANTED]
    assert out["culprit"]["subject"] == "vdbe: check the statement once more per step"
    assert out["culprit"]["author"] == "Ada Bisect"
    assert out["parent"]["sha"] == s[PLANTED - 1]
    tested = {t["position"]: t for t in out["tested"]}
    assert tested[BROKEN]["verdict"] == "skip"
    assert tested[PLANTED]["verdict"] == "bad"
    assert tested[PLANTED]["to_good"]["high"] < 0.95
    assert all(t["verdict"] == "good" for p, t in tested.items() if p < PLANTED)
    compiled = db_rows(
        env,
        "SELECT count(DISTINCT name) FROM build_records WHERE recipe = 'sqlite-git' AND status = 'finished'",
    )[0][0]
    assert int(str(compiled)) <= math.ceil(math.log2(COMMITS)) + 2
    assert out["builds"] - 1 <= math.ceil(math.log2(COMMITS)) + 2  # one attempt was the broken commit
    (failed,) = db_rows(env, "SELECT name FROM build_records WHERE status = 'failed'")
    assert f"_g{s[BROKEN][:8]}_" in str(failed[0])
    print(f"\nbisect: {out['builds']} builds, {out['runs']} runs, {minutes:.1f} min (killed + resumed)")
    for t in out["tested"]:  # the figures the README quotes
        r = t["to_good"] or {"ratio": 0, "low": 0, "high": 0}
        print(f"  {t['position']:>2} {t['verdict']:<7} {r['ratio']:.3f} [{r['low']:.3f}, {r['high']:.3f}]")
    assert "ETA" in seen


def test_no_regression_between_two_fast_commits_finished_by_resume(env: dict[str, str]) -> None:
    s = shas(env)
    first = _start(env, *ARGS, "--good", s[0], "--bad", s[8], *RUN)
    seen = _read_until(first, f"_g{s[8][:8]}_rel_o0 reused")  # both built by the first test
    first.kill()  # before the endpoints are measured: `benchdeck resume` takes the bisect on
    first.wait(10)
    res = bd(env, "resume", timeout=900)
    assert res.returncode == 0, res.stderr + res.stdout
    assert f"resuming bisect of point-query_range=100 on box ({s[0][:8]}..{s[8][:8]})" in res.stdout
    assert "no regression between good and bad" in res.stdout
    assert "culprit" not in res.stdout
    assert f"_g{s[0][:8]}_rel_o0 reused" in seen
    again = bd(env, "resume")
    assert "nothing to resume" in again.stdout  # the session is done


def test_bad_refs_are_one_line_errors(env: dict[str, str]) -> None:
    s = shas(env)
    res = bd(env, "bisect", *ARGS, "--good", "nope", "--bad", s[3])
    assert res.returncode == 1
    assert "'nope' is not a commit" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    backwards = bd(env, "bisect", *ARGS, "--good", s[5], "--bad", s[2])
    assert "is not an ancestor of bad" in backwards.stderr
    assert "Traceback" not in backwards.stderr
