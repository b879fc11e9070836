"""Reading a benchmark's command line back: words of a shell line or an argv, where it ends."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

_REDIRECT = re.compile(r"(?a)\d?>.*")
_PLAIN = re.compile(r"[^'\"\\]*")  # nothing quoted or escaped: shlex splits at whitespace only
_SHLEX_SPACE = re.compile(r"[ \t\r\n]+")


def command_words(command: str | Sequence[str]) -> tuple[list[str], str]:
    """The words of a command and its text: a shell line split as the shell would (at
    whitespace if its quoting is broken), an argv as it is (its text shell-quoted)."""
    if isinstance(command, str):
        if _PLAIN.fullmatch(command):  # the common case, without shlex's per-character loop
            words = _SHLEX_SPACE.split(command.strip(" \t\r\n"))
            return (words if words != [""] else []), command.strip()
        try:
            return shlex.split(command), command.strip()
        except ValueError:
            return command.split(), command.strip()
    return list(command), shlex.join(command)


def ends_command(word: str) -> bool:
    """A pipe, a redirection or a separator: the options of this command stop here."""
    return word[:1] in "|<>&;" or bool(_REDIRECT.fullmatch(word))
