"""Small, dependency-free statistics for the report: exact where it is cheap, seeded where it is random.

* :func:`wilson_interval` — score interval for a binomial proportion (good coverage at small n and at 0 or n).
* :func:`mcnemar_exact` — two-sided exact McNemar test: a binomial test of the discordant pairs at 1/2.
* :func:`mcnemar_chi2` — the continuity-corrected chi-square variant (Edwards), for comparison with papers.
* :func:`pass_at_k` — the unbiased pass@k estimator of Chen et al. (2021), in its numerically stable product form.
* :func:`paired_bootstrap_diff` — percentile bootstrap CI of a paired difference in rates, with a fixed seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from statistics import NormalDist
from typing import Sequence


@dataclass(frozen=True)
class Interval:
    low: float
    high: float


@dataclass(frozen=True)
class McNemar:
    b: int  # pairs where only the first arm succeeded
    c: int  # pairs where only the second arm succeeded
    p_exact: float
    chi2: float  # continuity-corrected statistic
    p_chi2: float


@dataclass(frozen=True)
class PairedDiff:
    diff: float  # mean(first) - mean(second)
    low: float
    high: float
    n: int
    resamples: int
    seed: int


def z_for(confidence: float) -> float:
    """The two-sided standard normal quantile, e.g. 1.959963984540054 for 0.95."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for ``successes`` of ``n``. With n == 0 nothing is known: (0, 1)."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Interval(0.0, 1.0)
    z = z_for(confidence)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # Clamp rounding at the ends: the exact interval at 0 (or n) successes starts at 0 (ends at 1).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(low, high)


def binomial_two_sided_half(k: int, n: int) -> float:
    """Exact two-sided p of observing ``k`` of ``n`` under p = 1/2: 2·P(X ≤ min(k, n-k)), capped at 1."""
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1))
    return float(min(Fraction(1), Fraction(2 * tail, 2**n)))


def chi2_sf_1df(statistic: float) -> float:
    """Survival function of the chi-square distribution with one degree of freedom."""
    if statistic <= 0.0:
        return 1.0
    return math.erfc(math.sqrt(statistic / 2.0))


def mcnemar(b: int, c: int) -> McNemar:
    """Both McNemar variants from the discordant counts ``b`` (first only) and ``c`` (second only)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be non-negative, got {b}, {c}")
    statistic = mcnemar_chi2(b, c)
    return McNemar(b, c, mcnemar_exact(b, c), statistic, chi2_sf_1df(statistic))


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value; 1.0 when there are no discordant pairs."""
    return binomial_two_sided_half(b, b + c)


def mcnemar_chi2(b: int, c: int) -> float:
    """(|b - c| - 1)² / (b + c), with the correction clamped at |b - c| (so b == c gives 0, p = 1)."""
    if b + c == 0:
        return 0.0
    return max(0, abs(b - c) - 1) ** 2 / (b + c)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from ``n`` samples with ``c`` correct: 1 - C(n-c, k)/C(n, k), as a stable product."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    remaining = 1.0
    for i in range(n - c + 1, n + 1):
        remaining *= 1.0 - k / i
    return 1.0 - remaining


def paired_bootstrap_diff(
    first: Sequence[bool],
    second: Sequence[bool],
    *,
    resamples: int = 10_000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedDiff:
    """Percentile bootstrap CI for mean(first) - mean(second) over paired units, resampling the pairs.

    Deterministic for a given ``seed`` and input order; callers sort their pairs (by task id) first.
    """
    if len(first) != len(second):
        raise ValueError(f"paired samples differ in length: {len(first)} vs {len(second)}")
    n = len(first)
    if n == 0:
        return PairedDiff(0.0, 0.0, 0.0, 0, 0, seed)
    deltas = [int(bool(a)) - int(bool(b)) for a, b in zip(first, second)]
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(deltas, k=n)) / n for _ in range(resamples))
    alpha = (1.0 - confidence) / 2.0
    return PairedDiff(sum(deltas) / n, quantile(means, alpha), quantile(means, 1.0 - alpha), n, resamples, seed)


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of already sorted values (NumPy's default method)."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    position = q * (len(sorted_values) - 1)
    below = math.floor(position)
    above = min(below + 1, len(sorted_values) - 1)
    weight = position - below
    return sorted_values[below] * (1.0 - weight) + sorted_values[above] * weight
