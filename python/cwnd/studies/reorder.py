"""Study 5, `reorder`: SCTP and RR-SCTP under reordering and RTT jumps.

The paper (Barletta, Righetti, Veiga; ns-2): S1 — R1 — R2 — S2 with the pathologies on
R1–R2, whose capacity is S = MW/RTT (MW = 50 packets, MTU 1500 B), so that without
pathologies SCTP reaches exactly S; and a multihomed variant S1_0/S1_1 ↔ S2_0/S2_1
whose primary path S1_0–S2_0 carries the pathologies and whose secondary is clean and
carries the retransmissions. SCTP uses dupthresh 4; RR-SCTP adds spurious-retransmission
detection from duplicate-TSN reports, Recovery, and dupthresh adaptation (docs/sctp.md).

Choices where the paper is silent (each also in `PARAMETERS`):
- Access links 100 Mb/s, 1 ms; RTT = 2·(d + 2 ms) for a bottleneck delay d, and
  S = 50·1500·8/RTT (5.77 Mb/s at d = 50 ms, 0.99 Mb/s at 300 ms). The multihomed paths
  are direct links of delay d + 2 ms with the same capacity. Queues of 50 packets (ns-2's
  default); a window of MW never fills them.
- The first two experiments (TSN 100 four positions late, 10 s; RTT doubled at 5 s,
  16 s) give no delay: d = 300 ms, whose rate (about 83 packets/s) matches the paper's
  TSNs after 10 s far better than 50 ms would (500 packets/s). The RTT doubles by
  adding one RTT (604 ms) to the forward direction of R1–R2 at t = 5 s (split over both
  directions, the gap in the SACK stream would be only half as long). A doubling cannot
  cause a timeout here: it holds the SACK stream back by one old RTT, and the RTO,
  SRTT + 4·RTTVAR and at least 1 s, is longer; so claim 2's premise is absent at this
  delay (verdict: disagree), and runs beyond the paper show where it holds: the same
  doubling at d = 550 and 800 ms, and the RTT quadrupled at 300 ms (a 1.8 s gap).
- Reordering: a fraction r of the data packets on R1–R2 is delayed by a draw of
  N(30 ms, 15 ms) truncated at 0 (the paper's distribution), so later packets overtake
  them; loss: Bernoulli on the same data packets. Rates of delayed packets 0–30 %,
  loss 0.1–1.5 % (the paper's range).
- 100 s per run (the paper does not give it), 5 seeds; throughput in packets of
  1452 user bytes per second over the association's life.
- SCTP options: a_rwnd 72 600 B (50 full chunks), dupthresh 4, retransmissions to the
  alternate destination (RFC 2960, as the paper); RTO.Initial 3 s as RFC 2960 and ns-2
  (RFC 9260 lowered it to 1 s), RTO.Min 1 s, RTO.Max 60 s. Loss recovery is SCTP's own
  for both variants (no trap of mismatched recoveries; the TCP variants beyond the paper
  all use SACK recovery).
- Beyond the paper, for claim 4: an SCTP whose dupthresh is never reached (no fast
  retransmit at all) and RR-SCTP with twice the paper's a_rwnd, at d = 50 ms.
- Beyond the paper: TCP on the same single-homed paths (NewReno with SACK, dupthresh 3),
  without and with D-SACK undo (RFC 3708) — the detection and recovery halves of
  RR-TCP — so that TCP and SCTP can be compared on the same pathologies.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cwnd import stats
from cwnd.plot import colors, panels, spread
from cwnd.studies.study import (
    Claim,
    FigureSpec,
    Measured,
    Sensitivity,
    Study,
    StudyData,
    SweepPlan,
    TableSpec,
    Verdict,
    because,
    not_measurable,
    verdict,
)
from cwnd.sweep import Point

if TYPE_CHECKING:
    import pandas as pd

MW = 50
MTU = 1500
USER_BYTES = 1452  # user data of a full DATA chunk at MTU 1500
TCP_MSS = 1460
ACCESS_MS = 1.0
QUEUE = 50
DELAYS = [50, 300]
RATES = [0.0, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3]
LOSSES = [0.001, 0.0025, 0.005, 0.0075, 0.01, 0.0125, 0.015]
DISTRIBUTIONS = {
    "normal": {"distribution": "normal", "mean": "30ms", "sd": "15ms"},
    "uniform": {"distribution": "uniform", "min": "0ms", "max": "60ms"},
    "exponential": {"distribution": "exponential", "mean": "30ms"},
}
SECONDS = 100
SEEDS = [1, 2, 3, 4, 5]
QUICK_RATES = [0.0, 0.05, 0.2]
QUICK_LOSSES = [0.001, 0.01]
QUICK_SECONDS = 30
QUICK_SEEDS = [1]
VARIANTS = ["sctp", "rr_sctp"]
#: Bottleneck delays at which doubling the RTT outlasts the RTO and fires a timeout
#: (claim 2's premise): RTT = 2(d + 2 ms) must exceed RTO.Min = 1 s and the RTO.
LONG_DELAYS = [550, 800]
#: A dupthresh no reordering or loss reaches in 100 s: fast retransmit never fires.
NEVER = 1_000_000
TCP_VARIANTS = ["tcp", "tcp_dsack_undo", "rr_tcp"]
LABELS = {
    "sctp": "SCTP",
    "rr_sctp": "RR-SCTP",
    "tcp": "TCP (NewReno, SACK)",
    "tcp_dsack_undo": "TCP + D-SACK undo",
    "rr_tcp": "RR-TCP (undo + adaptive dupthresh)",
}

PARAMETERS = [
    ("topology", "S1 —100 Mb/s, 1 ms— R1 —S, d— R2 —100 Mb/s, 1 ms— S2", "paper Fig. 3"),
    ("multihomed", "S1_i —S, d + 2 ms— S2_i, i = 0 primary with the pathologies, 1 clean",
     "paper Fig. 4"),
    ("capacity", "S = MW·MTU·8/RTT, MW 50, MTU 1500 B, RTT = 2(d + 2 ms)", "paper §5"),
    ("d", "50 ms and 300 ms; 300 ms for the TSN-100 and RTT-jump runs", "paper; see module"),
    ("reordering", "fraction r of data packets delayed N(30 ms, 15 ms) ≥ 0", "paper §5.1"),
    ("r", "0, 1, 2, 5, 10, 15, 20, 30 %", "chosen over the paper's range"),
    ("loss", "0.1 % to 1.5 % with 5 % reordering; 0.2 % for the distributions",
     "paper Figs. 9–11"),
    ("distributions", "normal (30, 15 ms), uniform [0, 60 ms], exponential (30 ms)",
     "paper Fig. 11 (parameters chosen: same 30 ms mean)"),
    ("SCTP", "a_rwnd 72 600 B, dupthresh 4, retransmissions to the alternate path",
     "paper"),
    ("RTO", "initial 3 s, min 1 s, max 60 s", "RFC 2960 and ns-2, the paper's era"),
    ("RTT jump, longer delays", "the doubling also at d = 550 and 800 ms",
     "beyond the paper: where claim 2's premise (a spurious timeout) can hold"),
    ("ceiling", "SCTP without fast retransmit (d = 50 ms); the reordering grid with "
     "a_rwnd × 2", "beyond the paper: what limits RR-SCTP under reordering (claims 3, 4)"),
    ("RR-SCTP", "detection, Recovery and dupthresh adaptation (pef 0.9, step 0.1)",
     "paper §4; pef rule docs/sctp.md"),
    ("runs", "100 s, 5 seeds (30 s, 1 seed and fewer points in --quick)", "chosen"),
    ("beyond the paper", "TCP NewReno + SACK, without and with D-SACK undo", "RR-TCP halves"),
]  # fmt: skip


def capacity_bps(d_ms: float) -> int:
    """S = MW·MTU·8 / RTT with RTT = 2(d + 2 ms), in bit/s."""
    rtt = 2 * (d_ms + 2 * ACCESS_MS) / 1000
    return round(MW * MTU * 8 / rtt)


def _transport(point: Point) -> dict[str, Any]:
    """The flow's transport: `variant`, and for SCTP `rwnd_x` (a_rwnd in multiples of
    MW, 1 by default) and `fast_retransmit` (False: a dupthresh never reached)."""
    variant = point["variant"]
    if variant in TCP_VARIANTS:
        # "rfc": the RFCs' sender (IW 3, RTO min 1 s, an ACK per segment), as ever.
        tcp = {"profile": "rfc", "sack": True, "dsack": True, "rwnd": f"{MW * TCP_MSS}B"}
        if variant in ("tcp_dsack_undo", "rr_tcp"):
            tcp["dsack_undo"] = True
        if variant == "rr_tcp":
            tcp["adapt_dupthresh"] = True
        return {"cc": "newreno", "tcp": tcp}
    sctp: dict[str, Any] = {
        "rwnd": f"{point.get('rwnd_x', 1) * MW * USER_BYTES}B",
        "dupthresh": 4 if point.get("fast_retransmit", True) else NEVER,
        # RTO.Initial of RFC 2960 and ns-2, the paper's era (RFC 9260 lowered it to 1 s).
        "rto": {"initial": "3s"},
    }
    if variant == "rr_sctp":
        sctp["rr"] = {"detection": True, "recovery": True, "adapt_dupthresh": True}
    return {"transport": "sctp", "sctp": sctp}


def build(point: Point) -> dict[str, Any]:
    """One run. Point fields: `variant`, `d` (ms), `multihomed`, `rate` (delayed
    fraction), `distribution`, `loss`, `seconds`, and optionally `tsn_late` (the
    4-positions experiment) or `rtt_jump` (when, in seconds) with `rtt_factor` (2)."""
    d = float(point["d"])
    rate = f"{capacity_bps(d)}bps"
    stages: list[dict[str, Any]] = []
    data = {"direction": "forward", "applies_to": "data"}
    if point.get("tsn_late"):
        stages.append({"kind": "reorder", "packet": 100, "positions": 4, **data})
    if point.get("rate", 0.0) > 0:
        delay = DISTRIBUTIONS[point.get("distribution", "normal")]
        stages.append({"kind": "reorder", "r": point["rate"], "delay": delay, **data})
    if point.get("loss", 0.0) > 0:
        stages.append({"kind": "bernoulli", "p": point["loss"], **data})
    if point.get("rtt_jump"):
        # The forward direction of R1–R2 steps by (factor − 1) × RTT, as a longer route
        # for the data would: the RTT, 2(d + 2 ms), is multiplied by the factor.
        extra = f"{(point.get('rtt_factor', 2) - 1) * 2 * (d + 2 * ACCESS_MS)}ms"
        start = f"{point['rtt_jump']}s"
        stages.append({"kind": "delay_step", "extra": extra, "start": start, **data})
    flow = {"name": point["variant"], **_transport(point)}
    if point.get("multihomed"):
        links = [
            {"name": "primary", "between": ["s1_0", "s2_0"], "bandwidth": rate,
             "delay": f"{d + 2 * ACCESS_MS}ms", "queue": {"packets": QUEUE},
             "impairments": stages},
            {"name": "secondary", "between": ["s1_1", "s2_1"], "bandwidth": rate,
             "delay": f"{d + 2 * ACCESS_MS}ms", "queue": {"packets": QUEUE}},
        ]  # fmt: skip
        flow |= {"from": ["s1_0", "s1_1"], "to": ["s2_0", "s2_1"]}
        flow["sctp"]["retransmit_to"] = "alternate"
    else:
        access = {"bandwidth": "100Mbps", "delay": f"{ACCESS_MS}ms"}
        links = [
            {"between": ["s1", "r1"], **access},
            {"name": "r1_r2", "between": ["r1", "r2"], "bandwidth": rate, "delay": f"{d}ms",
             "queue": {"packets": QUEUE}, "impairments": stages},
            {"between": ["r2", "s2"], **access},
        ]  # fmt: skip
        flow |= {"from": "s1", "to": "s2"}
    return {
        "name": f"reorder_{point['variant']}",
        "duration": f"{point['seconds']}s",
        "links": links,
        "flows": [flow],
        "trace": {"segments": bool(point.get("tsn_late") or point.get("rtt_jump"))},
    }


def sweeps(quick: bool) -> list[SweepPlan]:
    rates = QUICK_RATES if quick else RATES
    losses = QUICK_LOSSES if quick else LOSSES
    seconds = QUICK_SECONDS if quick else SECONDS
    seeds = QUICK_SEEDS if quick else SEEDS
    base = {"seconds": seconds, "distribution": "normal", "loss": 0.0, "multihomed": False}

    def grid(variants: list[str], **axes: list[Any]) -> list[Point]:
        points: list[Point] = [{}]
        for key, values in {"variant": variants, **axes}.items():
            points = [p | {key: v} for p in points for v in values]
        return [base | p for p in points]

    single = [{"variant": v, "d": 300, "seconds": 10, "tsn_late": True} for v in VARIANTS]
    jump = [{"variant": v, "d": 300, "seconds": 16, "rtt_jump": 5} for v in VARIANTS]
    jump4 = [p | {"rtt_factor": 4} for p in jump]

    tables = ("chunks", "association_series", "sctp_events")
    return [
        SweepPlan("tsn_late", build, single, [1], tables),
        SweepPlan("rtt_jump", build, jump, [1], tables),
        SweepPlan("rtt_jump_x4", build, jump4, [1], tables),
        *[
            SweepPlan(f"rtt_jump_{d}ms", build, [p | {"d": d} for p in jump], [1], tables)
            for d in LONG_DELAYS
        ],
        SweepPlan(
            "ceiling", build, grid(["sctp"], d=[50], rate=rates, fast_retransmit=[False]), seeds
        ),
        SweepPlan(
            "reordering_rwnd_x2",
            build,
            grid(VARIANTS, d=DELAYS, multihomed=[False, True], rate=rates, rwnd_x=[2]),
            seeds,
        ),
        SweepPlan(
            "reordering",
            build,
            grid(VARIANTS, d=DELAYS, multihomed=[False, True], rate=rates),
            seeds,
        ),
        SweepPlan("loss", build, grid(VARIANTS, d=DELAYS, rate=[0.05], loss=losses), seeds),
        SweepPlan(
            "distributions",
            build,
            grid(VARIANTS, d=[50], rate=rates, loss=[0.002], distribution=list(DISTRIBUTIONS)),
            seeds,
        ),
        SweepPlan("tcp", build, grid(TCP_VARIANTS, d=DELAYS, rate=rates), seeds),
    ]


# --- measurements -------------------------------------------------------------------


def runs(data: StudyData, plan: str) -> pd.DataFrame:
    """The sweep's summary with `pkts_per_s`: goodput in packets of 1452 user bytes
    (SCTP) or 1460 bytes (TCP) per second."""

    def compute() -> pd.DataFrame:
        t = data.table(plan).copy()
        payload = np.where(t["transport"] == "sctp", USER_BYTES, TCP_MSS)
        t["pkts_per_s"] = t["goodput_bps"] / 8 / payload
        return t

    return data.derived(f"runs/{plan}", compute)


def throughput(data: StudyData, plan: str, keys: list[str]) -> pd.DataFrame:
    """Packets per second by `keys`: mean over seeds, its 95 % interval and the seeds
    (`stats.error_bars`)."""
    return stats.error_bars(runs(data, plan), keys, "pkts_per_s")


def highest_tsn(data: StudyData, plan: str, variant: str, at: float) -> float:
    """The highest TSN sent by `at` seconds."""
    chunks = data.frame(plan, "chunks")
    c = chunks[(chunks["variant"] == variant) & (chunks["time"] <= at)]
    if not len(c):
        raise KeyError(f"no chunks of {variant} in {plan}")
    return float(c["tsn"].max())


def _events(data: StudyData, plan: str, variant: str) -> pd.DataFrame:
    e = data.frame(plan, "sctp_events")
    return e[e["variant"] == variant]


def claim_tsn_late(data: StudyData) -> Measured:
    sctp, rr = (highest_tsn(data, "tsn_late", v, 10.0) for v in VARIANTS)
    spurious = _events(data, "tsn_late", "sctp")
    if not spurious["spurious"].any():
        return not_measurable("the late TSN caused no spurious fast retransmit")
    gain = rr / sctp - 1
    text = f"highest TSN at 10 s: SCTP {sctp:.0f}, RR-SCTP {rr:.0f} (RR-SCTP {gain:+.0%})"
    return Measured(text, verdict(0.10 <= gain <= 0.40), because(lambda: _tsn_late_why(data)))


def _tsn_late_why(data: StudyData) -> str:
    rr = _events(data, "tsn_late", "rr_sctp")
    first = rr.iloc[0]
    return (
        f"TSN 100 arriving four positions late draws four missing reports, enough for "
        f"dupthresh 4: both fast-retransmit it at {first['time']:.2f} s and halve cwnd; "
        f"RR-SCTP learns from the duplicate-TSN report at {first['detected_time']:.2f} s "
        f"that the retransmission was spurious and restores ssthresh, so it slow-starts "
        "back to its old window while SCTP grows by one MTU per RTT"
    )


def _jump(data: StudyData, plan: str) -> tuple[float, float, int, float]:
    """(SCTP's, RR-SCTP's highest TSN at 16 s, SCTP's spurious timeouts, d in ms) of the
    jump runs of a sweep."""
    chunks, events = data.frame(plan, "chunks"), data.frame(plan, "sctp_events")
    d = float(data.table(plan)["d"].iloc[0])
    tsn = {v: float(chunks.loc[(chunks["variant"] == v) & (chunks["time"] <= 16.0), "tsn"].max())
           for v in VARIANTS}  # fmt: skip
    e = events[events["variant"] == "sctp"]
    timeouts = int(((e["kind"] == "timeout") & e["spurious"]).sum())
    return tsn["sctp"], tsn["rr_sctp"], timeouts, d


def claim_rtt_jump(data: StudyData) -> Measured:
    sctp, rr, timeouts, at = _jump(data, "rtt_jump")
    longer, holds = [], []
    for d in LONG_DELAYS:
        s_, r_, t_, _ = _jump(data, f"rtt_jump_{d}ms")
        longer.append(f"d = {d} ms: SCTP {s_:.0f}, RR-SCTP {r_:.0f} ({r_ / s_ - 1:+.0%}), "
                      f"{t_} spurious timeout(s)")  # fmt: skip
        if t_:
            holds.append(str(d))
    rtt = 2 * (at + 2 * ACCESS_MS)
    why = (
        f"doubling an RTT of {rtt:g} ms holds the SACKs back by {rtt:g} ms; a timeout "
        "needs that gap to outlast the RTO (at least RTO.Min, 1 s); the premise holds at d = "
        f"{', '.join(holds) or 'none'} ms of {', '.join(map(str, LONG_DELAYS))} ms tried "
        "(RTO.Initial 3 s, RFC 2960): " + "; ".join(longer)
    )
    gain = rr / sctp - 1
    text = (
        f"d = {at:g} ms: highest TSN at 16 s SCTP {sctp:.0f}, RR-SCTP {rr:.0f} "
        f"({gain:+.0%}); spurious timeouts of SCTP: {timeouts}"
    )
    if not timeouts:
        return Measured(text + ": the premise (a spurious timeout) is absent at this delay",
                        Verdict.DISAGREE, why)  # fmt: skip
    return Measured(text, verdict(0.05 <= gain <= 0.25), why)


def _by_rate(data: StudyData, variant: str, d: int, multihomed: bool) -> pd.Series:
    tp = throughput(data, "reordering", ["variant", "d", "multihomed", "rate"])["mean"]
    return tp.loc[(variant, d, multihomed)]


def claim_sctp_degrades(data: StudyData) -> Measured:
    parts, ok = [], True
    for multihomed in (False, True):
        s = _by_rate(data, "sctp", 50, multihomed)
        falls = bool((s.diff().iloc[1:] <= 0.05 * s.iloc[0]).all()) and s.iloc[-1] < s.iloc[0]
        ok &= falls
        where = "multihomed" if multihomed else "single-homed"
        parts.append(
            f"{where}: {s.iloc[0]:.0f} → {s.iloc[-1]:.0f} pkt/s from r = {s.index[0]:.0%} to "
            f"{s.index[-1]:.0%}"
        )
    return Measured("SCTP, d = 50 ms, " + "; ".join(parts), verdict(ok),
                    because(lambda: _fast_retransmits_why(data)))  # fmt: skip


def _fast_retransmits_why(data: StudyData) -> str:
    t = runs(data, "reordering")
    t = t[(t["variant"] == "sctp") & (t["d"] == 50) & ~t["multihomed"]]
    by_rate = t.groupby("rate")[["fast_retransmits", "spurious_fast_retransmits"]].mean()
    top = by_rate.index.max()
    return (
        f"each delayed packet overtaken by four or more is retransmitted for nothing and "
        f"halves cwnd: SCTP's fast retransmits per run at d = 50 ms go from "
        f"{by_rate.iloc[0]['fast_retransmits']:.0f} at r = 0 to "
        f"{by_rate.loc[top, 'fast_retransmits']:.0f} at r = {top:.0%}, "
        f"{by_rate.loc[top, 'spurious_fast_retransmits']:.0f} of them spurious"
    )


def claim_rr_flat(data: StudyData) -> Measured:
    parts, ok = [], True
    for d in DELAYS:
        for multihomed in (False, True):
            s = _by_rate(data, "rr_sctp", d, multihomed)
            kept = s.min() / s.iloc[0]
            ok &= kept >= 0.9
            parts.append(f"d {d} ms{' multihomed' if multihomed else ''}: {kept:.0%}")
    text = "RR-SCTP's lowest throughput over r, as a share of r = 0: " + ", ".join(parts)
    return Measured(text, verdict(ok), because(lambda: _ceiling_why(data)))


def _ceiling_why(data: StudyData) -> str:
    tp = throughput(data, "reordering", ["variant", "d", "multihomed", "rate"])["mean"]
    never = throughput(data, "ceiling", ["variant", "rate"])["mean"].loc["sctp"]
    rr = tp.loc[("rr_sctp", 50, False)]
    wide = throughput(data, "reordering_rwnd_x2", ["variant", "d", "multihomed", "rate"])[
        "mean"].loc[("rr_sctp", 50, False)]  # fmt: skip
    gap = float((rr / never - 1).abs().max())
    return (
        f"at d = 50 ms RR-SCTP stays within {gap:.0%} of an SCTP that never "
        f"fast-retransmits ({rr.min():.0f} against {never.loc[rr.idxmin()]:.0f} pkt/s at "
        f"r = {rr.idxmin():.0%}): what remains is the cost of reordering itself under a "
        f"receive window the paper sets equal to the path's capacity (MW = {MW}); with "
        f"twice that window RR-SCTP keeps {wide.min() / wide.iloc[0]:.0%} of its r = 0 "
        "throughput"
    )


def _effectiveness(data: StudyData, below: float | None) -> tuple[float, int, int]:
    t = runs(data, "reordering")
    t = t[(t["variant"] == "rr_sctp") & (t["rate"] > 0)]
    if below is not None:
        t = t[t["rate"] < below]
    events = int(t["spurious_events"].sum())
    correct = int(t["spurious_detected_correct"].sum())
    if events == 0:
        raise ValueError("no spurious events")
    return correct / events, correct, events


def claim_detection_overall(data: StudyData) -> Measured:
    eff, correct, events = _effectiveness(data, None)
    wrong = int(runs(data, "reordering")["spurious_detected_wrong"].sum())
    text = (
        f"{correct} of {events} spurious events detected ({eff:.1%}) over every RR-SCTP run "
        f"with reordering; {wrong} detections of events that were not spurious"
    )
    return Measured(text, verdict(eff > 0.65), because(lambda: _detection_why(data)))


def _detection_why(data: StudyData) -> str:
    t = runs(data, "reordering")
    t = t[(t["variant"] == "rr_sctp") & (t["rate"] > 0)]
    by = t.groupby("rate")[["spurious_events", "spurious_detected_correct"]].sum()
    missed = by["spurious_events"] - by["spurious_detected_correct"]
    worst = (missed / by["spurious_events"]).idxmax()
    return (
        f"a spurious retransmission is detected when the receiver reports the TSN's "
        f"duplicate; {int(missed.sum())} were missed, the largest share at r = {worst:.0%} "
        f"({missed[worst]:.0f} of {by.loc[worst, 'spurious_events']:.0f})"
    )


def claim_detection_low_rates(data: StudyData) -> Measured:
    eff, correct, events = _effectiveness(data, 0.10)
    return Measured(f"{correct} of {events} ({eff:.1%}) at r < 10 %", verdict(eff > 0.90),
                    because(lambda: _detection_why(data)))  # fmt: skip


def _gain_by_loss(data: StudyData, d: int) -> pd.Series:
    tp = throughput(data, "loss", ["variant", "d", "loss"])["mean"]
    return tp.loc[("rr_sctp", d)] / tp.loc[("sctp", d)] - 1


def claim_gain_low_loss(data: StudyData) -> Measured:
    gain = _gain_by_loss(data, 50)
    at = gain.loc[gain.index.min()]
    text = f"d = 50 ms, 5 % reordering, loss {gain.index.min():.1%}: RR-SCTP {at:+.0%}"
    return Measured(text, verdict(at > 2.0), because(lambda: _loss_why(data, 50)))


def _loss_why(data: StudyData, d: int) -> str:
    t = runs(data, "loss")
    t = t[t["d"] == d]
    fr = t.groupby(["variant", "loss"])[["fast_retransmits", "spurious_fast_retransmits"]].mean()
    lo, hi = min(t["loss"]), max(t["loss"])
    share = {x: fr.loc[("sctp", x), "spurious_fast_retransmits"]
             / max(fr.loc[("sctp", x), "fast_retransmits"], 1) for x in (lo, hi)}  # fmt: skip
    return (
        f"at d = {d} ms, {share[lo]:.0%} of SCTP's fast retransmits are spurious at "
        f"{lo:.1%} loss and {share[hi]:.0%} at {hi:.1%}: RR-SCTP undoes the spurious "
        "ones, and real losses, which cost both the same, take a growing share as loss "
        "grows"
    )


def claim_gain_shrinks_with_loss(data: StudyData) -> Measured:
    gain = _gain_by_loss(data, 50)
    first, last = gain.iloc[0], gain.iloc[-1]
    text = (
        f"d = 50 ms: RR-SCTP gain {first:+.0%} at {gain.index[0]:.1%} loss, {last:+.0%} at "
        f"{gain.index[-1]:.1%}"
    )
    return Measured(text, verdict(last < first), because(lambda: _loss_why(data, 50)))


def claim_gain_smaller_at_300ms(data: StudyData) -> Measured:
    g50, g300 = _gain_by_loss(data, 50).mean(), _gain_by_loss(data, 300).mean()
    text = f"mean RR-SCTP gain over the loss rates: {g50:+.0%} at 50 ms, {g300:+.0%} at 300 ms"
    return Measured(text, verdict(g300 < g50), because(lambda: _delay_why(data)))


def _delay_why(data: StudyData) -> str:
    t = runs(data, "loss")
    fr = t[t["variant"] == "sctp"].groupby("d")["spurious_fast_retransmits"].mean()
    gaps = {d: MTU * 8 / capacity_bps(d) * 1e3 for d in DELAYS}
    return (
        f"a packet delayed 30 ms is overtaken by fewer packets when they are spaced "
        f"{gaps[300]:.0f} ms apart (d = 300 ms, S = {capacity_bps(300) / 1e6:.2f} Mb/s) "
        f"than {gaps[50]:.1f} ms (d = 50 ms): SCTP's spurious fast retransmits per run "
        f"{fr[50]:.0f} at 50 ms, {fr[300]:.0f} at 300 ms, so fewer reductions to undo"
    )


def claim_distributions_flat(data: StudyData) -> Measured:
    tp = throughput(data, "distributions", ["variant", "distribution", "rate"])["mean"]
    parts, ok = [], True
    for dist in DISTRIBUTIONS:
        s = tp.loc[("rr_sctp", dist)]
        kept = s.min() / s.iloc[0]
        ok &= kept >= 0.9
        parts.append(f"{dist} {kept:.0%}")
    text = "RR-SCTP's lowest throughput over r as a share of r = 0 (0.2 % loss): " + ", ".join(
        parts
    )
    return Measured(text, verdict(ok), because(lambda: _ceiling_why(data)))


CLAIMS = [
    Claim("1", "En el caso de SCTP, la asociación logró enviar hasta el TSN 320, mientras que "
          "la asociación RR-SCTP envió hasta el TSN 400.", "§5, Fig. 5",
          "with TSN 100 four positions late (a spurious fast retransmit), RR-SCTP's highest "
          "TSN at 10 s exceeds SCTP's by 10–40 % (paper: +25 %)", claim_tsn_late,
          english="SCTP sent up to TSN 320, RR-SCTP up to TSN 400"),
    Claim("2", "la asociación SCTP pudo enviar hasta el TSN 400, mientras que la asociación "
          "RR-SCTP envió hasta el TSN 450.", "§5, Fig. 6",
          "with the RTT doubled at 5 s (a spurious timeout), RR-SCTP's highest TSN at 16 s "
          "exceeds SCTP's by 5–25 % (paper: +12.5 %); no spurious timeout at the chosen "
          "delay: disagree, the premise is absent", claim_rtt_jump,
          english="SCTP sent up to TSN 400, RR-SCTP up to TSN 450"),
    Claim("3", "cuanto es mayor tasa de reordenamiento peor el desempeño que presenta SCTP",
          "§5.1, Fig. 7",
          "SCTP's throughput (d = 50 ms, single- and multihomed) never rises by more than 5 % "
          "of its r = 0 value from one rate to the next, and ends lower", claim_sctp_degrades,
          english="the higher the reordering rate, the worse SCTP performs"),
    Claim("4", "RR-SCTP mantiene estable el throughput independientemente del reordenamiento",
          "§5.1, Figs. 7–8",
          "RR-SCTP keeps ≥ 90 % of its r = 0 throughput at every rate, both delays, single- "
          "and multihomed", claim_rr_flat,
          english="RR-SCTP keeps its throughput whatever the reordering"),
    Claim("5", "el algoritmo de detección posee una efectividad superior al 65%", "§5.1",
          "spurious events detected / spurious events (truth) > 65 % over the RR-SCTP runs "
          "with reordering", claim_detection_overall,
          english="the detection algorithm is more than 65 % effective"),
    Claim("6", "Con tasas de reordenamiento menores 10 %, el algoritmo de detección presenta "
          "una efectividad superior al 90%.", "§5.1",
          "the same ratio > 90 % over the runs with r < 10 %", claim_detection_low_rates,
          english="below 10 % reordering, detection is more than 90 % effective"),
    Claim("7", "con tasas de errores inferiores al 0.1 %, se obtiene una mejora en la "
          "performance de más del 200%", "§5.1, Fig. 9",
          "RR-SCTP's throughput exceeds SCTP's by more than 200 % at the lowest loss rate "
          "(0.1 %, 5 % reordering, d = 50 ms)", claim_gain_low_loss,
          english="with loss below 0.1 %, performance improves by more than 200 %"),
    Claim("8", "A medida que la tasa de pérdida aumenta, ... la diferencia en el throughput "
          "entre RR-SCTP y SCTP es menor.", "§5.1, Fig. 9",
          "RR-SCTP's relative gain at the highest loss rate is below the gain at the lowest "
          "(d = 50 ms)", claim_gain_shrinks_with_loss,
          english="as loss grows, the gap between RR-SCTP and SCTP narrows"),
    Claim("9", "Las simulaciones de la Figura 10 no muestran que frente a un alto valor de "
          "delay del enlace, la mejora en el desempeño de RR-SCTP sobre SCTP es menor",
          "§5.1, Fig. 10 (“no muestran que” read as a typo for “muestran que”: the next "
          "sentence explains the smaller gain)",
          "RR-SCTP's mean relative gain over the loss rates is smaller at d = 300 ms than at "
          "50 ms", claim_gain_smaller_at_300ms,
          english="the simulations of Fig. 10 [do not] show that with a long link delay, "
          "RR-SCTP's improvement over SCTP is smaller"),
    Claim("10", "bajo todas las distribuciones simuladas, RR-SCTP mantiene estable el "
          "throughput", "§5.1, Fig. 11",
          "for normal, uniform and exponential delays at 0.2 % loss, RR-SCTP keeps ≥ 90 % of "
          "its r = 0 throughput at every rate (the same “stable” as claim 4)",
          claim_distributions_flat,
          english="under every distribution simulated, RR-SCTP keeps its throughput"),
]  # fmt: skip


# --- figures ------------------------------------------------------------------------


def _tsn_panels(data: StudyData, path: Path, plan: str, title: str, mark: float | None) -> None:
    chunks = data.frame(plan, "chunks")
    events = data.frame(plan, "sctp_events")
    top = float(chunks["tsn"].max()) * 1.05
    size = (9.6, 3.4)
    # The legend under the panels: inside, the vertical marks (the RTT change, the
    # detections) would cross it.
    with panels(path.with_suffix(".png"), 1, 2, size=size, sharey=True, svg=True,
                legend_below=True) as (_, axes):  # fmt: skip
        for ax, variant in zip(axes[0], VARIANTS, strict=True):
            c = chunks[chunks["variant"] == variant]
            retx = c["retransmission"].to_numpy()
            ax.plot(
                c["time"][~retx],
                c["tsn"][~retx],
                ".",
                ms=1,
                color=colors(1)[0],
                label="DATA chunk sent",
            )
            ax.plot(
                c["time"][retx], c["tsn"][retx], "x", ms=5, color="black", label="retransmission"
            )
            detected = events[(events["variant"] == variant) & events["detected"]]
            for k, t in enumerate(detected["detected_time"]):
                ax.axvline(
                    t, color="C2", lw=0.8, ls="--", label="found spurious" if k == 0 else None
                )
            if mark is not None:
                ax.axvline(mark, color="C3", lw=0.8, label="RTT changes")
            ax.set(title=f"{LABELS[variant]}: {title}", xlabel="time (s)")
            ax.set_xlim(left=0)
            ax.set_ylim(0, top)
        axes[0, 0].set_ylabel("TSN")


def figure_tsn_late(data: StudyData, path: Path) -> None:
    _tsn_panels(data, path, "tsn_late", "TSN 100 four positions late", None)


def figure_rtt_jump(data: StudyData, path: Path) -> None:
    _tsn_panels(data, path, "rtt_jump", "RTT doubled at 5 s", 5.0)


def figure_rtt_jump_x4(data: StudyData, path: Path) -> None:
    _tsn_panels(data, path, "rtt_jump_x4", "RTT × 4 at 5 s", 5.0)


def _versus(ax: Any, bars: pd.DataFrame, x: str, label: str, color: Any, scale: float) -> None:
    s = bars.reset_index().sort_values(x)
    xs = s[x].to_numpy() * scale
    ax.errorbar(xs, s["mean"], yerr=spread(s["mean"], s["low"], s["high"]), marker="o",
                ms=3, capsize=2, color=color, label=label)  # fmt: skip


def _throughput_vs_rate(data: StudyData, path: Path, d: int) -> None:
    tp = throughput(data, "reordering", ["variant", "d", "multihomed", "rate"])
    size = (9.6, 3.4)
    note = stats.error_bar_note(tp["n"])
    with panels(path.with_suffix(".png"), 1, 2, size=size, sharey=True, svg=True,
                legend_title=note) as (_, axes):  # fmt: skip
        for ax, multihomed in zip(axes[0], (False, True), strict=True):
            for variant, color in zip(VARIANTS, colors(2), strict=True):
                _versus(ax, tp.loc[(variant, d, multihomed)], "rate", LABELS[variant], color, 100)
            where = "with multihoming" if multihomed else "without multihoming"
            ax.set(title=f"{where}, d = {d} ms", xlabel="delayed packets r (%)")
            ax.set_ylim(bottom=0)
        axes[0, 0].set_ylabel("throughput (packets/s)")


def figure_rate_50(data: StudyData, path: Path) -> None:
    _throughput_vs_rate(data, path, 50)


def figure_rate_300(data: StudyData, path: Path) -> None:
    _throughput_vs_rate(data, path, 300)


def figure_loss(data: StudyData, path: Path) -> None:
    tp = throughput(data, "loss", ["variant", "d", "loss"])
    size = (9.6, 3.4)
    note = stats.error_bar_note(tp["n"])
    with panels(path.with_suffix(".png"), 1, 2, size=size, svg=True, legend_title=note) as (
        _,
        axes,
    ):
        for ax, d in zip(axes[0], DELAYS, strict=True):
            for variant, color in zip(VARIANTS, colors(2), strict=True):
                _versus(ax, tp.loc[(variant, d)], "loss", LABELS[variant], color, 100)
            ax.set(title=f"5 % reordering, d = {d} ms", xlabel="loss rate (%)")
            ax.set_ylim(bottom=0)
        axes[0, 0].set_ylabel("throughput (packets/s)")


def figure_distributions(data: StudyData, path: Path) -> None:
    tp = throughput(data, "distributions", ["variant", "distribution", "rate"])
    # Six curves that cross where a legend inside would sit: the legend under the axes.
    with panels(path.with_suffix(".png"), svg=True, legend_below=True) as (_, axes):
        ax = axes[0, 0]
        for dist, color in zip(DISTRIBUTIONS, colors(len(DISTRIBUTIONS)), strict=True):
            for variant, style in zip(VARIANTS, ("--", "-"), strict=True):
                s = tp.loc[(variant, dist)].reset_index()
                ax.plot(s["rate"] * 100, s["mean"], style, marker="o", ms=3, color=color,
                        label=f"{LABELS[variant]}, {dist}")  # fmt: skip
        ax.set(title="0.2 % loss, d = 50 ms", xlabel="delayed packets r (%)",
               ylabel="throughput (packets/s)")  # fmt: skip
        ax.set_ylim(bottom=0)


def figure_tcp(data: StudyData, path: Path) -> None:
    sctp = throughput(data, "reordering", ["variant", "d", "multihomed", "rate"])
    tcp = throughput(data, "tcp", ["variant", "d", "rate"])
    size = (9.6, 3.4)
    note = stats.error_bar_note([*sctp["n"], *tcp["n"]])
    with panels(path.with_suffix(".png"), 1, 2, size=size, svg=True, legend_below=True,
                legend_title=note) as (_, axes):  # fmt: skip
        for ax, d in zip(axes[0], DELAYS, strict=True):
            shown = [*VARIANTS, *TCP_VARIANTS]
            for variant, color in zip(shown, colors(len(shown)), strict=True):
                bars = (
                    sctp.loc[(variant, d, False)] if variant in VARIANTS else tcp.loc[(variant, d)]
                )
                _versus(ax, bars, "rate", LABELS[variant], color, 100)
            ax.set(title=f"single-homed, d = {d} ms (beyond the paper)",
                   xlabel="delayed packets r (%)")  # fmt: skip
            ax.set_ylim(bottom=0)
        axes[0, 0].set_ylabel("throughput (packets/s)")


def detection_table(data: StudyData) -> pd.DataFrame:
    """Per (d, multihomed, rate): spurious events, detected correctly and wrongly, and
    the effectiveness, summed over the RR-SCTP runs' seeds."""
    t = runs(data, "reordering")
    t = t[t["variant"] == "rr_sctp"]
    sums = t.groupby(["d", "multihomed", "rate"])[
        ["spurious_events", "spurious_detected_correct", "spurious_detected_wrong"]
    ].sum()
    sums["effectiveness"] = sums["spurious_detected_correct"] / sums["spurious_events"]
    return sums.reset_index()


def figure_detection(data: StudyData, path: Path) -> None:
    table = detection_table(data)
    table = table[table["rate"] > 0]
    with panels(path.with_suffix(".png"), svg=True) as (_, axes):
        ax = axes[0, 0]
        keys = [(d, m) for d in DELAYS for m in (False, True)]
        for (d, m), color in zip(keys, colors(len(keys)), strict=True):
            s = table[(table["d"] == d) & (table["multihomed"] == m)]
            ax.plot(s["rate"] * 100, s["effectiveness"] * 100, marker="o", ms=3, color=color,
                    label=f"d = {d} ms{', multihomed' if m else ''}")  # fmt: skip
        ax.axhline(90, color="0.5", lw=0.8, ls=":", label="paper: > 90 % below 10 %")
        ax.axhline(65, color="0.5", lw=0.8, ls="--", label="paper: > 65 % overall")
        ax.set(title="RR-SCTP detection effectiveness (truth from the simulator)",
               xlabel="delayed packets r (%)", ylabel="spurious events detected (%)")  # fmt: skip
        ax.set_ylim(0, 105)


FIGURES = [
    FigureSpec("tsn_late", "TSN vs time with TSN 100 four positions late, SCTP and RR-SCTP "
               "(paper Fig. 5)", figure_tsn_late),
    FigureSpec("rtt_jump", "TSN vs time with the RTT doubled at 5 s, SCTP and RR-SCTP (paper "
               "Fig. 6)", figure_rtt_jump),
    FigureSpec("rtt_jump_x4", "TSN vs time with the RTT quadrupled at 5 s, which makes the "
               "timeout the paper describes (beyond the paper)", figure_rtt_jump_x4),
    FigureSpec("rate_50ms", "Throughput vs rate of delayed packets, d = 50 ms, without and with "
               "multihoming (paper Fig. 7)", figure_rate_50),
    FigureSpec("rate_300ms", "Throughput vs rate of delayed packets, d = 300 ms (paper Fig. 8)",
               figure_rate_300),
    FigureSpec("loss", "Throughput vs loss rate with 5 % reordering, d = 50 and 300 ms (paper "
               "Figs. 9, 10)", figure_loss),
    FigureSpec("distributions", "Throughput vs rate of delayed packets for three delay "
               "distributions, 0.2 % loss (paper Fig. 11)", figure_distributions),
    FigureSpec("detection", "Detection effectiveness against the simulator's truth",
               figure_detection),
    FigureSpec("tcp", "TCP and SCTP on the same reordering paths (beyond the paper)",
               figure_tcp),
]  # fmt: skip


SENSITIVITY = [
    Sensitivity(
        "bottleneck delay of the RTT-jump run (the paper gives none)",
        ("2",),
        [(f"{DELAYS[-1]} ms (the study's)", {})]
        + [(f"{d} ms", {"rtt_jump": f"rtt_jump_{d}ms"}) for d in LONG_DELAYS],
    ),
    Sensitivity(
        "receive window (the paper: a_rwnd = MW, the path's capacity)",
        ("3", "4"),
        [(f"{MW} packets (the paper's)", {}),
         (f"{2 * MW} packets", {"reordering": "reordering_rwnd_x2"})],
    ),
]  # fmt: skip


STUDY = Study(
    name="reorder",
    title="reorder: SCTP and RR-SCTP under reordering and RTT jumps",
    citation="Patricio O. Barletta, Claudio E. Righetti, Paulo G. Veiga, “SCTP robusto a "
    "retransmisiones espúreas”, Departamento de Computación, FCEN, Universidad de Buenos Aires "
    "(simulated with ns-2; the venue is not named in the text we have).",
    seed_file="004_71a55ab978a20e96.txt",
    summary="One SCTP association over a path of capacity MW/RTT that reorders (a fraction of "
    "packets delayed), loses, or doubles its RTT; SCTP (dupthresh 4) against RR-SCTP, "
    "single-homed and multihomed.",
    parameters=PARAMETERS,
    sweeps=sweeps,
    figures=FIGURES,
    claims=CLAIMS,
    tables=[TableSpec("detection", detection_table)],
    sensitivity=SENSITIVITY,
)
