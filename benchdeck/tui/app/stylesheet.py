"""The app's stylesheet: Textual's, keeping what it parsed while the CSS variables stay the same,
and from one start to the next.

Textual (8.2) parses every CSS source again at each ``reparse`` (a fresh Stylesheet, an empty
cache) and clears its cache at each ``set_variables``, even when the variables are the same ones.
Starting the app does both several times (setting the theme, loading the first screen's CSS,
each ``refresh_css``), and each time re-parses the App's, the screen's and every widget's CSS
parsed so far: about half the CSS parsing before the first frame (bench/bench_tui.py, the
start-up section). Here a source is parsed once per set of variables; a theme change (new
variables) still parses everything again, as Textual does.

What is left, parsing each source once (a visible share of Launch's first frame), is kept
between starts: the rule sets parsed with a set of variables are pickled into
the user's cache directory (tui/startup/first_page.cache_dir, beside the kept first page) once
startup is over, and the next start with the same variables, the same CSS text and the same
Textual and Python loads them instead of parsing (far quicker). The file says which variables and
which Textual and Python it was parsed with (the files that define and parse the rule sets: an
upgrade is a new file; its name is a hash of that); the CSS text is part of each key, so an
edited stylesheet is parsed again. A file that does not load is ignored (and replaced). A
pickle runs code as it loads: a file is loaded only if this user alone could have written it
(owner and modes of the file and its directory, as sshd checks a key file), else parsed.
"""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from pathlib import Path

from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation

FORMAT = 1
Key = tuple[str, CSSLocation, bool, int, str]  # Stylesheet._parse_rules' cache key


def _identity() -> str:
    """Textual's and Python's identity: the files that define, parse and style rule sets."""
    import rich.style
    import textual.css.model
    import textual.css.parse
    import textual.css.styles

    parts = [sys.version, str(FORMAT)]
    for module in (textual.css.model, textual.css.parse, textual.css.styles, rich.style):
        path = module.__file__ or ""
        try:
            st = os.stat(path)
        except OSError:
            return ""  # (nothing to tell an upgrade by: no file kept)
        parts += [path, str(st.st_size), str(st.st_mtime_ns)]
    return "\n".join(parts)


class KeptParseStylesheet(Stylesheet):
    """A :class:`Stylesheet` whose parsed sources outlive ``reparse``, an unchanged
    ``set_variables`` and the process (``cache``: the directory of the kept parses; None: not
    kept)."""

    def __init__(self, *, variables: dict[str, str] | None = None, cache: Path | None = None) -> None:
        super().__init__(variables=variables)
        self._cache_dir = cache
        self._kept: dict[Key, list[RuleSet]] | None = None  # loaded for the current variables
        self._parsed: dict[Key, list[RuleSet]] = {}  # parsed or loaded with them
        self.parsed_here = 0
        """Sources parsed by this process with the current variables (not loaded)."""

    def set_variables(self, variables: dict[str, str]) -> None:
        if variables != self._variables:
            super().set_variables(variables)
            self._kept = None
            self._parsed = {}
            self.parsed_here = 0
        else:  # the same variables: what was parsed with them holds (errors are raised again)
            self._invalid_css = set()

    def reparse(self) -> None:
        """Parse the sources again with the current variables; sources already parsed with
        them come from the cache. On an error the rules in use stay (as Textual's)."""
        self._invalid_css = set()
        self.parse()  # (assigns the rules only once every source has parsed)

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        key: Key = (css, read_from, is_default_rules, tie_breaker, scope)
        rules = self._parsed.get(key)
        if rules is None:
            rules = self._load().get(key)
            if rules is None:
                rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
                self.parsed_here += 1
            self._parsed[key] = rules
        return rules

    def _file(self) -> tuple[Path, str] | None:
        """The kept parses' file for the current variables, and what it must say it is for
        (its name is a 32-bit hash of that: a file for something else is not loaded)."""
        if self._cache_dir is None:
            return None
        ident = _identity()
        if not ident:
            return None
        text = ident + "\n" + repr(sorted(self._variables.items()))  # (str: str)
        return self._cache_dir / f"css-{zlib.crc32(text.encode()):08x}.pickle", text

    def _load(self) -> dict[Key, list[RuleSet]]:
        if self._kept is None:
            self._kept = {}
            where = self._file()
            if where is not None:
                try:
                    data = _read_own(where[0])
                    kept = pickle.loads(data) if data is not None else None  # noqa: S301 - see _read_own
                except Exception:  # none yet, damaged, another Textual's: parse, keep anew
                    kept = None
                if isinstance(kept, tuple) and len(kept) == 2 and kept[0] == where[1]:
                    self._kept = kept[1]
        return self._kept

    def to_keep(self) -> tuple[Path, bytes] | None:
        """What to write so that the next start loads the sources parsed so far (with the
        current variables) instead of parsing them: None when nothing new was parsed. Call it
        on the UI thread (the rule sets are the app's); write the bytes anywhere."""
        where = self._file()
        if where is None or not self.parsed_here:
            return None
        path, what = where
        try:
            data = pickle.dumps((what, dict(self._parsed)), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # a rule set that does not pickle (another Textual): parse each time
            return None
        self.parsed_here = 0
        return path, data


def _read_own(path: Path) -> bytes | None:
    """The file's bytes if only this user could have written it (a pickle runs code as it
    loads): the file and its directory owned by this user (or root), neither writable by
    group or others, the file not a link. None otherwise; OSError if it cannot be read."""
    me = os.geteuid()
    folder = os.stat(path.parent)
    if folder.st_uid not in (me, 0) or folder.st_mode & 0o022:
        return None
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_uid != me or st.st_mode & 0o022:
            return None
        return f.read()


def write_kept(path: Path, data: bytes) -> None:
    """Write what :meth:`KeptParseStylesheet.to_keep` gave, whole or not at all (a cache: a
    failure only means the next start parses)."""
    from benchdeck.tui.startup.first_page import write_whole

    write_whole(path, data)
