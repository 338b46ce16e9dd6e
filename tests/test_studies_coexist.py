"""The `coexist` study: ns-2's automatic RED by hand, the scenario, the claims' rules on
hand-made tables (each able to agree, disagree and be not measurable), and the quick
reproduction end to end."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from cwnd.studies import coexist
from cwnd.studies.study import StudyData, Verdict, reproduce

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_red_is_ns2s_automatic_configuration_by_hand() -> None:
    # 15 Mb/s of 500 B packets: C = 15e6 / 4000 = 3750 packets/s. min_th = max(5,
    # 0.005 × 3750 / 2 = 9.375); max_th = 3 × 9.375 = 28.125. RTT = 3 × (0.08 + 1/3750)
    # = 0.2408 s; w_q = 1 − exp(−1 / (10 × 0.2408 × 3750)) = 1 − exp(−1/9030) = 1.10736e-4.
    red = coexist.ns2_red(15e6, 0.08)
    assert (red["min_th"], red["max_th"], red["max_p"], red["gentle"]) == (9.375, 28.125, 0.1, True)
    assert red["w_q"] == pytest.approx(1.10736e-4, rel=1e-4)
    # 1.5 Mb/s, 20 ms: C = 375; 0.005 × 375 / 2 = 0.94 < 5 → min_th 5, max_th 15; RTT
    # 3 × (0.02 + 1/375) = 0.068 s, floored at 0.1 s: w_q = 1 − exp(−1/375) = 2.6631e-3.
    red = coexist.ns2_red(1.5e6, 0.02)
    assert (red["min_th"], red["max_th"]) == (5.0, 15.0)
    assert red["w_q"] == pytest.approx(2.6631e-3, rel=1e-4)


def test_the_scenario_splits_the_load_in_thirds_beside_staggered_udp() -> None:
    spec = coexist.build({"mix": "web", "load": 0.6}, seconds=100.0)
    gens = spec["generators"]
    assert [g["cc"] for g in gens] == ["reno", coexist.CC["vegas"], "westwood"]
    assert all(g["load"] == pytest.approx(0.2) and g["link"] == "r1-r2" and g["recovery"] == "reno"
               for g in gens)  # fmt: skip
    assert gens[0]["web"] == {"size_max": "10MB"} and gens[0]["to"] == "d_tcp"
    # 500 B segments, a window of 1000 segments = 500 000 B.
    assert (gens[0]["tcp"]["mss"], gens[0]["tcp"]["rwnd"]) == ("500B", "500000B")
    bottleneck = spec["links"][0]
    assert bottleneck["queue"]["packets"] == 800 and bottleneck["bandwidth"] == "15000000bps"
    # Four sources of 5 % of 15 Mb/s = 750 kb/s; at most four on at once (40–60 s): 20 %.
    udp = spec["flows"]
    assert [(f["start"], f["stop"]) for f in udp] == [
        ("10s", "60s"),
        ("20s", "70s"),
        ("30s", "80s"),
        ("40s", "90s"),
    ]
    assert {f["source"]["rate"] for f in udp} == {"750000bps"}
    assert coexist.build({"mix": "ftp", "load": 0.9})["generators"][2]["mean_size"] == "500KB"


def test_vegas_is_ns2s_agent_and_the_sensitivity_is_the_plain_controller() -> None:
    vegas = coexist.build({"mix": "ftp", "load": 0.6})["generators"][1]
    ns2 = {"loss_reduction": "vegas", "fine_grained_retransmission": True}
    assert vegas["cc"] == {"name": "vegas", "alpha": 1, "beta": 3, "gamma": 1, **ns2}
    plain = coexist.build({"mix": "ftp", "load": 0.6, "vegas": "plain"})
    # Written out: the "ns2" profile would otherwise give Vegas ns-2's agent again.
    off = {"loss_reduction": "reno", "fine_grained_retransmission": False}
    plain_vegas = {"name": "vegas", "alpha": 1, "beta": 3, "gamma": 1, **off}
    assert plain["generators"][1]["cc"] == plain_vegas
    # The other two variants do not change.
    assert plain["generators"][0] == coexist.build({"mix": "ftp", "load": 0.6})["generators"][0]


def test_the_droptail_sensitivity_keeps_the_buffer_and_drops_red() -> None:
    spec = coexist.build({"mix": "web", "load": 0.5, "queue": "droptail"})
    assert spec["links"][0]["queue"] == {"packets": 800}
    assert spec["name"] == "coexist_web_0.5_ns2vegas_droptail"


def test_bands_are_half_the_smallest_to_twice_the_largest_change() -> None:
    assert coexist.band(0.61, 1.78) == pytest.approx((0.305, 3.56))
    assert coexist.band(-0.87, -0.67) == pytest.approx((-1.0, -0.335))
    assert coexist.band(-0.31, -0.16) == pytest.approx((-0.62, -0.08))


BASE = {"goodput_bps": 100e3, "mean_cwnd": 10.0, "mean_rtt": 0.25, "timeouts": 1.0,
        "fast_retransmits": 2.0, "connections": 10, "unfinished": 2, "segments_sent": 1000,
        "drops_queue": 50}  # fmt: skip


def runs(factors: dict[tuple[str, str, str], float], noise: float = 0.01,
         loads: tuple[float, ...] = (0.4, 0.5, 0.9)) -> StudyData:  # fmt: skip
    """Study data for 3 seeds: every variant has BASE's metrics, times the factor given
    for (mix, cc, metric), and seed k times (1 + noise·(k − 2)) on the non-Reno variants
    (so a gain g has seed gains (1 + g)(1 ± noise) − 1)."""
    rows = []
    for mix in coexist.MIXES:
        for load in loads:
            for cc in coexist.VARIANTS:
                for k in (1, 2, 3):
                    wobble = 1.0 if cc == "reno" else 1 + noise * (k - 2)
                    row = {m: v * factors.get((mix, cc, m), 1.0) * wobble for m, v in BASE.items()}
                    rows.append({"mix": mix, "load": load, "seed": k, "cc": cc,
                                 "generator": f"{mix}-{cc}", **row})  # fmt: skip
    data = StudyData({}, quick=False)
    data.derived("generators", lambda: pd.DataFrame(rows))
    return data


def test_westwood_cwnd_rule_agrees_disagrees_and_cannot_tell() -> None:
    # Twice Reno's cwnd: gains 0.98, 1.00, 1.02 → +100 % ± 5 %, inside +30.5 … +356 %.
    assert (
        coexist.claim_westwood_cwnd(runs({("ftp", "westwood", "mean_cwnd"): 2.0})).verdict
        is Verdict.AGREE
    )
    # 10 % larger: wholly below +30.5 %.
    assert (
        coexist.claim_westwood_cwnd(runs({("ftp", "westwood", "mean_cwnd"): 1.1})).verdict
        is Verdict.DISAGREE
    )
    # 30 % larger with a ±20 % spread over seeds straddles +30.5 %.
    noisy = runs({("ftp", "westwood", "mean_cwnd"): 1.3}, noise=0.2)
    assert coexist.claim_westwood_cwnd(noisy).verdict is Verdict.NOT_MEASURABLE


def test_westwood_rtos_and_goodput_rules() -> None:
    more = runs({("ftp", "westwood", "timeouts"): 1.5})
    assert coexist.claim_westwood_rtos(more).verdict is Verdict.AGREE
    fewer = runs({("ftp", "westwood", "timeouts"): 0.5})
    assert coexist.claim_westwood_rtos(fewer).verdict is Verdict.DISAGREE
    # Higher everywhere, 0.4 included: the exception at 0.4 is contradicted.
    higher = runs({("ftp", "westwood", "goodput_bps"): 1.2})
    assert coexist.claim_westwood_goodput(higher).verdict is Verdict.DISAGREE
    # Higher from 0.5 on and equal at 0.4 (a wobble of ±1 % straddles 0): agree.
    only_above = runs({("ftp", "westwood", "goodput_bps"): 1.2}, loads=(0.5, 0.9))
    frame = pd.concat([coexist.generators(only_above),
                       coexist.generators(runs({}, loads=(0.4,)))])  # fmt: skip
    data = StudyData({}, quick=False)
    data.derived("generators", lambda: frame)
    assert coexist.claim_westwood_goodput(data).verdict is Verdict.AGREE


def test_vegas_rules() -> None:
    # A fifth of Reno's RTOs: −80 %, inside −100 … −33.5 %.
    assert (
        coexist.claim_vegas_rtos(runs({("ftp", "vegas", "timeouts"): 0.2})).verdict is Verdict.AGREE
    )
    # −20 %: wholly outside (above −33.5 %).
    assert (
        coexist.claim_vegas_rtos(runs({("ftp", "vegas", "timeouts"): 0.8})).verdict
        is Verdict.DISAGREE
    )
    # Vegas 10 % below Reno at every load: right at 0.4 and 0.5, wrong at 0.9.
    assert (
        coexist.claim_vegas_goodput(runs({("ftp", "vegas", "goodput_bps"): 0.9})).verdict
        is Verdict.DISAGREE
    )


def test_rtts_close_rule() -> None:
    assert (
        coexist.claim_rtts_close(runs({("ftp", "vegas", "mean_rtt"): 1.05})).verdict
        is Verdict.AGREE
    )
    assert (
        coexist.claim_rtts_close(runs({("ftp", "westwood", "mean_rtt"): 1.3})).verdict
        is Verdict.DISAGREE
    )


def test_web_vegas_worst_needs_goodput_and_cwnd_lowest() -> None:
    worst = {("web", "vegas", "goodput_bps"): 0.75, ("web", "vegas", "mean_cwnd"): 0.8}
    assert coexist.claim_web_vegas_worst(runs(worst)).verdict is Verdict.AGREE
    # Its goodput 25 % below Reno's but its cwnd 20 % above: disagree.
    mixed = {("web", "vegas", "goodput_bps"): 0.75, ("web", "vegas", "mean_cwnd"): 1.2}
    assert coexist.claim_web_vegas_worst(runs(mixed)).verdict is Verdict.DISAGREE


def test_westwood_best_needs_both_mixes_and_both_rivals() -> None:
    best = {(mix, "westwood", "goodput_bps"): 1.2 for mix in coexist.MIXES}
    assert coexist.claim_westwood_best(runs(best)).verdict is Verdict.AGREE
    # Best with FTP only, 20 % below Reno with Web.
    ftp_only = {("ftp", "westwood", "goodput_bps"): 1.2, ("web", "westwood", "goodput_bps"): 0.8}
    assert coexist.claim_westwood_best(runs(ftp_only)).verdict is Verdict.DISAGREE


def test_a_variant_without_completed_connections_is_not_measurable() -> None:
    data = runs({("ftp", "westwood", "mean_cwnd"): math.nan})
    measured = coexist.claim_westwood_cwnd(data)
    assert measured.verdict is Verdict.NOT_MEASURABLE and "no interval" in measured.value


def test_quick_reproduction_end_to_end(tmp_path: Path) -> None:
    report = reproduce(coexist.STUDY, tmp_path, quick=True, cache=tmp_path / "cache",
                       progress=False)  # fmt: skip
    assert report.failures == []
    folder = tmp_path / "coexist"
    table = pd.read_parquet(folder / "per_variant.parquet")
    # 2 mixes × 2 loads × 3 variants, each with its interval over the 2 seeds.
    assert len(table) == 12 and (table["seeds"] == 2).all()
    assert (table["goodput_bps"] > 0).all() and (table["mean_cwnd"] >= 1).all()
    load = pd.read_parquet(folder / "offered_load.parquet")
    assert sorted(load["target"].round(6)) == [0.4, 0.4, 0.9, 0.9]
    for spec in coexist.FIGURES:
        png = (folder / f"{spec.stem}.png").read_bytes()
        assert png[:8] == PNG_MAGIC and len(png) > 10_000, spec.stem
    claims = (folder / "claims.md").read_text()
    for claim in coexist.CLAIMS:
        assert claim.quote in claims and claim.english and claim.english in claims
    assert len(report.claims) == 8
    assert {r.measured.verdict for r in report.claims} <= set(Verdict)


def test_offered_load_sums_the_three_generators_then_averages_seeds() -> None:
    # Seeds offer 0.2 + 0.2 + 0.2 = 0.60, 0.21 + 0.2 + 0.2 = 0.61 and 0.19 + 0.2 + 0.2 =
    # 0.59: mean 0.60, sd 0.01, half-width t(0.975, 2) · 0.01 / √3 = 4.303 · 0.005774 =
    # 0.02484.
    first = {1: 0.2, 2: 0.21, 3: 0.19}
    rows = [{"mix": "ftp", "load": 0.6, "seed": k, "cc": cc, "target_load": 0.2,
             "offered_load": first[k] if cc == "reno" else 0.2}
            for k in (1, 2, 3) for cc in coexist.VARIANTS]  # fmt: skip
    data = StudyData({}, quick=False)
    data.derived("generators", lambda: pd.DataFrame(rows))
    row = coexist.offered(data).iloc[0]
    assert row["target"] == pytest.approx(0.6) and row["offered"] == pytest.approx(0.6)
    assert row["offered_high"] - row["offered"] == pytest.approx(0.02484, abs=1e-5)


def test_westwood_best_averages_each_seeds_gains_over_the_loads() -> None:
    # Westwood 1.2 × Reno's goodput at 0.4 and 1.4 × at 0.9: (0.2 + 0.4) / 2 = 0.3 per
    # seed (seed k's wobble 1 + 0.01·(k − 2) multiplies both: 1.2·0.99 − 1 = 0.188, …).
    factors = {("ftp", "westwood", "goodput_bps"): 1.2}
    low = coexist.generators(runs(factors, loads=(0.4,)))
    high = coexist.generators(runs({("ftp", "westwood", "goodput_bps"): 1.4}, loads=(0.9,)))
    data = StudyData({}, quick=False)
    data.derived("generators", lambda: pd.concat([low, high]))
    gains = coexist.best_over_loads(data, "ftp", "westwood", "reno")
    # Seed 1: (1.2·0.99 − 1 + 1.4·0.99 − 1) / 2 = (0.188 + 0.386) / 2 = 0.287.
    assert gains == pytest.approx([0.287, 0.3, 0.313])


def test_red_drop_rate_pools_tcp_and_udp_per_seed_then_averages() -> None:
    # One (mix, load), two seeds. Seed 1: the three variants sent 1000 segments each and
    # lost 50, 60, 70; the CBR sources sent 2000 and lost 120: (180 + 120) / 5000 = 6 %.
    # Seed 2: 40, 50, 60 and 80 of the same: 230 / 5000 = 4.6 %. Mean 5.3 %, sd 0.99 %,
    # half-width t(0.975, 1)·0.0099/√2 = 12.706·0.0070 = 8.9 %. Per variant, over the
    # seeds: Reno (50 + 40)/2000 = 4.5 %, Vegas 5.5 %, Westwood 6.5 %.
    drops = {1: (50, 60, 70), 2: (40, 50, 60)}
    rows = [{"mix": "ftp", "load": 0.5, "seed": k, "cc": cc, "segments_sent": 1000,
             "drops_queue": d, "connections": 10}
            for k, ds in drops.items()
            for cc, d in zip(coexist.VARIANTS, ds, strict=True)]  # fmt: skip
    udp = pd.DataFrame([{"mix": "ftp", "load": 0.5, "seed": k, "transport": "udp",
                         "packets_sent": 2000, "drops_queue": lost}
                        for k, lost in ((1, 120), (2, 80))])  # fmt: skip
    tcp_flows = udp.assign(transport="tcp", packets_sent=10**6, drops_queue=10**5)
    data = StudyData({"grid": SimpleNamespace(table=pd.concat([udp, tcp_flows]))}, quick=False)  # type: ignore[dict-item]
    data.derived("generators", lambda: pd.DataFrame(rows))
    row = coexist.queue_drops(data).iloc[0]
    assert row["drop_rate"] == pytest.approx(0.053)
    assert row["drop_rate_high"] - row["drop_rate"] == pytest.approx(0.0891, abs=5e-4)
    assert (row["drop_rate_reno"], row["drop_rate_vegas"], row["drop_rate_westwood"]) == (
        pytest.approx(0.045),
        pytest.approx(0.055),
        pytest.approx(0.065),
    )


def test_rto_whys_count_losses_per_connection_and_repairs_per_loss() -> None:
    # Westwood: 60 drops over 10 connections per seed = 6 per connection against Reno's
    # 5, but 0.5 RTOs and 1 fast retransmit per connection: (0.5 + 1)/6 = 0.25 events
    # per drop against Reno's (1 + 2)/5 = 0.60.
    data = runs({("ftp", "westwood", "drops_queue"): 1.2, ("ftp", "westwood", "timeouts"): 0.5,
                 ("ftp", "westwood", "fast_retransmits"): 0.5}, noise=0.0)  # fmt: skip
    data.results["grid"] = SimpleNamespace(  # type: ignore[assignment]
        table=pd.DataFrame({"mix": [], "load": [], "seed": [], "transport": [],
                            "packets_sent": [], "drops_queue": []})
    )  # fmt: skip
    why = coexist.claim_westwood_rtos(data).why
    assert "Reno 5 drops per connection, 0.60 events per drop at load 0.4" in why, why
    assert "Westwood 6 drops per connection, 0.25 events per drop at load 0.4" in why, why
    # RED's rate from the generators alone here: 50/1000 = 5.0 %, 60/1000 for Westwood.
    assert "RED drops 5.3% of the packets" in why and "Westwood 6.0%–6.0%" in why, why
    # The counts of unfinished connections reach the goodput's why: 2 of 10.
    assert "unfinished at the end: Reno 20%–20%" in coexist.claim_westwood_goodput(data).why


def test_a_load_without_queue_drops_has_no_events_per_drop() -> None:
    # A quick run's light load can drop nothing: 0 drops give no ratio (the division
    # raised a RuntimeWarning and failed the quick reproduction), the other loads keep
    # theirs: Reno (1 + 2)/5 = 0.60 events per drop.
    data = runs({("ftp", "reno", "drops_queue"): 0.0}, loads=(0.4,))
    data_with = runs({}, loads=(0.9,))
    frame = pd.concat([coexist.generators(data), coexist.generators(data_with)])
    both = StudyData({}, quick=False)
    both.derived("generators", lambda: frame)
    found = coexist.loss_events(both, "ftp")["reno"]
    assert found[0.4][0] == 0.0 and math.isnan(found[0.4][1])
    assert found[0.9] == (5.0, pytest.approx(0.60))
    assert "Reno 0 drops per connection, no drop at load 0.4; 5, 0.60 events per drop at 0.9" \
        in coexist._events(both, "ftp", ("reno",))  # fmt: skip
