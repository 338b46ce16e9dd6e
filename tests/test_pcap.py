"""pcap captures read by real decoders: scapy always, tshark and tcptrace where installed
(.ci/run installs them). Counts are checked against the run's own counters, for TCP
and for a multihomed SCTP association."""

from __future__ import annotations

import shutil
import subprocess
from collections import Counter
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


@pytest.mark.skipif(shutil.which("tcptrace") is None, reason="tcptrace not installed")
def test_tcptrace_counts_the_segments_and_retransmissions(
    captured: tuple[cwnd.Results, Path],
) -> None:
    # tcptrace -l's long report: one connection, its data packets and the ones it
    # recognises as retransmissions (a sequence range seen before), sender's column.
    results, out = captured
    f = results.summary.iloc[0]
    proc = subprocess.run(
        ["tcptrace", "-l", "-n", str(out / "h1.pcap")],
        capture_output=True,
        text=True,
        check=True,
    )
    report = proc.stdout

    def first_column(label: str) -> int:
        line = next(x for x in report.splitlines() if x.strip().startswith(label))
        return int(line.split(":")[1].split()[0])

    assert "1 TCP connection traced" in report
    assert first_column("actual data pkts") == f["segments_sent"]
    assert first_column("rexmt data pkts") == f["segments_retransmitted"]


# A multihomed association: the primary path loses 2 % of the data packets, the
# retransmissions go to the alternate (secondary) path, which heartbeats probe when it
# is idle. 600-byte messages bundle two DATA chunks per packet; two streams; delayed
# SACKs. The transfer ends with SHUTDOWN. Nodes a0, z0, a1, z1 are 10.0.0.1 to .4.
SCTP_SCENARIO = """
name = "pcap_sctp"
duration = "20s"

[[links]]
name = "primary"
between = ["a0", "z0"]
bandwidth = "5Mbps"
delay = "20ms"
impairments = [{ kind = "bernoulli", p = 0.02, direction = "forward", applies_to = "data" }]

[[links]]
name = "secondary"
between = ["a1", "z1"]
bandwidth = "5Mbps"
delay = "30ms"

[[flows]]
name = "assoc"
from = ["a0", "a1"]
to = ["z0", "z1"]
transport = "sctp"
app = { kind = "transfer", bytes = "1MB" }

[flows.sctp]
message_size = "600B"
streams = 2
retransmit_to = "alternate"
heartbeat_interval = "1s"
delayed_sack = true

[trace]
pcap = ["a0", "a1", "z0", "z1"]
"""
SENDER = {"a0": "10.0.0.1", "a1": "10.0.0.3"}
RECEIVER = {"z0": "10.0.0.2", "z1": "10.0.0.4"}


@pytest.fixture(scope="module")
def sctp_captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[cwnd.Results, Path]:
    results = cwnd.run(SCTP_SCENARIO, seed=3)
    out = tmp_path_factory.mktemp("pcap_sctp")
    results.write(out, figures=False)
    return results, out


def chunks(p: Any) -> list[Any]:
    """The chunks bundled in an SCTP packet, in order."""
    from scapy.layers.sctp import SCTP
    from scapy.packet import NoPayload

    found = []
    chunk = p[SCTP].payload
    while not isinstance(chunk, NoPayload):
        found.append(chunk)
        chunk = chunk.payload
    return found


def sctp_packets(out: Path, node: str) -> list[Any]:
    from scapy.all import rdpcap

    return list(rdpcap(str(out / f"{node}.pcap")))


def test_scapy_counts_sctp_chunks(sctp_captured: tuple[cwnd.Results, Path]) -> None:
    from scapy.all import IP
    from scapy.layers.sctp import (
        SCTP,
        SCTPChunkData,
        SCTPChunkHeartbeatAck,
        SCTPChunkHeartbeatReq,
        SCTPChunkSACK,
    )

    results, out = sctp_captured
    a = results.summary.iloc[0]
    paths = results.paths.set_index("path")
    links = results.links.set_index(["from", "to"])
    # Nothing is refused by a sender's own queue, and only DATA packets are lost, so
    # every chunk sent leaves a sender node and every SACK reaches the sender.
    assert links["drops_queue"].sum() == 0
    assert a["state"] == "shut_down" and a["bytes_delivered"] == 1_000_000
    kinds: Counter[tuple[str, str]] = Counter()
    data_by_path = {}
    tsns_sent = []
    for path, (node, address) in enumerate(SENDER.items()):
        packets = sctp_packets(out, node)
        assert all(IP in p and p[IP].proto == 132 and SCTP in p for p in packets)
        sent = [p for p in packets if p[IP].src == address]
        received = [p for p in packets if p[IP].dst == address]
        # Each path's own addresses: a0 talks to z0 only, a1 to z1 only.
        assert {p[IP].dst for p in sent} == {list(RECEIVER.values())[path]}
        data = [
            (float(p.time), c.tsn) for p in sent for c in chunks(p) if isinstance(c, SCTPChunkData)
        ]
        data_by_path[path] = len(data)
        tsns_sent += data
        for p in sent:
            kinds.update(("sent", type(c).__name__) for c in chunks(p))
        for p in received:
            kinds.update(("received", type(c).__name__) for c in chunks(p))
        # Whole packets: each record holds every byte of the frame.
        assert all(len(bytes(p)) == p.wirelen == 14 + p[IP].len for p in packets)
    # DATA chunks, retransmissions included, per path and in all.
    assert data_by_path == {0: paths.loc[0, "chunks_sent"], 1: paths.loc[1, "chunks_sent"]}
    assert kinds[("sent", SCTPChunkData.__name__)] == a["segments_sent"]
    tsns_sent.sort()
    seen: set[int] = set()
    retransmitted = 0
    for _, tsn in tsns_sent:
        retransmitted += tsn in seen
        seen.add(tsn)
    assert retransmitted == a["segments_retransmitted"] > 0
    # Retransmissions only go to the alternate path (retransmit_to = "alternate").
    assert data_by_path[1] == paths.loc[1, "chunks_retransmitted"] == a["segments_retransmitted"]
    assert kinds[("received", SCTPChunkSACK.__name__)] == a["acks_received"]
    heartbeats = kinds[("sent", SCTPChunkHeartbeatReq.__name__)]
    assert heartbeats == paths["heartbeats_sent"].sum() > 0
    assert kinds[("received", SCTPChunkHeartbeatAck.__name__)] == paths["heartbeat_acks"].sum()
    # Set-up and shutdown: once each, as nothing but DATA is lost.
    for direction, chunk in [
        ("sent", "SCTPChunkInit"),
        ("received", "SCTPChunkInitAck"),
        ("sent", "SCTPChunkCookieEcho"),
        ("received", "SCTPChunkCookieAck"),
        ("sent", "SCTPChunkShutdown"),
        ("received", "SCTPChunkShutdownAck"),
        ("sent", "SCTPChunkShutdownComplete"),
    ]:
        assert kinds[(direction, chunk)] == 1, chunk

    # At the receiver: every SACK it sent left z0 or z1.
    sacks_sent = 0
    for node, address in RECEIVER.items():
        for p in sctp_packets(out, node):
            if p[IP].src == address:
                sacks_sent += sum(isinstance(c, SCTPChunkSACK) for c in chunks(p))
    assert sacks_sent == a["sacks_sent"] == a["acks_received"]


def test_scapy_checks_sctp_layout(sctp_captured: tuple[cwnd.Results, Path]) -> None:
    from scapy.all import IP
    from scapy.layers.sctp import SCTP, SCTPChunkData, SCTPChunkSACK

    _, out = sctp_captured
    packets = sctp_packets(out, "a0")
    data_packets = [p for p in packets if any(isinstance(c, SCTPChunkData) for c in chunks(p))]
    # Two 600-byte chunks bundled per full packet: 20 + 12 + 2 × (16 + 600) = 1264 B.
    assert {p[IP].len for p in data_packets[5:50]} == {1264}
    first = chunks(data_packets[0])[0]
    assert (first.tsn, first.stream_id, first.len) == (1, 0, 616)
    assert chunks(data_packets[0])[1].stream_id == 1
    # Losses show as gap ack blocks.
    sacks = [c for p in packets for c in chunks(p) if isinstance(c, SCTPChunkSACK)]
    assert any(c.n_gap_ack > 0 for c in sacks)
    # Ports and tags: A 49152 (flow 0) and Z 5001; INIT carries tag 0.
    assert (packets[0][SCTP].sport, packets[0][SCTP].dport, packets[0][SCTP].tag) == (
        49152,
        5001,
        0,
    )
    # scapy computes the CRC32c itself when the field is left empty: it must match.
    for p in packets:
        rebuilt = SCTP(bytes(p[SCTP]))
        del rebuilt.chksum
        assert SCTP(bytes(rebuilt)).chksum == p[SCTP].chksum


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed")
def test_tshark_verifies_sctp_checksums(sctp_captured: tuple[cwnd.Results, Path]) -> None:
    results, out = sctp_captured
    a = results.summary.iloc[0]

    def tshark(node: str, *args: str) -> list[str]:
        proc = subprocess.run(
            [
                "tshark",
                "-n",
                "-r",
                str(out / f"{node}.pcap"),
                "-o",
                "sctp.checksum:CRC 32c",
                "-o",
                "ip.check_checksum:TRUE",
                *args,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return proc.stdout.splitlines()

    data_chunks = 0
    for node in [*SENDER, *RECEIVER]:
        fields = ["sctp.checksum.status", "ip.checksum.status", "ip.src", "sctp.data_tsn"]
        rows = [
            line.split("\t") for line in tshark(node, "-T", "fields", *(f"-e{f}" for f in fields))
        ]
        # Every frame is SCTP with a good CRC32c (status 1) and IPv4 checksum.
        assert rows and all(r[:2] == ["1", "1"] for r in rows)
        assert tshark(node, "-Y", "_ws.malformed || _ws.expert.severity >= warning") == []
        data_chunks += sum(len(r[3].split(",")) for r in rows if r[2] == SENDER.get(node) and r[3])
    assert data_chunks == a["segments_sent"]
