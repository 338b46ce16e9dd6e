"""docs/results.md against the real columns: every column of every frame is
documented, and every documented column exists; likewise each controller's metrics
(`trace.cc_metrics`)."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

import cwnd
from cwnd.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "results.md"

# Together: TCP flows over links with queues, an SCTP association, an 802.11 channel,
# an 802.16 cell, a UDP flow and traffic generators — every frame has rows. (The
# cc_metrics frame needs a controller with metrics: the dumbbell's flows are switched to
# CUBIC.)
SCENARIOS = [
    "dumbbell",
    "sctp_multihomed",
    "wifi_snr_distance",
    "wimax_los_snr30",
    "udp_cbr_vs_tcp",
    "web_mix",
]


def documented() -> dict[str, set[str]]:
    """Frame name → the columns its sections list (first cell of each table row)."""
    columns: dict[str, set[str]] = defaultdict(set)
    frame = None
    for line in DOC.read_text().splitlines():
        if line.startswith("#"):
            match = re.search(r"`Results\.(\w+)`", line)
            frame = match.group(1) if match else None
        elif frame and line.startswith("| `"):
            first_cell = line.split("|")[1]
            columns[frame].update(re.findall(r"`([^`]+)`", first_cell))
    return columns


def actual() -> dict[str, set[str]]:
    """Frame name → its columns over runs of the example scenarios, every trace on."""
    columns: dict[str, set[str]] = defaultdict(set)
    for name in SCENARIOS:
        spec = load_scenario(ROOT / "scenarios" / f"{name}.toml")
        if name == "dumbbell":
            for flow in spec["flows"]:
                flow["cc"] = "cubic"
        spec.setdefault("trace", {}).update(segments=True, queues=True, cc_metrics=True)
        results = cwnd.run(spec)
        for frame in documented():
            table = getattr(results, frame)
            if len(table):
                columns[frame].update(table.columns)
    return columns


@pytest.fixture(scope="module")
def frames() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    return documented(), actual()


def test_the_page_documents_the_frames_that_exist(frames) -> None:
    doc, real = frames
    assert set(doc) == set(real), "frames documented and frames with rows differ"


def test_every_column_is_documented(frames) -> None:
    doc, real = frames
    missing = {f: sorted(real[f] - doc[f]) for f in real if real[f] - doc[f]}
    assert not missing, f"columns missing from docs/results.md: {missing}"


def test_every_documented_column_exists(frames) -> None:
    doc, real = frames
    stale = {f: sorted(doc[f] - real[f]) for f in doc if doc[f] - real.get(f, set())}
    assert not stale, f"docs/results.md documents columns that do not exist: {stale}"


def documented_controller_metrics() -> dict[str, set[str]]:
    """Controller → the metrics the "Metrics by controller" table lists."""
    text = DOC.read_text()
    table = text[text.index("#### Metrics by controller") :].split("\n\n")[1]
    metrics = {}
    for line in table.splitlines()[2:]:
        _, names, listed, _ = line.split("|")
        for name in re.findall(r"`([^`]+)`", names):
            metrics[name] = set(re.findall(r"`([^`]+)`", listed))
    return metrics


def test_every_controller_has_its_metrics_documented() -> None:
    doc = documented_controller_metrics()
    assert set(doc) == set(cwnd.controllers())
    for cc, names in doc.items():
        spec = load_scenario(ROOT / "scenarios" / "single_random_loss.toml")
        spec["duration"] = "5s"
        spec["flows"][0]["cc"] = cc
        if cc == "tahoe":  # its own recovery, not the profile's SACK (a warning)
            spec["flows"][0]["recovery"] = "tahoe"
        spec.setdefault("trace", {})["cc_metrics"] = True
        reported = set(cwnd.run(spec).cc_metrics["metric"].unique())
        assert reported == names, cc
