"""A sweep's summary (mean and 95 % interval over seeds per point), its short axis
names, its figure's lines, and `cwnd sweep`'s table and figure; fields left at their
defaults can be swept, and bad field paths are refused before anything runs."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import cwnd
from cwnd.sweep_arguments import SweepError
from cwnd.sweep_summary import (
    SummaryError,
    axis_names,
    default_x,
    format_summary,
    lines,
    short_names,
    summarize,
)

LOSS = "links[1].impairments[0].p"
CC = "flows[0].cc"


def _table(rows: list[tuple[float, str, int, str, float]]) -> pd.DataFrame:
    """A sweep's table as `sweep` builds it: (loss, cc, seed, flow, goodput_bps)."""
    return pd.DataFrame(
        [
            {"point": 0, LOSS: p, CC: cc, "seed": s, "name": f, "goodput_bps": g}
            for p, cc, s, f, g in rows
        ]
    )


def test_short_names_are_the_shortest_tails_no_other_field_shares() -> None:
    assert short_names([LOSS, CC]) == {"p": LOSS, "cc": CC}
    assert short_names(["flows[0].cc", "flows[1].cc"]) == {
        "flows[0].cc": "flows[0].cc",
        "flows[1].cc": "flows[1].cc",
    }
    # Two stages' p share the tail "p" and "impairments[0].p": the link tells them apart.
    two = ["links[0].impairments[0].p", "links[1].impairments[0].p", "duration"]
    assert list(short_names(two)) == [*two[:2], "duration"]


def test_names_given_replace_the_short_ones_and_must_name_swept_fields() -> None:
    assert axis_names([LOSS, CC], {"loss": LOSS}) == {"loss": LOSS, "cc": CC}
    with pytest.raises(SummaryError, match=r"names.rate: 'links\[0\].bandwidth' is not a swept"):
        axis_names([LOSS, CC], {"rate": "links[0].bandwidth"})
    with pytest.raises(SummaryError, match=r"names\.cc: 'cc' is also the short name of"):
        axis_names([LOSS, CC], {"cc": LOSS})


def test_the_interval_is_student_t_over_seeds() -> None:
    # Goodputs 1, 2, 3, 4, 5 Mb/s over five seeds: mean 3, s = sqrt(10 / 4) = 1.58114,
    # t(0.975, 4) = 2.776, half-width 2.776 · 1.58114 / sqrt(5) = 2.776 · 0.707107
    # = 1.962929.
    table = _table([(0.01, "reno", s, "f", (s + 1) * 1e6) for s in range(5)])
    summary = summarize(table, [LOSS, CC])
    assert list(summary.columns) == ["p", "cc", "seeds", "mean", "ci_low", "ci_high"]
    row = summary.iloc[0]
    assert row["seeds"] == 5
    assert row["mean"] == pytest.approx(3e6)
    assert row["ci_low"] == pytest.approx(3e6 - 1.962929e6, abs=1)
    assert row["ci_high"] == pytest.approx(3e6 + 1.962929e6, abs=1)


def test_one_seed_has_a_mean_and_no_interval() -> None:
    summary = summarize(_table([(0.01, "reno", 0, "f", 2e6)]), [LOSS, CC])
    assert summary.iloc[0]["mean"] == 2e6
    assert math.isnan(summary.iloc[0]["ci_low"]) and math.isnan(summary.iloc[0]["ci_high"])
    assert "-" in format_summary(summary).splitlines()[1].split()


def test_a_scenario_with_two_flows_has_a_row_per_flow() -> None:
    table = _table([(0.01, "reno", s, f, g) for s in range(2) for f, g in (("a", 1e6), ("b", 3e6))])
    summary = summarize(table, [LOSS, CC])
    assert list(summary["flow"]) == ["a", "b"]
    assert list(summary["mean"]) == [1e6, 3e6]


def test_an_unknown_metric_names_the_numeric_columns() -> None:
    with pytest.raises(SummaryError, match="metric: 'goodput' is not a numeric column; try"):
        summarize(_table([(0.01, "reno", 0, "f", 2e6)]), [LOSS, CC], "goodput")


def test_x_defaults_to_the_numeric_field_with_the_most_values() -> None:
    rows = [(p, cc, 0, "f", 1e6) for p in (0.01, 0.02) for cc in ("reno", "cubic", "bbr")]
    summary = summarize(_table(rows), [LOSS, CC])
    # cc has more values (3 against 2), but it is not a number.
    assert default_x(summary, ["p", "cc"]) == "p"
    drawn = lines(summary)
    assert [line.label for line in drawn] == ["cc = reno", "cc = cubic", "cc = bbr"]
    assert drawn[0].x == [0.01, 0.02]


def test_lines_are_per_hue_value_in_mb_per_s_with_their_intervals() -> None:
    rows = [(p, cc, s, "f", g + s * 1e6) for p, g in ((0.01, 4e6), (0.02, 2e6))
            for cc in ("reno", "cubic") for s in range(2)]  # fmt: skip
    summary = summarize(_table(rows), [LOSS, CC])
    drawn = lines(summary, x="cc", hue="p")
    assert [line.label for line in drawn] == ["p = 0.01", "p = 0.02"]
    assert drawn[0].x == ["reno", "cubic"]
    # Seeds 0 and 1 give 4 and 5 Mb/s: mean 4.5; s = 0.70711, t(0.975, 1) = 12.706,
    # half-width 12.706 · 0.70711 / sqrt(2) = 6.353.
    assert drawn[0].mean == pytest.approx([4.5, 4.5])
    assert drawn[0].low == pytest.approx([4.5 - 6.353, 4.5 - 6.353], abs=1e-3)
    with pytest.raises(SummaryError, match="hue: 'cc' is not another swept field"):
        lines(summary, x="cc", hue="cc")
    with pytest.raises(SummaryError, match="x: 'q' is not a swept field; swept: p, cc"):
        lines(summary, x="q")


@pytest.fixture()
def builder() -> cwnd.Scenario:
    """A lossy path whose flow has no tcp table: every TCP option at its default."""
    return (
        cwnd.Scenario(duration="5s", name="defaults")
        .link("a", "r", bandwidth="100Mbps", delay="1ms")
        .link("r", "b", bandwidth="10Mbps", delay="20ms", queue_packets=50, loss=0.01)
        .flow("a", "b", cc="reno", name="f")
    )


def test_a_field_left_at_its_default_can_be_swept(builder: cwnd.Scenario, tmp_path: Path) -> None:
    assert "tcp" not in builder.to_dict()["flows"][0]
    done = cwnd.sweep(
        builder, grid={"flows[0].tcp.sack": [False, True]}, cache=tmp_path, progress=False
    )
    assert done.failures == []
    table = done.table
    assert list(table["flows[0].tcp.sack"]) == [False, True]
    # SACK recovers several losses of a window in one round trip: the runs differ.
    assert table["fingerprint"].nunique() == 2


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("flows[0].tcp.sackk", r'grid: flows\[0\].tcp.sackk: unknown field "sackk"'),
        ("flows[0].tpc.sack", r"grid: flows\[0\].tpc.sack \(at 'tpc'\): no such field"),
        ("links[5].delay", r"grid: links\[5\].delay \(at 5\): no such field"),
    ],
)
def test_a_bad_field_path_is_refused_before_anything_runs(
    builder: cwnd.Scenario, tmp_path: Path, field: str, message: str
) -> None:
    with pytest.raises(SweepError, match=message):
        cwnd.sweep(builder, grid={field: [1, 2]}, cache=tmp_path, progress=False)
    assert not any(tmp_path.iterdir()), "a run was computed"


def test_python_sweep_plots_its_summary(builder: cwnd.Scenario, tmp_path: Path) -> None:
    done = cwnd.sweep(
        builder,
        grid={LOSS: [0.001, 0.05], CC: ["reno", "newreno"]},
        seeds=range(2),
        cache=tmp_path / "cache",
        progress=False,
    )
    summary = done.summary(names={"loss": LOSS})
    assert list(summary.columns[:3]) == ["loss", "cc", "seeds"]
    assert list(summary["seeds"]) == [2, 2, 2, 2]
    figure = done.plot(tmp_path / "loss.png", names={"loss": LOSS}, hue=CC)
    assert figure.stat().st_size > 10_000


SWEEP = """
scenario = "{scenario}"
seeds = 2

[grid]
"links[1].impairments[0].p" = [0.001, 0.05]
"flows[0].cc" = ["reno", "newreno"]

[names]
loss = "links[1].impairments[0].p"
"""


def _cwnd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cwnd", *args], capture_output=True, text=True, timeout=300
    )


def _sweep_file(tmp_path: Path, scenario: Any) -> Path:
    base = tmp_path / "base.toml"
    base.write_text(scenario)
    path = tmp_path / "loss.toml"
    path.write_text(SWEEP.format(scenario=base.name))
    return path


def test_cli_sweep_prints_the_summary_and_draws_the_metric(
    small_toml: Path, tmp_path: Path
) -> None:
    sweep_file = _sweep_file(tmp_path, small_toml.read_text())
    out = tmp_path / "out" / "loss.parquet"
    done = _cwnd("sweep", str(sweep_file), "--out", str(out), "--cache", str(tmp_path / "c"))
    assert done.returncode == 0, done.stderr
    header = next(line for line in done.stdout.splitlines() if line.startswith("loss"))
    assert header.split() == ["loss", "cc", "seeds", "goodput", "(Mb/s)", "95", "%", "CI"]
    summary = pd.read_csv(out.with_suffix(".summary.csv"))
    assert list(summary.columns) == ["loss", "cc", "seeds", "mean", "ci_low", "ci_high"]
    assert len(summary) == 4
    assert out.with_suffix(".png").stat().st_size > 10_000


def test_cli_sweep_refuses_an_axis_that_was_not_swept_before_running(
    small_toml: Path, tmp_path: Path
) -> None:
    sweep_file = _sweep_file(tmp_path, small_toml.read_text())
    cache = tmp_path / "c"
    done = _cwnd("sweep", str(sweep_file), "--x", "rate", "--cache", str(cache))
    assert done.returncode == 2
    assert done.stderr.strip().endswith("--x: 'rate' is not a swept field; swept: loss, cc")
    assert not cache.exists() or not any(cache.iterdir())
