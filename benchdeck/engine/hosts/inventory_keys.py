"""Where a key stands in a TOML text (tomllib gives no positions for valid values): the lines
the inventory's errors name, and keys written as users write them (``hosts.dell32.threads``)."""

from __future__ import annotations

import re
import tomllib

KeyPath = tuple[str | int, ...]

_PART = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_PART}(?:\s*\.\s*{_PART})*"
_HEADER = re.compile(rf"\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(rf"\s*({_DOTTED})\s*=")


def _parts(dotted: str) -> tuple[str, ...]:
    def unquote(p: str) -> str:
        try:
            return str(tomllib.loads(f"k = {p}")["k"]) if p[0] in "\"'" else p
        except tomllib.TOMLDecodeError:
            return p

    return tuple(unquote(p) for p in re.findall(_PART, dotted))


def key_lines(text: str) -> dict[KeyPath, int]:
    """First line (1-based) of every table header and key, by concrete path: the Nth
    ``[[a.b]]`` is ``("a", "b", N-1)``, and its keys live below that."""
    found: dict[KeyPath, int] = {}
    aot: dict[KeyPath, int] = {}
    table: KeyPath = ()
    in_string: str | None = None

    def concrete(parts: tuple[str, ...]) -> KeyPath:
        cur: KeyPath = ()
        for part in parts:
            cur += (part,)
            if cur in aot:
                cur += (aot[cur],)
        return cur

    for no, line in enumerate(text.splitlines(), 1):
        if in_string is not None:
            if line.count(in_string) % 2:
                in_string = None
            continue
        if (m := _HEADER.match(line)) is not None:
            parts = _parts(m.group(2))
            if m.group(1) == "[[":
                key = (*concrete(parts[:-1]), parts[-1])
                aot[key] = aot.get(key, -1) + 1
            table = concrete(parts)
            for n in range(1, len(table) + 1):  # [a.b.c] also defines a and a.b (implicitly)
                found.setdefault(table[:n], no)
        elif (m := _KEY.match(line)) is not None:
            key = (*table, *_parts(m.group(1)))
            for n in range(len(table) + 1, len(key) + 1):  # a.b = 1 defines table a too
                found.setdefault(key[:n], no)
        for quote in ('"""', "'''"):
            if line.count(quote) % 2:
                in_string = quote
    return found


def dotted(path: KeyPath) -> str:
    out = ""
    for p in path:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + (p if re.fullmatch(r"[A-Za-z0-9_-]+", p) else f'"{p}"')
    return out
