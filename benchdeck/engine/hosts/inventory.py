"""The host inventory: which hosts benchdeck may use, their DBMS builds, and named suites.

Read from TOML (``benchdeck.toml`` in the user config dir, or ``$BENCHDECK_INVENTORY``). Every
error names the file, the line and the dotted key, e.g.
``/home/u/.config/benchdeck/benchdeck.toml:14: hosts.dell32.threads: expected an integer, got "24x"``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from benchdeck.engine.building.recipes import Recipe
from benchdeck.engine.builds import Build
from benchdeck.engine.cluster.spec import ClusterSpec
from benchdeck.engine.hosts.inventory_place import INVENTORY_ENV as INVENTORY_ENV
from benchdeck.engine.hosts.inventory_place import LEGACY_INVENTORY_ENV as LEGACY_INVENTORY_ENV
from benchdeck.engine.hosts.inventory_place import default_config_path as default_config_path
from benchdeck.engine.transport.base import HostSpec

DEFAULTS: dict[str, Any] = {"workdir": "~/benchdeck-runs", "threads": 1, "tables": 1, "table_size": 100000}
HOST_KEYS = {"transport", "ssh", "hostname", "port", "user", "key", "known_hosts", "device", "builds"}
HOST_KEYS |= {"profile"}  # perf capture of every run on the host: "counters", "cpu", "counters,cpu"
HOST_KEYS |= {"python"}  # the interpreter a remote host runs benchdeck's shipped clients with
DEFAULT_PYTHON = "python3"
"""A remote host's Python unless its ``python`` key names one: the ``python3`` an SSH session
finds on its PATH (the login shell's, e.g. a pyenv shim, not necessarily /usr/bin/python3)."""
SSH_KEYS = ("ssh", "hostname", "port", "user", "key", "known_hosts")
BUILD_KEYS = {"name", "dbms", "version", "variant", "fork", "basedir", "config", "config_file", "managed"}
BUILD_KEYS |= {"start", "stop", "host", "port", "socket", "user", "password", "database", "configs"}
BUILD_KEYS |= {"library_dir", "numactl"}
_HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
# The largest value of each integer setting ("": any other); the store holds threads and tables
# in 32 bits, table_size in 64; durations up to a year.
INT_MAX = {"port": 65535, "threads": 100_000, "tables": 1_000_000, "table_size": 2**63 - 1}
INT_MAX |= {"read_s": 366 * 86400, "write_s": 366 * 86400, "post_write_s": 366 * 86400, "": 2**31 - 1}


class ConfigError(ValueError):
    """A problem in the config file, as one line: ``FILE:LINE: KEY: what is wrong``."""

    def __init__(self, file: Path, line: int | None, key: str, message: str) -> None:
        self.file, self.line, self.key = file, line, key
        where = f"{file}:{line}" if line else str(file)
        super().__init__(f"{where}: {key}: {message}" if key else f"{where}: {message}")


CONFIG_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")  # part of a datadir name: no '/'

# What a suite may set for its runs (the command line still wins).
SUITE_SETTINGS = ("threads", "tables", "table_size", "read_s", "write_s", "post_write_s")


@dataclass(frozen=True, slots=True)
class BuildConfig:
    """A DBMS build installed on a host, and how its server is reached and run.

    ``managed``: benchdeck creates the datadir and starts/stops the server itself;
    ``start``/``stop``: argv lists the user provides; neither: an external, running server.
    ``config``/``config_file`` name the default server configuration; ``configs`` holds the
    others a run may pick (name -> config file), e.g. ``z12a_c32r128``.
    """

    build: Build
    basedir: str | None = None
    config: str = ""
    config_file: str | None = None
    managed: bool = False
    start: tuple[str, ...] | None = None
    stop: tuple[str, ...] | None = None
    host: str = "127.0.0.1"
    port: int | None = None
    socket: str | None = None
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    database: str = "sbtest"
    configs: Mapping[str, str] = field(default_factory=dict)
    library_dir: str | None = None
    """A SQLite build: the directory of its libsqlite3.so.0 (put on the library path)."""
    numactl: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """NUMA placement per config name (``"*"``: every config): numactl's options, put in front
    of the server's start (``numactl --cpunodebind=0 --membind=0 mysqld ...``)."""

    @property
    def placement(self) -> tuple[str, ...]:
        """``numactl`` and its options for this build under its config, or () (no placement)."""
        opts = self.numactl.get(self.config, self.numactl.get("*", ()))
        return ("numactl", *opts) if opts else ()

    @property
    def name(self) -> str:
        return self.build.name

    @property
    def config_names(self) -> tuple[str, ...]:
        """The default configuration's name first, then the others."""
        return (self.config, *(n for n in self.configs if n != self.config))

    def with_config(self, name: str | None) -> BuildConfig:
        """This build run with the configuration ``name`` (None or the default: unchanged)."""
        if name is None or name == self.config:
            return self
        if name not in self.configs:
            known = ", ".join(repr(n) for n in self.config_names)
            raise ValueError(f"build {self.name} has no config {name!r} (configs: {known})")
        return replace(self, config=name, config_file=self.configs[name])

    @property
    def lifecycle(self) -> str:
        """``managed``, ``scripts`` (start/stop argv) or ``external``."""
        return "managed" if self.managed else "scripts" if self.start else "external"


@dataclass(frozen=True, slots=True)
class HostConfig:
    """A host from the inventory: how to reach it and the benchmark defaults it uses."""

    name: str
    spec: HostSpec
    device: str | None = None
    workdir: str = DEFAULTS["workdir"]
    threads: int = DEFAULTS["threads"]
    tables: int = DEFAULTS["tables"]
    table_size: int = DEFAULTS["table_size"]
    builds: dict[str, BuildConfig] = field(default_factory=dict)
    profile: tuple[str, ...] = ()  # what every run captures unless the run says (--profile)
    python: str = DEFAULT_PYTHON
    """The interpreter a remote host runs the shipped clients with (it needs PyMySQL or psycopg
    for TPC-C and the Insert Benchmark); a local host runs benchdeck's own."""

    @property
    def transport(self) -> str:
        return self.spec.transport

    @property
    def address(self) -> str:
        """Where the host is, for listings: ``localhost``, ``alias (ssh config)``, ``user@host:port``."""
        s = self.spec
        if s.transport == "local":
            return "localhost"
        if s.use_ssh_config:
            return f"{s.hostname} (ssh config)"
        user = f"{s.user}@" if s.user else ""
        return f"{user}{s.hostname}:{s.port}"


@dataclass(frozen=True, slots=True)
class Inventory:
    """All hosts and suites of one config file (``from_file`` False: the built-in default)."""

    path: Path
    hosts: dict[str, HostConfig]
    suites: dict[str, tuple[str, ...]] = field(default_factory=dict)
    from_file: bool = True
    suite_settings: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per suite: threads, tables, table_size, read_s, write_s (override the host's defaults)."""
    suite_profiles: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per suite: what its runs capture with perf (``profile = "counters,cpu"``)."""
    recipes: dict[str, Recipe] = field(default_factory=dict)
    """Build recipes by name (engine.recipes): how to compile a DBMS on a host."""
    clusters: dict[str, ClusterSpec] = field(default_factory=dict)
    """Clusters by name (engine.cluster.spec): a primary and its replicas on the hosts above."""

    def recipe(self, name: str) -> Recipe:
        try:
            return self.recipes[name]
        except KeyError:
            known = ", ".join(sorted(self.recipes)) or "none in the inventory"
            raise ConfigError(self.path, None, "", f"unknown recipe {name} (recipes: {known})") from None

    def with_builds(self, extra: Mapping[str, Sequence[BuildConfig]]) -> Inventory:
        """This inventory plus builds registered elsewhere (per host; the file's own win)."""
        hosts = dict(self.hosts)
        for name, builds in extra.items():
            if name in hosts:
                own = hosts[name].builds
                hosts[name] = replace(hosts[name], builds={**{b.name: b for b in builds}, **own})
        return replace(self, hosts=hosts)

    def host(self, name: str) -> HostConfig:
        try:
            return self.hosts[name]
        except KeyError:
            known = ", ".join(sorted(self.hosts)) or "none"
            raise ConfigError(self.path, None, "", f"unknown host {name} (known: {known})") from None

    def _configs_of(self, host: str, build: str) -> tuple[str, ...]:
        """A build's configuration names on a host, its default first; a build the inventory
        does not list (a built-in one) has only its unnamed default, ``""``."""
        cfg = self.hosts[host].builds.get(build) if host in self.hosts else None
        return cfg.config_names if cfg is not None else ("",)

    def config_matrix(
        self, hosts: Sequence[str], builds: Sequence[str], chosen: Sequence[str]
    ) -> dict[tuple[str, str], tuple[str | None, ...]]:
        """Per (host, build): the chosen server configurations that build has, in the chosen
        order; a pair with none of them maps to ``()`` (nothing to run). Nothing chosen: each
        build's default (None)."""
        return {
            (h, b): tuple(c for c in chosen if c in self._runnable_configs(h, b)) if chosen else (None,)
            for h in hosts
            for b in builds
        }

    def _runnable_configs(self, host: str, build: str) -> tuple[str, ...]:
        """:meth:`_configs_of`, and for a built-in build its CLI-only configs (``serial``)."""
        from benchdeck.engine.families.builtin.catalogue import BUILTIN_BUILDS, BUILTIN_CONFIGS

        listed = host in self.hosts and build in self.hosts[host].builds
        extra = tuple(BUILTIN_CONFIGS) if build in BUILTIN_BUILDS and not listed else ()
        return (*self._configs_of(host, build), *extra)

    def config_names(self, hosts: Sequence[str], builds: Sequence[str]) -> list[str]:
        """Every configuration the builds have on the hosts: the builds' defaults by name ("" for
        none, last of them), then the others by name."""
        names = {n for h in hosts for b in builds for n in self._configs_of(h, b)}
        defaults = self.default_configs(hosts, builds)
        return sorted(names, key=lambda n: (n not in defaults, n == "", n))

    def default_configs(self, hosts: Sequence[str], builds: Sequence[str]) -> set[str]:
        """The builds' own configurations ("" for a build without a named one)."""
        return {self._configs_of(h, b)[0] for h in hosts for b in builds}


def local_host() -> HostConfig:
    return HostConfig("local", HostSpec(name="local", hostname="localhost", transport="local"))
