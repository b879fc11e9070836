"""What a comparison's columns can be: the (build, config) pairs a host has finished runs for,
alone or on a cluster (a run on a cluster is another column: issue 41).

:func:`column_choices` lists them, for a column picker; :func:`builds_of_config` and
:func:`series_columns` pick the usual sets from that list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb

from benchdeck.store.analysis.columns import Column


@dataclass(frozen=True, slots=True)
class ColumnChoice:
    """A (build, config) pair with ``runs`` finished runs on a host (at a dop, if one was given),
    alone or on ``cluster`` (its primary on the host)."""

    build: str
    config: str
    runs: int
    dbms: str
    version: str
    version_key: str
    fork: str
    variant: str
    cluster: str | None = None

    @property
    def column(self) -> Column:
        return Column(self.build, self.config, cluster=self.cluster)

    @property
    def series(self) -> tuple[str, str, str]:
        """Builds of one series differ only in version: same dbms, fork and variant."""
        return (self.dbms, self.fork, self.variant)


def column_choices(cur: duckdb.DuckDBPyConnection, host: str, dop: int | None = None) -> list[ColumnChoice]:
    """The (build, config) pairs with finished runs on ``host`` (at ``dop`` if given), oldest
    version first, then build name and config; a pair's runs on a cluster are a choice of their
    own, after its runs alone."""
    params = {"host": host, "dop": dop}
    try:
        rows = cur.execute(_CHOICES_SQL.format(**_ON_CLUSTERS), params).fetchall()
    except duckdb.CatalogException:  # a team store made before migration 14: every run alone
        rows = cur.execute(_CHOICES_SQL.format(**_ALONE), params).fetchall()
    return [_choice(r) for r in rows]


def _choice(r: tuple[Any, ...]) -> ColumnChoice:
    dbms, version, version_key, fork, variant = map(str, r[3:8])
    return ColumnChoice(
        str(r[0]), str(r[1]), int(r[2]), dbms, version, version_key, fork, variant, r[8] or None
    )


_CHOICES_SQL = (
    "SELECT b.name, r.config, count(*), b.dbms, b.version, b.version_key, b.fork, b.variant, {cluster} "
    "FROM runs r JOIN hosts h ON h.host_id = r.host_id JOIN builds b ON b.build_id = r.build_id{join} "
    "WHERE h.name = $host AND r.status = 'finished' AND ($dop IS NULL OR r.threads = $dop) "
    "GROUP BY ALL ORDER BY b.version_key, b.name, r.config{order}"
)
_ON_CLUSTERS = {
    "cluster": "c.cluster",
    "join": " LEFT JOIN run_clusters c ON c.run_id = r.run_id",
    "order": ", c.cluster NULLS FIRST",
}
_ALONE = {"cluster": "NULL", "join": "", "order": ""}


def builds_of_config(choices: Sequence[ColumnChoice], config: str) -> list[Column]:
    """Every build that has runs alone under ``config``, in version order."""
    return [c.column for c in choices if c.config == config and c.cluster is None]


def series_columns(
    choices: Sequence[ColumnChoice], of: ColumnChoice, prefer_config: str | None = None
) -> list[Column]:
    """Every version of ``of``'s series (same dbms, fork and variant; alone, or on ``of``'s
    cluster), one column per build in
    version order: under ``prefer_config`` (default: ``of``'s config) when the build has runs
    with it, else under the build's config with the most runs (as the posts put MariaDB 10.x on
    ``z12a`` beside 11.x on ``z12b``)."""
    want = of.config if prefer_config is None else prefer_config
    picked: dict[str, ColumnChoice] = {}
    for c in choices:
        if c.series != of.series or c.cluster != of.cluster:
            continue
        have = picked.get(c.build)
        if have is None or (have.config != want and (c.config == want or c.runs > have.runs)):
            picked[c.build] = c
    return [c.column for c in picked.values()]
