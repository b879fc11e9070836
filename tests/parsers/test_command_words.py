"""command_words' fast path (no quotes or escapes) splits as shlex does."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from benchdeck.engine.parsers.command import command_words

PLAIN = st.text(alphabet=st.characters(blacklist_characters="'\"\\", blacklist_categories=("Cs",)))


@given(PLAIN)
def test_plain_lines_split_as_shlex_does(line: str) -> None:
    assert command_words(line) == (shlex.split(line), line.strip())


def test_quoted_lines_still_go_through_shlex() -> None:
    words, _ = command_words("sysbench --mysql-password='a b' run")
    assert words == ["sysbench", "--mysql-password=a b", "run"]
