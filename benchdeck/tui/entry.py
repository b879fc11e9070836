"""The ``benchdeck`` command's entry: a plain app start goes straight to the app, anything
else to the command line (tui/cli/main.py).

``benchdeck`` and ``benchdeck --db FILE`` open the app; building the click group on the way
(importing click and the CLI's entry, parsing) only delays the first frame (``-X importtime``
and bench/bench_tui.py show it). Any other argument, and anything unusual about
these (a directory for ``--db``, a missing value), goes to click, which parses and reports it
as it always has.

The cycle collector is off from here until the app's start-up is over (the app turns it on
again, tui/app/app.py): the imports alone ran collections over objects that live as long as
the app, freeing nothing.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

DB_ENV = "BENCHDECK_DB"  # (store.location.DB_ENV; the CLI's --db reads it as click's envvar)


class NotPlain(Exception):
    """The arguments are not a plain app start: the command line parses them."""


def plain_app_db(argv: list[str], env: dict[str, str] | os._Environ[str]) -> Path | None:
    """The store a plain app start names (``[]``, ``--db FILE``, ``--db=FILE``; else
    ``$BENCHDECK_DB``; None: the default store), as the CLI's ``--db`` option reads it.

    Raises NotPlain for anything else, and for what the CLI refuses in one line (an empty
    value, a directory), so that it does."""
    if not argv:
        text = env.get(DB_ENV) or None
    elif len(argv) == 2 and argv[0] == "--db":
        text = argv[1]
    elif len(argv) == 1 and argv[0].startswith("--db="):
        text = argv[0].removeprefix("--db=")
    else:
        raise NotPlain
    if text is None:
        return None
    if not text or text.startswith("-") or os.path.isdir(text):
        raise NotPlain
    return Path(text)


def main() -> None:
    """``benchdeck [ARGS]``: the app at once when ARGS only name the store, else the CLI."""
    try:
        db = plain_app_db(sys.argv[1:], os.environ)
    except NotPlain:
        from benchdeck.tui.cli.main import main as cli_main

        cli_main()
        return
    paused = gc.isenabled()
    gc.disable()
    try:
        from benchdeck.tui.startup.open_app import open_app

        open_app(db, gc_paused=paused)
    except Exception as exc:  # as the CLI's main() reports them: one line
        _fail(exc)


def _fail(exc: Exception) -> None:
    from benchdeck.tui.services.errors import is_compare_error, is_store_error

    ours = is_store_error(exc) or is_compare_error(exc)
    if not ours and (not isinstance(exc, ValueError | OSError) or os.environ.get("BENCHDECK_DEBUG")):
        raise exc
    print(f"benchdeck: {' '.join(str(exc).split())}", file=sys.stderr)
    sys.exit(getattr(exc, "exit_code", 1) if is_compare_error(exc) else 1)


if __name__ == "__main__":
    main()
