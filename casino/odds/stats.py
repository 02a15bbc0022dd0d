"""Small, exact-enough statistics for simulation results: means with normal intervals, and
proportions with Wilson score intervals (well-behaved near 0 and 1)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float

    def as_json(self, digits: int = 6) -> dict[str, float]:
        return {"value": round(self.value, digits), "ci95": [round(self.low, digits), round(self.high, digits)]}

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high


def proportion(successes: int, trials: int, z: float = Z95) -> Estimate:
    if trials == 0:
        return Estimate(float("nan"), float("nan"), float("nan"))
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half))


def mean(total: float, total_squares: float, n: int, z: float = Z95) -> Estimate:
    if n == 0:
        return Estimate(float("nan"), float("nan"), float("nan"))
    m = total / n
    variance = max(0.0, total_squares / n - m * m) * n / max(1, n - 1)
    half = z * math.sqrt(variance / n)
    return Estimate(m, m - half, m + half)


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values (linear interpolation)."""
    if not ordered:
        return float("nan")
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
