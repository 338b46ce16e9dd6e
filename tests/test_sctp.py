"""SCTP through the Python API: the builder, the summary row beside TCP flows, the
per-path, series, chunk and event tables, files written, and errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cwnd
from cwnd.scenario import Scenario

# One full DATA packet: 1500 B on the wire, 1452 user bytes, 1468 B in windows.
USER = 1452
CHUNK = 1468


def multihomed(**sctp: object) -> Scenario:
    """A TCP flow on its own path, and an SCTP association over two paths whose
    primary delivers TSN 100 four positions late."""
    reorder = {
        "kind": "reorder",
        "packet": 100,
        "positions": 4,
        "direction": "forward",
        "applies_to": "data",
    }
    return (
        Scenario(duration="5s", name="mh", segments=True)
        .link("t1", "t2", bandwidth="10Mbps", delay="20ms")
        .flow("t1", "t2", name="tcp")
        .link("s1_0", "s2_0", bandwidth="10Mbps", delay="20ms", impairments=[reorder])
        .link("s1_1", "s2_1", bandwidth="10Mbps", delay="20ms")
        .sctp(["s1_0", "s1_1"], ["s2_0", "s2_1"], name="assoc", rwnd="72600B", **sctp)
    )


def test_an_association_sits_beside_tcp_flows_in_the_summary() -> None:
    r = cwnd.run(multihomed(dupthresh=4, rr={"detection": True, "recovery": True}), seed=1)
    assert r.flow_names == ["tcp", "assoc"]
    assert r.association_names == ["assoc"]
    s = r.summary.set_index("name")
    assert list(s["transport"]) == ["tcp", "sctp"]
    row = s.loc["assoc"]
    assert row["cc"] == "rr-sctp"
    assert row["from"] == "s1_0,s1_1"
    # The one reordered TSN: one spurious fast retransmit, detected.
    assert row["fast_retransmits"] == 1
    assert row["spurious_events"] == 1
    assert row["spurious_detected_correct"] == 1
    assert row["bytes_delivered"] % USER == 0
    assert row["goodput_bps"] > 0


def test_paths_series_chunks_and_events_are_frames() -> None:
    r = cwnd.run(multihomed(dupthresh=4), seed=1)
    paths = r.paths
    assert list(paths["to"]) == ["s2_0", "s2_1"]
    assert list(paths["primary"]) == [True, False]
    ps = r.path_series
    assert set(ps.columns) >= {"association", "path", "time", "cwnd", "cwnd_bytes", "srtt"}
    # Windows in chunks are bytes over the full chunk size.
    assert np.allclose(ps["cwnd"] * CHUNK, ps["cwnd_bytes"])
    assert ps["cwnd_bytes"].iloc[0] == 4404
    chunks = r.chunks
    retx = chunks[chunks["retransmission"]]
    assert list(retx["tsn"]) == [100]
    assert list(retx["spurious"]) == [True]
    events = r.sctp_events
    assert list(events["kind"]) == ["fast_retransmit"]
    assert not events["detected"].iloc[0]  # detection is off
    series = r.association_series
    assert series["highest_tsn"].is_monotonic_increasing
    assert (series["cumulative_tsn"] <= series["highest_tsn"]).all()


def test_sctp_tables_are_written(tmp_path: Path) -> None:
    r = cwnd.run(multihomed(), seed=1)
    written = {p.name for p in r.write(tmp_path, figures=False)}
    assert {"paths.csv", "path_series.parquet", "chunks.parquet", "sctp_events.parquet"} <= written
    assert {"association_series.parquet", "throughput.parquet"} <= written


def test_bad_sctp_options_are_refused_with_the_field() -> None:
    with pytest.raises(cwnd.ScenarioError, match=r"flows\[1\]\.sctp\.streams: 0 is outside"):
        cwnd.check(multihomed(streams=0))
    with pytest.raises(cwnd.ScenarioError, match=r"flows\[1\]\.sctp\.colour: unknown field"):
        cwnd.check(multihomed(colour=3))


def test_a_seed_gives_the_same_run_and_another_seed_other_heartbeats() -> None:
    # Heartbeat jitter is the association's only random draw: a 100 s run with an
    # idle secondary path heartbeats it at times that depend on the seed.
    s = Scenario(duration="100s").link("a0", "b0", bandwidth="10Mbps", delay="20ms")
    s.link("a1", "b1", bandwidth="10Mbps", delay="20ms")
    s.sctp(["a0", "a1"], ["b0", "b1"], name="x", rwnd="72600B")
    one, again, other = (cwnd.run(s, seed=k) for k in (1, 1, 2))
    assert one.fingerprint == again.fingerprint
    assert one.fingerprint != other.fingerprint
