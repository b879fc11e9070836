"""Per-op metrics near zero are no movers at a change point, and never ``inf`` (issue 25 item 2):
``changes`` printed ``wKB/o xinf`` for a read-only step's background writes rising from 0."""

from __future__ import annotations

from benchdeck.store.analysis.changes import Series, analyse
from benchdeck.store.analysis.movers import PER_OP_FLOOR, mover_ratio
from benchdeck.store.reports.changes_report import fmt_moves


def _series() -> Series:
    """Six versions, three runs each; QPS drops 30% after the third (a clear change)."""
    groups = tuple(g for g in range(6) for _ in range(3))
    after = [g >= 3 for g in groups]
    wobble = [1.0, 1.003, 0.997] * 6
    qps = tuple((700.0 if a else 1000.0) * w for a, w in zip(after, wobble, strict=True))
    hw = {
        "cpu/o": tuple((0.006 if a else 0.004) * w for a, w in zip(after, wobble, strict=True)),
        "cs/o": tuple(2.0 * w for w in wobble),
        "rKB/o": tuple((0.5 if a else 0.0) * w for a, w in zip(after, wobble, strict=True)),
        "wKB/o": tuple((0.0 if a else 0.006) * w for a, w in zip(after, wobble, strict=True)),
    }
    labels = tuple(f"8.0.{i}" for i in range(6))
    return Series(
        host="h",
        workload="point-query_range=100",
        group="point-1",
        dop=1,
        config="c",
        line="mysql rel",
        over="version",
        labels=labels,
        builds=tuple(f"my80{i}_rel" for i in range(6)),
        runs=(3,) * 6,
        qps=tuple(700.0 if i >= 3 else 1000.0 for i in range(6)),
        point_hw={m: tuple(sum(v[3 * i : 3 * i + 3]) / 3 for i in range(6)) for m, v in hw.items()},
        values=qps,
        groups=groups,
        hw=hw,
    )


def test_a_change_lists_no_near_zero_metric_and_no_inf() -> None:
    (sc,) = analyse([_series()])
    (change,) = sc.changes
    ratios = {m.metric: round(m.ratio, 2) for m in change.metrics}
    assert "wKB/o" not in ratios, "0.006 -> 0 KB/op is under the floor: no move"
    assert ratios["rKB/o"] == 50.0, "0 -> 0.5 KB/op against the 0.01 floor, not inf"
    assert fmt_moves(change.moved) == "cpu/o x1.50  rKB/o x50.00"


def test_the_floor_rule() -> None:
    assert mover_ratio("wKB/o", 0.0, 0.006) is None
    assert mover_ratio("r/o", 1.9e-6, 1.0e-4) is None
    assert mover_ratio("wKB/o", 0.052, 0.035) == 0.052 / 0.035  # the post's scan step still moves
    assert mover_ratio("cs/o", 2.0, 0.0) == 2.0 / PER_OP_FLOOR["cs/o"]
    assert mover_ratio("cpu/o", None, 1.0) is None
