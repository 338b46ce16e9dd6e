"""The `wimax` study: Linux 2.6.20's socket options by hand, the claims' rules on
hand-made tables (each able to say agree, disagree and indistinguishable), and the quick
reproduction end to end."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from cwnd.studies import wimax
from cwnd.studies.study import StudyData, Verdict

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_mss_is_clamped_as_linux_clamps_tcp_maxseg() -> None:
    # min(user_mss, 1500 − 40); 65536 is EINVAL in 2.6.20, whose default is also 1460.
    assert [wimax.wire_mss(s) for s in wimax.SIZES] == [64, 256, 1024, 1460, 1460, 1460]
    # Timestamps take 12 B of each segment: 64 − 12 = 52, 1460 − 12 = 1448.
    assert (wimax.payload(64), wimax.payload(1460)) == (52, 1448)


def test_the_flow_is_a_linux_2_6_20_iperf_flow() -> None:
    spec = wimax.build({"cc": "cubic", "size": 65536, "buffer": 2, "profile": "nlos_snr10"},
                       seconds=wimax.SECONDS)  # fmt: skip
    flow, tcp = spec["flows"][0], spec["flows"][0]["tcp"]
    assert flow["cc"]["beta"] == 0.8  # 819/1024 rounded, 2.6.20's tcp_cubic.c
    # -M 65536 -w 2K with iperf's 8 KB writes; cwnd clamps the MSS to the MTU.
    assert (tcp["mss"], tcp["mtu"], tcp["write_size"]) == ("65536B", 1500, "8192B")
    assert (tcp["rcvbuf"], tcp["sndbuf"]) == ("2048B", "2048B")
    assert tcp["rto"]["initial"] == "3s" and tcp["sack"] and tcp["nagle"]
    # 2.6.20's rtt_sample: the oldest newly acknowledged segment's age, not today's newest.
    assert tcp["cc_sample"] == "oldest"
    assert spec["duration"] == "120s" and spec["wimax"][0]["preset"] == "nlos_snr10"


def test_buffers_are_capped_at_rmem_max_and_the_other_reading_writes() -> None:
    # -w 512K asks 524288 B; 2.6.20 keeps min(524288, 131071) before doubling.
    tcp = wimax.linux_tcp(4096, 512)
    assert (tcp["rcvbuf"], tcp["sndbuf"]) == ("131071B", "131071B")
    # 128 KB = 131072 B is capped the same way: the two largest buffers are one socket.
    assert wimax.linux_tcp(4096, 128)["rcvbuf"] == "131071B"
    # The -l reading: 256-byte writes, the MTU's MSS.
    write = wimax.linux_tcp(256, 8, reading="write")
    assert (write["write_size"], write["mss"]) == ("256B", "1460B")
    with pytest.raises(ValueError, match="reading"):
        wimax.linux_tcp(256, 8, reading="both")


def test_link_ceiling_by_hand() -> None:
    # 170 symbols × 108 B × 8 / 5 ms = 29.376 Mb/s of PDUs; × 1448/1510 = 28.170 Mb/s.
    assert wimax.link_ceiling_mbps() == pytest.approx(28.170, abs=1e-3)


def runs(rows: list[dict[str, object]], seeds: int = 3, spread: float = 0.01) -> StudyData:
    """Study data whose per-run table is `rows` repeated over seeds, seed k adding
    spread·(k − 2) to goodput_mbps, cv and lost (a spread equal for every row)."""
    base = {"timeouts": 10.0, "fast_retransmits": 5.0, "drops_queue": 0.0, "mean_rtt": 0.02,
            "cv": 0.5, "lost": 0.0}  # fmt: skip
    frame = pd.DataFrame(
        [
            {**base, **row, "seed": k,
             **{c: float(row.get(c, base.get(c, 0.0))) + spread * (k - 2)  # type: ignore[arg-type]
                for c in ("goodput_mbps", "cv", "lost")}}
            for row in rows
            for k in range(1, seeds + 1)
        ]
    )  # fmt: skip
    data = StudyData({}, quick=False)
    data.derived("per_run", lambda: frame)
    return data


def cell(cc: str, profile: str, size: int, buffer: int, **values: float) -> dict[str, object]:
    return {"cc": cc, "profile": profile, "size": size, "buffer": buffer, **values}


def test_fills_the_link_needs_every_variant_above_the_bar() -> None:
    # The bar is 0.9 × 28.17 = 25.35 Mb/s.
    above = [cell(cc, "nlos_snr30", 4096, 512, goodput_mbps=26.0) for cc in ("reno", "bic")]
    assert wimax.claim_fills_link(runs(above)).verdict is Verdict.AGREE
    below = [*above[:1], cell("bic", "nlos_snr30", 4096, 512, goodput_mbps=25.0)]
    assert wimax.claim_fills_link(runs(below)).verdict is Verdict.DISAGREE


def test_best_from_1024_needs_every_large_size_distinctly_above_every_small() -> None:
    def goodputs(at: dict[int, float]) -> StudyData:
        return runs([cell("reno", "nlos_snr30", s, 512, goodput_mbps=g) for s, g in at.items()])

    assert wimax.claim_best_from_1024(goodputs({256: 20.0, 1024: 25.0, 4096: 26.0})).verdict \
        is Verdict.AGREE  # fmt: skip
    assert wimax.claim_best_from_1024(goodputs({256: 27.0, 1024: 25.0, 4096: 26.0})).verdict \
        is Verdict.DISAGREE  # fmt: skip
    # 256 B within the seeds' spread of 1024 B: neither.
    assert wimax.claim_best_from_1024(goodputs({256: 25.0, 1024: 25.0, 4096: 26.0})).verdict \
        is Verdict.NOT_MEASURABLE  # fmt: skip


def test_best_from_1024_explains_a_vegas_cell_the_seeds_spread() -> None:
    # Vegas at 256 B: 17.0, 8.5, 19.0 Mb/s against 25.99, 26.0, 26.01 at 1024 B. Welch:
    # mean difference 26.0 − 14.83 = 11.17, s = 5.58 over 3 seeds, SE 3.22, ~2 degrees
    # of freedom (t 4.30): 11.17 − 13.85 < 0, so Vegas fails and the why names
    # the seeds' goodputs. At 20.0 ± 0.01 Mb/s it is distinct and the why says nothing.
    rows = [cell("reno", "nlos_snr30", 256, 512, goodput_mbps=20.0),
            cell("reno", "nlos_snr30", 1024, 512, goodput_mbps=25.0),
            cell("vegas", "nlos_snr30", 256, 512, goodput_mbps=20.0),
            cell("vegas", "nlos_snr30", 1024, 512, goodput_mbps=26.0)]  # fmt: skip
    steady = runs(rows)
    assert "BaseRTT" not in wimax.claim_best_from_1024(steady).why
    frame = steady.derived("per_run", pd.DataFrame).copy()
    vegas_256 = (frame["cc"] == "vegas") & (frame["size"] == 256)
    frame.loc[vegas_256, "goodput_mbps"] = [17.0, 8.5, 19.0]
    spread = StudyData({}, quick=False)
    spread.derived("per_run", lambda: frame)
    measured = wimax.claim_best_from_1024(spread)
    assert measured.verdict is Verdict.NOT_MEASURABLE
    assert "Vegas at 256 B varies with the seed (17.0, 8.5, 19.0 Mb/s)" in measured.why


def test_loss_claim_needs_more_than_10_percent_and_a_lossless_snr30() -> None:
    def losses(snr10: float, snr30: float) -> StudyData:
        return runs([cell("reno", "nlos_snr10", 4096, 512, lost=snr10),
                     cell("reno", "nlos_snr30", 4096, 512, lost=snr30)], spread=0.0001)  # fmt: skip

    assert wimax.claim_loss_snr10(losses(0.13, 0.0001)).verdict is Verdict.AGREE
    assert wimax.claim_loss_snr10(losses(0.05, 0.0001)).verdict is Verdict.DISAGREE
    assert wimax.claim_loss_snr10(losses(0.13, 0.01)).verdict is Verdict.DISAGREE


def test_westwood_and_bic_best_rule() -> None:
    def rule(**means: float) -> Verdict:
        return wimax.westwood_bic_best(
            {cc: [m - 0.01, m, m + 0.01] for cc, m in means.items()}
        ).verdict

    assert rule(westwood=0.5, bic=0.45, reno=0.3) is Verdict.AGREE
    assert rule(westwood=0.5, bic=0.2, reno=0.3) is Verdict.DISAGREE
    assert rule(westwood=0.5, bic=0.3, reno=0.295) is Verdict.NOT_MEASURABLE


def test_westwood_gain_rule() -> None:
    def rule(westwood: list[float]) -> Verdict:
        by_cc = {"westwood": pd.Series(westwood), "reno": pd.Series([0.1, 0.1, 0.1]),
                 "bic": pd.Series([0.2, 0.2, 0.2])}  # fmt: skip
        return wimax.westwood_gain(by_cc).verdict

    # Westwood over the worst (Reno, 0.1): 0.39/0.1 − 1 = 290 %, ±10 points over seeds.
    assert rule([0.38, 0.39, 0.40]) is Verdict.AGREE
    # 0.15/0.1 − 1 = 50 %: wholly below 200 %.
    assert rule([0.14, 0.15, 0.16]) is Verdict.DISAGREE
    # 190 … 210 % straddles the band's edge.
    assert rule([0.29, 0.30, 0.31]) is Verdict.NOT_MEASURABLE


def test_bic_most_stable_rule() -> None:
    def rule(**cv: float) -> Verdict:
        return wimax.bic_most_stable({cc: [v - 0.01, v, v + 0.01] for cc, v in cv.items()}).verdict

    assert rule(bic=0.3, reno=0.5, westwood=0.6) is Verdict.AGREE
    assert rule(bic=0.5, reno=0.3, westwood=0.6) is Verdict.DISAGREE
    assert rule(bic=0.3, reno=0.305, westwood=0.6) is Verdict.NOT_MEASURABLE


def test_quick_reproduction_end_to_end(quick_report: Path) -> None:
    # The shared quick reproduction of every study (conftest.py) exited 0: no failure.
    folder = quick_report / "wimax"
    table = pd.read_parquet(folder / "cells.parquet")
    axes = wimax.grid(quick=True)
    expected = len(axes.variants) * len(axes.sizes) * len(axes.buffers) * len(axes.profiles)
    assert len(table) == expected and (table["goodput_mbps"] > 0).all()
    for spec in wimax.FIGURES:
        png = (folder / f"{spec.stem}.png").read_bytes()
        assert png[:8] == PNG_MAGIC and len(png) > 10_000, spec.stem
    claims = (folder / "claims.md").read_text()
    for claim in wimax.CLAIMS:
        assert claim.quote in claims and claim.english and claim.english in claims
    # The live half (studies/wimax_live.py): its section either way, with the figure
    # where live mode ran and the reason where it could not.
    assert "## Live: this kernel's TCP over the same presets" in claims
    ran = "\nSkipped: " not in claims
    assert (folder / "live_vs_simulated.png").exists() == ran


def test_claim_3s_why_shows_the_radio_without_its_calibration() -> None:
    # One branch, 4096 B / 512 KB, three seeds: nlos_snr30 loses 0.2, 0.3, 0.4 % →
    # mean 0.30 %; nlos_snr10 20, 21, 22 % → mean 21.0 %.
    one = pd.DataFrame(
        [{"cc": "reno", "profile": p, "size": 4096, "buffer": 512, "seed": k, "lost": x}
         for p, base in (("nlos_snr30", 0.002), ("nlos_snr10", 0.20))
         for k, x in enumerate((base, base + (0.001 if base < 0.01 else 0.01),
                                base + (0.002 if base < 0.01 else 0.02)), start=1)]
    )  # fmt: skip
    note = wimax.calibration_note(one)
    assert note.startswith("partly circular: the presets' two diversity branches"), note
    assert "one branch the reference cell loses 0.300% (95 % CI" in note, note
    assert "at nlos_snr30 and 21.0% (95 % CI" in note, note
    # The sensitivity row swaps both grids for their one-branch sweeps.
    row = next(s for s in wimax.SENSITIVITY if "diversity" in s.parameter)
    assert dict(row.values)["one branch"] == {"grid_snr30": "grid_snr30_one_branch",
                                              "grid_snr10": "grid_snr10_one_branch"}  # fmt: skip


def test_a_one_branch_point_sets_the_presets_fading_with_one_branch() -> None:
    point = {**wimax.REFERENCE, "cc": "reno", "profile": "nlos_snr30", "branches": 1}
    spec = wimax.build(point, seconds={30: 30, 10: 120})
    # Rayleigh (K = 0) without line of sight, as the preset, but one branch.
    assert spec["wimax"][0]["fading"] == {"k_factor": 0.0, "branches": 1}
    assert spec["name"].endswith("_1br")
    # The grid's points name no branches: the preset's own fading, unchanged.
    preset = wimax.build({**wimax.REFERENCE, "cc": "reno", "profile": "nlos_snr30"},
                         seconds={30: 30, 10: 120})  # fmt: skip
    assert "fading" not in preset["wimax"][0] and not preset["name"].endswith("br")


def test_the_recovery_why_names_the_timer_and_the_repairs_by_duplicate_acks() -> None:
    # Reno: 40 fast retransmits, 50 timeouts → 40/90 = 44 % of repairs; BIC 20 and 50
    # → 20/70 = 29 %. Loss 0.14 ± 0.01 over the seeds: mean 14 %.
    data = runs([cell("reno", "nlos_snr10", 4096, 512, fast_retransmits=40.0, timeouts=50.0,
                      lost=0.14),
                 cell("bic", "nlos_snr10", 4096, 512, fast_retransmits=20.0, timeouts=50.0,
                      lost=0.14)])  # fmt: skip
    why = wimax._recovery_why(wimax.per_run(data), ["reno", "bic", "reno"])
    assert why.startswith("14% of the data segments lost on the radio keep cwnd"), why
    assert "(timeouts per run: Reno 50, BIC 50)" in why, why
    assert "share of repairs: Reno 40 (44%), BIC 20 (29%))" in why, why


def test_the_stability_why_gives_each_variants_mean_cv_and_empty_bins() -> None:
    # BIC: 0.2 Mb/s with CV 0.9 and 15 % of the bins empty; Scalable 0.8, 0.7, 5 %.
    frame = wimax.per_run(runs([
        cell("bic", "nlos_snr10", 4096, 512, goodput_mbps=0.2, cv=0.9, timeouts=50.0),
        cell("scalable", "nlos_snr10", 4096, 512, goodput_mbps=0.8, cv=0.7, timeouts=48.0),
    ], spread=0.0))  # fmt: skip
    empty = pd.Series({"bic": 0.15, "scalable": 0.05})
    why = wimax.stability_why(frame, empty, ["scalable", "bic"])
    assert why.startswith("a 1 s bin's goodput falls to nothing while the timer runs"), why
    assert (
        "Scalable 0.800 Mb/s, CV 0.70, 5% of the bins empty, 48 timeouts per run; "
        "BIC 0.200 Mb/s, CV 0.90, 15% of the bins empty, 50 timeouts per run"
    ) in why, why
