"""Figures of one run: what `thin` keeps, and a many-flow run drawn without a legend."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

import cwnd
from cwnd.plot import MAX_LEGEND_ENTRIES, _legend, thin


def test_thin_keeps_each_slices_edges_and_extremes() -> None:
    rng = np.random.default_rng(1)
    t = np.arange(100_000, dtype=float)
    v = np.cumsum(rng.integers(-3, 4, size=t.size))  # a random walk, like a window
    bins = 100
    kt, kv = thin(t, v, bins=bins)
    # At most first, last, min and max of each of the 100 slices.
    assert len(kt) <= 4 * bins
    assert kt[0] == 0 and kt[-1] == 99_999
    # Slices are 999.99 wide: every slice's extremes survive.
    edges = np.linspace(0, 99_999, bins + 1)
    for lo, hi in itertools.pairwise(edges):
        inside = (t >= lo) & (t < hi)
        kept = (kt >= lo) & (kt < hi)
        assert kv[kept].max() == v[inside].max()
        assert kv[kept].min() == v[inside].min()
    assert np.all(np.diff(kt) > 0), "rows stay in time order, without repeats"


def test_thin_returns_short_series_whole() -> None:
    t = np.arange(50.0)
    kt, kv = thin(t, t * 2, bins=100)
    assert np.array_equal(kt, t) and np.array_equal(kv, t * 2)


def test_many_curves_get_a_note_instead_of_a_legend() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for curves, legend in [(3, True), (MAX_LEGEND_ENTRIES, True), (MAX_LEGEND_ENTRIES + 1, False)]:
        fig, ax = plt.subplots()
        for i in range(curves):
            ax.plot([0, 1], [i, i], label=f"f{i}")
        _legend(ax)
        assert (ax.get_legend() is not None) == legend, curves
        assert any("too many to name" in t.get_text() for t in ax.texts) == (not legend)
        plt.close(fig)


def test_a_many_flow_run_draws_its_figures(tmp_path: Path) -> None:
    s = cwnd.Scenario(duration="2s", name="many")
    s.link("r0", "r1", bandwidth="100Mbps", delay="5ms", queue_packets=100)
    for i in range(MAX_LEGEND_ENTRIES + 4):
        s.link(f"h{i}", "r0", bandwidth="1Gbps", delay="1ms")
        s.link("r1", f"d{i}", bandwidth="1Gbps", delay="1ms")
        s.flow(f"h{i}", f"d{i}", cc="reno", name=f"f{i}")
    written = cwnd.run(s, seed=1).write(tmp_path)
    for name in ("cwnd.png", "sequence.png", "throughput.png"):
        assert (tmp_path / name) in written
        assert (tmp_path / name).stat().st_size > 10_000
