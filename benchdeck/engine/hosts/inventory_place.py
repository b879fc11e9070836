"""Where the inventory file is: ``$BENCHDECK_INVENTORY`` (or its old name), else ``benchdeck.toml``
in the user config dir. A leaf: the app's first frame asks it whether there is a file at all."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import platformdirs

INVENTORY_ENV = "BENCHDECK_INVENTORY"
LEGACY_INVENTORY_ENV = "BENCHDECK_CONFIG"
"""The inventory's first name, still read when ``$BENCHDECK_INVENTORY`` is unset: beside
``--config`` (always a DBMS server config) it read as one too."""


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir("benchdeck", appauthor=False)) / "benchdeck.toml"


def named_inventory(env: Mapping[str, str] = os.environ) -> str | None:
    """The inventory the environment names, if any."""
    return env.get(INVENTORY_ENV) or env.get(LEGACY_INVENTORY_ENV) or None
