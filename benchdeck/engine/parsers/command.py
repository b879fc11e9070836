"""Reading a benchmark's command line back: words of a shell line or an argv, where it ends."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

_REDIRECT = re.compile(r"(?a)\d?>.*")
# A shell word as shlex.split (POSIX mode) reads it: plain runs, '...', "..." (backslash escapes
# inside) and \x, side by side. Every quantifier is possessive (no backtracking), so a line of
# any length is read in linear time; shlex grows a word one character at a time (quadratic).
_WORD = re.compile(
    r"""(?:[^ \t\r\n'"\\]++|'[^']*+'|"[^"\\]*+(?:\\.[^"\\]*+)*+"|\\.)++""",
    re.DOTALL,
)
_QUOTED = re.compile(r"""'([^']*+)'|"([^"\\]*+(?:\\.[^"\\]*+)*+)"|\\(.)""", re.DOTALL)
_DQ_ESCAPE = re.compile(r'\\([\\"])')
_BLANKS = re.compile(r"[ \t\r\n]+")
_SPECIAL = re.compile(r"""['"\\]""")


def _unquote(m: re.Match[str]) -> str:
    single, double, escaped = m.groups()
    if single is not None:
        return single
    if double is not None:
        return _DQ_ESCAPE.sub(r"\1", double) if "\\" in double else double
    return escaped


def split_shell(line: str) -> list[str]:
    """``shlex.split(line)`` in linear time. Raises ValueError on an unclosed quote or a
    trailing backslash, as shlex does."""
    if not _SPECIAL.search(line):
        return [w for w in _BLANKS.split(line) if w]
    words: list[str] = []
    pos = 0
    for m in _WORD.finditer(line):
        if line[pos : m.start()].strip(" \t\r\n"):
            break
        w = m.group()
        words.append(_QUOTED.sub(_unquote, w) if _SPECIAL.search(w) else w)
        pos = m.end()
    if line[pos:].strip(" \t\r\n"):
        rest = line[pos:].lstrip(" \t\r\n")
        raise ValueError("No escaped character" if rest == "\\" else "No closing quotation")
    return words


def command_words(command: str | Sequence[str]) -> tuple[list[str], str]:
    """The words of a command and its text: a shell line split as the shell would (at
    whitespace if its quoting is broken), an argv as it is (its text shell-quoted)."""
    if isinstance(command, str):
        try:
            return split_shell(command), command.strip()
        except ValueError:
            return command.split(), command.strip()
    return list(command), shlex.join(command)


def ends_command(word: str) -> bool:
    """A pipe, a redirection or a separator: the options of this command stop here."""
    return word[:1] in "|<>&;" or bool(_REDIRECT.fullmatch(word))
