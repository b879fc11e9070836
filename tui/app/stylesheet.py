"""The app's stylesheet: Textual's, keeping what it parsed while the CSS variables stay the same.

Textual (8.2) parses every CSS source again at each ``reparse`` (a fresh Stylesheet, an empty
cache) and clears its cache at each ``set_variables``, even when the variables are the same ones.
Starting the app does both several times (setting the theme, loading the first screen's CSS,
each ``refresh_css``), and each time re-parses the App's, the screen's and every widget's CSS
parsed so far: about half the CSS parsing before the first frame (bench/bench_tui.py, the
start-up section). Here a source is parsed once per set of variables; a theme change (new
variables) still parses everything again, as Textual does.
"""

from __future__ import annotations

from textual.css.stylesheet import Stylesheet


class KeptParseStylesheet(Stylesheet):
    """A :class:`Stylesheet` whose parsed sources outlive ``reparse`` and an unchanged
    ``set_variables``."""

    def set_variables(self, variables: dict[str, str]) -> None:
        if variables != self._variables:
            super().set_variables(variables)
        else:  # the same variables: what was parsed with them holds (errors are raised again)
            self._invalid_css = set()

    def reparse(self) -> None:
        """Parse the sources again with the current variables; sources already parsed with
        them come from the cache. On an error the rules in use stay (as Textual's)."""
        self._invalid_css = set()
        self.parse()  # (assigns the rules only once every source has parsed)
