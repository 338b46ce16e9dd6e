"""The impairment windows a per-run figure shades: from the plan's times, and for a
triggered stage from the moment its flow first sent the segment."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

import cwnd
from cwnd.impairment_windows import Step, Window, seconds, shade, windows
from cwnd.impairments import bernoulli, delay_step, outage, trigger


def test_durations_are_read_in_the_simulators_units() -> None:
    assert seconds("250ms") == 0.25
    assert seconds("1.5min") == 90.0
    assert seconds("40us") == pytest.approx(40e-6)
    assert seconds(2) == 2.0
    with pytest.raises(ValueError, match="'5 parsecs' is not a duration"):
        seconds("5 parsecs")


def _path(*stages: dict[str, object], segments: bool = True) -> cwnd.Scenario:
    return (
        cwnd.Scenario(duration="6s", name="windows", segments=segments)
        .link("s", "r", bandwidth="100Mbps", delay="1ms")
        .link("r", "d", bandwidth="10Mbps", delay="20ms", name="hop", impairments=list(stages))
        .flow("s", "d", cc="newreno", name="f", mss="1000B")
    )


def test_timed_stages_give_their_windows_and_schedules_their_steps() -> None:
    scenario = _path(
        outage(start="2s", duration="500ms"),
        delay_step("50ms", start="3s"),
        bernoulli(schedule=[("0s", 0.0), ("4s", 0.01)], applies_to="data"),
    )
    spans, steps = windows(cwnd.run(scenario, seed=1))
    # The outage: 2 s + 0.5 s; the delay step: from 3 s to the end of the 6 s run.
    assert spans == [
        Window(2.0, 2.5, "hop: outage"),
        Window(3.0, 6.0, "hop: delay step +50ms"),
    ]
    assert steps == [Step(0.0, "hop: p = 0"), Step(4.0, "hop: p = 0.01")]


def test_a_triggered_window_starts_when_the_flow_first_sends_the_segment() -> None:
    stage = outage(start_on=trigger("f", 200), duration="1s")
    traced = cwnd.run(_path(stage), seed=1)
    ((window,), _) = windows(traced)
    # Segment 200 (counted from 1) starts at byte 199 · 988 = 196 612 (1000 B less
    # the 12 B of the timestamp option, on by default): its first transmission.
    segs = traced.segments
    first = segs[segs["seq"] == 196_612]["time"].min()
    assert window.start == first
    assert not (segs[segs["time"] < first]["seq"] >= 196_612).any()
    assert window.end == pytest.approx(first + 1.0)
    # Without the segment trace, the sender's series gives the same moment.
    untraced = cwnd.run(_path(stage, segments=False), seed=1)
    assert windows(untraced)[0][0].start == first


def test_a_trigger_that_never_fires_draws_nothing() -> None:
    stage = outage(start_on=trigger("f", 10_000_000), duration="1s")
    assert windows(cwnd.run(_path(stage), seed=1)) == ([], [])


def test_shade_draws_each_window_and_names_it() -> None:
    results = cwnd.run(_path(outage(start="2s", duration="1s"), delay_step("10ms", start="4s")), 1)
    fig, ax = plt.subplots()
    try:
        shade(ax, results)
        assert len(ax.patches) == 2
        assert ax.get_legend_handles_labels()[1] == ["hop: outage", "hop: delay step +10ms"]
    finally:
        plt.close(fig)
