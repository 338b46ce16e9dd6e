"""`cwnd.stats`: intervals over seeds and "distinct beyond the spread", by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from cwnd import stats


def test_confidence_intervals_by_hand() -> None:
    # Values 1, 2, 3: mean 2, sd 1, t(0.975, 2) = 4.303, half-width 4.303/√3 = 2.484.
    ci = stats.mean_ci([1.0, 2.0, 3.0])
    assert ci.mean == 2.0 and ci.low == pytest.approx(2 - 2.4843, abs=1e-4)
    assert ci.inside(-1, 5) and not ci.inside(0, 5) and ci.outside(4.5, 9)
    # Welch: a = 1, 2, 3 and b = 11, 12, 13: difference −10, se √(1/3 + 1/3) = 0.8165,
    # df = (2/3)² / (2·(1/3)²/2) = 4, t = 2.776: half-width 2.2666.
    d = stats.difference_ci([1.0, 2.0, 3.0], [11.0, 12.0, 13.0])
    assert d.mean == -10.0 and d.high == pytest.approx(-10 + 2.2666, abs=1e-4)
    assert stats.distinct([1.0, 2.0, 3.0], [11.0, 12.0, 13.0], resolution=0.01)
    # Identical runs but one 1 ms longer: no spread, yet below a 10 ms resolution.
    assert not stats.distinct([29.000] * 5, [29.001] * 5, resolution=0.01)
    # A mean difference of 1 inside a spread of ±5: indistinguishable.
    assert not stats.distinct([0.0, 10.0, 5.0], [1.0, 11.0, 6.0][::-1], resolution=0.0)
    with pytest.raises(ValueError, match="at least 2 seeds"):
        stats.mean_ci([1.0])


def test_error_bars_by_hand() -> None:
    frame = pd.DataFrame({"k": ["a", "a", "a", "b"], "v": [1.0, 2.0, 3.0, 5.0]})
    bars = stats.error_bars(frame, ["k"], "v")
    # a: mean 2, sd 1, t(0.975, 2) = 4.303: half width 4.303 / √3 = 2.4844.
    assert bars.loc["a", "mean"] == 2.0 and bars.loc["a", "n"] == 3
    assert bars.loc["a", "low"] == pytest.approx(2 - 2.4844, abs=1e-4)
    assert bars.loc["a", "high"] == pytest.approx(2 + 2.4844, abs=1e-4)
    # b: one seed, no interval: the bar is the mean itself.
    assert bars.loc["b", "low"] == bars.loc["b", "high"] == 5.0
    assert stats.error_bar_note(bars["n"]) == ("bars: 95 % t interval of the mean over 1–3 seeds")
    assert stats.error_bar_note([5, 5]) == "bars: 95 % t interval of the mean over 5 seeds"
    assert stats.error_bar_note([1]) == "mean of 1 seed (no interval)"
