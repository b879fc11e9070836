"""Apache Otava's own compute_change_points (in its own venv) finds the same change points."""

from __future__ import annotations

import numpy as np
import pytest

from benchdeck.engine.changepoints import Options, detect
from tests.changes.otava_oracle import otava_change_points
from tests.changes.synthetic import below_magnitude, known_cases


def test_otava_agrees_on_the_known_steps_at_the_defaults() -> None:
    cases = [*known_cases(), below_magnitude()]
    theirs = otava_change_points([c.series() for c in cases], max_pvalue=0.001, min_magnitude=0.05)
    for case, ref in zip(cases, theirs, strict=True):
        ours = detect(case.series())
        assert [cp.index for cp in ours] == [i for i, _, _ in ref], case.name
        for cp, (_, p, mag) in zip(ours, ref, strict=True):
            assert cp.pvalue == pytest.approx(p, rel=1e-6, abs=1e-12)
            assert cp.magnitude == pytest.approx(mag, rel=1e-9)


def random_series(count: int, seed: int) -> list[list[float]]:
    """Series of 4-120 points, 0-3 steps of assorted sizes, assorted noise; some rounded (ties)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        n = int(rng.integers(4, 120))
        x = 1000 + rng.normal(0, float(rng.choice([1, 5, 20, 50])), n)
        for _ in range(int(rng.integers(0, 4))):
            x[int(rng.integers(1, n)) :] += float(rng.choice([-1, 1]) * rng.choice([10, 30, 100, 300]))
        if k % 7 == 0:
            x = np.round(x / 50) * 50
        out.append(x.tolist())
    return out


@pytest.mark.parametrize(
    ("max_pvalue", "min_magnitude", "window"), [(0.001, 0.0, 50), (0.001, 0.05, 50), (0.01, 0.02, 20)]
)
def test_otava_agrees_on_random_series_with_its_merge(
    max_pvalue: float, min_magnitude: float, window: int
) -> None:
    """With Otava's own neighbour recompute (``otava_neighbours``) the results are identical,
    p-values and magnitudes included, on windows, ties and several steps."""
    series = random_series(150, seed=int(window + 1000 * min_magnitude))
    theirs = otava_change_points(series, max_pvalue=max_pvalue, min_magnitude=min_magnitude, window=window)
    opts = Options(max_pvalue=max_pvalue, min_magnitude=min_magnitude, window=window, otava_neighbours=True)
    found = 0
    for s, ref in zip(series, theirs, strict=True):
        ours = detect(s, options=opts)
        assert [cp.index for cp in ours] == [i for i, _, _ in ref]
        for cp, (_, p, mag) in zip(ours, ref, strict=True):
            assert cp.pvalue == pytest.approx(p, rel=1e-6, abs=1e-12)
            assert cp.magnitude == pytest.approx(mag, rel=1e-9)
        found += len(ours)
    assert found > 50  # the comparison covered real change points, not only empty lists


def test_our_merge_differs_from_otavas_only_by_recomputing_the_left_neighbour() -> None:
    """Where the two merges differ, ours reports each point's test against its real neighbours."""
    series = random_series(150, seed=7)
    theirs = otava_change_points(series, max_pvalue=0.001, min_magnitude=0.05)
    same = 0
    for s, ref in zip(series, theirs, strict=True):
        ours = detect(s)
        same += [cp.index for cp in ours] == [i for i, _, _ in ref]
        idx = [cp.index for cp in ours]
        for k, cp in enumerate(ours):
            lo = idx[k - 1] if k else 0
            hi = idx[k + 1] if k + 1 < len(idx) else len(s)
            assert (cp.test.n_before, cp.test.n_after) == (cp.index - lo, hi - cp.index)
    assert same >= 140
