"""The pure-Python e-divisive gives the numpy version's bits: the same splits, p-values, means
and standard deviations (tests/changes/numpy_reference.py is that version, kept as the oracle)."""

from __future__ import annotations

import math
import random

import numpy as np

from benchdeck.engine import changepoints as ours
from benchdeck.engine.changepoints_sums import np_sum, np_sum_at
from tests.changes import numpy_reference as ref


def _series(rng: random.Random, k: int) -> tuple[list[float], list[int] | None]:
    """3-130 values, 0-3 steps, assorted noise; every 5th rounded (exact ties), every 3rd with
    repeats (groups)."""
    n = rng.randint(3, 130)
    noise = rng.choice([1, 5, 20, 50])
    x = [1000 + rng.gauss(0, noise) for _ in range(n)]
    for _ in range(rng.randint(0, 3)):
        at, step = rng.randint(1, n - 1), rng.choice([-1, 1]) * rng.choice([10, 30, 100, 300])
        x[at:] = [v + step for v in x[at:]]
    if k % 5 == 0:
        x = [round(v / 50) * 50.0 for v in x]
    if k % 3:
        return x, None
    groups, g = [], 0
    for i in range(n):
        g += bool(i and rng.random() < 0.4)
        groups.append(g)
    return x, groups


def test_detect_gives_the_numpy_versions_bits() -> None:
    rng = random.Random(29)
    found = 0
    for k in range(300):
        x, groups = _series(rng, k)
        args = (rng.choice([0.001, 0.01, 0.05]), rng.choice([0.0, 0.05]), rng.choice([50, 20, 8]), k % 2 == 1)
        mine = ours.detect(x, groups, ours.Options(*args))
        theirs = ref.detect(x, groups, ref.Options(*args))
        assert [(c.index, c.test) for c in mine] == [(c.index, ours.TTest(*_fields(c.test))) for c in theirs]
        if k % 4 == 0:  # numpy's window for a big batch: the same bits again
            assert ours.detect(x, groups, ours.Options(*args), vectorised=True) == mine
        found += len(mine)
    assert found > 200  # real change points were compared, not only empty lists


def _fields(t: ref.TTest) -> tuple[float | int, ...]:
    return tuple(getattr(t, f) for f in ref.TTest.__slots__)


def test_only_a_big_batch_is_worth_numpy() -> None:
    assert not ours.worth_numpy([17] * 114)  # the archive's biggest host
    assert ours.worth_numpy([50] * 1000)  # bench/bench_changes.py's 1,000 x 50


def test_every_split_candidate_is_the_same() -> None:
    """Q's argmax per segment, on small integers (many exact ties) and masked splits (repeats)."""
    rng = random.Random(7)
    for _ in range(1500):
        n = rng.randint(2, 50)
        x = [rng.choice([rng.gauss(0, 1), float(rng.randint(0, 3))]) for _ in range(n)]
        allowed = [rng.random() < 0.8 for _ in range(n)]
        a = rng.randint(0, n - 1)
        b = rng.randint(a + 1, n)
        mine = ours._Window(x, allowed).candidate(a, b)
        assert mine == ref._Window(np.array(x), np.array(allowed)).candidate(a, b)


def test_sums_are_numpys_reduce_and_reduceat() -> None:
    rng = random.Random(3)
    for _ in range(400):
        n = rng.randint(1, 400)
        a = [rng.gauss(0, 1) * 10 ** rng.randint(-3, 6) for _ in range(n)]
        assert np_sum(a) == float(np.add.reduce(np.array(a)))
        starts = sorted({0, *(rng.randrange(n) for _ in range(rng.randint(0, 8)))})
        ends = [*starts[1:], n]
        assert [np_sum_at(a, s, e) for s, e in zip(starts, ends, strict=True)] == np.add.reduceat(
            np.array(a), starts
        ).tolist()


def test_point_means_are_the_numpy_versions() -> None:
    """store/analysis/change_series.py's per-point means of a metric (NaN where a run has none) against
    the numpy version's reduceat of the values with NaN as 0, over the count."""
    from benchdeck.store.analysis.change_series import _nanmeans

    rng = random.Random(11)
    for _ in range(300):
        n = rng.randint(1, 60)
        v = [math.nan if rng.random() < 0.3 else rng.gauss(0, 1) * 10 ** rng.randint(-4, 3) for _ in range(n)]
        starts = sorted({0, *(rng.randrange(n) for _ in range(rng.randint(0, 12)))})
        ends = [*starts[1:], n]
        a = np.array(v)
        ok = ~np.isnan(a)
        with np.errstate(invalid="ignore", divide="ignore"):
            ref_means = np.add.reduceat(np.where(ok, a, 0.0), starts) / np.add.reduceat(
                ok.astype(float), starts
            )
        assert _nanmeans(v, starts, ends) == [None if math.isnan(x) else x for x in ref_means.tolist()]
