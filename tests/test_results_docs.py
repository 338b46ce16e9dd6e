"""docs/results.md against the real columns: every column of every frame is
documented, and every documented column exists."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

import cwnd
from cwnd.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "results.md"

# Together: TCP flows over links with queues, an SCTP association, an 802.11 channel
# and an 802.16 cell — every frame has rows.
SCENARIOS = ["dumbbell", "sctp_multihomed", "wifi_snr_distance", "wimax_los_snr30"]


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
        spec.setdefault("trace", {}).update(segments=True, queues=True)
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
