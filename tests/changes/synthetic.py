"""Synthetic series with known steps, shared by the detection tests and the Otava oracle test."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class Case:
    """A series of ``n`` points around 10,000 QPS with relative ``noise``, and its true steps."""

    name: str
    n: int
    noise: float
    steps: tuple[tuple[int, float], ...]  # (first point after the step, relative size)
    seed: int = 0

    def series(self) -> list[float]:
        rng = np.random.default_rng(self.seed)
        level = np.full(self.n, 10_000.0)
        for at, size in self.steps:
            level[at:] *= 1.0 + size
        return (level * (1.0 + rng.normal(0.0, self.noise, self.n))).tolist()

    @property
    def expected(self) -> list[int]:
        return sorted(at for at, _ in self.steps)


def known_cases() -> list[Case]:
    """Steps the defaults (p <= 0.001, magnitude > 5%) must find, and series they must leave alone."""
    cases = [
        Case(f"step{int(size * 100):+d}%-at{at}-n{n}-noise{noise:.0%}", n, noise, ((at, size),), seed)
        for seed, (n, at, size, noise) in enumerate(
            [
                (6, 3, -0.30, 0.01),  # a post's short series: a 30% drop, 1% noise
                (12, 6, -0.10, 0.01),
                (12, 6, 0.10, 0.01),
                (20, 1, -0.10, 0.01),  # at the second point
                (20, 19, -0.10, 0.01),  # at the last point
                (20, 10, -0.20, 0.03),
                (25, 8, -0.08, 0.01),
                (50, 30, -0.06, 0.005),
                (50, 25, 0.50, 0.02),
            ]
        )
    ]
    cases += [
        Case("two-steps-n20", 20, 0.01, ((6, -0.15), (14, 0.12)), 101),
        Case("two-steps-same-way-n25", 25, 0.01, ((8, -0.10), (17, -0.10)), 102),
        Case("two-steps-n50", 50, 0.02, ((15, -0.20), (35, 0.25)), 103),
    ]
    cases += [Case(f"flat-n{n}-noise{noise:.0%}-s{seed}", n, noise, (), 200 + seed) for seed, (n, noise) in
              enumerate([(n, noise) for n in (6, 12, 25, 50) for noise in (0.01, 0.02)])]  # fmt: skip
    return cases


def below_magnitude() -> Case:
    """A real 3% step, below the default 5% minimum magnitude: reported only when asked for."""
    return Case("step-3%", 20, 0.002, ((10, -0.03),), 7)
