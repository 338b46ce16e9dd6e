"""Confidence intervals over seeds, and "is this a difference at all": for a sweep's
summary (`sweep_summary.py`), generators' connections (`connections.py`) and the
studies' claims.

A claim that names the slowest variant, or a gain of 40 %, must not rest on a
difference smaller than the runs' own spread over seeds. Intervals are Student-t
intervals of a mean over seeds (independent seeds, roughly normal means); the t
quantiles are the standard two-sided 95 % values (any statistics table), and for more
than 30 degrees of freedom the value at 30 (2.042, slightly wider than the normal
1.960) is kept.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Two-sided 95 % Student-t quantiles t(0.975, df) for df = 1 … 30.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]  # fmt: skip


def t975(df: float) -> float:
    """t(0.975, df), rounding df down (wider, never narrower, than exact)."""
    if df < 1:
        raise ValueError(f"a confidence interval needs at least 1 degree of freedom, got {df}")
    return T975[min(int(df), len(T975)) - 1]


@dataclass(frozen=True)
class Interval:
    """A mean over seeds and its 95 % confidence interval [low, high]."""

    mean: float
    low: float
    high: float
    n: int

    def inside(self, low: float, high: float) -> bool:
        """The whole interval lies in [low, high]."""
        return low <= self.low and self.high <= high

    def outside(self, low: float, high: float) -> bool:
        """The whole interval lies outside [low, high]."""
        return self.high < low or self.low > high

    def text(self, fmt: str = "{:+.0%}") -> str:
        return f"{fmt.format(self.mean)} (95 % CI {fmt.format(self.low)} … {fmt.format(self.high)})"


def mean_ci(values: Sequence[float]) -> Interval:
    """The mean of `values` (one per seed) with its t interval."""
    n = len(values)
    if n < 2:
        raise ValueError(f"a confidence interval needs at least 2 seeds, got {n}")
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


def difference_ci(a: Sequence[float], b: Sequence[float]) -> Interval:
    """mean(a) − mean(b) with Welch's t interval (unequal variances)."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        raise ValueError(f"a confidence interval needs at least 2 seeds each, got {na} and {nb}")
    ma, mb = sum(a) / na, sum(b) / nb
    va = sum((v - ma) ** 2 for v in a) / (na - 1) / na
    vb = sum((v - mb) ** 2 for v in b) / (nb - 1) / nb
    se = math.sqrt(va + vb)
    # Welch–Satterthwaite degrees of freedom; equal samples with no spread: na + nb − 2.
    df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1)) if se > 0 else na + nb - 2
    half = t975(df) * se
    diff = ma - mb
    return Interval(diff, diff - half, diff + half, min(na, nb))


def distinct(a: Sequence[float], b: Sequence[float], resolution: float) -> bool:
    """Whether mean(a) and mean(b) differ beyond both their spread over seeds (the
    difference's 95 % interval excludes 0) and `resolution`, the smallest difference
    the measurement can show (e.g. the 10 ms TCP clock for a transfer time)."""
    d = difference_ci(a, b)
    return (d.low > 0 or d.high < 0) and abs(d.mean) > resolution


def error_bars(frame: pd.DataFrame, keys: list[str], column: str) -> pd.DataFrame:
    """Per group of `keys` (one row of `frame` per seed): the `mean` of `column`, the
    ends `low` and `high` of its 95 % t interval (as `mean_ci`; the mean itself for a
    group of one seed, which has no interval) and `n`, the number of seeds."""
    g = frame.groupby(keys)[column].agg(["mean", "std", "count"])
    t = g["count"].map(lambda n: t975(n - 1) if n > 1 else 0.0)
    half = (t * g["std"] / g["count"] ** 0.5).fillna(0.0)
    return g.assign(low=g["mean"] - half, high=g["mean"] + half, n=g["count"])[
        ["mean", "low", "high", "n"]
    ]


def error_bar_note(seeds: Iterable[int]) -> str:
    """What a figure's error bars are, given the number of seeds behind each point."""
    counts = sorted(set(seeds))
    if not counts or counts[-1] < 2:
        return "mean of 1 seed (no interval)"
    over = f"{counts[0]}–{counts[-1]}" if len(counts) > 1 else f"{counts[0]}"
    return f"bars: 95 % t interval of the mean over {over} seeds"
