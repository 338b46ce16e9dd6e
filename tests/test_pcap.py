"""pcap captures read by real decoders: scapy always, tshark where it is installed
(.ci/run installs it). Counts are checked against the run's own counters."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import cwnd

SCENARIO = """
name = "pcap"
duration = "20s"

[[links]]
between = ["h1", "r"]
bandwidth = "100Mbps"
delay = "1ms"

[[links]]
between = ["r", "h2"]
bandwidth = "10Mbps"
delay = "20ms"
queue = { packets = 30 }
impairments = [{ kind = "bernoulli", p = 0.02, direction = "forward", applies_to = "data" }]

[[flows]]
name = "f"
from = "h1"
to = "h2"
app = { kind = "transfer", segments = 600 }
tcp = { sack = true, dsack = true, timestamps = true }

[trace]
pcap = ["h1", "h2"]
segments = true
"""


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[cwnd.Results, Path]:
    results = cwnd.run(SCENARIO, seed=3)
    out = tmp_path_factory.mktemp("pcap")
    results.write(out, figures=False)
    return results, out


def tcp_packets(path: Path) -> list[Any]:
    from scapy.all import IP, TCP, rdpcap

    return [p for p in rdpcap(str(path)) if IP in p and TCP in p]


def payload_len(p: Any) -> int:
    from scapy.all import IP, TCP

    return int(p[IP].len) - 4 * int(p[IP].ihl) - 4 * int(p[TCP].dataofs)


def test_scapy_reads_every_segment_and_ack(captured: tuple[cwnd.Results, Path]) -> None:
    from scapy.all import IP, TCP

    results, out = captured
    f = results.summary.iloc[0]
    h1 = tcp_packets(out / "h1.pcap")
    sent = [p for p in h1 if p[IP].src == "10.0.0.1" and payload_len(p) > 0]
    acks = [p for p in h1 if p[IP].dst == "10.0.0.1"]
    links = results.links.set_index(["from", "to"])
    # Every transmission leaves h1 (its 100 Mb/s queue never overflows here), and
    # only data is lost (ACK queues never overflow either).
    assert links.loc[("h1", "r"), "drops_queue"] == 0
    assert links.loc[("h2", "r"), "drops_queue"] == links.loc[("r", "h1"), "drops_queue"] == 0
    assert len(sent) == f["segments_sent"] == len(results.segments)
    assert len(acks) == f["acks_received"]
    # At h2: what was sent, less what the bottleneck queue and the link lost (the
    # transfer completes, so nothing is left in flight).
    assert f["completion_time"] < results.duration
    h2 = tcp_packets(out / "h2.pcap")
    arrived = [p for p in h2 if p[IP].dst == "10.0.0.3" and payload_len(p) > 0]
    lost = f["drops_impairment"] + f["drops_queue"]
    assert len(arrived) == f["segments_sent"] - lost
    assert f["drops_impairment"] > 0 and f["drops_queue"] > 0
    # Sequence numbers: byte k is k + 1; the last ACK covers what was delivered.
    first = sent[0][TCP]
    assert (first.sport, first.dport, first.seq) == (49152, 5001, 1)
    assert max(p[TCP].ack for p in acks) == f["bytes_delivered"] + 1
    # Options as configured: timestamps everywhere, SACK blocks on some ACKs.
    assert all(any(o[0] == "Timestamp" for o in p[TCP].options) for p in h1)
    assert any(any(o[0] == "SAck" for o in p[TCP].options) for p in acks)
    # The IP header checksum is the one scapy computes.
    for p in h1[:50]:
        header = IP(bytes(p[IP])[:20])
        expected = header.chksum
        del header.chksum
        assert IP(bytes(header)).chksum == expected


def test_pcap_timestamps_are_simulated_time(captured: tuple[cwnd.Results, Path]) -> None:
    results, out = captured
    h1 = tcp_packets(out / "h1.pcap")
    times = [float(p.time) for p in h1]
    assert times == sorted(times)
    # The first data segment leaves h1 at t = 0; the last packet within the run.
    assert times[0] == 0.0 and times[-1] <= results.duration


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_dissects_without_errors(captured: tuple[cwnd.Results, Path]) -> None:
    results, out = captured
    f = results.summary.iloc[0]

    def tshark(*args: str) -> list[str]:
        proc = subprocess.run(
            ["tshark", "-n", "-r", str(out / "h1.pcap"), *args],
            capture_output=True,
            text=True,
            check=True,
        )
        return proc.stdout.split()

    data = tshark("-Y", "ip.src == 10.0.0.1 && tcp.len > 0", "-T", "fields", "-e", "tcp.len")
    assert len(data) == f["segments_sent"]
    assert {int(n) for n in data} == {1448}  # MSS 1460 less the 12-byte timestamps option
    assert tshark("-Y", "_ws.malformed || _ws.expert.severity == error") == []
    sacked = tshark("-Y", "tcp.options.sack_le", "-T", "fields", "-e", "frame.number")
    assert sacked
