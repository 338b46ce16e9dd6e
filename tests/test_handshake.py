"""TCP connection set-up through the Python API: `tcp.handshake` as a keyword of
`Scenario.flow`, and its columns in the summary."""

from __future__ import annotations

import math

import pytest

import cwnd
from cwnd.scenario import Scenario


def one_link(**tcp: object) -> Scenario:
    # 10 Mb/s, 50 ms: a 52 B SYN (40 B + 12 B of timestamps, on by default) takes
    # 52 · 8 / 10⁷ s = 41.6 µs to send; SYN + SYN-ACK 2 · 50.0416 ms.
    return (
        Scenario(duration="2s")
        .link("a", "b", bandwidth="10Mbps", delay="50ms")
        .flow("a", "b", name="f", app={"kind": "transfer", "segments": 10}, **tcp)
    )


def test_the_set_up_time_is_one_rtt_when_nothing_is_lost() -> None:
    row = cwnd.run(one_link(handshake=True), seed=1).summary.set_index("name").loc["f"]
    assert row["setup_time"] == pytest.approx(0.1000832, abs=1e-12)
    assert row["syn_retransmissions"] == 0


def test_without_a_handshake_the_set_up_time_is_nan() -> None:
    row = cwnd.run(one_link(), seed=1).summary.set_index("name").loc["f"]
    assert math.isnan(row["setup_time"])
