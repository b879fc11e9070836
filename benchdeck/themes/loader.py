"""Themes from TOML files into Textual ``Theme``s: the bundled ones and the user's own.

A theme file holds the keys of :class:`textual.theme.Theme` (``name``, ``primary``, ``dark`` ...)
and a ``[variables]`` table of extra CSS variables. benchdeck reads ``rqps-bad``,
``rqps-good`` and ``rqps-neutral`` from it to colour rQPS; themes without them get defaults
from the theme's ``error``/``success`` colours (see :data:`RQPS_VARIABLES`).
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

THEMES_DIR = Path(__file__).resolve().parent
BUNDLED = ("dark.toml", "light.toml", "colorblind.toml")
DEFAULT_THEME = "benchdeck-dark"
RQPS_VARIABLES = ("rqps-bad", "rqps-good", "rqps-neutral")

_COLOUR_KEYS = (
    "primary",
    "secondary",
    "warning",
    "error",
    "success",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
_KNOWN = {f.name for f in fields(Theme)}


class ThemeFileError(ValueError):
    """A theme file that cannot be used; the message names the file and the key."""


def load_theme_file(path: Path) -> Theme:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ThemeFileError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ThemeFileError(f"{path}: {exc.strerror or exc}") from None
    return theme_from_dict(data, str(path))


def theme_from_dict(data: dict[str, Any], where: str) -> Theme:
    unknown = sorted(set(data) - _KNOWN)
    if unknown:
        raise ThemeFileError(f"{where}: unknown key {unknown[0]!r}")
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise ThemeFileError(f"{where}: key 'name' must be a non-empty string")
    if not isinstance(data.get("primary"), str):
        raise ThemeFileError(f"{where}: key 'primary' must be a colour")
    for key in _COLOUR_KEYS:
        if key in data:
            _check_colour(data[key], where, key)
    if not isinstance(data.get("dark", True), bool):
        raise ThemeFileError(f"{where}: key 'dark' must be true or false")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ThemeFileError(f"{where}: [variables] must map names to strings")
    for key in RQPS_VARIABLES:
        if key in variables:
            _check_colour(variables[key], where, f"variables.{key}")
    return Theme(**data)


def _check_colour(value: object, where: str, key: str) -> None:
    if not isinstance(value, str):
        raise ThemeFileError(f"{where}: key {key!r} must be a colour string")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{where}: key {key!r}: {value!r} is not a colour") from None


def bundled_themes() -> list[Theme]:
    return [load_theme_file(THEMES_DIR / name) for name in BUNDLED]


def user_themes(directory: Path) -> tuple[list[Theme], list[str]]:
    """Themes from ``directory/*.toml`` (sorted by file name) and one error line per bad file."""
    themes: list[Theme] = []
    errors: list[str] = []
    if not directory.is_dir():
        return themes, errors
    for path in sorted(directory.glob("*.toml")):
        try:
            themes.append(load_theme_file(path))
        except ThemeFileError as exc:
            errors.append(str(exc))
    return themes, errors


def rqps_defaults(theme: Theme) -> dict[str, str]:
    """rQPS colours for a theme that does not define them (e.g. Textual's own themes)."""
    return {
        "rqps-bad": theme.error or "#E5534B",
        "rqps-good": theme.success or "#57AB5A",
        "rqps-neutral": "#8B949E" if theme.dark else "#57606A",
    }
