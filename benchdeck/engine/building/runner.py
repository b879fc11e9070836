"""One build on a host, run detached like a benchmark and followed by byte offset, as events.

The recipe's steps become one shell script (every argv quoted with ``shlex.join``) that runs
detached in its own process group in a per-build remote directory, writing ``build.log``. The
runner follows the log (each line a :class:`LogLine`, each step a :class:`Phase`), and once
the script's exit code is there it checks the result: the binary exists (its size), the
compiler's version, and for a PGO use build that gcc found its profiles. A benchdeck that is
closed or killed never stops a build: :meth:`BuildRunner.events` with the recorded processes
reattaches (the log is read again from its start).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import posixpath
import shlex
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from datetime import datetime

from benchdeck.engine.building.recipes import BuildSpec, missing_profiles
from benchdeck.engine.events import LogLine, Phase, RemoteProc, RunStarted
from benchdeck.engine.hosts.requirements import remote_missing
from benchdeck.engine.running.event_queue import EventQueue
from benchdeck.engine.running.follow import LineFollower
from benchdeck.engine.running.run_dirs import write_file
from benchdeck.engine.transport import DetachedProcess, Transport, TransportError

POLL_S = 0.5
TAIL_LINES = 15
STEP_MARK = "### benchdeck step "
DONE_MARK = "### benchdeck done "
START_MARK = "### benchdeck start "
# Counts the profile files under "$1" (0 when it does not exist).
_COUNT_GCDA = 'if [ -d "$1" ]; then find "$1" -name "*.gcda" -type f | wc -l; else echo 0; fi'
_SIZE = 'test -f "$1" || exit 3; wc -c <"$1"'
_MISSING_DIR = 'test -d "$1" || echo missing'
# What Python's sqlite3 loads with the build's directory on LD_LIBRARY_PATH: version, the file
# (from /proc/self/maps) and its COMPILER= compile option; exit 3 unless the file is in
# sys.argv[1]. A constant script, the directory passed as data.
_SQLITE_PROBE = (
    "import os, sqlite3, sys\n"
    "c = sqlite3.connect(':memory:')\n"
    "opts = [r[0] for r in c.execute('PRAGMA compile_options') if r[0].startswith('COMPILER=')]\n"
    "lib = next((ln.split()[-1] for ln in open('/proc/self/maps') if 'libsqlite3' in ln), '(linked in)')\n"
    "print(sqlite3.sqlite_version, lib, *opts)\n"
    "sys.exit(0 if os.path.dirname(os.path.realpath(lib)) == os.path.realpath(sys.argv[1]) else 3)\n"
)


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


@dataclass(frozen=True, slots=True)
class BuildResult:
    """What a finished build records: compiler, duration, binary size, profile checks."""

    compiler: str
    compiler_version: str
    duration_s: float
    binary_size: int
    step_seconds: tuple[tuple[str, float], ...] = ()
    profile_files: int | None = None  # pgo_use: .gcda files it read from
    missing_profiles: int | None = None  # pgo_use: functions gcc found no profile for
    probe: str | None = None  # SQLite: "VERSION LIBRARY COMPILER=..." as python3's sqlite3 loads it


@dataclass(frozen=True, slots=True)
class BuildFinished:
    run_id: int
    result: BuildResult
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class BuildFailed:
    """A build that failed: ``error`` is one line, ``tail`` the last lines of its log."""

    run_id: int
    error: str
    tail: tuple[str, ...]
    finished_at: datetime
    interrupted: bool = False  # its processes died without an exit code (killed, host reboot)


BuildEvent = Phase | LogLine | RunStarted | BuildFinished | BuildFailed


class BuildError(Exception):
    """A build that cannot start or did not produce a usable result (one line)."""


def build_script(spec: BuildSpec) -> str:
    """The recipe's steps as a POSIX shell script: every word quoted, stops at the first failure."""
    lines = [
        "set -e",
        f"printf '{START_MARK}%s\\n' \"$(date +%s.%N)\"",
        shlex.join(["rm", "-rf", "--", *spec.wipe, spec.prefix]),
        shlex.join(["mkdir", "-p", "--", spec.builddir, *([spec.profile_dir] if spec.profile_dir else [])]),
        shlex.join(["cd", "--", spec.builddir]),
    ]
    for i, (step, argv) in enumerate(spec.steps, 1):
        label = f"{i}/{len(spec.steps)} {step}"
        lines.append(
            f"printf '{STEP_MARK}%s %s: %s\\n' {shlex.quote(label)} \"$(date +%s.%N)\" {shlex.quote(argv[0])}"
        )
        lines.append(shlex.join(argv))
    lines.append(f"printf '{DONE_MARK}%s\\n' \"$(date +%s.%N)\"")
    return "\n".join(lines) + "\n"


def build_env(spec: BuildSpec) -> dict[str, str]:
    """CFLAGS/CXXFLAGS/LDFLAGS for configure-style builds, then the recipe's own env."""
    return {"CFLAGS": spec.cflags, "CXXFLAGS": spec.cflags, "LDFLAGS": spec.ldflags, **dict(spec.env)}


class BuildRunner:
    """Runs (or reattaches to) one build; iterate :meth:`events`."""

    def __init__(self, transport: Transport, spec: BuildSpec, build_run_id: int, remote_dir: str):
        self.t = transport
        self.spec = spec
        self.id = build_run_id
        self.remote_dir = remote_dir
        self.log: list[str] = []
        self._out: EventQueue[BuildEvent] = EventQueue()
        self._emit = self._out.put

    def events(self, procs: Sequence[RemoteProc] | None = None) -> AsyncGenerator[BuildEvent, None]:
        """Start the build (or, with ``procs`` of an earlier start, reattach) and yield its events."""
        return self._out.stream(lambda: self._drive(procs))

    async def _drive(self, procs: Sequence[RemoteProc] | None) -> None:
        try:
            if procs is None:
                await self._preflight()
                procs = await self._start()
            else:
                self._emit(Phase(self.id, "reattach", self.remote_dir))
            proc = procs[0]
            dp = DetachedProcess(proc.pid, proc.pgid, self.remote_dir, proc.name, proc.out)
            rc = await self._follow(dp)
            if rc is None:
                self._emit(
                    BuildFailed(
                        self.id,
                        f"build {self.spec.name} on {self.spec.host} was interrupted (its processes "
                        "ended without an exit code); run it again to start over",
                        self._tail(),
                        _now(),
                        interrupted=True,
                    )
                )
            elif rc != 0:
                self._emit(BuildFailed(self.id, self._failure(rc), self._tail(), _now()))
            else:
                self._emit(BuildFinished(self.id, await self._check(), _now()))
        except (BuildError, TransportError) as exc:
            self._emit(BuildFailed(self.id, str(exc), self._tail(), _now()))

    async def _preflight(self) -> None:
        s = self.spec
        self._emit(Phase(self.id, "preflight", f"{s.name} on {s.host}"))
        res = await self.t.run(["sh", "-c", _MISSING_DIR, "-", s.source])
        if res.stdout.strip():
            raise BuildError(f"{s.host}: source directory {s.source} of recipe {s.recipe} does not exist")
        tools = sorted({s.compiler, *(argv[0] for _, argv in s.steps)})
        missing = await remote_missing(self.t, tools)
        if missing:
            raise BuildError(f"{s.host}: missing {', '.join(missing)} (needed by recipe {s.recipe})")
        if s.variant == "pgo_use":
            n = await self._profiles()
            if n == 0:
                raise BuildError(
                    f"no profiles (.gcda) in {s.profile_dir}: build pgo_gen and run the training "
                    "workloads on it first (benchdeck pgo does both)"
                )
            self._emit(LogLine(self.id, "benchdeck", f"{n} profile files in {s.profile_dir}"))

    async def _profiles(self) -> int:
        assert self.spec.profile_dir is not None
        res = await self.t.run(["sh", "-c", _COUNT_GCDA, "-", self.spec.profile_dir])
        return int(res.stdout.strip() or 0) if res.ok else 0

    async def _start(self) -> list[RemoteProc]:
        d = self.remote_dir
        script = posixpath.join(d, "build.sh")
        res = await write_file(self.t, script, build_script(self.spec))
        if not res.ok:
            raise BuildError(f"{self.spec.host}: cannot write {script}: {res.stderr.strip()}")
        dp = await self.t.start_detached(
            ["sh", script], run_dir=d, stdout_name="build.log", env=build_env(self.spec)
        )
        procs = [RemoteProc("build", dp.pid, dp.pgid, dp.stdout_name)]
        self._emit(RunStarted(self.id, self.spec.host, d, _now(), tuple(procs)))
        return procs

    async def _follow(self, proc: DetachedProcess) -> int | None:
        """Follow the log until the script's exit code is there; None if it died without one."""
        follower = LineFollower(self.t, proc.stdout_path)
        reader = asyncio.create_task(self._read(follower))
        try:
            while True:
                with contextlib.suppress(TransportError):
                    if await self.t.file_size(proc.rc_path) is not None:
                        raw = await self.t.read_from(proc.rc_path, 0, 64)
                        rc: int | None = int(raw.strip() or b"0")
                        break
                    if not await self.t.is_alive(proc.pgid) and await self.t.file_size(proc.rc_path) is None:
                        rc = None
                        break
                await asyncio.sleep(POLL_S)
            await self._drain(follower)
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        return rc

    async def _read(self, follower: LineFollower) -> None:
        async for lines in follower.batches():
            for line in lines:
                self.log.append(line)
                if line.startswith(STEP_MARK):
                    label, _, rest = line.removeprefix(STEP_MARK).partition(": ")
                    n_of, _, step_stamp = label.partition(" ")
                    step = step_stamp.rsplit(" ", 1)[0]
                    self._emit(Phase(self.id, step, f"{n_of} {rest}"))
                elif not line.startswith((START_MARK, DONE_MARK)):
                    self._emit(LogLine(self.id, "build", line))

    async def _drain(self, follower: LineFollower) -> None:
        while True:
            with contextlib.suppress(TransportError):
                size = await self.t.file_size(follower.path)
                if size is None or follower.offset >= size:
                    return
            await asyncio.sleep(0.05)

    def _tail(self) -> tuple[str, ...]:
        lines = [
            ln for ln in self.log if ln.strip() and not ln.startswith((START_MARK, DONE_MARK, STEP_MARK))
        ]
        return tuple(lines[-TAIL_LINES:])

    def _failure(self, rc: int) -> str:
        step = next((ln for ln in reversed(self.log) if ln.startswith(STEP_MARK)), "")
        label, _, cmd = step.removeprefix(STEP_MARK).partition(": ")
        name = label.split(" ")[1] if label.count(" ") >= 1 else "setup"
        errors = [ln for ln in self.log if "error" in ln.lower() and not ln.startswith(STEP_MARK)]
        why = errors[0].strip() if errors else (self._tail()[-1] if self._tail() else "")
        cmd = f" ({cmd})" if cmd else ""
        return f"build {self.spec.name} failed at step {name}{cmd}, exit {rc}: {why}"

    def _step_seconds(self) -> tuple[float, tuple[tuple[str, float], ...]]:
        """Total seconds (start to done marks) and seconds per step, from the log's time stamps."""
        marks: list[tuple[str, float]] = []
        for ln in self.log:
            with contextlib.suppress(ValueError, IndexError):
                if ln.startswith(START_MARK):
                    marks.append(("start", float(ln.split()[-1])))
                elif ln.startswith(DONE_MARK):
                    marks.append(("done", float(ln.split()[-1])))
                elif ln.startswith(STEP_MARK):
                    label = ln.removeprefix(STEP_MARK).partition(": ")[0].split(" ")
                    marks.append((label[1], float(label[2])))
        if len(marks) < 2:
            return 0.0, ()
        steps: dict[str, float] = {}
        for (name, t0), (_, t1) in itertools.pairwise(marks[1:]):
            steps[name] = round(steps.get(name, 0.0) + t1 - t0, 3)
        return round(marks[-1][1] - marks[0][1], 3), tuple(steps.items())

    async def _check(self) -> BuildResult:
        s = self.spec
        self._emit(Phase(self.id, "check", s.binary))
        res = await self.t.run(["sh", "-c", _SIZE, "-", s.binary])
        if not res.ok or not res.stdout.strip().isdigit():
            raise BuildError(f"build {s.name}: the install step left no {s.binary}")
        size = int(res.stdout.strip())
        ver = await self.t.run([s.compiler, "--version"])
        version = (ver.stdout.strip().splitlines() or ["?"])[0]
        total, steps = self._step_seconds()
        files = missing = None
        if s.variant == "pgo_use":
            files, warned = await self._profiles(), missing_profiles(self.log)
            missing = len(warned)
            if warned and s.profile_check == "all":
                raise BuildError(
                    f"build {s.name}: gcc found no profile for {missing} function(s) ({warned[0].strip()}); "
                    "the gen and use builds must compile at the same paths and the training must run the "
                    "gen build"
                )
            self._emit(
                LogLine(self.id, "benchdeck", f"profiles: {files} files read, {missing} functions without")
            )
        probe = await self._probe_sqlite() if posixpath.basename(s.binary).startswith("libsqlite3") else None
        return BuildResult(s.compiler, version, total, size, steps, files, missing, probe)

    async def _probe_sqlite(self) -> str:
        """The built libsqlite3 is the one python3's sqlite3 loads from the library directory."""
        s = self.spec
        argv = ["python3", "-c", _SQLITE_PROBE, s.library_dir]
        res = await self.t.run(argv, env={"LD_LIBRARY_PATH": s.library_dir})
        if not res.ok:
            why = (res.stderr.strip().splitlines() or [res.stdout.strip()])[-1]
            raise BuildError(f"build {s.name}: python3's sqlite3 does not load {s.binary} (it loads: {why})")
        self._emit(LogLine(self.id, "benchdeck", f"python3 sqlite3 loads: {res.stdout.strip()}"))
        return res.stdout.strip()
