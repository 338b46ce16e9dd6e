"""UDP traffic sources as keyword functions.

Each function returns the table a scenario file would hold in a UDP flow's `source`
(docs/scenarios.md describes every parameter), so
`Scenario.udp("h1", "h2", source=cbr(rate="2Mbps", packet_size="500B"))` and the TOML
`source = { kind = "cbr", rate = "2Mbps", packet_size = "500B" }` are the same source.
The sources follow ns-2's `Application/Traffic/CBR`, `Exponential` and `Pareto`.
"""

from __future__ import annotations

from typing import Any

Table = dict[str, Any]


def cbr(*, rate: str, packet_size: str, jitter: bool = False) -> Table:
    """A datagram every `packet_size` × 8 / `rate`; `jitter` (ns-2's `random_`) moves
    each gap by up to half an interval either way."""
    return {"kind": "cbr", "rate": rate, "packet_size": packet_size, "jitter": jitter}


def exponential(*, burst_time: str, idle_time: str, rate: str, packet_size: str) -> Table:
    """On/off with exponential bursts (mean `burst_time`, sent at the peak `rate`) and
    idle times (mean `idle_time`)."""
    return {
        "kind": "exponential",
        "burst_time": burst_time,
        "idle_time": idle_time,
        "rate": rate,
        "packet_size": packet_size,
    }


def pareto(
    *, burst_time: str, idle_time: str, rate: str, packet_size: str, shape: float = 1.5
) -> Table:
    """On/off with Pareto bursts and idle times of shape `shape` (above 1; ns-2's
    default 1.5) and the given means."""
    return {
        "kind": "pareto",
        "burst_time": burst_time,
        "idle_time": idle_time,
        "rate": rate,
        "packet_size": packet_size,
        "shape": shape,
    }
