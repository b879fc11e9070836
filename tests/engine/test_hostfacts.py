"""Host facts: pure parsers on recorded output, and live gathering here and over real SSH."""

from __future__ import annotations

import dataclasses
import os
import platform
import resource
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from benchdeck.engine.hosts.facts import (
    TOOLS,
    CpuInfo,
    Disk,
    Filesystem,
    HostFacts,
    count_cpu_list,
    count_numa_nodes,
    describe,
    gather_facts,
    missing_tools,
    parse_cpuinfo,
    parse_df,
    parse_findmnt,
    parse_grep_files,
    parse_lsblk,
    parse_lscpu,
    parse_meminfo,
    parse_os_release,
    parse_partitions,
    parse_tools,
    version_of,
)
from benchdeck.engine.transport import HostKeyError, HostSpec, LocalTransport, SSHTransport
from benchdeck.engine.transport.base import CommandResult

DATA = Path(__file__).resolve().parents[1] / "data" / "hostfacts"
VM_CPU = "Intel(R) Xeon(R) Processor"


def read(name: str) -> str:
    return (DATA / name).read_text()


# --- parsers on recorded output ----------------------------------------------------------------


def test_lscpu_recorded_here() -> None:
    assert parse_lscpu(read("lscpu.json")) == CpuInfo(VM_CPU, 2, 2, 1, 1, 1)


def test_lscpu_two_sockets_nested_layout() -> None:
    info = parse_lscpu(read("lscpu_2socket_hand.json"))
    assert info == CpuInfo("Intel(R) Xeon(R) Silver 4214 CPU @ 2.20GHz", 48, 24, 2, 2, 2)


def test_cpuinfo_recorded_here_agrees_with_lscpu() -> None:
    assert parse_cpuinfo(read("cpuinfo.txt")) == CpuInfo(VM_CPU, 2, 2, 1, 1)


def test_cpuinfo_two_sockets_with_smt() -> None:
    blocks = []
    for cpu in range(16):  # 2 sockets x 4 cores x 2 threads, Linux numbering
        sock, core = (cpu % 8) // 4, cpu % 4
        blocks.append(
            f"processor\t: {cpu}\nmodel name\t: AMD EPYC 7302\nphysical id\t: {sock}\ncore id\t\t: {core}\n"
        )
    assert parse_cpuinfo("\n".join(blocks)) == CpuInfo("AMD EPYC 7302", 16, 8, 2, 2)
    # no topology (some ARM kernels): counts only
    arm = "processor\t: 0\nBogoMIPS\t: 50.00\n\nprocessor\t: 1\nBogoMIPS\t: 50.00\n"
    assert parse_cpuinfo(arm) == CpuInfo(None, 2, None, None, None)


def test_small_parsers() -> None:
    assert [count_cpu_list(s) for s in ("0-3,8,10-11", "0", "0,1", "x")] == [7, 1, 2, None]
    assert count_numa_nodes("has_cpu\nnode0\nnode1\nonline\npossible\n") == 2
    assert parse_meminfo(read("meminfo.txt")) == 24731708
    assert parse_os_release(read("os-release.txt")) == "Debian GNU/Linux 12 (bookworm)"
    assert parse_os_release('NAME="Alpine Linux"\nVERSION=3.19\n') == "Alpine Linux 3.19"
    files = parse_grep_files("/proc/sys/kernel/hostname:dell32\n/etc/os-release:A=1\n/etc/os-release:B=x:y\n")
    assert files == {"/proc/sys/kernel/hostname": "dell32\n", "/etc/os-release": "A=1\nB=x:y\n"}


def test_disks_recorded_and_old_lsblk() -> None:
    assert parse_lsblk(read("lsblk.json")) == (
        Disk("zram0", "disk", 0, False),
        Disk("vda", "disk", 274877906944, True, mountpoint="/"),
    )
    old = (
        '{"blockdevices": [{"name": "sda", "type": "disk", "size": "512110190592", "rota": "0", '
        '"model": "Samsung SSD 860  ", "mountpoint": null, "children": [{"name": "sda1", '
        '"type": "part", "size": "512109142016", "rota": "0", "model": null, "mountpoint": "/data"}]},'
        '{"name": "loop0", "type": "loop", "size": "4096", "rota": "0", "model": null, "mountpoint": null}]}'
    )
    assert parse_lsblk(old) == (
        Disk("sda", "disk", 512110190592, False, "Samsung SSD 860"),
        Disk("sda1", "part", 512109142016, False, None, "/data", "sda"),
    )
    assert parse_partitions(read("partitions.txt")) == (Disk("vda", size_bytes=268435456 * 1024),)


def test_filesystems_without_pseudo_and_system_mounts() -> None:
    root = Filesystem("/", "/dev/vda", "ext4", "rw,relatime,discard,resv_strict,resuid=65534,resgid=65534")
    assert parse_findmnt(read("findmnt.json")) == (root,)
    assert parse_df(read("df.txt")) == (Filesystem("/", "/dev/vda", "ext4"),)
    spaced = "Filesystem Type 1024-blocks Used Available Capacity Mounted on\n"
    spaced += "/dev/sdb1 xfs 10 1 9 10% /mnt/my data\n"
    assert parse_df(spaced) == (Filesystem("/mnt/my data", "/dev/sdb1", "xfs"),)


@pytest.mark.parametrize(
    ("output", "version"),
    [
        ("sysbench 1.0.20\n", "1.0.20"),
        ("vmstat from procps-ng 4.0.2\n", "4.0.2"),
        ("sysstat version 12.6.1\n(C) Sebastien Godard (sysstat <at> orange.fr)\n", "12.6.1"),
        (
            "mariadb  Ver 15.1 Distrib 10.11.6-MariaDB, for debian-linux-gnu (x86_64) using  EditLine",
            "10.11.6-MariaDB",
        ),
        ("mariadb from 11.4.2-MariaDB, client 15.2 for debian-linux-gnu (x86_64)", "11.4.2-MariaDB"),
        ("mysql  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)", "8.0.36"),
        (
            "mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64",
            "10.11.19-MariaDB-0+deb12u1",
        ),
        ("psql (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)", "15.18"),
        ("db_bench version 7.8.3", "7.8.3"),
        ("\nPython 3.11.7\n", "3.11.7"),
        ("some tool without a number", "some tool without a number"),
        ("", None),
    ],
)
def test_version_of(output: str, version: str | None) -> None:
    assert version_of(output) == version


def test_tools_output_and_missing_tools() -> None:
    out = "@@ sysbench /usr/bin/sysbench\nsysbench 1.0.20\n@@ pg_ctl /usr/lib/postgresql/15/bin/pg_ctl\n"
    out += "pg_ctl (PostgreSQL) 15.18\n@@ mysql /opt/my sql/bin/mysql\n"
    versions, paths = parse_tools(out)
    assert list(versions) == list(TOOLS)
    assert {t: v for t, v in versions.items() if v} == {
        "sysbench": "1.0.20",
        "pg_ctl": "15.18",
        "mysql": "unknown version",
    }
    assert paths["pg_ctl"] == "/usr/lib/postgresql/15/bin/pg_ctl"
    assert paths["mysql"] == "/opt/my sql/bin/mysql"
    assert missing_tools(HostFacts(tools=versions)) == [
        ("vmstat", "procps"),
        ("iostat", "sysstat"),
        ("psql", "postgresql-client"),
        ("pgbench", "postgresql"),
        ("db_bench", "rocksdb-tools"),
    ]


def test_as_dict_round_trip_and_describe() -> None:
    facts = HostFacts(
        cpu_model="Xeon",
        ncpu=48,
        cores=24,
        threads_per_core=2,
        smt=True,
        sockets=2,
        mem_total_kb=128 * 1024**2,
        kernel="6.1.0",
        os="Debian GNU/Linux 12 (bookworm)",
        disks=(Disk("nvme0n1", "disk", 10),),
        filesystems=(Filesystem("/", "/dev/nvme0n1p1", "xfs", "rw"),),
        tools={"sysbench": "1.0.20"},
    )
    d = facts.as_dict()
    assert d["disks"] == [
        {"name": "nvme0n1", "type": "disk", "size_bytes": 10}
        | dict.fromkeys(("rotational", "model", "mountpoint", "parent"))
    ]
    assert HostFacts.from_dict(d) == facts
    assert describe(facts) == (
        "Xeon, 2 sockets, 24 cores, SMT on (48 CPUs), 128.0 GiB RAM, kernel 6.1.0, "
        "Debian GNU/Linux 12 (bookworm)"
    )


# --- live --------------------------------------------------------------------------------------


def assert_this_machine(facts: HostFacts) -> None:
    assert facts.ncpu == os.cpu_count()
    assert facts.kernel == platform.release()
    assert facts.hostname == platform.node()
    assert facts.mem_total_kb == parse_meminfo(Path("/proc/meminfo").read_text())
    assert facts.cpu_model
    assert facts.cores is not None
    assert facts.threads_per_core is not None
    assert facts.smt == (facts.threads_per_core > 1)
    assert facts.os
    assert facts.disks
    assert any(fs.target == "/" for fs in facts.filesystems or ())
    assert facts.tools["sysbench"]
    assert facts.tools["python3"]


class CountingTransport(LocalTransport):
    """The real local transport (every command runs), counting the commands and those in flight."""

    def __init__(self) -> None:
        super().__init__()
        self.started = self.in_flight = self.most_in_flight = 0

    async def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - the Transport API
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        self.started += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await super().run(argv, timeout=timeout, stdin=stdin, env=env)
        finally:
            self.in_flight -= 1


def cpu_seconds() -> float:
    """CPU time of this process and of its waited-for children (every command gathering runs)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


async def test_gather_local_fast() -> None:
    """Gathering is quick because it is little work done at once: five commands, all in flight
    together, ~0.2 s of CPU in all (quiet, that is ~0.3-0.5 s of wall time).

    The wall time is not asserted: it was (< 1.0 s) and failed 11 times in 20 at load 7-24 on
    these 2 cores while the CPU time stayed 0.19-0.23 s; it measured the scheduler's share. What
    the code decides is asserted instead, none of it timed by a clock: how many commands, run
    concurrently, their CPU cost, and that none sat out a timeout (a timed-out command leaves
    its fact None, and a tool killed by TOOLS_SCRIPT's `timeout 8` shows "unknown version").
    """
    transport = CountingTransport()
    before = cpu_seconds()
    facts = await gather_facts(transport)
    cpu = cpu_seconds() - before
    assert_this_machine(facts)
    assert (transport.started, transport.most_in_flight) == (5, 5), "five commands, run concurrently"
    assert "unknown version" not in facts.tools.values(), facts.tools
    assert all(facts.tools[t] for t in facts.tool_paths), facts.tools
    assert cpu < 0.6, f"gathering cost {cpu:.2f} s of CPU (0.19-0.23 s measured)"


@pytest.mark.integration
async def test_gather_over_ssh_matches_local(ssh_host_spec: HostSpec) -> None:
    async with SSHTransport(ssh_host_spec) as t:
        remote = await gather_facts(t)
    assert_this_machine(remote)
    local = await gather_facts(LocalTransport())
    for key in ("cpu_model", "ncpu", "cores", "sockets", "numa_nodes", "mem_total_kb", "os", "disks"):
        assert getattr(remote, key) == getattr(local, key), key


@pytest.mark.integration
async def test_unknown_host_key_raises(ssh_host_spec: HostSpec, tmp_path: Path) -> None:
    spec = dataclasses.replace(ssh_host_spec, known_hosts=str(tmp_path / "empty"))
    with pytest.raises(HostKeyError, match="SHA256:"):
        await gather_facts(SSHTransport(spec))


async def test_missing_commands_fall_back_or_leave_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A PATH with only the basics: no lscpu, lsblk, findmnt, df or tools."""
    for tool in ("env", "grep", "cat", "ls", "sh", "mktemp", "rm", "head"):
        found = shutil.which(tool)
        assert found, tool
        (tmp_path / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(tmp_path))
    facts = await gather_facts(LocalTransport())
    assert facts.ncpu == os.cpu_count()  # /sys/devices/system/cpu/online
    assert facts.cpu_model == parse_cpuinfo(Path("/proc/cpuinfo").read_text()).model  # cpuinfo fallback
    assert facts.numa_nodes == count_numa_nodes(" ".join(os.listdir("/sys/devices/system/node")))
    assert facts.arch is None
    assert facts.disks == parse_partitions(Path("/proc/partitions").read_text())
    assert facts.filesystems is None
    assert facts.kernel == platform.release()
    for tool in ("sysbench", "vmstat", "iostat", "db_bench", "python3"):  # in /usr/bin only
        assert facts.tools[tool] is None, tool
    assert ("sysbench", "sysbench") in missing_tools(facts)
    # off PATH, found in the sbin and PostgreSQL dirs; then run (without timeout(1) on PATH)
    assert facts.tool_paths["mariadbd"] == "/usr/sbin/mariadbd"
    direct = await LocalTransport().run(["/usr/sbin/mariadbd", "--version"])
    assert facts.tools["mariadbd"] == version_of(direct.stdout)
    assert facts.tool_paths["pg_ctl"].startswith("/usr/lib/postgresql/")
