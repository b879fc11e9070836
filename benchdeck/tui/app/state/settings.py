"""The UI settings file (``ui.toml`` in benchdeck's config dir): the theme chosen in the app and
the comparison last looked at per host and config (base, columns, dop), so a restart opens
where the user left off.

``$BENCHDECK_UI_DIR`` points at another directory (tests use it; its first name,
``$BENCHDECK_CONFIG_DIR``, still works). User theme files live in its ``themes/`` subdirectory.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

if TYPE_CHECKING:
    from benchdeck.tui.app.state.selection import Selection

UI_DIR_ENV = "BENCHDECK_UI_DIR"
LEGACY_UI_DIR_ENV = "BENCHDECK_CONFIG_DIR"
"""The first name of ``$BENCHDECK_UI_DIR``, still read: it sounded like the inventory's place."""
EXPORT_DIR_ENV = "BENCHDECK_EXPORT_DIR"
SETTINGS_NAME = "ui.toml"
MAX_REMEMBERED = 50  # host/config pairs whose comparison is remembered


class SettingsError(ValueError):
    """A settings file that cannot be read; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class SavedComparison:
    """What Compare showed for one host and config: the base, the columns, the dop."""

    host: str
    config: str | None = None
    base: str | None = None
    columns: tuple[str, ...] = ()
    dop: int | None = None


def remembered(sel: Selection) -> SavedComparison | None:
    """What to remember of ``sel`` (nothing until it has a host and a base). Here, not with
    the choices (DuckDB): Runs may set the selection before its first frame."""
    if sel.host is None or sel.base is None:
        return None
    return SavedComparison(sel.host, sel.config, sel.base, sel.with_builds, sel.dop)


@dataclass(frozen=True, slots=True)
class UiSettings:
    theme: str | None = None
    comparisons: tuple[SavedComparison, ...] = ()
    """Most recent first: the first is the one the app opens on."""

    def comparison(self, host: str, config: str | None) -> SavedComparison | None:
        return next((c for c in self.comparisons if c.host == host and c.config == config), None)

    def latest(self, host: str | None = None) -> SavedComparison | None:
        """The comparison saved last (on ``host`` if given)."""
        return next((c for c in self.comparisons if host is None or c.host == host), None)

    def remember(self, saved: SavedComparison) -> UiSettings:
        """These settings with ``saved`` first (replacing the one for its host and config)."""
        rest = tuple(c for c in self.comparisons if (c.host, c.config) != (saved.host, saved.config))
        return replace(self, comparisons=(saved, *rest)[:MAX_REMEMBERED])


def config_dir() -> Path:
    env = os.environ.get(UI_DIR_ENV) or os.environ.get(LEGACY_UI_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir("benchdeck", appauthor=False))


def export_dir() -> Path:
    """Where the app's exports go by default (and a relative path is taken from): not the
    directory the app happened to be started in, but ``benchdeck`` in the user's documents
    (``~/Documents/benchdeck``), or ``$BENCHDECK_EXPORT_DIR``."""
    env = os.environ.get(EXPORT_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_documents_dir()) / "benchdeck"


def settings_path() -> Path:
    return config_dir() / SETTINGS_NAME


def user_themes_dir() -> Path:
    return config_dir() / "themes"


def load_ui_settings(path: Path | None = None) -> UiSettings:
    """The saved settings; defaults if the file does not exist."""
    p = path or settings_path()
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        return UiSettings()
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{p}: {exc}") from None
    except OSError as exc:
        raise SettingsError(f"{p}: {exc.strerror or exc}") from None
    theme = data.get("theme")
    if theme is not None and not isinstance(theme, str):
        raise SettingsError(f"{p}: key 'theme' must be a string")
    entries = data.get("compare", [])
    if not isinstance(entries, list):
        raise SettingsError(f"{p}: key 'compare' must be an array of tables ([[compare]])")
    return UiSettings(theme=theme, comparisons=tuple(_comparison(p, i, e) for i, e in enumerate(entries)))


def _comparison(p: Path, i: int, entry: Any) -> SavedComparison:
    where = f"{p}: compare[{i}]"
    if not isinstance(entry, dict):
        raise SettingsError(f"{where} must be a table")
    host, config, base = entry.get("host"), entry.get("config"), entry.get("base")
    columns, dop = entry.get("columns", []), entry.get("dop")
    if not isinstance(host, str):
        raise SettingsError(f"{where}: key 'host' must be a string")
    for key, value in (("config", config), ("base", base)):
        if value is not None and not isinstance(value, str):
            raise SettingsError(f"{where}: key {key!r} must be a string")
    if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
        raise SettingsError(f"{where}: key 'columns' must be a list of build names")
    if dop is not None and (not isinstance(dop, int) or isinstance(dop, bool)):
        raise SettingsError(f"{where}: key 'dop' must be an integer")
    return SavedComparison(host, config, base, tuple(columns), dop)


def save_ui_settings(settings: UiSettings, path: Path | None = None) -> Path:
    """Write the settings atomically (temp file + rename); returns the path."""
    p = path or settings_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# benchdeck UI settings, written by the app"]
    if settings.theme is not None:
        lines.append(f"theme = {json.dumps(settings.theme)}")  # a JSON string is a TOML basic string
    for c in settings.comparisons:  # a JSON string (list) is a TOML basic string (array)
        lines += ["", "[[compare]]", f"host = {json.dumps(c.host)}"]
        lines += [
            f"{k} = {json.dumps(v)}" for k, v in (("config", c.config), ("base", c.base)) if v is not None
        ]
        lines.append(f"columns = {json.dumps(list(c.columns))}")
        if c.dop is not None:
            lines.append(f"dop = {c.dop}")
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(p)
    return p
