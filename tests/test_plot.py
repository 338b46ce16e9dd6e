"""Figures of one run: what `thin` keeps, and a many-flow run drawn without a legend."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

import cwnd
from cwnd.plot import MAX_LEGEND_ENTRIES, _legend, steps, thin


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


def test_step_curves_beyond_a_legend_are_one_collection_of_post_steps() -> None:
    from matplotlib.collections import LineCollection
    from matplotlib.figure import Figure

    # (0, 5) holds until t = 1, then 7 until t = 2, then 6: the "post" step path is
    # (0,5) (1,5) (1,7) (2,7) (2,6), as drawstyle="steps-post" draws it.
    t, y = np.array([0.0, 1.0, 2.0]), np.array([5.0, 7.0, 6.0])
    expected = [[0, 5], [1, 5], [1, 7], [2, 7], [2, 6]]
    for count in (MAX_LEGEND_ENTRIES, MAX_LEGEND_ENTRIES + 1):
        ax = Figure().subplots()
        curves = [(t, y + i, f"f{i}", {"color": "C0", "linestyle": "--"}) for i in range(count)]
        curves[-1] = (t, y, "last", {"color": "red", "alpha": 0.5})
        steps(ax, curves)
        _legend(ax)
        many = count > MAX_LEGEND_ENTRIES
        # One labelled Line2D per curve while a legend names them; else one collection.
        assert len(ax.get_lines()) == (0 if many else count)
        assert (ax.get_legend() is not None) == (not many)
        if many:
            (collection,) = ax.collections
            assert isinstance(collection, LineCollection)
            assert np.array_equal(collection.get_paths()[-1].vertices, expected)
            assert np.array_equal(collection.get_paths()[1].vertices[:, 1], [6, 6, 8, 8, 7])
            # Each curve keeps its colour (alpha folded in) and linestyle.
            assert np.allclose(collection.get_colors()[-1], (1, 0, 0, 0.5))
            assert collection.get_linestyles()[0] != collection.get_linestyles()[-1]
            note = [x.get_text() for x in ax.texts]
            assert note == [f"{count} curves: too many to name, one colour each"]


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


def _one_link(queue_packets: int, loss: float | None) -> cwnd.Scenario:
    return (
        cwnd.Scenario(duration="4s", name="rate")
        .link("s", "r", bandwidth="100Mbps", delay="1ms")
        .link("r", "d", bandwidth="10Mbps", delay="20ms", queue_packets=queue_packets, loss=loss)
        .flow("s", "d", cc="newreno", name="f", sack=True)
    )


def test_goodput_above_the_slowest_link_is_explained_on_the_figure() -> None:
    import matplotlib.pyplot as plt

    from cwnd.plot import slowest_link_note, slowest_rate

    # 1 % loss with SACK: segments above a hole wait at the receiver and are delivered
    # together when the retransmission arrives, in one 100 ms bin.
    lossy = cwnd.run(_one_link(100, 0.01), seed=3)
    assert slowest_rate(lossy) == 10e6
    # A queue that never fills in 4 s and no loss: every segment in order, no bin
    # above 10 Mb/s + one 1500-byte packet per 100 ms bin (10.12 Mb/s).
    clean = cwnd.run(_one_link(10_000, None), seed=3)
    assert clean.summary["segments_retransmitted"].iloc[0] == 0
    for results, drawn in ((lossy, True), (clean, False)):
        fig, ax = plt.subplots()
        try:
            assert slowest_link_note(ax, results) is drawn
            labels = ax.get_legend_handles_labels()[1]
            assert any(label.startswith("slowest link (10 Mb/s)") for label in labels) is drawn
        finally:
            plt.close(fig)
