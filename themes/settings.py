"""The UI settings file (``ui.toml`` in benchdeck's config dir): the theme chosen in the app.

``$BENCHDECK_CONFIG_DIR`` points at another directory (tests use it). User theme files live in
its ``themes/`` subdirectory.
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs

CONFIG_DIR_ENV = "BENCHDECK_CONFIG_DIR"
SETTINGS_NAME = "ui.toml"


class SettingsError(ValueError):
    """A settings file that cannot be read; the message names the file and the key."""


@dataclass(frozen=True, slots=True)
class UiSettings:
    theme: str | None = None


def config_dir() -> Path:
    env = os.environ.get(CONFIG_DIR_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir("benchdeck", appauthor=False))


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
    return UiSettings(theme=theme)


def save_ui_settings(settings: UiSettings, path: Path | None = None) -> Path:
    """Write the settings atomically (temp file + rename); returns the path."""
    p = path or settings_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    lines = ["# benchdeck UI settings, written by the app"]
    if settings.theme is not None:
        lines.append(f"theme = {json.dumps(settings.theme)}")  # a JSON string is a TOML basic string
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp.replace(p)
    return p
