"""Host facts: CPU, memory, storage, OS and benchmark tools of a host, over any Transport.

Every remote command is an argv list run with ``LC_ALL=C`` (lscpu translates its field
names). Parsers are pure functions on the commands' text. A command that fails or is missing
leaves its fact ``None``; only losing the host itself (unreachable, host key, auth) raises.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, TypeVar

from benchdeck.engine.hosts.requirements import PACKAGES
from benchdeck.engine.transport.base import Transport, sh
from benchdeck.engine.transport.errors import (
    AuthFailed,
    ConnectionLost,
    HostKeyError,
    HostUnreachable,
    TransportError,
)

T = TypeVar("T")
TIMEOUT = 10.0
FATAL = (ConnectionLost, HostKeyError, HostUnreachable, AuthFailed)

TOOLS: tuple[str, ...] = ("sysbench", "vmstat", "iostat", "mariadb", "mysql", "mariadbd", "mysqld")
TOOLS += ("psql", "pgbench", "pg_ctl", "db_bench", "python3")  # the order of HostFacts.tools
VERSION_FLAG = {"vmstat": "-V", "iostat": "-V"}  # others: --version
# tools needed to benchmark -> Debian package; "a|b" is satisfied by either
# Tools a benchmarking host needs ("a|b": either will do); packages come from engine.requirements.
NEEDED = ("sysbench", "vmstat", "iostat", "mariadb|mysql", "psql", "pgbench", "db_bench")
# One channel for all tools (a login shell per channel is what an SSH command costs).
# $@ = pairs of tool name and version flag. Finds each tool (pg_ctl is off PATH on Debian),
# runs the found ones' version commands in parallel, prints "@@ NAME PATH" + their output.
TOOLS_SCRIPT = r"""d=$(mktemp -d) || exit 1
trap 'rm -rf -- "$d"' EXIT
while [ $# -ge 2 ]; do
  t=$1 f=$2; shift 2
  p=$(command -v "$t" 2>/dev/null); case $p in /*) ;; *) p= ;; esac
  if [ -z "$p" ]; then
    for x in /usr/lib/postgresql/*/bin /sbin /usr/sbin /usr/local/sbin; do  # last match wins
      if [ -x "$x/$t" ] && [ ! -d "$x/$t" ]; then p=$x/$t; fi
    done
  fi
  [ -n "$p" ] || continue
  printf '%s\n' "$p" >"$d/$t.path"
  if command -v timeout >/dev/null 2>&1; then
    timeout 8 "$p" "$f" </dev/null >"$d/$t.out" 2>&1 &
  else
    "$p" "$f" </dev/null >"$d/$t.out" 2>&1 &
  fi
done
wait
for pf in "$d"/*.path; do
  [ -e "$pf" ] || continue
  t=${pf##*/}; t=${t%.path}
  printf '@@ %s %s\n' "$t" "$(cat -- "$pf")"
  head -n 3 -- "$d/$t.out"
done"""
# Small files read in one command: `grep -H "" FILE...` prefixes every line with its file.
FILES = (
    "/proc/sys/kernel/hostname",
    "/proc/sys/kernel/osrelease",
    "/sys/devices/system/cpu/online",
    "/proc/meminfo",
    "/etc/os-release",
    "/usr/lib/os-release",
)
PSEUDO_FS = {
    "autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs", "devpts", "devtmpfs",
    "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore", "ramfs", "rpc_pipefs",
    "securityfs", "selinuxfs", "squashfs", "sysfs", "tracefs",
}  # fmt: skip
SYSTEM_MOUNTS = ("/proc", "/sys", "/dev", "/run", "/snap")


@dataclass(frozen=True, slots=True)
class Disk:
    name: str
    type: str | None = None
    size_bytes: int | None = None
    rotational: bool | None = None
    model: str | None = None
    mountpoint: str | None = None
    parent: str | None = None


@dataclass(frozen=True, slots=True)
class Filesystem:
    target: str
    source: str | None = None
    fstype: str | None = None
    options: str | None = None


@dataclass(frozen=True, slots=True)
class CpuInfo:
    model: str | None = None
    ncpu: int | None = None
    cores: int | None = None
    threads_per_core: int | None = None
    sockets: int | None = None
    numa_nodes: int | None = None


@dataclass(frozen=True, slots=True)
class HostFacts:
    """What a host is; ``None`` where a fact could not be found out."""

    hostname: str | None = None
    cpu_model: str | None = None
    ncpu: int | None = None  # online logical CPUs
    cores: int | None = None  # physical cores, all sockets
    threads_per_core: int | None = None
    smt: bool | None = None
    sockets: int | None = None
    numa_nodes: int | None = None
    mem_total_kb: int | None = None
    kernel: str | None = None
    arch: str | None = None
    os: str | None = None
    disks: tuple[Disk, ...] | None = None
    filesystems: tuple[Filesystem, ...] | None = None
    tools: Mapping[str, str | None] = field(default_factory=dict)  # tool -> version, None = missing
    tool_paths: Mapping[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (lists, dicts, str, int, bool, None)."""
        d: dict[str, Any] = json.loads(json.dumps(asdict(self)))
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HostFacts:
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        for key, kind in (("disks", Disk), ("filesystems", Filesystem)):
            if known.get(key) is not None:
                known[key] = tuple(kind(**x) for x in known[key])
        return cls(**known)


# --- pure parsers ----------------------------------------------------------------------------


def _int(text: str | None) -> int | None:
    return int(text) if text is not None and text.strip().isdigit() else None


def count_cpu_list(text: str) -> int | None:
    """``0-3,8,10-11`` -> 7."""
    n = 0
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return None
        n += int(hi) - int(lo) + 1 if hi else 1
    return n


def lscpu_fields(text: str) -> dict[str, str]:
    """``lscpu -J`` (flat or nested ``children``) -> {"Model name": "...", ...}."""
    out: dict[str, str] = {}

    def walk(items: Sequence[Mapping[str, Any]]) -> None:
        for item in items:
            name = str(item.get("field", "")).strip().rstrip(":")
            if name and item.get("data") is not None:
                out.setdefault(name, str(item["data"]).strip())
            walk(item.get("children") or [])

    walk(json.loads(text)["lscpu"])
    return out


def parse_lscpu(text: str) -> CpuInfo:
    f = lscpu_fields(text)
    online = f.get("On-line CPU(s) list")
    ncpu = count_cpu_list(online) if online else _int(f.get("CPU(s)"))
    tpc = _int(f.get("Thread(s) per core"))
    per = _int(f.get("Core(s) per socket")) or _int(f.get("Core(s) per cluster"))
    sockets = _int(f.get("Socket(s)"))
    groups = sockets or _int(f.get("Cluster(s)")) or 1
    cores = per * groups if per else (ncpu // tpc if ncpu and tpc else None)
    return CpuInfo(f.get("Model name"), ncpu, cores, tpc, sockets, _int(f.get("NUMA node(s)")))


def parse_cpuinfo(text: str) -> CpuInfo:
    """``/proc/cpuinfo`` (lists the online CPUs); topology only where the kernel gives it."""
    blocks = [dict(_colon_pairs(b)) for b in re.split(r"\n\s*\n", text) if b.strip()]
    cpus = [b for b in blocks if "processor" in b and b["processor"].isdigit()]
    model = next(
        (b[k] for b in blocks for k in ("model name", "Model Name", "cpu model", "cpu") if b.get(k)), None
    )
    ncpu = len(cpus) or None
    phys = {(b.get("physical id"), b.get("core id")) for b in cpus if "core id" in b}
    cores = len(phys) or None
    sockets = len({p for p, _ in phys}) if phys else None
    tpc = ncpu // cores if ncpu and cores else None
    return CpuInfo(model, ncpu, cores, tpc, sockets)


def _colon_pairs(text: str) -> list[tuple[str, str]]:
    return [(k.strip(), v.strip()) for k, sep, v in (ln.partition(":") for ln in text.splitlines()) if sep]


def count_numa_nodes(ls_output: str) -> int | None:
    """``ls /sys/devices/system/node`` -> number of ``nodeN`` entries."""
    return sum(1 for n in ls_output.split() if re.fullmatch(r"node\d+", n)) or None


def parse_meminfo(text: str) -> int | None:
    m = re.search(r"^MemTotal:\s+(\d+)\s*kB", text, re.M)
    return int(m.group(1)) if m else None


def parse_os_release(text: str) -> str | None:
    values = {}
    for line in text.splitlines():
        key, sep, raw = line.partition("=")
        if sep and not key.startswith("#"):
            try:
                values[key.strip()] = " ".join(shlex.split(raw))
            except ValueError:
                values[key.strip()] = raw.strip().strip("\"'")
    name = " ".join(v for v in (values.get("NAME"), values.get("VERSION")) if v)
    return values.get("PRETTY_NAME") or name or None


def parse_lsblk(text: str) -> tuple[Disk, ...]:
    """``lsblk -J -b -o NAME,TYPE,SIZE,ROTA,MODEL,MOUNTPOINT`` (old versions quote numbers)."""
    out: list[Disk] = []

    def walk(devs: Sequence[Mapping[str, Any]], parent: str | None) -> None:
        for d in devs:
            name, rota, size = str(d.get("name")), d.get("rota"), d.get("size")
            model = str(d["model"]).strip() if d.get("model") else None
            if d.get("type") != "loop":
                rotational = rota if isinstance(rota, bool) else {"1": True, "0": False}.get(str(rota))
                out.append(
                    Disk(name, d.get("type"), _int(str(size)), rotational, model, d.get("mountpoint"), parent)
                )
            walk(d.get("children") or [], name)

    walk(json.loads(text)["blockdevices"], None)
    return tuple(out)


def parse_partitions(text: str) -> tuple[Disk, ...]:
    """``/proc/partitions``: names and sizes (1 KiB blocks) only."""
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) == 4 and f[2].isdigit() and not f[3].startswith(("loop", "ram")):
            out.append(Disk(f[3], size_bytes=int(f[2]) * 1024))
    return tuple(out)


def _real_fs(fs: Filesystem) -> bool:
    under = any(fs.target == p or fs.target.startswith(p + "/") for p in SYSTEM_MOUNTS)
    return fs.fstype not in PSEUDO_FS and not under


def parse_findmnt(text: str) -> tuple[Filesystem, ...]:
    """``findmnt -J -o TARGET,SOURCE,FSTYPE,OPTIONS``, without pseudo and system mounts."""
    out: list[Filesystem] = []

    def walk(items: Sequence[Mapping[str, Any]]) -> None:
        for i in items:
            out.append(Filesystem(str(i.get("target")), i.get("source"), i.get("fstype"), i.get("options")))
            walk(i.get("children") or [])

    walk(json.loads(text)["filesystems"])
    return tuple(fs for fs in out if _real_fs(fs))


def parse_df(text: str) -> tuple[Filesystem, ...]:
    """``df -P -T`` (no mount options), without pseudo and system mounts."""
    out = []
    for line in text.splitlines()[1:]:
        f = line.split(None, 6)
        if len(f) == 7:
            out.append(Filesystem(f[6], f[0], f[1]))
    return tuple(fs for fs in out if _real_fs(fs))


def version_of(output: str) -> str | None:
    """The version in a ``--version`` answer; for the MariaDB client the server release
    (``Ver 15.1 Distrib 10.11.6-MariaDB`` -> ``10.11.6-MariaDB``), not the protocol."""
    line = next((ln.strip() for ln in output.splitlines() if ln.strip()), "")
    m = re.search(r"\bDistrib (\S+?),", line) or re.search(r"(?<![\w.])v?(\d+\.\d+[\w.+~-]*)", line)
    return m.group(1).rstrip(",.") if m else (line or None)


def parse_grep_files(text: str) -> dict[str, str]:
    """``grep -H "" FILE...`` output -> {file: its text}."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        name, sep, rest = line.partition(":")
        if sep:
            out.setdefault(name, []).append(rest)
    return {name: "\n".join(lines) + "\n" for name, lines in out.items()}


def parse_tools(text: str) -> tuple[dict[str, str | None], dict[str, str]]:
    """TOOLS_SCRIPT output -> ({tool: version or None}, {tool: path}) for every tool in TOOLS."""
    paths: dict[str, str] = {}
    outputs: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("@@ "):
            _, current, path = [*line.split(" ", 2), ""][:3]
            paths[current], outputs[current] = path, []
        elif current is not None:
            outputs[current].append(line)
    versions: dict[str, str | None] = {
        t: (version_of("\n".join(outputs[t])) or "unknown version") if t in paths else None for t in TOOLS
    }
    return versions, {t: paths[t] for t in TOOLS if t in paths}


def missing_tools(facts: HostFacts) -> list[tuple[str, str]]:
    """(tool, Debian package) for every tool needed to benchmark that the host lacks."""
    out = []
    for tools in NEEDED:
        names = tools.split("|")
        if not any(facts.tools.get(t) for t in names):
            out.append((names[0], PACKAGES.get(names[0], names[0])))
    return out


def describe(facts: HostFacts) -> str:
    """One line: CPU model, sockets, cores, SMT, RAM, kernel, OS."""
    cpu = facts.cpu_model or "unknown CPU"
    if facts.sockets and facts.sockets > 1:
        cpu += f", {facts.sockets} sockets"
    cores = f"{facts.cores} cores" if facts.cores else "? cores"
    smt = f"SMT on ({facts.ncpu} CPUs)" if facts.smt else "SMT off" if facts.smt is False else "SMT ?"
    ram = f"{facts.mem_total_kb / 1024**2:.1f} GiB RAM" if facts.mem_total_kb else "? RAM"
    return ", ".join([cpu, cores, smt, ram, f"kernel {facts.kernel or '?'}", facts.os or "unknown OS"])


# --- gathering -------------------------------------------------------------------------------


async def gather_facts(transport: Transport) -> HostFacts:
    """Facts of the transport's host: five commands, run concurrently."""
    await transport.connect()  # unreachable / unknown host key / auth: raise here

    async def run(argv: Sequence[str], timeout: float = TIMEOUT) -> str | None:  # noqa: ASYNC109
        try:
            res = await transport.run(["env", "LC_ALL=C", *argv], timeout=timeout)
        except FATAL:
            raise
        except TransportError:  # missing command, timeout
            return None
        # grep exits 2 when one of its files is missing, yet prints the others
        return res.stdout if (res.ok or argv[0] == "grep") and res.stdout.strip() else None

    async def parsed(argv: Sequence[str], parse: Callable[[str], T]) -> T | None:
        text = await run(argv)
        try:
            return parse(text) if text is not None else None
        except (ValueError, KeyError, TypeError, AttributeError):  # unexpected output
            return None

    async def first(*tries: tuple[Sequence[str], Callable[[str], T]]) -> T | None:
        for argv, parse in tries:
            if (value := await parsed(argv, parse)) is not None:
                return value
        return None

    async def cpu() -> tuple[CpuInfo, str | None]:
        text = await run(["lscpu", "-J"])
        try:
            return parse_lscpu(text or ""), lscpu_fields(text or "").get("Architecture")
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        info = await parsed(["cat", "/proc/cpuinfo"], parse_cpuinfo) or CpuInfo()
        nodes = await parsed(["ls", "/sys/devices/system/node"], count_numa_nodes)
        return replace(info, numa_nodes=nodes), None

    async def tools() -> tuple[dict[str, str | None], dict[str, str]]:
        pairs = [w for tool in TOOLS for w in (tool, VERSION_FLAG.get(tool, "--version"))]
        return parse_tools(await run(sh(TOOLS_SCRIPT, *pairs), TIMEOUT + 5) or "")

    files_text, (c, arch), disks, fss, (versions, paths) = await asyncio.gather(
        run(["grep", "-H", "", *FILES]),
        cpu(),
        first(
            (["lsblk", "-J", "-b", "-o", "NAME,TYPE,SIZE,ROTA,MODEL,MOUNTPOINT"], parse_lsblk),
            (["cat", "/proc/partitions"], parse_partitions),
        ),
        first(
            (["findmnt", "-J", "-o", "TARGET,SOURCE,FSTYPE,OPTIONS"], parse_findmnt),
            (["df", "-P", "-T"], parse_df),
        ),
        tools(),
    )
    files = parse_grep_files(files_text or "")
    online = files.get("/sys/devices/system/cpu/online")
    os_release = files.get("/etc/os-release") or files.get("/usr/lib/os-release")
    return HostFacts(
        hostname=files.get("/proc/sys/kernel/hostname", "").strip() or None,
        cpu_model=c.model,
        ncpu=(count_cpu_list(online) if online else None) or c.ncpu,
        cores=c.cores,
        threads_per_core=c.threads_per_core,
        smt=c.threads_per_core > 1 if c.threads_per_core else None,
        sockets=c.sockets,
        numa_nodes=c.numa_nodes,
        mem_total_kb=parse_meminfo(files.get("/proc/meminfo", "")),
        kernel=files.get("/proc/sys/kernel/osrelease", "").strip() or None,
        arch=arch,
        os=parse_os_release(os_release) if os_release else None,
        disks=disks,
        filesystems=fss,
        tools=versions,
        tool_paths=paths,
    )
