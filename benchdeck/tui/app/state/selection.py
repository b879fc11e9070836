"""The comparison the user is looking at (no Textual): shared by the app's screens and the
services that list what it can be made of (choices)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Selection:
    """The comparison the user is looking at, shared by Runs (set base), Compare and Triage."""

    host: str | None = None
    base: str | None = None
    with_builds: tuple[str, ...] = ()
    config: str | None = None
    dop: int | None = None

    @property
    def complete(self) -> bool:
        return bool(self.host and self.base and self.with_builds)
