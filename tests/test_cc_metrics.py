"""The controllers' numbers (`trace.cc_metrics`): recorded beside the series, without
changing the run, in long and wide form, and drawn on request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

import cwnd
from cwnd import plot
from cwnd.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent


def vegas_and_cubic(sampling: str, cc_metrics: bool) -> dict[str, Any]:
    spec = load_scenario(ROOT / "scenarios" / "dumbbell.toml")
    spec["duration"] = "25s"
    for flow, cc in zip(spec["flows"], ["vegas", "cubic", "reno", "bbr"], strict=False):
        flow["cc"] = cc
        # dumbbell.toml is on "rfc" for its recoveries; BBR wants SACK, as on "linux".
        flow["tcp"] = {"profile": "linux"}
    spec["trace"] = {"sampling": sampling, "interval": "50ms", "cc_metrics": cc_metrics}
    return spec


def test_the_trace_is_off_by_default_and_changes_nothing_when_on() -> None:
    for sampling in ("change", "interval"):
        off = cwnd.run(vegas_and_cubic(sampling, False))
        on = cwnd.run(vegas_and_cubic(sampling, True))
        assert len(off.cc_metrics) == 0
        assert len(on.cc_metrics) > 0
        assert on.fingerprint == off.fingerprint
        assert on.summary.equals(off.summary)


def test_every_series_row_has_its_controller_numbers() -> None:
    for sampling in ("change", "interval"):
        r = cwnd.run(vegas_and_cubic(sampling, True))
        wide = r.cc_metrics_wide
        for flow, cc in zip(r.flow_names, r.summary["cc"], strict=True):
            series = r.flow_series(flow)
            mine = r.flow_cc_metrics(flow)
            if cc == "reno":  # Reno reports nothing
                assert len(mine) == 0
                continue
            assert np.array_equal(mine["time"], series["time"]), (sampling, flow)
            assert len(wide[wide["flow"] == flow]) == len(series)


def test_vegas_diff_is_eq_2_of_its_own_columns() -> None:
    # diff = cwnd · (min_rtt − base_rtt) / min_rtt, with the series' cwnd at the sample.
    r = cwnd.run(vegas_and_cubic("change", True))
    vegas = r.flow_names[0]
    m = r.flow_cc_metrics(vegas)
    cwnd_now = r.flow_series(vegas)["cwnd"].to_numpy()
    known = np.isfinite(m["diff"].to_numpy())
    assert known.sum() > 100
    expected = cwnd_now * (m["min_rtt"] - m["base_rtt"]) / m["min_rtt"]
    assert np.allclose(m["diff"].to_numpy()[known], expected.to_numpy()[known])
    assert (m["base_rtt"][known] <= m["min_rtt"][known]).all()


def test_a_figure_per_traced_flow(tmp_path: Path) -> None:
    r = cwnd.run(vegas_and_cubic("interval", True))
    written = {p.name for p in r.write(tmp_path)}
    flows = r.flow_names
    assert "cc_metrics.parquet" in written
    assert {f"cc_metrics_{flows[0]}.png", f"cc_metrics_{flows[1]}.png"} <= written
    assert f"cc_metrics_{flows[2]}.png" not in written  # Reno: nothing to draw


def test_bbr_states_are_drawn_as_named_levels(tmp_path: Path) -> None:
    # `cwnd run` draws BBR's state over time: the mode of bbr and bbr3 and v3's
    # ProbeBW phase get their names (Linux's enum order); other numbers, and other
    # controllers' numbers of the same name, stay plain.
    assert plot.state_levels("bbr", "mode") == ("Startup", "Drain", "ProbeBW", "ProbeRTT")
    assert plot.state_levels("bbr3", "phase") == ("Up", "Down", "Cruise", "Refill")
    assert plot.state_levels("bbr3", "inflight_hi") is None
    assert plot.state_levels("vegas", "mode") is None
    spec = vegas_and_cubic("interval", True)
    spec["flows"][3]["cc"] = "bbr3"
    r = cwnd.run(spec)
    bbr3 = r.flow_names[3]
    m = r.flow_cc_metrics(bbr3)
    assert {"mode", "phase", "inflight_hi", "bw_lo_bps"} <= set(m.columns)
    assert set(m["mode"].unique()) <= {0.0, 1.0, 2.0, 3.0}
    assert 2.0 in set(m["mode"].unique()), "bbr3 reaches ProbeBW in 25 s"
    drawn = plot.cc_metrics(r, bbr3, tmp_path / "bbr3.png")
    assert drawn.exists()
