"""What a comparison's columns can be: the (build, config) pairs a host has finished runs for.

:func:`column_choices` lists them, for a column picker; :func:`builds_of_config` and
:func:`series_columns` pick the usual sets from that list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb

from benchdeck.store.analysis.columns import Column


@dataclass(frozen=True, slots=True)
class ColumnChoice:
    """A (build, config) pair with ``runs`` finished runs on a host (at a dop, if one was given)."""

    build: str
    config: str
    runs: int
    dbms: str
    version: str
    version_key: str
    fork: str
    variant: str

    @property
    def column(self) -> Column:
        return Column(self.build, self.config)

    @property
    def series(self) -> tuple[str, str, str]:
        """Builds of one series differ only in version: same dbms, fork and variant."""
        return (self.dbms, self.fork, self.variant)


def column_choices(cur: duckdb.DuckDBPyConnection, host: str, dop: int | None = None) -> list[ColumnChoice]:
    """The (build, config) pairs with finished runs on ``host`` (at ``dop`` if given), oldest
    version first, then build name and config."""
    rows = cur.execute(
        "SELECT b.name, r.config, count(*), b.dbms, b.version, b.version_key, b.fork, b.variant "
        "FROM runs r JOIN hosts h ON h.host_id = r.host_id JOIN builds b ON b.build_id = r.build_id "
        "WHERE h.name = $host AND r.status = 'finished' AND ($dop IS NULL OR r.threads = $dop) "
        "GROUP BY ALL ORDER BY b.version_key, b.name, r.config",
        {"host": host, "dop": dop},
    ).fetchall()
    return [ColumnChoice(str(r[0]), str(r[1]), int(r[2]), *map(str, r[3:])) for r in rows]


def builds_of_config(choices: Sequence[ColumnChoice], config: str) -> list[Column]:
    """Every build that has runs under ``config``, in version order."""
    return [c.column for c in choices if c.config == config]


def series_columns(
    choices: Sequence[ColumnChoice], of: ColumnChoice, prefer_config: str | None = None
) -> list[Column]:
    """Every version of ``of``'s series (same dbms, fork and variant), one column per build in
    version order: under ``prefer_config`` (default: ``of``'s config) when the build has runs
    with it, else under the build's config with the most runs (as the posts put MariaDB 10.x on
    ``z12a`` beside 11.x on ``z12b``)."""
    want = of.config if prefer_config is None else prefer_config
    picked: dict[str, ColumnChoice] = {}
    for c in choices:
        if c.series != of.series:
            continue
        have = picked.get(c.build)
        if have is None or (have.config != want and (c.config == want or c.runs > have.runs)):
            picked[c.build] = c
    return [c.column for c in picked.values()]
