"""Study 2, `coexist`: Reno, Vegas and Westwood sharing a RED bottleneck with Web, FTP
and CBR/UDP traffic.

The paper (de Santi and Lima, UNIOESTE; ns-2): senders TCP_Reno, TCP_Vegas, TCPW and
F_udp_i, a router pair, destinations D_TCP and D_UDP; buffers of 800 segments at both
routers of the bottleneck, RED; segments of 500 B, receive window 1000 segments. A
traffic generator offers a load of 0.4 … 0.9, a third from each variant, as FTP
(exponential file sizes) or Web (hybrid lognormal/Pareto sizes); CBR/UDP flows of up to
20 % of the capacity start and stop at different times. Figures 2 and 3 give, per
variant and load, the mean per connection of goodput, cwnd, RTT and RTOs.

Choices where the paper is silent (each also in `PARAMETERS`, reasons in
docs/studies.md):
- The capacities and delays were in Figure 1, lost from our text. The 800-segment
  buffers of 500 B are those of Hollot, Misra, Towsley and Gong's ns simulations of RED
  and of their PI controller (INFOCOM 2001: C = 3750 packets/s, i.e. 15 Mb/s of 500 B
  packets, round-trip propagation 0.2 s), which the paper's authors' own AQM work
  (Santi 2004, "AQM … teoria de controle") builds on: bottleneck 15 Mb/s, 80 ms;
  access links 100 Mb/s, 10 ms; propagation RTT 200 ms, whose bandwidth-delay product
  (750 segments) the 800-segment buffer matches.
- RED as ns-2 configured it in 2005 when a script set nothing (`ns-default.tcl`
  `thresh_ 0`, `maxthresh_ 0`, `q_weight_ -1`, `linterm_ 10`, `gentle_ true`,
  `targetdelay_ 5 ms`; `red.cc` `initialize_params`): see `ns2_red`.
- TCP: ns-2.35's agent defaults (`ns2.ns2_tcp`), 500 B segments, window 1000; each
  variant recovers as its ns-2 agent (Reno). Vegas α 1, β 3 (ns-2). Westwood is the
  original TCPW (Mascolo et al. 2001, ns-2's `Agent/TCP/Westwood`; cwnd's `westwood`),
  not Westwood+.
- Load: the TCP load ρ is split in thirds, one generator per variant; CBR/UDP comes on
  top of it (`UDP_SOURCES`).
- FTP files of mean 500 KB (1000 segments); Web: SURGE's parameters, the Pareto tail
  bounded at `WEB_SIZE_MAX` so that a run's offered load reaches its target.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cwnd import stats
from cwnd.connections import over_seeds
from cwnd.plot import colors, panels, spread
from cwnd.studies.ns2 import VEGAS_NS2, ns2_flow, ns2_tcp
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
    interval_verdict,
)
from cwnd.sweep import Point

if TYPE_CHECKING:
    import pandas as pd

VARIANTS = ["reno", "vegas", "westwood"]
LABELS = {"reno": "Reno", "vegas": "Vegas", "westwood": "Westwood"}
#: ns-2's `Agent/TCP/Vegas` (tcp-vegas.cc), as the paper's §2 describes it: on the first
#: retransmission of a segment the window keeps 3/4 (`win -= win >> 2`; "a redução é de
#: somente 1/4"), and a duplicate ACK, or the first two ACKs after a retransmission,
#: resend the oldest segment once it has outlived Vegas's fine-grained timeout ("os ACKs
#: são utilizados como base … sobre o momento da retransmissão"). `PLAIN_VEGAS` is
#: cwnd's Vegas with ns-2's α, β only (halving, coarse timer): the study's first full
#: run, kept as a sensitivity.
PLAIN_VEGAS = {**VEGAS_NS2, "loss_reduction": "reno", "fine_grained_retransmission": False}
NS2_VEGAS = {**VEGAS_NS2, "loss_reduction": "vegas", "fine_grained_retransmission": True}
CC: dict[str, Any] = {"vegas": NS2_VEGAS}
#: The paper's senders (Figure 1's node names).
SENDERS = {"reno": "tcp_reno", "vegas": "tcp_vegas", "westwood": "tcpw"}
MIXES = ["ftp", "web"]
LOADS = [0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
QUICK_LOADS = [0.4, 0.9]
SEEDS = list(range(1, 11))
QUICK_SEEDS = [1, 2]
SECONDS = 300.0
QUICK_SECONDS = 60.0

SEGMENT_BYTES = 500
WINDOW_SEGMENTS = 1000
BUFFER_SEGMENTS = 800
#: The bottleneck: Hollot et al.'s C = 3750 packets/s of 500 B.
BOTTLENECK_BPS = 15_000_000
BOTTLENECK_DELAY_S = 0.080
ACCESS = {"bandwidth": "100Mbps", "delay": "10ms"}
BOTTLENECK = "r1-r2"
FTP_MEAN_SIZE = "500KB"
WEB_SIZE_MAX = "10MB"
#: CBR/UDP: four sources of 5 % of the capacity each, on in staggered windows (fractions
#: of the run) so that at most four, 20 %, overlap (from 0.4 to 0.6 of the run).
UDP_SHARE = 0.05
UDP_SOURCES = [(0.1, 0.6), (0.2, 0.7), (0.3, 0.8), (0.4, 0.9)]

PARAMETERS = [
    ("topology", "tcp_reno, tcp_vegas, tcpw, f_udp_1…4 → r1 → r2 → d_tcp, d_udp",
     "paper §4, Fig. 1"),
    ("bottleneck", "r1–r2: 15 Mb/s, 80 ms; RED, 800-segment buffer at each router",
     "buffer: paper §4; 15 Mb/s and 0.2 s RTT: Hollot et al. 2001 (Fig. 1 lost)"),
    ("access links", "100 Mb/s, 10 ms (propagation RTT 200 ms)", "our choice (Fig. 1 lost)"),
    ("RED", "min_th 9.375, max_th 28.125 packets, max_p 0.1, w_q 1.107·10⁻⁴, gentle",
     "ns-2 automatic configuration (thresh_ 0, q_weight_ -1, targetdelay_ 5 ms)"),
    ("TCP", "500 B segments, rwnd 1000 segments, IW 2, RTO 3 s initial, 200 ms min, "
     "10 ms tick, no delayed ACKs", "segments, window: paper §4; the rest ns-2.35 defaults"),
    ("variants", "Reno; Vegas α 1, β 3, 3/4 on a retransmission, fine-grained "
     "retransmission; Westwood (original TCPW, not Westwood+); all recover as Reno",
     "paper §2–3; parameters and recovery: ns-2's agents"),
    ("load", "0.4, 0.5, …, 0.9 of 15 Mb/s, a third per variant (payload)", "paper §4"),
    ("FTP mix", "Poisson arrivals, exponential sizes of mean 500 KB (1000 segments)",
     "distribution: paper; mean: our choice"),
    ("Web mix", "SURGE sessions (lognormal body, Pareto tail α 1.1) bounded at 10 MB",
     "distribution: paper; parameters: Barford & Crovella 1998; bound: ours"),
    ("CBR/UDP", "4 sources × 0.75 Mb/s (5 %), 500 B datagrams, on over [0.1, 0.6] … "
     "[0.4, 0.9] of the run: up to 20 %", "paper: 'até 20%', different times"),
    ("runs", "300 s, 10 seeds per (mix, load); --quick: 60 s, loads 0.4 and 0.9, 2 seeds",
     "ours"),
]  # fmt: skip


def ns2_red(bandwidth_bps: float, link_delay_s: float, mean_packet: int = 500) -> dict[str, Any]:
    """RED as ns-2 (2002–) configures it when a script leaves `thresh_`, `maxthresh_`
    and `q_weight_` at their defaults (0, 0, −1; `red.cc` `initialize_params`): with C
    the link's rate in mean packets per second, min_th = max(5, targetdelay·C/2) with
    `targetdelay_` 5 ms, max_th = 3·min_th, w_q = 1 − exp(−1/(10·RTT·C)) with RTT =
    max(0.1 s, 3·(delay + 1/C)); max_p = 1/`linterm_` = 0.1; `gentle_` true."""
    c = bandwidth_bps / (8 * mean_packet)
    min_th = max(5.0, 0.005 * c / 2)
    rtt = max(0.1, 3 * (link_delay_s + 1 / c))
    return {
        "min_th": min_th,
        "max_th": 3 * min_th,
        "max_p": 0.1,
        "w_q": 1 - math.exp(-1 / (10 * rtt * c)),
        "gentle": True,
        "mean_packet": f"{mean_packet}B",
    }


def build(point: Point, seconds: float = SECONDS) -> dict[str, Any]:
    """The scenario of one point: `mix` ("ftp" or "web"), `load` (the TCP load) and,
    for the sensitivities, `vegas` = "plain" (`PLAIN_VEGAS`) or `queue` = "droptail"
    (the 800-segment buffers without RED)."""
    mix, load = point["mix"], float(point["load"])
    plain = point.get("vegas") == "plain"
    droptail = point.get("queue") == "droptail"
    red = {} if droptail else {"red": ns2_red(BOTTLENECK_BPS, BOTTLENECK_DELAY_S)}
    cc_of = {**CC, "vegas": PLAIN_VEGAS} if plain else CC
    links = [
        {
            "name": BOTTLENECK,
            "between": ["r1", "r2"],
            "bandwidth": f"{BOTTLENECK_BPS}bps",
            "delay": f"{BOTTLENECK_DELAY_S * 1000:g}ms",
            "queue": {"packets": BUFFER_SEGMENTS, **red},
        },
        *({"between": [node, "r1"], **ACCESS} for node in SENDERS.values()),
        *({"between": [f"f_udp_{i + 1}", "r1"], **ACCESS} for i in range(len(UDP_SOURCES))),
        {"between": ["r2", "d_tcp"], **ACCESS},
        {"between": ["r2", "d_udp"], **ACCESS},
    ]
    generators = []
    for cc in VARIANTS:
        g: dict[str, Any] = {
            "name": f"{mix}-{cc}",
            "kind": mix,
            "from": SENDERS[cc],
            "to": "d_tcp",
            "link": BOTTLENECK,
            "load": load / len(VARIANTS),
            **ns2_flow(cc_of.get(cc, cc)),
            "tcp": ns2_tcp(SEGMENT_BYTES, WINDOW_SEGMENTS),
        }
        if mix == "ftp":
            g["mean_size"] = FTP_MEAN_SIZE
        else:
            g["web"] = {"size_max": WEB_SIZE_MAX}
        generators.append(g)
    rate = f"{BOTTLENECK_BPS * UDP_SHARE:g}bps"
    udp = [
        {
            "name": f"udp{i + 1}",
            "transport": "udp",
            "from": f"f_udp_{i + 1}",
            "to": "d_udp",
            "start": f"{on * seconds:g}s",
            "stop": f"{off * seconds:g}s",
            "source": {"kind": "cbr", "rate": rate, "packet_size": f"{SEGMENT_BYTES}B"},
        }
        for i, (on, off) in enumerate(UDP_SOURCES)
    ]
    return {
        # The plain-Vegas runs keep the name of the study's first full run (its cache).
        "name": f"coexist_{mix}_{load:g}"
        + ("" if plain else "_ns2vegas")
        + ("_droptail" if droptail else ""),
        "duration": f"{seconds:g}s",
        "links": links,
        "flows": udp,
        "generators": generators,
    }


def sweeps(quick: bool) -> list[SweepPlan]:
    loads = QUICK_LOADS if quick else LOADS
    seconds = QUICK_SECONDS if quick else SECONDS
    seeds = QUICK_SEEDS if quick else SEEDS
    points = [{"mix": mix, "load": load} for mix in MIXES for load in loads]
    plain = [{**p, "vegas": "plain"} for p in points]
    droptail = [{**p, "queue": "droptail"} for p in points]
    return [
        SweepPlan("grid", lambda p: build(p, seconds), points, seeds),
        SweepPlan("grid_plain_vegas", lambda p: build(p, seconds), plain, seeds),
        SweepPlan("grid_droptail", lambda p: build(p, seconds), droptail, seeds),
    ]


# --- measurements -------------------------------------------------------------------


def generators(data: StudyData) -> pd.DataFrame:
    """A row per (mix, load, seed, variant): the generator's target and offered load,
    its connections counted and the means over all of them, an unfinished one by what it
    did until the end (`cwnd.connections.per_generator`)."""
    return data.derived("generators", lambda: data.results["grid"].generators)


def queue_drops(data: StudyData) -> pd.DataFrame:
    """Per (mix, load): the share of the packets reaching the bottleneck's queue that
    RED dropped (every connection's data segments and the CBR datagrams, pooled per
    seed; mean over seeds with its 95 % interval), and the share of each variant's
    segments it dropped (pooled over seeds): RED drops a packet whatever its sender."""
    return data.derived("queue_drops", lambda: _queue_drops(data))


def _queue_drops(data: StudyData) -> pd.DataFrame:
    import pandas as pd

    g = generators(data)
    udp = data.table("grid")
    udp = udp[udp["transport"] == "udp"]
    keys = ["mix", "load", "seed"]
    # A run without CBR sources adds nothing (not NaN).
    sent = (
        g.groupby(keys)["segments_sent"]
        .sum()
        .add(udp.groupby(keys)["packets_sent"].sum(), fill_value=0)
    )
    dropped = (
        g.groupby(keys)["drops_queue"]
        .sum()
        .add(udp.groupby(keys)["drops_queue"].sum(), fill_value=0)
    )
    share = (dropped / sent).rename("drop_rate")
    variant = g.groupby(["mix", "load", "cc"])[["drops_queue", "segments_sent"]].sum()
    by_cc = (variant["drops_queue"] / variant["segments_sent"]).unstack("cc")
    rows = []
    for (mix, load), per_seed in share.groupby(level=["mix", "load"]):
        xs = per_seed.tolist()
        ci = stats.mean_ci(xs) if len(xs) >= 2 else None
        rows.append({"mix": mix, "load": load, "drop_rate": sum(xs) / len(xs),
                     "drop_rate_low": ci.low if ci else math.nan,
                     "drop_rate_high": ci.high if ci else math.nan, "seeds": len(xs),
                     **{f"drop_rate_{cc}": float(by_cc.loc[(mix, load), cc])
                        for cc in VARIANTS if cc in by_cc.columns}})  # fmt: skip
    return pd.DataFrame(rows)


def per_variant(data: StudyData) -> pd.DataFrame:
    """Means over seeds with 95 % intervals per (mix, load, variant); the Figures 2–3."""
    return data.derived("per_variant", lambda: over_seeds(generators(data), by=["mix", "load"]))


def offered(data: StudyData) -> pd.DataFrame:
    """Per (mix, load): the TCP load asked for and the load the three generators
    offered together, mean over seeds with its 95 % interval."""
    import pandas as pd

    g = generators(data)
    total = g.groupby(["mix", "load", "seed"])[["target_load", "offered_load"]].sum()
    rows = []
    for (mix, load), group in total.groupby(level=["mix", "load"]):
        xs = group["offered_load"].tolist()
        ci = stats.mean_ci(xs) if len(xs) >= 2 else None
        rows.append({"mix": mix, "load": load, "target": float(group["target_load"].iloc[0]),
                     "offered": sum(xs) / len(xs),
                     "offered_low": ci.low if ci else math.nan,
                     "offered_high": ci.high if ci else math.nan, "seeds": len(xs)})  # fmt: skip
    return pd.DataFrame(rows)


def gains(data: StudyData, mix: str, metric: str, cc: str, ref: str) -> dict[float, list[float]]:
    """Per load, per seed: `cc`'s mean `metric` over `ref`'s, minus 1. The variants of one
    run shared its bottleneck, so the ratio within a run removes what the run's traffic
    did to all three; seeds are independent runs."""
    g = generators(data)
    table = g[g["mix"] == mix].set_index(["load", "seed", "cc"])[metric].unstack("cc")
    ratio = table[cc] / table[ref] - 1
    return {float(load): ratio.xs(load).tolist() for load in sorted(ratio.index.unique("load"))}


def gain_interval(values: Sequence[float]) -> stats.Interval | None:
    """The mean gain over seeds and its 95 % interval, or None when a seed has none
    (no completed connection of a variant, or a reference of 0)."""
    if len(values) < 2 or not all(math.isfinite(v) for v in values):
        return None
    return stats.mean_ci(list(values))


#: A change quoted as "at least a and at most b" is compared on a band from half the
#: smallest to twice the largest change (a loss of more than 100 % does not exist): our
#: topology, file sizes and generator are not the paper's, so only the sign and the
#: order of magnitude can be held against its numbers.
def band(low: float, high: float) -> tuple[float, float]:
    """The band of a quoted range of changes [low, high] (both > 0, or both < 0)."""
    if low > 0:
        return low / 2, high * 2
    return max(-1.0, low * 2), high / 2


def per_load(
    data: StudyData, mix: str, metric: str, cc: str, ref: str,
    rule: dict[float, tuple[float, float]],
) -> tuple[Verdict, list[str]]:  # fmt: skip
    """The verdict of a rule that gives, per load, the band the gain's 95 % interval must
    lie in (agree at a load: wholly inside; disagree: wholly outside), over the loads
    the runs have: agree if every load agrees, disagree if any disagrees; and the text
    per load."""
    found = gains(data, mix, metric, cc, ref)
    verdicts, parts = [], []
    for load, (lo, hi) in rule.items():
        if load not in found:
            continue
        ci = gain_interval(found[load])
        if ci is None:
            verdicts.append(Verdict.NOT_MEASURABLE)
            parts.append(f"{load:g}: no interval ({_listed(found[load])})")
            continue
        verdicts.append(interval_verdict(ci.low, ci.high, lo, hi))
        parts.append(f"{load:g}: {ci.text()}")
    return combine(verdicts), parts


def combine(verdicts: Sequence[Verdict]) -> Verdict:
    """All agree → agree; any disagrees → disagree; otherwise not measurable."""
    if not verdicts:
        return Verdict.NOT_MEASURABLE
    if any(v is Verdict.DISAGREE for v in verdicts):
        return Verdict.DISAGREE
    if all(v is Verdict.AGREE for v in verdicts):
        return Verdict.AGREE
    return Verdict.NOT_MEASURABLE


def _listed(values: Sequence[float]) -> str:
    return ", ".join(f"{v:+.0%}" if math.isfinite(v) else "n/a" for v in values)


ABOVE = (0.0, math.inf)
BELOW = (-math.inf, 0.0)


def _loads(data: StudyData) -> list[float]:
    return sorted(float(x) for x in generators(data)["load"].unique())


def _measured(parts: list[str], verdict: Verdict, prefix: str, why: str) -> Measured:
    return Measured(f"{prefix} by load: " + "; ".join(parts), verdict, why)


def _means(data: StudyData, mix: str, metric: str) -> dict[str, dict[float, float]]:
    """Per variant, per load: the mean over seeds of `metric`."""
    pv = per_variant(data)
    pv = pv[pv["mix"] == mix]
    return {cc: dict(zip(pv.loc[pv["cc"] == cc, "load"].astype(float),
                         pv.loc[pv["cc"] == cc, metric], strict=True))
            for cc in VARIANTS}  # fmt: skip


def _over_loads(data: StudyData, mix: str, metric: str, scale: float, fmt: str) -> str:
    m = _means(data, mix, metric)
    return "; ".join(
        f"{LABELS[cc]} " + ", ".join(fmt.format(v * scale) for _, v in sorted(m[cc].items()))
        for cc in VARIANTS
    )


def _ends(data: StudyData, mix: str, metric: str, cc: str, scale: float, fmt: str) -> str:
    """`cc`'s mean `metric` at the first and the last load: "a at 0.4 to b at 0.9"."""
    m = _means(data, mix, metric)[cc]
    first, last = min(m), max(m)
    a, b = fmt.format(m[first] * scale), fmt.format(m[last] * scale)
    return f"{a} at load {first:g} to {b} at {last:g}"


def loss_events(data: StudyData, mix: str) -> dict[str, dict[float, tuple[float, float]]]:
    """Per variant, per load: segments RED dropped per connection (totals over the
    seeds), and retransmission events (RTO expiries and fast retransmits, means per
    connection) per dropped segment: how many losses one repair covered (NaN where the
    queue dropped nothing, as a quick run's light loads can)."""
    g = generators(data)
    totals = g[g["mix"] == mix].groupby(["cc", "load"])[["drops_queue", "connections"]].sum()
    rto, fast = _means(data, mix, "timeouts"), _means(data, mix, "fast_retransmits")
    out: dict[str, dict[float, tuple[float, float]]] = {}
    for (cc, load), row in totals.iterrows():
        drops = float(row["drops_queue"] / row["connections"])
        events = rto[cc][load] + fast[cc][load]
        out.setdefault(str(cc), {})[float(load)] = (drops, events / drops if drops else math.nan)
    return out


def _events(data: StudyData, mix: str, ccs: Sequence[str]) -> str:
    """Drops per connection and repairs per drop of `ccs`, at the first and last load."""
    found = loss_events(data, mix)
    parts = []
    for cc in ccs:
        first, last = min(found[cc]), max(found[cc])
        (d0, e0), (d1, e1) = found[cc][first], found[cc][last]
        parts.append(f"{LABELS[cc]} {d0:.0f} drops per connection, {_per_drop(e0)} at "
                     f"load {first:g}; {d1:.0f}, {_per_drop(e1)} at {last:g}")  # fmt: skip
    return "; ".join(parts)


def _per_drop(events: float) -> str:
    return "no drop" if math.isnan(events) else f"{events:.2f} events per drop"


def _drops(data: StudyData, mix: str) -> str:
    """RED's drop rate over the loads, and each variant's."""
    d = queue_drops(data)
    d = d[d["mix"] == mix].sort_values("load")
    first, last = d.iloc[0], d.iloc[-1]
    per_cc = ", ".join(
        f"{LABELS[cc]} {d[f'drop_rate_{cc}'].min():.1%}–{d[f'drop_rate_{cc}'].max():.1%}"
        for cc in VARIANTS
    )
    return (
        f"RED drops {first['drop_rate']:.1%} of the packets reaching the bottleneck at load "
        f"{first['load']:g} to {last['drop_rate']:.1%} at {last['load']:g}, a packet whatever "
        f"its sender (of each variant's segments over the loads: {per_cc})"
    )


def _unfinished(data: StudyData, mix: str) -> str:
    """The share of each variant's connections still open at the end, over the loads."""
    pv = per_variant(data)
    pv = pv[pv["mix"] == mix]
    share = pv.assign(u=pv["unfinished"] / pv["connections"]).set_index("cc")["u"]
    return "unfinished at the end: " + ", ".join(
        f"{LABELS[cc]} {share[[cc]].min():.0%}–{share[[cc]].max():.0%}" for cc in VARIANTS
    )


def claim_westwood_cwnd(data: StudyData) -> Measured:
    lo, hi = band(0.61, 1.78)
    v, parts = per_load(data, "ftp", "mean_cwnd", "westwood", "reno",
                        {load: (lo, hi) for load in _loads(data)})  # fmt: skip
    return _measured(parts, v, "Westwood's mean cwnd over Reno's",
                     because(lambda: _cwnd_why(data, "ftp")))  # fmt: skip


def _cwnd_why(data: StudyData, mix: str) -> str:
    return (
        "mean cwnd (segments) at loads "
        + ", ".join(f"{x:g}" for x in _loads(data))
        + ": "
        + _over_loads(data, mix, "mean_cwnd", 1, "{:.1f}")
        + "; fast retransmits per connection: "
        + _over_loads(data, mix, "fast_retransmits", 1, "{:.2f}")
        + " (Westwood sets cwnd to its bandwidth estimate × RTTmin after three duplicate "
        "ACKs instead of halving it)"
    )


def claim_westwood_rtos(data: StudyData) -> Measured:
    v, parts = per_load(data, "ftp", "timeouts", "westwood", "reno",
                        {load: ABOVE for load in _loads(data) if load < 0.9})  # fmt: skip
    return _measured(parts, v, "Westwood's RTOs per connection over Reno's",
                     because(lambda: _westwood_rto_why(data, "ftp")))  # fmt: skip


def _westwood_rto_why(data: StudyData, mix: str) -> str:
    reno, westwood = (_ends(data, mix, "mean_cwnd", cc, 1, "{:.1f}") for cc in ("reno", "westwood"))
    return (
        f"{_drops(data, mix)}; a connection's RTOs count the rounds in which it lost a "
        "segment, and at these rates nearly every round of ten segments or more loses one. "
        "After a loss Westwood sets its window to its bandwidth estimate × RTTmin where "
        f"Reno halves (mean cwnd, segments: Reno {reno}; Westwood {westwood}), so it sends a "
        "file in fewer rounds: it loses more segments per connection, in fewer retransmission "
        f"events (RTO expiries and fast retransmits): {_events(data, mix, ('reno', 'westwood'))}"
    )


def claim_westwood_goodput(data: StudyData) -> Measured:
    # At 0.4 the paper has Westwood lower; "not higher" is a Westwood gain whose interval
    # is not wholly above 0 (an interval wholly above 0 contradicts it).
    rule = {load: ABOVE if load > 0.4 else (-math.inf, math.inf) for load in _loads(data)}
    v, parts = per_load(data, "ftp", "goodput_bps", "westwood", "reno", rule)
    if 0.4 in rule:
        low = gain_interval(gains(data, "ftp", "goodput_bps", "westwood", "reno")[0.4])
        if low is not None and low.low > 0:
            v = Verdict.DISAGREE
    return _measured(parts, v, "Westwood's goodput over Reno's",
                     because(lambda: _westwood_goodput_why(data, "ftp")))  # fmt: skip


def _westwood_goodput_why(data: StudyData, mix: str) -> str:
    reno, westwood = (
        _ends(data, mix, "goodput_bps", cc, 1e-3, "{:.0f}") for cc in ("reno", "westwood")
    )
    return (
        "each RTO leaves a connection idle for the timeout and restarts it from one segment "
        "(after a repeated expiry with ns-2's ssthresh of 2, a crawl): RTOs per connection "
        f"Reno {_ends(data, mix, 'timeouts', 'reno', 1, '{:.1f}')}, Westwood "
        f"{_ends(data, mix, 'timeouts', 'westwood', 1, '{:.1f}')} (claim 2's why), at 0.4 as "
        f"at the other loads; goodput per connection, kb/s: Reno {reno}, Westwood {westwood}; "
        f"{_unfinished(data, mix)}"
    )


def claim_vegas_rtos(data: StudyData) -> Measured:
    lo, hi = band(-0.87, -0.67)
    v, parts = per_load(data, "ftp", "timeouts", "vegas", "reno",
                        {load: (lo, hi) for load in _loads(data)})  # fmt: skip
    return _measured(parts, v, "Vegas's RTOs per connection over Reno's",
                     because(lambda: _vegas_rto_why(data, "ftp")))  # fmt: skip


def _vegas_rto_why(data: StudyData, mix: str) -> str:
    min_th = ns2_red(BOTTLENECK_BPS, BOTTLENECK_DELAY_S)["min_th"]
    return (
        f"{_drops(data, mix)}: Vegas's backlog of α–β = 1–3 segments per connection cannot "
        f"keep RED's average queue below its {min_th:.1f}-packet threshold while Reno and "
        "Westwood fill it. With windows alike (mean cwnd, segments: Reno "
        f"{_ends(data, mix, 'mean_cwnd', 'reno', 1, '{:.1f}')}, Vegas "
        f"{_ends(data, mix, 'mean_cwnd', 'vegas', 1, '{:.1f}')}) it loses as many segments per "
        "connection in as many retransmission events, and so as many RTOs: "
        f"{_events(data, mix, ('reno', 'vegas'))}"
    )


def claim_vegas_goodput(data: StudyData) -> Measured:
    rule = {load: BELOW if load <= 0.5 else ABOVE for load in _loads(data)}
    v, parts = per_load(data, "ftp", "goodput_bps", "vegas", "reno", rule)
    return _measured(parts, v, "Vegas's goodput over Reno's",
                     because(lambda: _vegas_goodput_why(data, "ftp")))  # fmt: skip


def _vegas_goodput_why(data: StudyData, mix: str) -> str:
    cwnd = gains(data, mix, "mean_cwnd", "vegas", "reno")
    mean_gain = {load: sum(xs) / len(xs) for load, xs in cwnd.items()}
    first, last = min(mean_gain), max(mean_gain)
    return (
        "Vegas meets Reno's losses and RTOs (claim 4's why: "
        f"{_events(data, mix, ('reno', 'vegas'))}), and after each RTO both restart from one "
        f"segment (RTOs per connection, Reno {_ends(data, mix, 'timeouts', 'reno', 1, '{:.0f}')})"
        f"; its goodput follows its smaller window: mean cwnd {mean_gain[first]:+.0%} of "
        f"Reno's at load {first:g}, {mean_gain[last]:+.0%} at {last:g}. ns-2's Vegas regains "
        "its window in slow start by doubling every other RTT, Reno every RTT (a rule not "
        f"isolated here); {_unfinished(data, mix)}"
    )


#: "Very close" RTTs: within 10 % of Reno's.
RTT_CLOSE = (-0.10, 0.10)


def claim_rtts_close(data: StudyData) -> Measured:
    verdicts, texts = [], []
    for cc in ("vegas", "westwood"):
        v, parts = per_load(data, "ftp", "mean_rtt", cc, "reno",
                            {load: RTT_CLOSE for load in _loads(data)})  # fmt: skip
        verdicts.append(v)
        texts.append(f"{LABELS[cc]}'s mean RTT over Reno's by load: " + "; ".join(parts))
    why = because(lambda: _rtt_why(data, "ftp"))
    return Measured(". ".join(texts), combine(verdicts), why)


def _rtt_why(data: StudyData, mix: str) -> str:
    red = ns2_red(BOTTLENECK_BPS, BOTTLENECK_DELAY_S)
    rate = BOTTLENECK_BPS / (8 * SEGMENT_BYTES)
    return (
        f"the three share one queue, which RED holds near its thresholds ({red['min_th']:.1f}–"
        f"{red['max_th']:.1f} packets, {red['min_th'] / rate * 1e3:.1f}–"
        f"{red['max_th'] / rate * 1e3:.1f} ms at {rate:.0f} packets/s) by dropping: "
        f"{_drops(data, mix)}; mean RTT (ms): {_over_loads(data, mix, 'mean_rtt', 1000, '{:.0f}')}"
        f", over a propagation RTT of {_propagation_rtt_ms():.0f} ms"
    )


def _propagation_rtt_ms() -> float:
    access = float(ACCESS["delay"].removesuffix("ms"))
    return 2 * (2 * access + BOTTLENECK_DELAY_S * 1000)


def claim_web_vegas_worst(data: StudyData) -> Measured:
    lo, hi = band(-0.31, -0.16)
    loads = _loads(data)
    checks = [
        ("goodput vs Reno", "goodput_bps", "reno", (lo, hi)),
        ("goodput vs Westwood", "goodput_bps", "westwood", BELOW),
        ("cwnd vs Reno", "mean_cwnd", "reno", BELOW),
        ("cwnd vs Westwood", "mean_cwnd", "westwood", BELOW),
    ]
    verdicts, texts = [], []
    for name, metric, ref, rule in checks:
        v, parts = per_load(data, "web", metric, "vegas", ref, {load: rule for load in loads})
        verdicts.append(v)
        texts.append(f"Vegas's {name}: " + "; ".join(parts))
    why = because(lambda: _web_vegas_why(data))
    return Measured(". ".join(texts), combine(verdicts), why)


def _web_vegas_why(data: StudyData) -> str:
    def mean_gain(metric: str) -> dict[float, float]:
        return {load: sum(xs) / len(xs)
                for load, xs in gains(data, "web", metric, "vegas", "reno").items()}  # fmt: skip

    cwnd, goodput = mean_gain("mean_cwnd"), mean_gain("goodput_bps")
    first, last = min(cwnd), max(cwnd)
    return (
        "Web objects are small and most end in slow start, where ns-2's Vegas grows its "
        "window every other RTT: its mean cwnd is "
        f"{cwnd[first]:+.0%} of Reno's at load {first:g} and its goodput {goodput[first]:+.0%}; "
        f"as the load grows, {_drops(data, 'web')}, and every variant's window shrinks "
        f"toward the same few segments (Vegas's cwnd {cwnd[last]:+.0%} of Reno's at {last:g}), "
        f"so its loss shrinks ({goodput[last]:+.0%})"
    )


def best_over_loads(data: StudyData, mix: str, cc: str, ref: str) -> list[float]:
    """Per seed: the mean over loads of `cc`'s goodput over `ref`'s, minus 1."""
    found = gains(data, mix, "goodput_bps", cc, ref)
    per_seed = list(zip(*found.values(), strict=True))
    return [sum(xs) / len(xs) for xs in per_seed]


def claim_westwood_best(data: StudyData) -> Measured:
    verdicts, parts = [], []
    for mix in MIXES:
        for ref in ("reno", "vegas"):
            ci = gain_interval(best_over_loads(data, mix, "westwood", ref))
            if ci is None:
                verdicts.append(Verdict.NOT_MEASURABLE)
                parts.append(f"{mix}, over {LABELS[ref]}: no interval")
                continue
            verdicts.append(interval_verdict(ci.low, ci.high, *ABOVE))
            parts.append(f"{mix}, over {LABELS[ref]}: {ci.text()}")
    why = because(lambda: _westwood_best_why(data))
    return Measured("Westwood's goodput gain averaged over the loads: " + "; ".join(parts),
                    combine(verdicts), why)  # fmt: skip


def _westwood_best_why(data: StudyData) -> str:
    def over_loads(mix: str, metric: str) -> float:
        found = gains(data, mix, metric, "westwood", "reno")
        return sum(sum(xs) / len(xs) for xs in found.values()) / len(found)

    return (
        "Westwood's gain is in loss recovery: after three duplicate ACKs it keeps its "
        "bandwidth estimate × RTTmin where Reno halves, so fewer losses end in a timeout "
        f"(RTOs per connection {over_loads('ftp', 'timeouts'):+.0%} of Reno's with FTP, "
        f"averaged over the loads); Web objects mostly end in slow start, where Westwood "
        f"grows as Reno, so its window gains less (mean cwnd {over_loads('web', 'mean_cwnd'):+.0%}"
        f" of Reno's against {over_loads('ftp', 'mean_cwnd'):+.0%} with FTP) and so does its "
        f"goodput ({over_loads('web', 'goodput_bps'):+.0%} against "
        f"{over_loads('ftp', 'goodput_bps'):+.0%})"
    )


CLAIMS = [
    Claim(
        "1",
        "para o TCP Westwood o valor de cwnd é bastante agressivo, sendo no mínimo 61% "
        "maior para cargas de 0,4 e no máximo 178% maior para cargas de 0,7",
        "§4, Fig. 2 (FTP)",
        "FTP: at every load, Westwood's mean cwnd per connection over Reno's minus 1 (per "
        "seed; the three variants share each run) has its 95 % interval wholly inside "
        "+30.5 % … +356 % (half the smallest to twice the largest quoted gain); disagree "
        "if at any load it lies wholly outside",
        claim_westwood_cwnd,
        english="for TCP Westwood the cwnd is quite aggressive, at least 61 % larger at "
        "load 0.4 and at most 178 % larger at load 0.7",
    ),
    Claim(
        "2",
        "A agressividade da janela se reflete também no aumento de RTOs, para cargas abaixo de 0,9",
        "§4, Fig. 2 (FTP)",
        "FTP, loads below 0.9: Westwood's RTOs per connection over Reno's minus 1 has its "
        "95 % interval wholly above 0 at every load; disagree if wholly below at any",
        claim_westwood_rtos,
        english="the window's aggressiveness also shows in more RTOs, for loads below 0.9",
    ),
    Claim(
        "3",
        "Apesar do considerável número de RTOs o seu goodput é maior, exceto apenas para "
        "cargas de 0,4",
        "§4, Fig. 2 (FTP)",
        "FTP: Westwood's goodput per connection over Reno's minus 1 has its 95 % interval "
        "wholly above 0 at every load from 0.5 on; disagree if wholly below 0 at any of "
        "them, or wholly above 0 at 0.4",
        claim_westwood_goodput,
        english="despite the considerable number of RTOs its goodput is higher, except "
        "only at load 0.4",
    ),
    Claim(
        "4",
        "O número de RTOs é sempre menor, e a diferença aumenta a medida que o "
        "congestionamento se torna mais pesado; a redução no número de RTOs é de no "
        "mínimo 67% para cargas de 0,5 e de no máximo 87% para cargas de 0,8",
        "§4, Fig. 2 (FTP), on Vegas",
        "FTP: at every load, Vegas's RTOs per connection over Reno's minus 1 has its 95 % "
        "interval wholly inside −100 % … −33.5 % (half the smallest to twice the largest "
        "quoted reduction, at most −100 %); disagree if wholly outside at any load",
        claim_vegas_rtos,
        english="[Vegas's] number of RTOs is always smaller, and the difference grows as "
        "congestion gets heavier; the reduction is at least 67 % at load 0.5 and at most "
        "87 % at load 0.8",
    ),
    Claim(
        "5",
        "O goodput é menor na fase inicial, sendo 12% e 7% menor a 0,4 e 0,5 de carga, mas "
        "torna-se maior para as demais cargas",
        "§4, Fig. 2 (FTP), on Vegas",
        "FTP: Vegas's goodput per connection over Reno's minus 1 has its 95 % interval "
        "wholly below 0 at loads 0.4 and 0.5 and wholly above 0 from 0.6 on; disagree if "
        "at any load it lies wholly on the other side",
        claim_vegas_goodput,
        english="[Vegas's] goodput is lower at first, 12 % and 7 % lower at loads 0.4 "
        "and 0.5, but becomes higher at the other loads",
    ),
    Claim(
        "6",
        "Os valores de RTT são muito próximos, uma vez que a política de AQM utilizada foi "
        "a mesma para os três TCPs",
        "§4, Fig. 2 (FTP)",
        "FTP: at every load, Vegas's and Westwood's mean RTT over Reno's minus 1 has its "
        "95 % interval wholly inside −10 % … +10 %; disagree if wholly outside at any load",
        claim_rtts_close,
        english="the RTT values are very close, since the AQM policy was the same for the "
        "three TCPs",
    ),
    Claim(
        "7",
        "O valor médio de cwnd do TCP Vegas é menor que os demais TCPs […] O seu goodput "
        "acompanha a janela de congestionamento, sendo no mínimo 16% menor para cargas de "
        "0,9 e no máximo 31% menor para cargas de 0,4",
        "§4, Fig. 3 (Web), on Vegas; §5 ('apresenta o pior goodput')",
        "Web: at every load, Vegas's goodput per connection over Reno's minus 1 has its "
        "95 % interval wholly inside −62 % … −8 % (half the smallest to twice the largest "
        "quoted loss), and wholly below 0 against Westwood's; Vegas's mean cwnd over "
        "Reno's and over Westwood's minus 1 wholly below 0; disagree if any of these lies "
        "wholly on the other side at any load",
        claim_web_vegas_worst,
        english="Vegas's mean cwnd is smaller than the other TCPs' […] its goodput "
        "follows the congestion window, at least 16 % lower at load 0.9 and at most 31 % "
        "lower at load 0.4",
    ),
    Claim(
        "8",
        "Para os experimentos realizados o TCP Westwood apresenta o melhor goodput tanto "
        "para tráfego FTP quanto WEB",
        "§5 (conclusion)",
        "for each mix, Westwood's goodput per connection over Reno's and over Vegas's "
        "minus 1, averaged over the loads per seed, has its 95 % interval wholly above 0 "
        "(four intervals); disagree if any lies wholly below 0",
        claim_westwood_best,
        english="in the experiments TCP Westwood has the best goodput for both FTP and Web traffic",
    ),
]


# --- figures ------------------------------------------------------------------------

PANELS = [
    ("goodput_bps", 1e-3, "goodput per connection (kb/s)"),
    ("mean_cwnd", 1.0, "mean cwnd (segments)"),
    ("mean_rtt", 1e3, "mean RTT (ms)"),
    ("timeouts", 1.0, "RTOs per connection"),
]


def figure_mix(mix: str) -> Any:
    def draw(data: StudyData, path: Path) -> None:
        pv = per_variant(data)
        pv = pv[pv["mix"] == mix].sort_values("load")
        note = stats.error_bar_note(pv["seeds"])
        with panels(path.with_suffix(".png"), 2, 2, size=(7.2, 5.4), sharex=True, svg=True,
                    legend_below=True, legend_title=note) as (_, axes):  # fmt: skip
            for ax, (metric, scale, label) in zip(axes.flat, PANELS, strict=True):
                for cc, color in zip(VARIANTS, colors(len(VARIANTS)), strict=True):
                    s = pv[pv["cc"] == cc]
                    mean, low, high = (s[c] * scale for c in
                                       (metric, f"{metric}_low", f"{metric}_high"))  # fmt: skip
                    ax.errorbar(s["load"], mean, yerr=spread(mean, low.fillna(mean),
                                high.fillna(mean)), marker="o", ms=3, capsize=2,
                                color=color, label=LABELS[cc])  # fmt: skip
                ax.set(ylabel=label, ylim=(0, None))
            for ax in axes[-1]:
                ax.set_xlabel("offered TCP load (fraction of 15 Mb/s)")

    return draw


def figure_offered(data: StudyData, path: Path) -> None:
    o = offered(data)
    note = stats.error_bar_note(o["seeds"])
    # The legend under the axes: the error bars of a few seeds reach where it would sit.
    with panels(path.with_suffix(".png"), svg=True, legend_below=True,
                legend_title=note) as (_, axes):  # fmt: skip
        ax = axes[0, 0]
        for mix, color in zip(MIXES, colors(len(MIXES)), strict=True):
            s = o[o["mix"] == mix].sort_values("load")
            ax.errorbar(s["target"], s["offered"], yerr=spread(s["offered"],
                        s["offered_low"].fillna(s["offered"]),
                        s["offered_high"].fillna(s["offered"])),
                        marker="o", ms=3, capsize=2, color=color, label=mix.upper())  # fmt: skip
        ax.plot([0.3, 1.0], [0.3, 1.0], color="0.6", lw=0.8, ls="--", label="offered = target")
        ax.set(xlabel="target TCP load", ylabel="offered TCP load (payload)",
               title="Load the generators offered, mean over seeds")  # fmt: skip


FIGURES = [
    FigureSpec("ftp", "TCPs running together with FTP traffic: mean per connection vs "
               "load, 95 % intervals over seeds (paper Fig. 2)", figure_mix("ftp")),
    FigureSpec("web", "TCPs running together with Web traffic: mean per connection vs "
               "load, 95 % intervals over seeds (paper Fig. 3)", figure_mix("web")),
    FigureSpec("offered_load", "TCP load offered by the generators against the target "
               "(the sum of the three variants' generators)", figure_offered),
]  # fmt: skip


SENSITIVITY = [
    Sensitivity(
        "the Vegas agent (the paper describes ns-2's; the study's first full run had "
        "cwnd's Vegas with ns-2's α and β only)",
        ("4", "5", "7", "8"),
        [
            ("ns-2's Agent/TCP/Vegas: 3/4 on a retransmission, fine-grained "
             "retransmission (the study's)", {}),
            ("halving, the coarse timer only", {"grid": "grid_plain_vegas"}),
        ],
    ),
    Sensitivity(
        "the bottleneck's queue (the paper: RED, parameters not given; ns-2's automatic "
        "thresholds of 9.4 and 28 packets are far below the 750-packet BDP)",
        tuple(c.id for c in CLAIMS),
        [
            ("RED, ns-2's automatic configuration (the study's)", {}),
            ("DropTail, 800 segments", {"grid": "grid_droptail"}),
        ],
    ),
]  # fmt: skip


STUDY = Study(
    name="coexist",
    title="coexist: Reno, Vegas and Westwood sharing a RED bottleneck",
    citation="Juliana de Santi, Michele Mara de Araújo Espíndula Lima (UNIOESTE, Cascavel), "
    "“TCP Reno, TCP Vegas e TCP Westwood: Uma Comparação de Desempenho” (ns-2; venue not "
    "named in our text).",
    seed_file="001_bae3672c39b6ae96.txt",
    summary="Reno, Vegas and Westwood generators each offer a third of a load of 0.4–0.9 of "
    "a 15 Mb/s RED bottleneck, as FTP files or Web objects, beside CBR/UDP sources of up "
    "to 20 % of the capacity; per connection goodput, cwnd, RTT and RTOs.",
    parameters=PARAMETERS,
    sweeps=sweeps,
    figures=FIGURES,
    claims=CLAIMS,
    tables=[
        TableSpec("per_variant", per_variant),
        TableSpec("offered_load", offered),
        TableSpec("queue_drops", queue_drops),
    ],
    sensitivity=SENSITIVITY,
)
