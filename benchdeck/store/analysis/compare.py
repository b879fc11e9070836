"""Comparison of (build, config) columns on one host: rQPS per workload, group summaries,
per-op metrics, and a confidence interval of each ratio (store/analysis/noise.py).

DuckDB aggregates the runs (median over repeats, spread); this module resolves the columns and
runs the queries; store/analysis/compare_rows.py shapes the cells into the typed records of
store/analysis/compare_model.py that the renderers (text, md, csv, json, rich) print.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import duckdb

from benchdeck.engine.config_names import config_label, stored_config
from benchdeck.engine.relative import relative
from benchdeck.store.analysis.columns import Column
from benchdeck.store.analysis.compare_model import (
    HW_COLS,
    HW_KEYS,
    Cell,
    CompareError,
    Comparison,
    GroupStat,
    HwBlock,
    HwRow,
    RqpsRow,
    UnknownName,
)
from benchdeck.store.analysis.compare_rows import group_stats, hw_blocks, rqps_row

if TYPE_CHECKING:
    from benchdeck.store.analysis.counters_per_op import CounterRow
    from benchdeck.store.analysis.noise import RatioCI

__all__ = [
    "HW_KEYS",
    "Cell",
    "CompareError",
    "Comparison",
    "GroupStat",
    "HwBlock",
    "HwRow",
    "RqpsRow",
    "UnknownName",
    "compare",
]

# Host, builds and workloads by id: the aggregate and the sample counts take no str parameter and
# join no name table (a str parameter makes DuckDB's client import decimal on every compare; see
# _Runs). Kinds 3 and 4: whether the store has any per-second samples (none: no
# count query) and any counter windows (none: no counters).
_NAMES_SQL = """
SELECT 0, host_id, name FROM hosts UNION ALL
SELECT 1, build_id, name FROM builds UNION ALL
SELECT 2, workload_id, name FROM workloads UNION ALL
SELECT 3, count(*), '' FROM (SELECT 1 FROM bench_samples LIMIT 1)
"""
_COUNTERS_SQL = " UNION ALL SELECT 4, count(*), '' FROM (SELECT 1 FROM counter_windows LIMIT 1)"
# kind 5: the store's clusters (issue 41), by name: none, and the aggregate joins no cluster table
_CLUSTERS_SQL = " UNION ALL SELECT DISTINCT 5, 0, cluster FROM run_clusters"

_OF_RUNS = """
  r.host_id = {host}
  AND r.build_id IN ({builds})
  AND r.status = 'finished'
  AND ($dop IS NULL OR r.threads = $dop)"""

_AGG_SQL = (
    """
SELECT r.workload_id, r.threads, r.build_id, r.config,
       median(s.qps), count(*), min(s.qps), max(s.qps),
       median(s.cpu_o), median(s.cs_o), median(s.r_o), median(s.rkb_o), median(s.wkb_o),
       median(s.per_op_ops), CASE WHEN count(*) > 1 THEN list((r.run_id, s.qps)) END, min(r.run_id),
       {cluster}
FROM runs r
JOIN run_summary s ON s.run_id = r.run_id{cluster_join}
WHERE s.qps IS NOT NULL AND"""
    + _OF_RUNS
    + """
GROUP BY r.workload_id, r.threads, r.build_id, r.config{cluster_group}
"""
)
_NO_CLUSTERS = {"cluster": "''", "cluster_join": "", "cluster_group": ""}
"""The aggregate of a store without cluster runs: every run alone (the cluster '')."""
_CLUSTERS = {
    "cluster": "coalesce(c.cluster, '')",
    "cluster_join": "\nLEFT JOIN run_clusters c ON c.run_id = r.run_id",
    "cluster_group": ", coalesce(c.cluster, '')",
}

_SAMPLES_SQL = """
SELECT run_id, qps FROM bench_samples
SEMI JOIN (SELECT CAST(unnest(string_split($ids, ',')) AS BIGINT) AS id) ON run_id = id
WHERE qps IS NOT NULL ORDER BY run_id, t
"""

# the runs of the aggregate and more (a superset of the single-run cells'), by the same ids and dop
_COUNTS_SQL = (
    "SELECT run_id, count(*) FILTER (WHERE isfinite(qps)) FROM bench_samples "  # noqa: S608 (constants)
    f"WHERE run_id IN (SELECT r.run_id FROM runs r WHERE {_OF_RUNS}) GROUP BY run_id"
)
MIN_SAMPLES = 10  # = store.noise.MIN_SAMPLES (a test holds them equal): fewer give no interval

ColumnArg = str | Column


def compare(
    cur: duckdb.DuckDBPyConnection,
    *,
    host: str,
    base: ColumnArg,
    with_builds: Sequence[ColumnArg],
    group_of: Callable[[str], str],
    sort_key: Callable[[str], tuple[int, str]],
    config: str | None = None,
    dop: int | None = None,
    only: Collection[str] | None = None,
    intervals: bool = True,
    counters: bool = True,
) -> Comparison:
    """Compare the ``with_builds`` columns against ``base`` on ``host``; raises :class:`CompareError`.

    A column is a :class:`Column` or a string ``BUILD[:CONFIG]``; a build without a config gets
    ``config``, else the only config it has runs with. ``only`` limits the rows to those
    workloads (e.g. one suite's steps).
    ``intervals`` False skips the noise intervals (``within_noise`` and ``ci`` all None);
    ``counters`` False skips the perf stat counters.
    """
    wanted = [_as_column(c) for c in (base, *with_builds)]
    builds = list(dict.fromkeys(c.build for c in wanted))
    at_dops = any(c.dop is not None for c in wanted)  # columns at their own dops: BUILD@DOP
    if at_dops:
        wanted = [c if c.dop is not None else replace(c, dop=dop) for c in wanted]
        if any(c.dop is None for c in wanted):
            raise CompareError("give every column a dop (BUILD@DOP) or --dop for those without one")
    sql_dop = None if at_dops else dop
    runs = _Runs(cur, host, builds, sql_dop)
    rows = runs.aggregate()
    if {r[2] for r in rows} != set(builds):  # (rows for every build: the host and builds exist)
        _check_names(cur, host, [c.build for c in wanted])  # unknown host or build: said first
    # per (workload, dop, build, config): the runs it has (what the columns are resolved from);
    # a cell is made only for a pair a column shows (the 16-column archive compare: 592 of 814)
    found: dict[tuple[str, int | None, str, str, str], int] = {}
    of_pair: dict[tuple[str, str | None, str], list[tuple[tuple[str, int | None, str, str], int]]] = {}
    for i, (wl, threads, build, cfg, _qps, n, *_rest, cluster) in enumerate(rows):
        found[(wl, threads, build, cfg, cluster)] = int(n)
        of_pair.setdefault((build, cfg, cluster), []).append(((wl, threads, build, cfg), i))
    have: dict[tuple[int | None, str | None], dict[tuple[str, str], int]] = {}  # per dop and cluster
    for c in wanted:
        if c.cluster is not None and c.cluster not in runs.clusters:
            raise UnknownName(_unknown_cluster(c, runs.clusters))
        if (c.dop, c.cluster) not in have:
            have[(c.dop, c.cluster)] = _have(found, only, c.dop, c.cluster or "")
    specs = [
        _resolve(c, config, have[(c.dop, c.cluster)], host, c.dop or sql_dop, i == 0)
        for i, c in enumerate(wanted)
    ]
    dupes = [s for s in specs if specs.count(s) > 1]
    if dupes:
        raise CompareError(f"column {dupes[0]} is named more than once")
    labels = _labels(specs)
    base_label, col_labels = labels[0], labels[1:]
    cells: dict[tuple[str, int | None, str], Cell] = {}
    made: dict[int, Cell] = {}  # row -> its cell (two columns may show one pair)
    for spec, label in zip(specs, labels, strict=True):
        for (wl, threads, _build, _cfg), i in of_pair.get((spec.build, spec.config, spec.cluster or ""), ()):
            if spec.dop is None or threads == spec.dop:
                if i not in made:
                    made[i] = _cell(rows[i])
                # columns at their own dops share the rows of the base's dop
                cells[(wl, specs[0].dop if at_dops else threads, label)] = made[i]
    if on_cluster := [label for spec, label in zip(specs, labels, strict=True) if spec.cluster is not None]:
        from benchdeck.store.analysis.cluster_cells import with_cluster_figures

        with_cluster_figures(cur, cells, on_cluster)
    keys = sorted(
        {(wl, d) for (wl, d, b) in cells if b == base_label and (only is None or wl in only)},
        key=lambda k: (sort_key(k[0]), k[1] if k[1] is not None else -1),
    )
    cis = _intervals(cur, cells, keys, base_label, col_labels, runs) if intervals else {}
    rqps = tuple(rqps_row(cells, wl, d, base_label, col_labels, group_of, cis) for wl, d in keys)
    return Comparison(
        host=host,
        base=base_label,
        columns=tuple(col_labels),
        config=config,
        dops=tuple(sorted({d for _, d in keys}, key=lambda d: d if d is not None else -1)),
        rqps=rqps,
        groups=tuple(group_stats(rqps, col_labels)),
        hw=tuple(hw_blocks(cells, keys, specs, labels)),
        cells=cells,
        base_column=specs[0],
        column_specs=tuple(specs[1:]),
        counters=_counters(cur, cells, keys, base_label, col_labels) if counters and runs.counters else (),
        cluster_bases=_cluster_bases(specs, labels) if on_cluster else (),
    )


def _cluster_bases(specs: Sequence[Column], labels: Sequence[str]) -> tuple[str | None, ...]:
    """Per column: the label of the column that is the base's build and config on the same
    cluster and dop (not the column itself), else None."""
    base = specs[0]
    out: list[str | None] = []
    for i, s in enumerate(specs[1:], 1):
        same = (base.build, base.config, s.dop, s.cluster)
        found = [
            lb
            for j, (o, lb) in enumerate(zip(specs, labels, strict=True))
            if j != i and (o.build, o.config, o.dop, o.cluster) == same
        ]
        out.append(found[0] if s.cluster is not None and found else None)
    return tuple(out)


def _cell(row: tuple[Any, ...]) -> Cell:
    """A row of :data:`_AGG_SQL` as a cell (DuckDB gives BIGINT as int, DOUBLE as float). A cell
    of one run (most of an archive's) comes without the list of its runs: its run is the min
    run id, its QPS the median's (a list of structs per row costs the wide compares most)."""
    qps, n, qmin, qmax, runs = float(row[4]), row[5], row[6], row[7], row[14]
    run_ids: tuple[int, ...]
    run_qps: tuple[float, ...]
    if runs is None:
        run_ids, run_qps = (row[15],), (qps,)
    else:
        runs.sort()  # by run id (an ORDER BY in the aggregate costs the query more)
        run_ids, run_qps = tuple([r for r, _ in runs]), tuple([float(q) for _, q in runs])
    return Cell(
        qps=qps,
        n=n,
        qps_min=float(qmin),
        qps_max=float(qmax),
        hw=dict(zip(HW_COLS, row[8:14], strict=True)),
        run_ids=run_ids,
        run_qps=run_qps,
    )


def _have(
    found: dict[tuple[str, int | None, str, str, str], int],
    only: Collection[str] | None,
    dop: int | None,
    cluster: str,
) -> dict[tuple[str, str], int]:
    """Finished runs per (build, config) (at ``dop`` when given) on ``cluster`` ('': alone), of
    the ``only`` workloads."""
    have: dict[tuple[str, str], int] = {}
    for (wl, threads, build, cfg, on), n in found.items():
        if on == cluster and (only is None or wl in only) and (dop is None or threads == dop):
            have[(build, cfg)] = have.get((build, cfg), 0) + n
    return have


def _counters(
    cur: duckdb.DuckDBPyConnection,
    cells: dict[tuple[str, int | None, str], Cell],
    keys: Sequence[tuple[str, int | None]],
    base: str,
    columns: Sequence[str],
) -> tuple[CounterRow, ...]:
    # (only for a store with counter windows, _Runs.counters: else the module's import is not
    # needed)
    from benchdeck.store.analysis.counters_per_op import counter_rows, per_op

    wanted = set(keys)
    values = per_op(cur, {k: c.run_ids for k, c in cells.items() if (k[0], k[1]) in wanted})
    return counter_rows(values, keys, base, columns) if values else ()


def _as_column(c: ColumnArg) -> Column:
    """A :class:`Column`, or a string ``BUILD`` / ``BUILD:CONFIG``."""
    return c if isinstance(c, Column) else Column.parse(c)


def _labels(specs: Sequence[Column]) -> list[str]:
    """Build names when every column has one config, else ``<build>.<config>``; ``@<cluster>``
    after a column on a cluster, ``@<dop>`` after each when the columns have their own dops."""
    at = [(f"@{s.cluster}" if s.cluster else "") + (f"@{s.dop}" if s.dop is not None else "") for s in specs]
    if len({s.config for s in specs}) == 1:
        return [s.build + a for s, a in zip(specs, at, strict=True)]
    return [f"{s.build}.{config_label(s.config or '')}{a}" for s, a in zip(specs, at, strict=True)]


def _resolve(
    col: Column,
    default: str | None,
    have: dict[tuple[str, str], int],
    host: str,
    dop: int | None,
    is_base: bool,
) -> Column:
    """The column's config: its own, else ``default``, else the only one its build has runs
    with; raises when that pair has no runs, naming the pairs of the build that have some."""
    cfg = col.config if col.config is not None else default
    of_build = sorted((c, n) for (b, c), n in have.items() if b == col.build)
    cfg = None if cfg is None else stored_config(cfg, (c for c, _ in of_build))
    on = f" on cluster {col.cluster!r}" if col.cluster is not None else ""
    where = f" on host {host!r}{on}" + _filters(None, dop)
    what = "base build" if is_base else "build"
    if cfg is None:
        if len(of_build) == 1:
            return Column(col.build, of_build[0][0], col.dop, col.cluster)
        if not of_build:
            raise CompareError(f"{what} {col.build!r} has no finished runs{where}")
        raise CompareError(
            f"build {col.build!r} has runs with configs {', '.join(config_label(c) for c, _ in of_build)}: "
            f"pick one with --config or {col.build}:CONFIG"
        )
    if (col.build, cfg) in have:
        return Column(col.build, cfg, col.dop, col.cluster)
    if not of_build:
        raise CompareError(
            f"{what} {col.build!r} has no finished runs on host {host!r}{on}{_filters(cfg, dop)}"
        )
    pairs = ", ".join(f"{col.build}:{config_label(c)} ({n} runs)" for c, n in of_build)
    raise CompareError(
        f"{what} {col.build!r} has no finished runs on host {host!r}{on}{_filters(cfg, dop)}; "
        f"it has runs as {pairs}"
    )


def _filters(config: str | None, dop: int | None) -> str:
    parts = [
        f"config {config_label(config)!r}" if config is not None else "",
        f"dop {dop}" if dop is not None else "",
    ]
    shown = " and ".join(p for p in parts if p)
    return f" with {shown}" if shown else ""


class _Runs:
    """The finished runs of ``builds`` on ``host`` (at ``dop``), queried by ids. The host's and
    the builds' ids are written into the SQL as integer literals: ids the store gave, made ints
    here (no user value reaches the text; the dop stays a parameter). DuckDB's client tries to
    import pandas for every parameter, twice, a failed import each time when it is absent, so
    literals cost less than parameters; a list parameter probes each element the same way, and a
    str one imports decimal."""

    def __init__(self, cur: duckdb.DuckDBPyConnection, host: str, builds: Sequence[str], dop: int | None):
        self.cur = cur
        ids: dict[int, dict[str, int]] = {0: {}, 1: {}, 2: {}, 3: {}, 4: {"": 0}, 5: {}}
        found = _names(cur)
        for kind, id_, name in found:
            ids[kind][name] = id_
        self.clusters = frozenset(ids[5])
        """The clusters the store has runs on (none: the aggregate joins no cluster table)."""
        self.samples = ids[3][""] > 0
        self.counters = ids[4][""] > 0
        """The store has counter windows (perf stat counters): else their module is not needed."""
        build_ids = [ids[1][b] for b in builds if b in ids[1]]
        self.found = host in ids[0] and bool(build_ids)
        """False: the store has not the host or none of the builds (no runs to query)."""
        self.dop = dop
        self.ids = {"host": str(int(ids[0].get(host, 0))), "builds": ", ".join(map(str, map(int, build_ids)))}
        self.workload_of = {i: n for n, i in ids[2].items()}
        self.build_of = {i: n for n, i in ids[1].items()}

    def _query(self, sql: str) -> list[tuple[Any, ...]]:
        if not self.found:
            return []
        joins = _CLUSTERS if self.clusters else _NO_CLUSTERS
        return self.cur.execute(sql.format(**self.ids, **joins), {"dop": self.dop}).fetchall()

    def aggregate(self) -> list[tuple[Any, ...]]:
        """The rows of :data:`_AGG_SQL`, the workload and the build by name."""
        return [(self.workload_of[w], t, self.build_of[b], *rest) for w, t, b, *rest in self._query(_AGG_SQL)]

    def sample_counts(self) -> dict[int, int]:
        """Per run: its per-second samples with a finite QPS (runs without any: absent)."""
        return dict(self._query(_COUNTS_SQL)) if self.samples else {}


def _names(cur: duckdb.DuckDBPyConnection) -> list[tuple[int, int, str]]:
    """The rows of :data:`_NAMES_SQL` and of the counter and cluster probes the store has tables
    for (a team store made before migration 12 or 14: lakes do not follow migrations)."""
    for sql in (_NAMES_SQL + _COUNTERS_SQL + _CLUSTERS_SQL, _NAMES_SQL + _COUNTERS_SQL):
        try:
            return cur.execute(sql).fetchall()
        except duckdb.CatalogException:
            continue
    return cur.execute(_NAMES_SQL).fetchall()


def _unknown_cluster(col: Column, known: Collection[str]) -> str:
    """``BUILD@x``: x is not a dop, nor a cluster the store has runs on (a usage error)."""
    shown = ", ".join(sorted(known)) or "none"
    why = "the dop after @ must be a positive integer, or a cluster the store has runs on"
    return f"{str(col)!r}: {why} ({shown})"


def _check_names(cur: duckdb.DuckDBPyConnection, host: str, builds: list[str]) -> None:
    """UnknownName for a host without runs or a build without runs on it, naming the known
    ones and the closest (as ``run`` does: engine/dispatch/request_check.py)."""
    from benchdeck.engine.planning.unknown import unknown_message

    hosts = [
        r[0] for r in cur.execute("SELECT DISTINCT h.name FROM hosts h JOIN runs USING (host_id)").fetchall()
    ]
    if host not in hosts:
        raise UnknownName(unknown_message("host", host, hosts))
    known = [
        r[0]
        for r in cur.execute(
            "SELECT DISTINCT b.name FROM runs r JOIN hosts h USING (host_id) JOIN builds b USING (build_id) "
            "WHERE h.name = ?",
            [host],
        ).fetchall()
    ]
    missing = [b for b in builds if b not in known]
    if missing:
        raise UnknownName(unknown_message("build", missing[0], known, f" on host {host}"))


def _intervals(
    cur: duckdb.DuckDBPyConnection,
    cells: dict[tuple[str, int | None, str], Cell],
    keys: Sequence[tuple[str, int | None]],
    base: str,
    columns: Sequence[str],
    runs: _Runs,
) -> dict[tuple[str, int | None, str], RatioCI | None]:
    """The interval of every compared cell: from repeats when either side has several runs,
    else from both runs' per-second QPS (fetched in one query, bootstrapped in one batch)."""
    out: dict[tuple[str, int | None, str], RatioCI | None] = {}
    single: list[tuple[tuple[str, int | None, str], int, int, float]] = []
    for wl, d in keys:
        b = cells[(wl, d, base)]
        for name in columns:
            c = cells.get((wl, d, name))
            r = relative(c.qps, b.qps) if c is not None else None
            if c is None or r is None:
                continue
            if b.n > 1 or c.n > 1:
                from benchdeck.store.analysis.noise import ratio_ci_repeats  # numpy and scipy: only now

                out[(wl, d, name)] = ratio_ci_repeats(c.run_qps, b.run_qps)
            else:
                single.append(((wl, d, name), c.run_ids[0], b.run_ids[0], r))
    if single:
        # runs without enough per-second samples for an interval (most imported archives) are
        # known from a count: numpy is loaded only when some cell gets an interval from samples
        counts = runs.sample_counts()
        out.update((k, None) for k, *_ in single)
        single = [s for s in single if min(counts.get(s[1], 0), counts.get(s[2], 0)) >= MIN_SAMPLES]
    if single:
        import numpy as np

        from benchdeck.store.analysis.noise import ratio_cis_samples

        ids = sorted({i for _, c_id, b_id, _ in single for i in (c_id, b_id)})
        # ids as one string: a list parameter costs a failed import per element (DuckDB probes
        # each for a pandas object, a failed import every time when pandas is absent)
        got = cur.execute(_SAMPLES_SQL, {"ids": ",".join(map(str, ids))}).fetchnumpy()
        run_ids, qps = np.asarray(got["run_id"]), np.asarray(got["qps"], dtype=float)
        firsts, starts = np.unique(run_ids, return_index=True)
        by_run = dict(zip(firsts.tolist(), np.split(qps, starts[1:]), strict=False))  # none: [[]]
        empty = np.empty(0)
        cis = ratio_cis_samples([(by_run.get(c, empty), by_run.get(b, empty), r) for _, c, b, r in single])
        out.update(zip((k for k, *_ in single), cis, strict=True))
    return out
