"""The `wimax` study's live half: its cells, that each runs live unrefused, the skip
message where live mode cannot run, and one real live cell where it can."""

from __future__ import annotations

import json
import os
import pickle
from functools import partial
from pathlib import Path

import pytest

from cwnd import _cwnd
from cwnd.live import checks
from cwnd.studies import wimax_live
from cwnd.studies.study import FigureSpec, ReportSection, live_half

can_go_live = checks.has_net_admin() and checks.TUN_DEVICE.exists()


def test_the_live_grid_holds_the_claims_cells() -> None:
    grid = wimax_live.cells(quick=False)
    # 3 kernel variants × 2 sizes × 2 buffers × 4 presets = 48 cells, each once.
    assert len(grid) == 48
    assert len({tuple(sorted(c.items())) for c in grid}) == 48
    assert {c["cc"] for c in grid} == {"reno", "cubic", "bbr"}
    # Claim 5's cell: -M 4096 is MSS 1460 on a 1500-byte path, -w 512K is 2.6.20's
    # rmem_max 131071 B ≈ 128 KB.
    assert {"cc": "cubic", "size": 1460, "buffer": 128, "profile": "nlos_snr10"} in grid
    assert {c["size"] for c in grid} == {256, 1460} and {c["buffer"] for c in grid} == {8, 128}
    # 48 × (8 s + ~2.5 s start-up) = 504 s: within the ten minutes.
    assert len(grid) * (wimax_live.SECONDS + 2.5) <= 600
    assert len(wimax_live.cells(quick=True)) == 2


def test_every_cell_runs_live_unrefused_and_its_twin_is_the_linux_profile() -> None:
    for cell in wimax_live.cells(quick=False):
        spec = wimax_live.scenario(cell, wimax_live.SECONDS)
        loaded = _cwnd.load(json.dumps(spec)).spec
        # Refuses anything the kernel cannot honour: raises if the cell asked for it.
        checks.check_scenario(checks.asked(loaded), ["reno", "cubic", "bbr"])
    # The simulated twin runs the same scenario: the "linux" profile, the kernel's own
    # options (issue 35: the "rfc" profile with Linux's RTO added had no RACK-TLP, PRR
    # or undo).
    spec = wimax_live.scenario(wimax_live.cells(quick=True)[0], 5)
    tcp = _cwnd.load(json.dumps(spec)).spec["flows"][0]["tcp"]
    assert tcp["profile"] == "linux"
    # -w 128K → rwnd 128 × 1024 = 131072 B; IW 10 as the kernel's TCP_INIT_CWND.
    assert (tcp["rwnd"], tcp["initial_window"], tcp["mss"]) == ("131072B", 10, "1460B")
    # The profile's: TCP_ATO_MIN, quick ACKs, RACK-TLP, PRR, Linux's RTO (1 s initial).
    assert (tcp["delayed_ack_timeout"], tcp["quickack"]) == ("40000000ns", True)
    assert (tcp["rack"], tcp["prr"], tcp["rto"]["initial"]) == (True, True, "1000000000ns")


def test_without_root_the_live_half_is_skipped_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(checks, "has_net_admin", lambda status=None: False)
    said: list[str] = []
    section = wimax_live.reproduce_live(tmp_path, quick=True, log=said.append)
    assert said == ["wimax: live half skipped: cwnd live needs root or CAP_NET_ADMIN (it "
                    "creates network namespaces and TUN devices); run it as root, in a "
                    "container started with --cap-add=NET_ADMIN"]  # fmt: skip
    assert section.lines[-1].startswith("Skipped: cwnd live needs root")
    assert "Westwood" in "\n".join(section.lines) and section.figures == []
    assert list(tmp_path.iterdir()) == []


def test_without_tun_the_live_half_is_skipped_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(checks, "has_net_admin", lambda status=None: True)
    monkeypatch.setattr(checks, "TUN_DEVICE", tmp_path / "no-tun")
    section = wimax_live.reproduce_live(tmp_path, quick=True, log=lambda _: None)
    assert (
        section.lines[-1] == f"Skipped: cwnd live needs {tmp_path / 'no-tun'} (the tun "
        "module); it is missing."
    )


def test_the_live_half_runs_in_a_child_and_its_section_comes_back(tmp_path: Path) -> None:
    """`live_half` runs a study's live half in a forked child (what it allocates leaves
    with it) and returns its section through a pipe: the section, figure included,
    must pickle, as wimax's does with its table's drawer."""
    parent = os.getpid()
    drawer = partial(wimax_live._draw_table, {"cells": [1, 2]})
    pickle.dumps(drawer)  # a lambda here would not pickle, and the section not return

    def live(folder: Path, quick: bool) -> ReportSection:
        figure = FigureSpec("live_vs_simulated", "caption", drawer)
        return ReportSection([str(os.getpid()), str(quick)], [(figure, folder / "f.png")])

    section = live_half(live, tmp_path, True)
    assert section.lines[0] != str(parent) and section.lines[1] == "True"
    assert section.figures[0][0].stem == "live_vs_simulated"
    assert section.figures[0][1] == tmp_path / "f.png"


@pytest.mark.skipif(not can_go_live, reason="live mode needs root or CAP_NET_ADMIN and "
                    "/dev/net/tun")  # fmt: skip
def test_one_live_cell_end_to_end() -> None:
    cell = {"cc": "cubic", "size": 1460, "buffer": 128, "profile": "nlos_snr30"}
    out = wimax_live.run_cell(cell, seconds=4, seed=1, log=lambda _: None)
    # nlos_snr30 carries 64-QAM 3/4: 29.38 Mb/s of PDUs × 1448/1510 = 28.17 Mb/s of
    # payload (wimax claim 1). Over 4 s with slow start both sides fill at least half of
    # it, and neither can pass it.
    ceiling = 28.17
    for side in ("sim_mbps", "live_mbps"):
        assert 0.5 * ceiling <= out[side] <= ceiling * 1.01, (side, out)


def test_the_full_grids_figure_keeps_the_reports_width(tmp_path: Path) -> None:
    # Issue 35: four panels side by side made the 48-cell figure 1752 px wide, shown at
    # 0.63 of its size in the report's 1100-px column, its 6-point labels unreadable. Two
    # columns of panels, horizontal bars and labels across keep it within the column.
    from PIL import Image

    rows = [
        {**cell, "seed": 1, "sim_mbps": 1.0, "live_mbps": 1.1, "sim_retransmitted": 0.0,
         "live_retransmitted": 0.0, "relay_p99": 1e-4}
        for cell in wimax_live.cells(quick=False)
    ]  # fmt: skip
    path = tmp_path / "live_vs_simulated.png"
    wimax_live.draw(wimax_live._table(rows), path)
    with Image.open(path) as image:
        # report.py: `body { max-width: 1100px }`; figures are never scaled up.
        assert image.width <= 1100, image.size
