"""The capture loop benchdeck runs ON the benchmarked host (standard library only, shipped to
the run directory like the built-in workload's client; engine/profiling/capture.py).

``counters``: ``--first`` seconds in, then every ``--period`` seconds, a ``perf stat -x,``
window of ``--window`` seconds on the target's pids; ``cpu``: a ``perf record -g`` window, then
``perf script`` folded into stacks here, where the binaries and symbols are. The target is
found again at every window (a restarted server, PostgreSQL's backends that come and go with
connections): the first of the ``--target`` specs that names a live process, plus its children
with ``--children``. Each window is one block on stdout, written at once and followed by the
runner by byte offset::

    # window 3 start=30.002 seconds=10.004 target=pids 812,901
    <perf stat -x, lines, or folded stacks "comm;root;...;leaf 12">
    # end 3

A window perf could not take (perf killed, the target gone) is a line
``# gap 3 start=30.002 reason=...``. The runner stops the loop with SIGTERM when the benchmark
ends: a window then open ends there and is folded and written, perf ignoring that SIGTERM (perf
record stops on it and writes its data); a loop stopped before its first window says so in a gap.
The kinds never count at once: each window holds ``perf.lock`` in the run directory.
``check`` prints the preflight's findings, one per line:
``problem <what> <text>`` (the capture cannot run) or ``warn <what> <text>``.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import glob
import os
import pwd
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

try:  # shipped beside this file under the same package path
    from .elf_check import binary_findings
    from .fold import fold
except ImportError:  # pragma: no cover - run as a plain script
    from elf_check import binary_findings  # type: ignore[no-redef]
    from fold import fold  # type: ignore[no-redef]

INSTALL = "install perf: Debian linux-perf, Ubuntu linux-tools-$(uname -r), RHEL/Fedora perf"


def resolve(targets: list[str], children: bool) -> list[int]:
    """The pids of the first target spec that names a live process (and its children)."""
    for spec in targets:
        kind, _, arg = spec.partition(":")
        pids = _lookup(kind, arg)
        pids = [p for p in pids if _alive(p)]
        if pids:
            if children:
                pids += [c for c in _children(set(pids)) if c not in pids]
            return sorted(set(pids))
    return []


def _lookup(kind: str, arg: str) -> list[int]:
    if kind == "pid":
        return [int(arg)] if arg.isdigit() else []
    if kind == "pidfile":
        return _pidfile(arg)
    if kind == "datadir":
        for path in [os.path.join(arg, "postmaster.pid"), *sorted(glob.glob(os.path.join(arg, "*.pid")))]:
            if pids := _pidfile(path):
                return pids
        return []
    if kind == "port":
        return _port_owner(int(arg)) if arg.isdigit() else []
    if kind == "pgid":
        return [p for p in _all_pids() if _stat(p)[1] == int(arg)] if arg.isdigit() and int(arg) > 0 else []
    return []


def _pidfile(path: str) -> list[int]:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            first = f.readline().strip()
    except OSError:
        return []
    return [int(first)] if first.isdigit() else []


def _all_pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def _stat(pid: int) -> tuple[int, int]:
    """(ppid, pgrp) of a live process, (-1, -1) when it is gone or a zombie (perf cannot
    attach to an exited process that its parent has not reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return (-1, -1) if rest[0] in ("Z", "X") else (int(rest[1]), int(rest[2]))
    except (OSError, IndexError, ValueError):
        return -1, -1


def _alive(pid: int) -> bool:
    return _stat(pid) != (-1, -1)


def _children(parents: set[int]) -> list[int]:
    return [p for p in _all_pids() if _stat(p)[0] in parents]


def _port_owner(port: int) -> list[int]:
    """The process listening on TCP ``port`` (its socket's inode among the pids' fds: root,
    or the server's own user, can see them)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                for line in list(f)[1:]:
                    cols = line.split()
                    if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(f"socket:[{cols[9]}]")
        except OSError:
            continue
    for pid in _all_pids():
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
            if any(os.readlink(f"/proc/{pid}/fd/{fd}") in inodes for fd in fds):
                return [pid]
        except OSError:
            continue
    return []


# --- the windows ---------------------------------------------------------------------------


class _Stopped(Exception):
    """The runner stopped the loop (SIGTERM) between windows."""


_STOP = {"asked": False, "busy": False}  # the runner's SIGTERM came; a window is being taken


def _on_term(*_: object) -> None:
    if _STOP["asked"]:  # the second of the stop (the wrapper forwards it, the group gets it too)
        return
    _STOP["asked"] = True
    if not _STOP["busy"]:
        raise _Stopped


def _outlive_term() -> None:
    """In a perf child: the runner's SIGTERM (sent to the loop's whole group) ends perf's
    workload (``sleep``: perf stat then writes its counts) or perf record (it writes its data),
    never perf stat or perf script themselves."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def _nap(seconds: float) -> None:
    """Sleep ``seconds``, less when the runner stops the loop meanwhile."""
    end = time.monotonic() + seconds
    while not _STOP["asked"] and (left := end - time.monotonic()) > 0:
        time.sleep(min(left, 0.1))


@contextlib.contextmanager
def _turn(lock: str | None) -> Iterator[None]:
    """Hold the run's perf lock (``lock`` None: none, the preflight): one kind counts at a time."""
    if lock is None:
        yield
        return
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _perf_stat(
    pids: list[int], events: str, seconds: float, tmp: str, span: list[float], lock: str | None = None
) -> tuple[str | None, str]:
    out = os.path.join(tmp, "stat.csv")
    argv = ["perf", "stat", "-x,", "-o", out, "-e", events, "-p", ",".join(map(str, pids))]
    with _turn(lock):
        if _STOP["asked"]:
            return None, "the run ended as the window opened"
        span[:] = [time.monotonic()]
        res = subprocess.run(
            [*argv, "--", "sleep", f"{seconds:g}"], capture_output=True, text=True, preexec_fn=_outlive_term
        )
        span.append(time.monotonic())
    if res.returncode != 0:
        return None, _why(res)
    with open(out, encoding="utf-8", errors="replace") as f:
        return f.read(), ""


# perf record -p opens a cpu-clock event per thread of the target: the kernel arms and cancels
# its timer at every context switch, and a server under sysbench point queries switches ~10^5
# times a second. Measured on the 2-core VM (MariaDB, 2 sysbench threads, 5 interleaved
# repeats): the server's CPU per query +33% with -p, +6% with a system-wide -a recording
# (a timer per CPU, left running) filtered to the target's pids when folding. -a needs
# perf_event_paranoid <= 0, CAP_PERFMON or root; without them the window falls back to -p.
_WIDE = [True]  # -a still allowed on this host (False once perf refused it)


def _perf_cpu(
    pids: list[int], event: str, hz: int, seconds: float, tmp: str, span: list[float], lock: str | None = None
) -> tuple[str | None, str]:
    """A ``perf record -g`` window folded; ``span`` gets when perf's events were enabled and
    disabled (monotonic): the window is that, not perf's run. Under load perf record -g is slow
    to start and slower to exit (build ids), so a window timed around it lasts much longer than
    asked, its queries are over-counted and a regression's growth comes out far too small
    (docs/performance.md). perf starts with its events off (``-D -1``) and is switched
    by ``--control`` FIFOs (perf >= 5.10); an older perf is timed around its ``sleep``."""
    data = os.path.join(tmp, "perf.data")
    wide = _WIDE[0]
    res = _record(pids, event, hz, seconds, data, wide, tmp, span, lock)
    if wide and res is not None and res.returncode > 0:  # refused (paranoid, no capability)
        _WIDE[0] = wide = False
        span.clear()
        res = _record(pids, event, hz, seconds, data, wide, tmp, span, lock)
    if res is not None and res.returncode != 0:
        return None, _why(res)
    # Folding resolves every frame's symbol: seconds of CPU for a large server binary, taken
    # while the benchmark runs (bench/bench_capture.py), so at the lowest priority
    only = ["--pid", ",".join(map(str, pids))] if wide else []
    script = subprocess.Popen(
        ["nice", "-n", "19", "perf", "script", "-i", data, *only],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=_outlive_term,
    )
    assert script.stdout is not None
    stacks = fold(script.stdout)
    if script.wait() != 0:
        return None, f"perf script exited {script.returncode}"
    return "".join(f"{stack} {n}\n" for stack, n in stacks.most_common()), ""


def _record(
    pids: list[int],
    event: str,
    hz: int,
    seconds: float,
    data: str,
    wide: bool,
    tmp: str,
    span: list[float],
    lock: str | None,
) -> subprocess.CompletedProcess[str] | None:
    """One recording, the whole machine (``wide``) or the pids' threads: None when it recorded."""
    argv = ["perf", "record", "-q", "-g", "-F", str(hz), "-e", event, "-o", data]
    argv += ["-a"] if wide else ["-p", ",".join(map(str, pids))]
    res = _record_switched(argv, seconds, tmp, span, lock)
    if res is not None and "control" in (res.stderr or ""):  # this perf has no --control
        with _turn(lock):
            t0 = time.monotonic()
            res = subprocess.run([*argv, "--", "sleep", f"{seconds:g}"], capture_output=True, text=True)
            span[:] = [t0, time.monotonic()]
    return res


def _record_switched(
    argv: list[str], seconds: float, tmp: str, span: list[float], lock: str | None
) -> subprocess.CompletedProcess[str] | None:
    """Run ``argv`` with its events enabled for ``seconds`` by perf's control FIFOs; None when
    it recorded (``span`` set), else perf's failure (it exited before acknowledging)."""
    ctl, ack = os.path.join(tmp, "ctl.fifo"), os.path.join(tmp, "ack.fifo")
    for path in (ctl, ack):
        if os.path.exists(path):
            os.unlink(path)
        os.mkfifo(path)
    # O_RDWR: opening a FIFO so never blocks, whether perf opened its end yet or never will
    ctl_fd, ack_fd = os.open(ctl, os.O_RDWR), os.open(ack, os.O_RDWR)
    proc = subprocess.Popen(
        [*argv, "-D", "-1", "--control", f"fifo:{ctl},{ack}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with _turn(lock):
            if _command(proc, ctl_fd, ack_fd, "enable"):
                span[:] = [time.monotonic()]
                _nap(seconds)
                if _command(proc, ctl_fd, ack_fd, "disable") or _STOP["asked"]:
                    span.append(time.monotonic())  # stopped: perf record ended on the SIGTERM
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # perf record's own stop: it writes perf.data
        _, err = proc.communicate()
    finally:
        os.close(ctl_fd)
        os.close(ack_fd)
    if len(span) == 2:
        return None if proc.returncode in (0, -signal.SIGINT, -signal.SIGTERM) else _done(proc, err)
    return _done(proc, err)


def _done(proc: subprocess.Popen[str], err: str) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(proc.args, proc.returncode or 1, "", err)


def _command(proc: subprocess.Popen[str], ctl_fd: int, ack_fd: int, word: str) -> bool:
    """Send perf ``word`` and wait for its ``ack`` (False: perf exited, or 60 s passed)."""
    os.write(ctl_fd, word.encode() + b"\n")
    got = b""
    deadline = time.monotonic() + 60.0
    while b"ack" not in got:
        if proc.poll() is not None or time.monotonic() > deadline:
            return False
        if select.select([ack_fd], [], [], 0.1)[0]:
            got += os.read(ack_fd, 64)
    return True


def _why(res: subprocess.CompletedProcess[str]) -> str:
    if res.returncode < 0:
        return f"perf killed by signal {-res.returncode}"
    lines = [ln.strip() for ln in (res.stderr or "").splitlines() if ln.strip()]
    return f"perf exited {res.returncode}: {lines[-1] if lines else 'no message'}"


def _take(args: argparse.Namespace, pids: list[int], tmp: str) -> tuple[str | None, str, list[float]]:
    """One window on ``pids``: (its text or None, why not, [start, end] of what perf counted, or
    [] when it did not)."""
    span: list[float] = []
    lock = os.path.join(args.dir, "perf.lock") if args.dir else None
    if args.kind == "counters":
        body, why = _perf_stat(pids, args.events, args.window, tmp, span, lock)
    else:
        body, why = _perf_cpu(pids, args.event, args.freq, args.window, tmp, span, lock)
    if body is None and _STOP["asked"] and not span:  # perf record stopped before it counted
        why = "the run ended as the window opened"
    return body, why, span


def loop(args: argparse.Namespace) -> None:
    """Windows every ``period`` seconds from ``first`` until stopped (the runner stops it with the
    benchmark) or, with ``until``, until the next would end after it."""
    t0 = time.monotonic()
    signal.signal(signal.SIGTERM, _on_term)
    tmp = tempfile.mkdtemp(prefix="bdperf.", dir=args.dir)  # after: its being there says the loop listens
    done = 0
    try:
        for n in range(args.windows if args.windows is not None else sys.maxsize):
            planned = args.first + n * args.period
            if n and args.until is not None and planned + args.window > args.until:
                break
            time.sleep(max(0.0, t0 + planned - time.monotonic()))
            _STOP["busy"] = True
            if not _window(args, n, t0, tmp):
                break
            done += 1
            _STOP["busy"] = False
            if _STOP["asked"]:
                break
    except _Stopped:
        if not done:
            now = time.monotonic() - t0
            why = f"the run ended {now:.1f} s in, before the first window (planned at {args.first:g} s)"
            _write(f"# gap 0 start={now:.3f} reason={why}\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _window(args: argparse.Namespace, n: int, t0: float, tmp: str) -> bool:
    """Take window ``n`` and write it (or its gap); False when the benchmark has ended."""
    start = time.monotonic() - t0
    pids = resolve(args.target, args.children)
    if not pids and _bench_ended(args.target):
        return False
    if not pids:
        _write(f"# gap {n} start={start:.3f} reason=no target process ({' '.join(args.target)})\n")
        return True
    body, why, span = _take(args, pids, tmp)
    if body is None and not _STOP["asked"] and (now := resolve(args.target, args.children)) and now != pids:
        pids = now  # a process of the list ended as perf started (a backend): once more
        body, why, span = _take(args, pids, tmp)
    if body is None and _bench_ended(args.target):
        return False  # perf failed because the benchmark it watched ended: not a gap
    if len(span) == 2:  # what perf counted, not its start-up, exit and the wait for the lock
        start = span[0] - t0
    if body is None:
        _write(f"# gap {n} start={start:.3f} reason={why}\n")
        return True
    seconds = span[1] - span[0] if len(span) == 2 else time.monotonic() - t0 - start
    head = f"# window {n} start={start:.3f} seconds={seconds:.3f} target=pids {','.join(map(str, pids))}\n"
    _write(head + body + ("" if body.endswith("\n") or not body else "\n") + f"# end {n}\n")
    return True


def _bench_ended(targets: list[str]) -> bool:
    """The target is the benchmark's process group and none of it is left."""
    return bool(targets) and all(t.startswith("pgid:") for t in targets) and not resolve(targets, False)


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


# --- preflight -----------------------------------------------------------------------------


def check(args: argparse.Namespace) -> None:
    """The findings of the preflight, one line each (nothing printed: all is well)."""
    if shutil.which("perf") is None or subprocess.run(["perf", "--version"], capture_output=True).returncode:
        print(f"problem perf perf missing on this host ({INSTALL})")
        return
    pids = resolve(args.target, False) or [os.getpid()]
    own = pids == [os.getpid()]
    kinds = args.kinds.split(",")
    with tempfile.TemporaryDirectory(prefix="bdperf.") as tmp:
        for kind in kinds:
            if kind == "counters":
                body, why = _perf_stat(pids, "task-clock", 0.05, tmp, [])
            else:
                body, why = _perf_cpu(pids, args.event, args.freq, 0.05, tmp, [])
            if body is None:
                print(f"problem {kind} {_permission_hint(pids, why)}")
                return
    if os.geteuid() != 0 and _paranoid() >= 2 and not _has_caps():
        print(
            f"problem paranoid kernel.perf_event_paranoid={_paranoid()} lets {_user()} count user space only "
            "(the kernel's share of the CPU, syscalls and IO, would be missing): " + FIX
        )
        return
    if not own and "cpu" in kinds:
        for line in binary_findings(f"/proc/{pids[0]}/exe"):
            print(line)


FIX = (
    "as root run `sysctl -w kernel.perf_event_paranoid=-1` (a server of another user also needs "
    "ptrace access: run as that user or root), or give perf the capabilities: "
    "`setcap cap_perfmon,cap_sys_ptrace,cap_syslog+ep $(readlink -f $(command -v perf))`"
)


def _paranoid() -> int:
    try:
        with open("/proc/sys/kernel/perf_event_paranoid", encoding="ascii") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return 2  # the kernel's default


def _has_caps() -> bool:
    """perf carries file capabilities (cap_perfmon ...): the sysctl does not apply to it."""
    perf = shutil.which("perf")
    try:
        return perf is not None and bool(os.getxattr(os.path.realpath(perf), "security.capability"))
    except OSError:
        return False


def _user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return f"uid {os.getuid()}"


def _permission_hint(pids: list[int], why: str) -> str:
    return (
        f"perf cannot watch pid {pids[0]} as {_user()} (kernel.perf_event_paranoid={_paranoid()}; "
        f"{why}): {FIX}"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="host_perf")
    ap.add_argument("kind", choices=("counters", "cpu", "check"))
    ap.add_argument("--target", action="append", default=[])
    ap.add_argument("--children", action="store_true")
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--period", type=float, default=10.0)
    ap.add_argument("--first", type=float, default=0.0, help="seconds before the first window")
    ap.add_argument("--windows", type=int, default=None)
    ap.add_argument("--until", type=float, default=None, help="no window that would end after this")
    ap.add_argument("--events", default="task-clock")
    ap.add_argument("--event", default="cpu-clock")
    ap.add_argument("--freq", type=int, default=99)
    ap.add_argument("--kinds", default="counters")
    ap.add_argument("--dir", default=None, help="where perf's own files go (the run directory)")
    args = ap.parse_args(argv)
    if args.kind == "check":
        check(args)
    else:
        loop(args)


if __name__ == "__main__":
    main()
