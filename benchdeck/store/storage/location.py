"""Where the store is when no ``--db`` names it: ``$BENCHDECK_DB``, else ``benchdeck.duckdb`` in
the user data directory. A leaf without DuckDB: the app's start-up path reads it before DuckDB loads."""

from __future__ import annotations

import os
from pathlib import Path

DB_ENV = "BENCHDECK_DB"


def default_db_path() -> Path:
    """``$BENCHDECK_DB`` if set, else ``benchdeck.duckdb`` in the user data dir."""
    env = os.environ.get(DB_ENV)
    if env:
        return Path(env).expanduser()
    import platformdirs  # (only without --db / $BENCHDECK_DB)

    return Path(platformdirs.user_data_dir("benchdeck", appauthor=False)) / "benchdeck.duckdb"
