"""e-divisive means + t-test on synthetic series with known steps, at the default thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from benchdeck.engine.changepoints import ChangePoint, Options, detect, split_test, ttest
from tests.changes.synthetic import Case, below_magnitude, known_cases


@pytest.mark.parametrize("case", known_cases(), ids=lambda c: c.name)
def test_known_steps_are_found_and_nothing_else(case: Case) -> None:
    found = detect(case.series())
    assert [cp.index for cp in found] == case.expected
    for cp in found:
        assert cp.pvalue < 0.001
        assert cp.magnitude > 0.05


def test_step_sizes_and_directions_are_reported() -> None:
    case = Case("drop", 12, 0.01, ((6, -0.25),), 3)
    (cp,) = detect(case.series())
    assert cp.test.change == pytest.approx(-0.25, abs=0.02)
    assert cp.test.n_before == 6
    assert cp.test.n_after == 6


def false_alarms(n: int, noise: float, seeds: int) -> int:
    return sum(bool(detect(Case("flat", n, noise, (), 1000 + seed).series())) for seed in range(seeds))


def test_flat_series_give_no_false_change_points_over_many_seeds() -> None:
    # run-to-run noise of 1%, a fifth of the minimum magnitude: never a change
    assert [false_alarms(n, 0.01, 300) for n in (8, 20, 40)] == [0, 0, 0]


def test_false_alarms_stay_rare_when_the_noise_nears_the_minimum_magnitude() -> None:
    # at 3% noise (0.6x the 5% minimum) the search over positions finds a chance change in
    # about 1% of flat series (11 of 900 measured; README: keep the minimum >= 3x the noise)
    assert sum(false_alarms(n, 0.03, 300) for n in (8, 20, 40)) < 18


def test_a_step_below_the_minimum_magnitude_is_left_out_unless_asked_for() -> None:
    case = below_magnitude()
    assert detect(case.series()) == []
    found = detect(case.series(), options=Options(min_magnitude=0.01))
    assert [cp.index for cp in found] == [10]


def test_a_stricter_pvalue_drops_a_weak_change() -> None:
    series = Case("weak", 8, 0.03, ((4, -0.08),), 11).series()
    loose = detect(series, options=Options(max_pvalue=0.05))
    strict = detect(series, options=Options(max_pvalue=1e-9))
    assert [cp.index for cp in loose] == [4]
    assert strict == []


def test_repeats_keep_a_version_together_and_give_the_run_to_run_noise() -> None:
    # 5 versions x 3 runs, 1.5% run-to-run noise, QPS drops 10% at version 1 (a post's shape).
    # One value per version (the medians) is often too short for p <= 0.001; the runs are not.
    groups = [i for i in range(5) for _ in range(3)]
    by_runs = by_medians = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        values = [lv * (1 + rng.normal(0, 0.015)) for lv in (100, 90, 90, 90, 90) for _ in range(3)]
        found = detect(values, groups)
        by_runs += [cp.index for cp in found] == [1]
        by_medians += [
            cp.index for cp in detect([float(np.median(values[i : i + 3])) for i in range(0, 15, 3)])
        ] == [1]
        if found:
            assert (found[0].test.n_before, found[0].test.n_after) == (3, 12)
    assert by_runs == 100
    assert by_medians < 70


def test_a_change_never_splits_the_repeats_of_one_version() -> None:
    # the step sits inside version 2's runs: the split lands on a version boundary
    values = [10.0, 10.1, 9.9, 10.0, 10.0, 8.0, 8.1, 7.9, 8.0, 8.0, 8.1, 7.9]
    groups = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    found = detect(values, groups, Options(max_pvalue=0.05))
    assert all(values_at_boundary(groups, cp) for cp in found)
    assert [cp.index for cp in found] in ([1], [2])


def values_at_boundary(groups: list[int], cp: ChangePoint) -> bool:
    return cp.index in set(groups[1:]) and cp.index != groups[0]


def test_short_and_constant_series_have_no_change_points() -> None:
    assert detect([]) == []
    assert detect([5.0, 1.0]) == []
    assert detect([3.0] * 10) == []


def test_bad_input_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="finite"):
        detect([1.0, float("nan"), 2.0])
    with pytest.raises(ValueError, match="groups must not decrease"):
        detect([1.0, 2.0, 3.0], [1, 0, 2])
    with pytest.raises(ValueError, match="p-value"):
        Options(max_pvalue=0)


def test_ttest_matches_scipy_on_otavas_inputs() -> None:
    from scipy.stats import ttest_ind_from_stats

    a = np.array([10.0, 11.0, 9.5, 10.2])
    b = np.array([8.0, 8.4, 7.7])
    ours = ttest(a, b)
    ref = ttest_ind_from_stats(a.mean(), a.std(), 4, b.mean(), b.std(), 3)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9)
    assert ttest(np.array([1.0]), np.array([2.0])).pvalue == 1.0


def test_split_test_of_a_second_series_at_a_known_point() -> None:
    cpu = [1.0, 1.02, 0.98, 1.3, 1.31, 1.29]
    t = split_test(cpu, None, (0, 3, 6))
    assert t is not None
    assert t.ratio == pytest.approx(1.3, rel=0.01)
    assert split_test(cpu, None, (0, 0, 6)) is None
