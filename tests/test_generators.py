"""Traffic generators from Python: the connection and generator frames, their files,
and the aggregation per generator and variant, over seeds with t intervals."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import cwnd
from cwnd.connections import over_seeds, per_generator
from cwnd.scenario import load_scenario
from cwnd.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def web_mix() -> dict[str, Any]:
    spec = load_scenario(ROOT / "scenarios" / "web_mix.toml")
    spec["duration"] = "20s"
    return spec


def test_a_run_returns_connections_and_generators(web_mix: dict[str, Any], tmp_path: Path) -> None:
    r = cwnd.run(web_mix, seed=1)
    gens = r.generators.set_index("name")
    assert list(gens.index) == ["web-reno", "web-vegas", "ftp-westwood"]
    assert list(gens["target_load"]) == [0.2, 0.2, 0.2]
    assert (gens["offered_load"] > 0).all()
    conns = r.connections
    opened = conns.groupby("generator").size()
    for name, row in gens.iterrows():
        assert opened[name] == row["connections_opened"]
        mine = conns[conns["generator"] == name]
        assert row["offered_load"] == pytest.approx(mine["bytes"].sum() * 8 / (20 * 10e6))
    summary = r.connection_summary.set_index("generator")
    assert summary.loc["web-vegas", "cc"] == "vegas"
    assert (
        summary.loc["ftp-westwood", "connections"] == gens.loc["ftp-westwood", "connections_opened"]
    )
    written = {p.name for p in r.write(tmp_path, figures=False)}
    assert {"connections.parquet", "generators.csv"} <= written
    back = pd.read_parquet(tmp_path / "connections.parquet")
    assert len(back) == len(conns)


def test_per_generator_means_are_over_every_connection() -> None:
    # "a": two completed connections (goodput 1 and 3 Mb/s), one unfinished that
    # delivered at 0.5 Mb/s while open, and one opened at the very end (open for no
    # time: NaN goodput, no RTT sample), which counts but has no rate to average. Over
    # every connection the goodput is (1 + 3 + 0.5)/3 = 1.5 Mb/s (the completed ones
    # alone: 2). Totals: 10 + 20 + 30 + 0 = 60 segments sent, 1 + 2 + 3 + 0 = 6 dropped.
    # "b": one completed connection.
    nan = math.nan
    rows = [
        ("a", "reno", True, 1e6, 4.0, 0.1, 0, 1, 10, 1),
        ("a", "reno", True, 3e6, 8.0, 0.3, 2, 0, 20, 2),
        ("a", "reno", False, 0.5e6, 30.0, 0.2, 7, 2, 30, 3),
        ("a", "reno", False, nan, 2.0, nan, 0, 0, 0, 0),
        ("b", "vegas", True, 5e6, 2.0, 0.2, 1, 1, 5, 0),
    ]
    cols = ["generator", "cc", "completed", "goodput_bps", "mean_cwnd", "mean_rtt", "timeouts"]
    frame = pd.DataFrame(rows, columns=[*cols, "fast_retransmits", "segments_sent", "drops_queue"])
    out = per_generator(frame).set_index("generator")
    assert out.loc["a", "connections"] == 4
    assert out.loc["a", "completed"] == 2 and out.loc["a", "unfinished"] == 2
    assert out.loc["a", "goodput_bps"] == 1.5e6
    # (4 + 8 + 30 + 2)/4 = 11 segments; RTT (0.1 + 0.3 + 0.2)/3 = 0.2 s; timeouts
    # (0 + 2 + 7 + 0)/4 = 2.25.
    assert out.loc["a", "mean_cwnd"] == 11.0
    assert out.loc["a", "mean_rtt"] == pytest.approx(0.2)
    assert out.loc["a", "timeouts"] == 2.25
    assert (out.loc["a", "segments_sent"], out.loc["a", "drops_queue"]) == (60, 6)
    assert out.loc["b", "goodput_bps"] == 5e6


def test_over_seeds_gives_t_intervals() -> None:
    # Goodput 1 and 3 over two seeds: mean 2, sd √2, half-width t(0.975, 1)·√2/√2 =
    # 12.706.
    base = {"generator": "a", "cc": "reno", "mean_cwnd": 1.0, "mean_rtt": 0.1}
    base.update(timeouts=0.0, fast_retransmits=0.0, connections=5, unfinished=1)
    table = pd.DataFrame(
        [{**base, "seed": 1, "goodput_bps": 1.0}, {**base, "seed": 2, "goodput_bps": 3.0}]
    )
    out = over_seeds(table).iloc[0]
    assert out["seeds"] == 2
    # Counts are summed over the seeds: 5 + 5 connections, 1 + 1 unfinished.
    assert (out["connections"], out["unfinished"]) == (10, 2)
    assert out["goodput_bps"] == 2.0
    assert out["goodput_bps_low"] == pytest.approx(2.0 - 12.706)
    assert out["goodput_bps_high"] == pytest.approx(2.0 + 12.706)
    one = over_seeds(table[table["seed"] == 1]).iloc[0]
    assert math.isnan(one["goodput_bps_low"])


def test_a_sweep_keeps_generator_rows_for_intervals(
    web_mix: dict[str, Any], tmp_path: Path
) -> None:
    spec = dict(web_mix, duration="10s")
    r = sweep(spec, seeds=[1, 2], workers=1, cache=tmp_path, progress=False)
    assert not r.failures
    table = r.generators
    assert len(table) == 2 * 3
    assert set(table.columns) >= {"seed", "generator", "cc", "target_load", "offered_load"}
    out = over_seeds(table)
    assert len(out) == 3
    web = out[out["generator"] == "web-reno"].iloc[0]
    assert web["mean_rtt_low"] <= web["mean_rtt"] <= web["mean_rtt_high"]


def test_cli_run_prints_generators_and_bad_input_is_one_line(tmp_path: Path) -> None:
    web = ROOT / "scenarios" / "web_mix.toml"
    short = tmp_path / "web_mix.toml"
    short.write_text(web.read_text().replace('duration = "60s"', 'duration = "10s"'))
    proc = subprocess.run(
        [sys.executable, "-m", "cwnd", "run", short, "--out", tmp_path / "out"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1].split()[:4] == ["generator", "cc", "load", "offered"]
    assert [line.split()[0] for line in lines[2:5]] == ["web-reno", "web-vegas", "ftp-westwood"]
    bad = tmp_path / "bad.toml"
    bad.write_text(web.read_text().replace('load = 0.2\ncc = "vegas"', 'load = 1.5\ncc = "vegas"'))
    proc = subprocess.run(
        [sys.executable, "-m", "cwnd", "check", bad], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    assert "generators[1].load: 1.5 is outside (0, 1]" in proc.stderr
