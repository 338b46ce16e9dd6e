"""UDP through the Python API: the builder and its sources, the summary row beside
TCP flows, the throughput series, the example scenario, and errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import cwnd
from cwnd.scenario import Scenario, load_scenario
from cwnd.sources import cbr, exponential, pareto

ROOT = Path(__file__).resolve().parent.parent


def shared(source: dict) -> Scenario:
    """A TCP flow and a UDP flow from 1 s to 3 s through a 10 Mb/s, 10 ms link."""
    return (
        Scenario(duration="4s", name="udp")
        .link("a", "b", bandwidth="10Mbps", delay="10ms")
        .flow("a", "b", name="tcp")
        .udp("a", "b", source=source, name="u", start="1s", stop="3s")
    )


def test_a_cbr_flow_sits_beside_tcp_in_the_summary_and_delivers_rate_times_time() -> None:
    r = cwnd.run(shared(cbr(rate="1Mbps", packet_size="1000B")), seed=1)
    assert r.flow_names == ["tcp", "u"]
    s = r.summary.set_index("name")
    assert list(s["transport"]) == ["tcp", "udp"]
    u = s.loc["u"]
    # 1 Mb/s in 1000 B datagrams: one every 8 ms, from 1 s to 3 s: 2 s / 8 ms = 250.
    assert u["cc"] == "cbr"
    assert u["packets_sent"] == 250
    assert u["bytes_sent"] == 250_000
    assert u["throughput_bps"] == 1_000_000
    assert u["packets_sent"] == (
        u["packets_delivered"] + u["drops_queue"] + u["drops_impairment"] + u["packets_in_flight"]
    )


def test_the_throughput_series_holds_the_udp_flow() -> None:
    r = cwnd.run(shared(cbr(rate="1Mbps", packet_size="1000B")), seed=1)
    t = r.throughput[r.throughput["flow"] == "u"]
    # Each 100 ms bin from 1 s to 3 s holds 12.5 datagrams on average: 1 Mb/s.
    sending = t[(t["time"] >= 1.0) & (t["time"] < 3.0)]
    assert sending["throughput_bps"].mean() == pytest.approx(1_000_000)
    assert (t[t["time"] < 1.0]["throughput_bps"] == 0).all()


def test_on_off_sources_build_the_tables_a_file_would_hold() -> None:
    for source in (
        exponential(burst_time="100ms", idle_time="200ms", rate="2Mbps", packet_size="500B"),
        pareto(burst_time="100ms", idle_time="200ms", rate="2Mbps", packet_size="500B"),
    ):
        r = cwnd.run(shared(source), seed=2)
        row = r.summary.set_index("name").loc["u"]
        assert row["cc"] == source["kind"]
        # At most the peak rate: 2 s · 2 Mb/s / 4000 bits = 1000 datagrams.
        assert 0 < row["packets_sent"] < 1000


def test_a_bad_source_is_a_scenario_error_naming_the_field() -> None:
    bad = shared(
        pareto(burst_time="1s", idle_time="1s", rate="1Mbps", packet_size="500B", shape=0.9)
    )
    with pytest.raises(cwnd.ScenarioError, match=r"flows\[1\]\.source\.shape: 0\.9 is not above 1"):
        cwnd.run(bad)


def test_the_example_runs_and_the_cbr_takes_its_share_while_it_sends() -> None:
    spec = load_scenario(ROOT / "scenarios" / "udp_cbr_vs_tcp.toml")
    r = cwnd.run(spec, seed=1)
    t = r.throughput
    tcp = t[t["flow"] == "tcp"].set_index("time")["goodput_bps"]
    before = tcp[(tcp.index >= 10) & (tcp.index < 20)].mean()
    during = tcp[(tcp.index >= 25) & (tcp.index < 40)].mean()
    # The CBR takes 4 Mb/s of 10 whatever the losses; TCP yields (RED drops both).
    assert during < before - 2_000_000
    u = r.summary.set_index("name").loc["cbr"]
    assert u["packets_sent"] == 20_000  # 4 Mb/s / 4000 bits · 20 s


def test_the_cli_refuses_a_udp_flow_without_a_source_with_exit_code_2(tmp_path: Path) -> None:
    text = (ROOT / "scenarios" / "udp_cbr_vs_tcp.toml").read_text()
    broken = tmp_path / "broken.toml"
    broken.write_text(
        text.replace('source = { kind = "cbr", rate = "4Mbps", packet_size = "500B" }', "")
    )
    p = subprocess.run(
        [sys.executable, "-m", "cwnd", "run", str(broken), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert "flows[1].source: a UDP flow needs a source" in p.stderr
    assert "Traceback" not in p.stderr


def test_the_run_table_shows_a_udp_flows_counters_as_absent(tmp_path: Path) -> None:
    scenario = ROOT / "scenarios" / "udp_cbr_vs_tcp.toml"
    proc = subprocess.run(
        [sys.executable, "-m", "cwnd", "run", str(scenario), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line.split() for line in proc.stdout.splitlines()[2:4]}
    # TCP's counters are whole numbers; the CBR flow has none (not "nan").
    assert rows["tcp"][3].isdigit() and rows["tcp"][4].isdigit(), rows
    assert rows["cbr"][3:5] == ["-", "-"], rows
