"""Noise as a statistic: confidence intervals of a QPS ratio on synthetic series whose true ratio
and noise are known (store/analysis/noise.py), and through ``compare`` on a store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from benchdeck.engine.builds import parse_build_name
from benchdeck.engine.catalogue import default_catalogue
from benchdeck.engine.records import BenchInterval
from benchdeck.store.analysis.compare import compare
from benchdeck.store.analysis.noise import block_length, ratio_ci_repeats, ratio_ci_samples
from benchdeck.store.reports.compare_report import interval_source
from benchdeck.store.storage.db import Store
from benchdeck.store.storage.runs import NewRun, RunSummary, create_run, save_summary, set_status
from benchdeck.store.storage.samples import append_bench

CAT = default_catalogue()


def ar1(rng: np.random.Generator, n: int, mean: float, rel_sd: float, phi: float = 0.6) -> np.ndarray:
    """Per-second QPS around ``mean``: AR(1) noise of marginal sd ``rel_sd * mean``."""
    e = rng.normal(0.0, rel_sd * mean * np.sqrt(1 - phi**2), n)
    x = np.empty(n)
    x[0] = rng.normal(0.0, rel_sd * mean)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + e[i]
    return np.asarray(mean + x)


# --- repeats ---


def test_a_100x_drop_is_never_noise_even_with_wild_repeats() -> None:
    base = [100.0, 20.0, 300.0]  # spread (max - min) / median = 2.8: the old rule called this noise
    other = [1.0, 0.2, 3.0]
    ci = ratio_ci_repeats(other, base)
    assert ci is not None
    assert ci.method == "repeats"
    assert ci.high < 0.2
    assert not ci.contains(1.0)


def test_a_1pct_change_inside_heavy_noise_is_noise() -> None:
    rng = np.random.default_rng(7)
    base = 1000 * (1 + 0.2 * rng.standard_normal(6))
    other = 1010 * (1 + 0.2 * rng.standard_normal(6))
    ci = ratio_ci_repeats(list(other), list(base))
    assert ci is not None
    assert ci.contains(1.0)
    assert ci.high - ci.low > 0.1


def test_repeats_interval_covers_the_true_ratio() -> None:
    rng = np.random.default_rng(11)
    covered, excludes_one = 0, 0
    trials = 40
    for _ in range(trials):
        base = 1000 * (1 + 0.03 * rng.standard_normal(7))
        other = 800 * (1 + 0.03 * rng.standard_normal(7))
        ci = ratio_ci_repeats(list(other), list(base))
        assert ci is not None
        covered += ci.contains(0.8)
        excludes_one += not ci.contains(1.0)
    assert covered >= 0.8 * trials, covered
    assert excludes_one == trials, "a 20% drop with 3% noise is never noise"


def test_one_run_each_side_has_no_repeats_interval() -> None:
    assert ratio_ci_repeats([100.0], [90.0]) is None


def test_one_side_with_repeats_gives_an_interval() -> None:
    ci = ratio_ci_repeats([90.0, 110.0, 100.0], [100.0])
    assert ci is not None
    assert ci.low < 1.0 < ci.high


# --- per-second samples of one run each ---


def test_samples_100x_drop_is_not_noise() -> None:
    rng = np.random.default_rng(3)
    base, other = ar1(rng, 300, 10_000, 0.5), ar1(rng, 300, 100, 0.5)
    ratio = other.mean() / base.mean()
    ci = ratio_ci_samples(list(other), list(base), ratio)
    assert ci is not None
    assert ci.method == "samples"
    assert ci.high < 0.02
    assert not ci.contains(1.0)


def test_samples_1pct_change_inside_heavy_noise_is_noise() -> None:
    rng = np.random.default_rng(5)
    base, other = ar1(rng, 300, 1000, 0.4, phi=0.8), ar1(rng, 300, 1010, 0.4, phi=0.8)
    ci = ratio_ci_samples(list(other), list(base), other.mean() / base.mean())
    assert ci is not None
    assert ci.contains(1.0)


def test_samples_interval_covers_the_true_ratio_despite_autocorrelation() -> None:
    """With strongly autocorrelated samples an iid bootstrap is far too narrow; blocks keep the
    interval honest: it covers the true ratio in most trials."""
    rng = np.random.default_rng(13)
    trials, covered = 40, 0
    for _ in range(trials):
        base, other = ar1(rng, 300, 1000, 0.1, phi=0.8), ar1(rng, 300, 950, 0.1, phi=0.8)
        ci = ratio_ci_samples(list(other), list(base), other.mean() / base.mean())
        assert ci is not None
        covered += ci.contains(0.95)
    assert covered >= 0.8 * trials, covered  # 90% over 200 trials (nominal 95%)


def test_samples_interval_is_centred_on_the_printed_ratio() -> None:
    rng = np.random.default_rng(17)
    base, other = ar1(rng, 120, 1000, 0.05), ar1(rng, 120, 500, 0.05)
    ci = ratio_ci_samples(list(other), list(base), 0.5)
    assert ci is not None
    assert ci.low < 0.5 < ci.high


def test_intervals_are_reproducible() -> None:
    rng = np.random.default_rng(19)
    base, other = list(ar1(rng, 200, 1000, 0.2)), list(ar1(rng, 200, 990, 0.2))
    assert ratio_ci_samples(other, base, 0.99) == ratio_ci_samples(other, base, 0.99)
    assert ratio_ci_repeats(other[:5], base[:5]) == ratio_ci_repeats(other[:5], base[:5])


def test_too_few_samples_give_no_interval() -> None:
    assert ratio_ci_samples([1.0] * 5, [1.0] * 5, 1.0) is None


def test_block_length_follows_autocorrelation() -> None:
    rng = np.random.default_rng(23)
    white = rng.standard_normal(300)
    sticky = ar1(rng, 300, 0.0 + 1.0, 0.5, phi=0.95)
    assert block_length(white) == pytest.approx(300 ** (1 / 3), abs=1)
    assert block_length(sticky) > 2 * block_length(white)
    assert block_length(np.ones(300)) >= 1


# --- through compare ---


def add_run(store: Store, build: str, qps: float, samples: np.ndarray | None = None) -> int:
    with store.transaction() as cur:
        rid = create_run(
            cur, NewRun("h1", parse_build_name(build), "insert_range=100", "test", config="cfg", threads=1)
        )
        if samples is not None:
            append_bench(
                cur, rid, [BenchInterval(t=i + 1.0, threads=1, tps=q, qps=q) for i, q in enumerate(samples)]
            )
        save_summary(cur, rid, RunSummary(qps=qps))
        set_status(cur, rid, "finished")
    return rid


def test_compare_marks_noise_from_samples(tmp_path: Path) -> None:
    rng = np.random.default_rng(29)
    store = Store.open(tmp_path / "s.duckdb")
    b = ar1(rng, 300, 1000, 0.4, phi=0.8)
    near = ar1(rng, 300, 1010, 0.4, phi=0.8)
    far = ar1(rng, 300, 10, 0.4, phi=0.8)
    add_run(store, "my8028_rel", float(b.mean()), b)
    add_run(store, "my8040_rel", float(near.mean()), near)
    add_run(store, "my8043_rel", float(far.mean()), far)
    add_run(store, "my8044_rel", 1000.0)  # no samples: no interval, so neither noise nor not
    c = compare(
        store.cursor(),
        host="h1",
        base="my8028_rel",
        with_builds=["my8040_rel", "my8043_rel", "my8044_rel"],
        group_of=CAT.group_of,
        sort_key=CAT.sort_key,
    )
    (row,) = c.rqps
    assert row.within_noise == (True, False, None)
    assert [ci.method if ci else None for ci in row.ci] == ["samples", "samples", None]
    # the Noise tab says why the third has none (was a bare "-")
    sources = [interval_source(ci, 1, 1) for ci in row.ci]
    assert sources == ["samples", "samples", "none: 1 run each"]
    assert interval_source(None, 3, 2) == "none: base QPS missing"
    plain = compare(
        store.cursor(),
        host="h1",
        base="my8028_rel",
        with_builds=["my8040_rel"],
        group_of=CAT.group_of,
        sort_key=CAT.sort_key,
        intervals=False,
    )
    assert plain.rqps[0].within_noise == (None,)
    assert plain.rqps[0].ci == (None,)


def test_base_runs_without_throughput_give_no_interval_and_no_warning() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ratio_ci_repeats([0.0, 0.0], [100.0, 0.0, 50.0]) is None
        assert ratio_ci_samples([1.0] * 20, [0.0] * 19 + [100.0], 0.2) is None
        ci = ratio_ci_repeats([0.0, 0.0], [100.0, 90.0])
        assert ci is not None
        assert ci.high == 0.0


def test_compare_skips_runs_with_too_few_samples_at_the_same_bound() -> None:
    """store.compare counts samples in SQL before loading numpy: the same minimum as here."""
    from benchdeck.store.analysis import compare, noise

    assert compare.MIN_SAMPLES == noise.MIN_SAMPLES
