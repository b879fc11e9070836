"""The inventory's file: read from TOML (``benchdeck.toml`` in the user config dir, or
``$BENCHDECK_INVENTORY``) and checked into the typed configs of :mod:`.inventory`. Every error
names the file, the line and the dotted key, e.g.
``/home/u/.config/benchdeck/benchdeck.toml:14: hosts.dell32.threads: expected an integer, got "24x"``.
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from benchdeck.engine.building.recipes import parse_recipe
from benchdeck.engine.builds import BuildNameError, parse_build_name
from benchdeck.engine.cluster.inventory_clusters import parse_clusters
from benchdeck.engine.hosts.inventory import (
    _HOST_NAME,
    BUILD_KEYS,
    CONFIG_NAME,
    DEFAULT_PYTHON,
    DEFAULTS,
    HOST_KEYS,
    INT_MAX,
    SSH_KEYS,
    SUITE_SETTINGS,
    BuildConfig,
    ConfigError,
    HostConfig,
    Inventory,
    local_host,
)
from benchdeck.engine.hosts.inventory_keys import KeyPath, dotted, key_lines
from benchdeck.engine.hosts.inventory_place import default_config_path, named_inventory
from benchdeck.engine.transport.base import HostSpec


def load_inventory(path: Path | None = None) -> Inventory:
    """Load ``path``, else ``$BENCHDECK_INVENTORY`` (or its old name ``$BENCHDECK_CONFIG``), else
    the default file.

    Only a missing default file is fine (an inventory with just the ``local`` host).
    """
    env = named_inventory()
    explicit = path is not None or bool(env)
    p = Path(path if path is not None else env or default_config_path()).expanduser()
    try:
        text = p.read_bytes().decode()
    except FileNotFoundError:
        if explicit:
            raise ConfigError(p, None, "", "config file not found") from None
        return Inventory(p, {"local": local_host()}, from_file=False)
    except OSError as exc:
        raise ConfigError(p, None, "", f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(p, None, "", f"not UTF-8 text ({exc.reason})") from None
    return parse_inventory(text, p)


def parse_inventory(text: str, path: Path) -> Inventory:
    """Parse config text (``path`` is named in errors and anchors relative local paths)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = int(m.group(1)) if m else max(1, text.count("\n"))
        raise ConfigError(path, line, "", f"invalid TOML: {exc}") from None
    return _Loader(path, text).inventory(data)


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "an array" if isinstance(v, list) else "a table" if isinstance(v, dict) else str(v)


class _Loader:
    """Validates the parsed TOML into typed configs; errors carry file:line: key."""

    def __init__(self, path: Path, text: str) -> None:
        self.path, self.lines = path, key_lines(text)

    def error(self, where: KeyPath, message: str) -> ConfigError:
        for n in range(len(where), -1, -1):
            if where[:n] in self.lines:
                return ConfigError(self.path, self.lines[where[:n]], dotted(where), message)
        return ConfigError(self.path, None, dotted(where), message)

    def table(self, v: Any, where: KeyPath, allowed: set[str]) -> dict[str, Any]:
        if not isinstance(v, dict):
            raise self.error(where, f"expected a table, got {_show(v)}")
        for k in v:
            if k not in allowed:
                near = difflib.get_close_matches(k, allowed, 1)
                hint = f"did you mean {near[0]}?" if near else f"expected one of {', '.join(sorted(allowed))}"
                raise self.error((*where, k), f"unknown key ({hint})")
        return v

    def opt(self, t: Mapping[str, Any], key: str, where: KeyPath, kind: type, default: Any = None) -> Any:
        if key not in t:
            return default
        v, at = t[key], (*where, key)
        if kind is int:
            if not isinstance(v, int) or isinstance(v, bool):
                raise self.error(at, f"expected an integer, got {_show(v)}")
            top = INT_MAX.get(key, INT_MAX[""])
            if not 1 <= v <= top:
                raise self.error(at, f"out of range: {v} (1..{top})")
        elif kind is str and (not isinstance(v, str) or not (v.strip() or key == "password")):
            raise self.error(at, f"expected a non-empty string, got {_show(v)}")
        elif kind is bool and not isinstance(v, bool):
            raise self.error(at, f"expected true or false, got {_show(v)}")
        elif kind is tuple:
            if not isinstance(v, list) or not v or not all(isinstance(s, str) and s for s in v):
                what = (
                    "an argv array of strings (never a shell string)"
                    if key in ("start", "stop")
                    else ("a non-empty array of strings")
                )
                raise self.error(at, f"expected {what}, got {_show(v)}")
            v = tuple(v)
        return v

    def local_path(self, value: str) -> str:
        """A path on THIS machine: ``~`` kept, relative paths anchored at the config's dir."""
        if value.startswith("~") or os.path.isabs(value):
            return value
        return str(self.path.parent.resolve() / value)

    def inventory(self, data: dict[str, Any]) -> Inventory:
        top = self.table(data, (), {"defaults", "hosts", "suites", "recipes", "clusters"})
        d = self.table(top.get("defaults", {}), ("defaults",), set(DEFAULTS))
        defaults = {k: self.opt(d, k, ("defaults",), type(v), v) for k, v in DEFAULTS.items()}
        raw_hosts = top.get("hosts", {})
        if not isinstance(raw_hosts, dict):
            raise self.error(("hosts",), f"expected a table of hosts, got {_show(raw_hosts)}")
        hosts = {name: self.host(name, h, defaults) for name, h in raw_hosts.items()}
        if not hosts:  # a config without hosts (yet): the local host, as without a file
            hosts = {"local": replace(local_host(), **defaults)}
        raw_suites = top.get("suites", {})
        if not isinstance(raw_suites, dict):
            raise self.error(("suites",), f"expected a table of suites, got {_show(raw_suites)}")
        suites = {}
        settings: dict[str, dict[str, int]] = {}
        profiles: dict[str, tuple[str, ...]] = {}
        for name, s in raw_suites.items():
            at = ("suites", name)
            t = self.table(s, at, {"workloads", "profile", *SUITE_SETTINGS})
            if "workloads" not in t:
                raise self.error(at, "missing key workloads")
            suites[name] = self.opt(t, "workloads", at, tuple)
            settings[name] = {k: self.opt(t, k, at, int) for k in SUITE_SETTINGS if k in t}
            if "profile" in t:
                profiles[name] = self.profile(t, at)
        raw_recipes = top.get("recipes", {})
        if not isinstance(raw_recipes, dict):
            raise self.error(("recipes",), f"expected a table of recipes, got {_show(raw_recipes)}")
        recipes = {name: parse_recipe(self, name, r) for name, r in raw_recipes.items()}
        clusters = parse_clusters(self, top.get("clusters", {}), hosts)
        return Inventory(
            self.path,
            hosts,
            suites,
            suite_settings=settings,
            recipes=recipes,
            suite_profiles=profiles,
            clusters=clusters,
        )

    def profile(self, t: Mapping[str, Any], at: KeyPath) -> tuple[str, ...]:
        """A ``profile`` key: the perf capture kinds, e.g. "counters,cpu"."""
        from benchdeck.engine.profiling.capture import CaptureError, parse_kinds

        try:
            return parse_kinds(self.opt(t, "profile", at, str, ""))
        except CaptureError as exc:
            raise self.error((*at, "profile"), str(exc)) from None

    def host(self, name: str, raw: Any, defaults: dict[str, Any]) -> HostConfig:
        at: KeyPath = ("hosts", name)
        t = self.table(raw, at, HOST_KEYS | set(DEFAULTS))
        if not _HOST_NAME.match(name):
            raise self.error(at, "host names use letters, digits, '_', '.', '-'")
        transport = t.get("transport", "ssh")
        if transport not in ("ssh", "local"):
            raise self.error((*at, "transport"), f'expected "ssh" or "local", got {_show(transport)}')
        if transport == "local":
            for k in SSH_KEYS:
                if k in t:
                    raise self.error((*at, k), 'not used with transport = "local"')
            spec = HostSpec(name=name, hostname="localhost", transport="local")
        else:
            spec = self.ssh_spec(name, t, at)
        values = {k: self.opt(t, k, at, type(v), defaults[k]) for k, v in DEFAULTS.items()}
        builds: dict[str, BuildConfig] = {}
        raw_builds = t.get("builds", [])
        if not isinstance(raw_builds, list):
            raise self.error(
                (*at, "builds"), f"expected [[hosts.{name}.builds]] tables, got {_show(raw_builds)}"
            )
        for i, b in enumerate(raw_builds):
            build = self.build(b, (*at, "builds", i))
            if build.name in builds:
                raise self.error((*at, "builds", i, "name"), f"duplicate build {build.name}")
            builds[build.name] = build
        device = self.opt(t, "device", at, str)
        profile = self.profile(t, at) if "profile" in t else ()
        python = self.python(t, at, transport)
        return HostConfig(name, spec, device, builds=builds, profile=profile, python=python, **values)

    def python(self, t: Mapping[str, Any], at: KeyPath, transport: str) -> str:
        """A remote host's ``python`` key: the interpreter its shipped clients run with."""
        if "python" in t and transport == "local":
            raise self.error(
                (*at, "python"), 'not used with transport = "local" (runs benchdeck\'s own Python)'
            )
        return str(self.opt(t, "python", at, str, DEFAULT_PYTHON))

    def ssh_spec(self, name: str, t: dict[str, Any], at: KeyPath) -> HostSpec:
        if "ssh" in t and "hostname" in t:
            raise self.error((*at, "hostname"), "use either ssh = ALIAS (from ~/.ssh/config) or hostname")
        if "ssh" not in t and "hostname" not in t:
            raise self.error(at, 'needs ssh = "ALIAS" or hostname = "ADDRESS" (or transport = "local")')
        one = isinstance(t.get("key"), str)
        keys = (self.opt(t, "key", at, str),) if one else self.opt(t, "key", at, tuple, ())
        known = self.opt(t, "known_hosts", at, str)
        return HostSpec(
            name=name,
            hostname=self.opt(t, "ssh", at, str) or self.opt(t, "hostname", at, str),
            port=self.opt(t, "port", at, int, 22),
            user=self.opt(t, "user", at, str),
            key_files=tuple(self.local_path(k) for k in keys),
            known_hosts=self.local_path(known) if known else None,
            use_ssh_config="ssh" in t,
        )

    def build(self, raw: Any, at: KeyPath) -> BuildConfig:
        t = self.table(raw, at, BUILD_KEYS)
        if "name" not in t:
            raise self.error(at, "missing key name (the build name, e.g. my8028_rel_o2nofp)")
        name = self.opt(t, "name", at, str)
        hints = {k: self.opt(t, k, at, str) for k in ("dbms", "version", "variant", "fork")}
        try:
            build = parse_build_name(name, **hints)
        except BuildNameError as exc:
            hint = str(exc).replace("give --dbms and --version", "set dbms and version")
            raise self.error((*at, "name"), hint) from None
        start, stop = self.opt(t, "start", at, tuple), self.opt(t, "stop", at, tuple)
        managed = self.opt(t, "managed", at, bool, False)
        if managed and (start or stop):
            raise self.error(
                (*at, "start" if start else "stop"), "a managed build takes no start/stop commands"
            )
        if bool(start) != bool(stop):
            raise self.error((*at, "start" if start else "stop"), "start and stop go together")
        return BuildConfig(
            build=build,
            basedir=self.opt(t, "basedir", at, str),
            config=self.opt(t, "config", at, str, ""),
            config_file=self.opt(t, "config_file", at, str),
            managed=managed,
            start=start,
            stop=stop,
            host=self.opt(t, "host", at, str, "127.0.0.1"),
            port=self.opt(t, "port", at, int),
            socket=self.opt(t, "socket", at, str),
            user=self.opt(t, "user", at, str),
            password=self.opt(t, "password", at, str),
            database=self.opt(t, "database", at, str, "sbtest"),
            configs=self.configs(t.get("configs", {}), (*at, "configs")),
            library_dir=self.opt(t, "library_dir", at, str),
            numactl=self.numactl(t, at),
        )

    def numactl(self, t: Mapping[str, Any], at: KeyPath) -> dict[str, tuple[str, ...]]:
        """``numactl = ["--cpunodebind=0", "--membind=0"]`` (every config) or a table of them
        per config name (``numactl = { numa = [...] }``: SMP and NUMA as two configs)."""
        raw = t.get("numactl")
        if raw is None:
            return {}
        if isinstance(raw, list):
            return {"*": self.opt(t, "numactl", at, tuple)}
        if not isinstance(raw, dict):
            what = "an array of numactl options (never a shell string) or a table of them per config"
            raise self.error((*at, "numactl"), f"expected {what}, got {_show(raw)}")
        table = self.table(raw, (*at, "numactl"), set(raw) if isinstance(raw, dict) else set())
        return {name: self.opt(table, name, (*at, "numactl"), tuple) for name in table}

    def configs(self, raw: Any, at: KeyPath) -> dict[str, str]:
        """``configs = { NAME = "config file", ... }``: the configurations a run may pick."""
        t = self.table(raw, at, set(raw) if isinstance(raw, dict) else set())
        for name in t:
            if not CONFIG_NAME.fullmatch(name):
                raise self.error((*at, name), "a config name is letters, digits, '_', '-' and '.'")
        return {name: self.opt(t, name, at, str) for name in t}
