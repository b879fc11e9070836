"""The one-line "unknown NAME" message every check of a name gives, a leaf: the store's
filter checks (changes, compare) import it without request_check's imports (inventory,
transport, build recipes: a visible share of `benchdeck changes`' start-up, python -X
importtime)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class RequestError(ValueError):
    """A request naming something that does not exist (a usage error: exit 2)."""


def names_list(names: Iterable[str]) -> str:
    return ", ".join(sorted(names)) or "none"


def unknown_message(what: str, name: object, known: Iterable[object], where: str = "") -> str:
    """``unknown build 'x' on host h (known: a, b); did you mean 'y'?``: the one line every
    check of a name gives (run, queue, compare, changes)."""
    names = sorted({str(k) for k in known})
    close = difflib.get_close_matches(str(name), names, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {what} {name!r}{where} (known: {names_list(names)}){hint}"
