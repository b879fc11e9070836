"""The name users type and read for a build's unnamed server config: ``default``.

A build the inventory gives no ``config`` (the built-in SQLite builds, an external server) runs
with its own configuration, stored as the empty config ``""``. Users name it ``default``
(``compare --base sqlite:default``, ``--config default``) and every screen and output shows it
so; ``sqlite:`` (an empty name after the colon) means the same.
"""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT_CONFIG = "default"


def config_label(config: str) -> str:
    """How a stored config is shown: its name, ``default`` for the unnamed one."""
    return config or DEFAULT_CONFIG


def stored_config(typed: str, stored: Iterable[str]) -> str:
    """The stored config that ``typed`` names among ``stored``: itself when stored, else the
    unnamed one for ``default`` (and a config named ``default`` for ``""``); ``typed`` when
    neither is there (the caller says it has no runs)."""
    have = set(stored)
    if typed in have:
        return typed
    for a, b in (("", DEFAULT_CONFIG), (DEFAULT_CONFIG, "")):
        if typed == b and a in have:
            return a
    return typed
