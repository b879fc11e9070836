"""Shared helpers for the parser tests: recorded outputs under tests/data/recorded."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

RECORDED = Path(__file__).resolve().parent.parent / "data" / "recorded"


def read_lines(name: str) -> list[str]:
    """The lines of one recorded file, without newlines."""
    return (RECORDED / name).read_text(encoding="utf-8").splitlines()


def field(lines: list[str], pattern: str) -> str:
    """The first group of the first line matching ``pattern`` (read straight from the text)."""
    for line in lines:
        if m := re.search(pattern, line):
            return m.group(1)
    raise AssertionError(f"no line matches {pattern!r}")


@pytest.fixture
def recorded() -> Callable[[str], list[str]]:
    return read_lines
