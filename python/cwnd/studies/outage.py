"""Study 1, `outage`: TCP variants when a mobile host is disconnected.

The paper (ns-2.35): a fixed host — 10 Mb/s, 2 ms, DropTail — base station — 802.11 at
2 Mb/s, no errors, no mobility — mobile host; one TCP flow from the fixed host sends
exactly 3000 segments of 1000 bytes; when it transmits segment 1000 the wireless hop is
disconnected (data and ACKs lost) for d seconds. Variants Reno, Vegas, Westwood, CUBIC
and Compound, each simulated on its own for every d.

Choices where the paper is silent (each also listed in `PARAMETERS`):
- TCP agent settings are ns-2.35's defaults (`ns2.ns2_tcp`): receive window 20 segments,
  initial window 2, RTO 3 s before the first sample, 200 ms minimum, 60 s maximum, 10 ms
  clock, no delayed ACKs, no SACK. Loss recovery as each variant's ns-2.35 agent
  (`ns2.RECOVERY`): Reno for Reno, Vegas and Westwood, NewReno for CUBIC and Compound
  (TCP-Linux). With a 20-segment window nothing is lost to congestion, so recovery
  acts only after the disconnection, by go-back-N.
- Vegas α = 1, β = 3 (ns-2's defaults); Westwood is the original 2001 filter, the paper's
  reference [12]; CUBIC and Compound with their published constants.
- The wired queue holds 50 packets (ns-2's `Queue set limit_ 50`); the 802.11 hop is the
  DCF at 2 Mb/s with 1 Mb/s MAC ACKs, long preamble, and an interface queue of 50 (ns-2's
  defaults), with RTS/CTS before every frame (ns-2's `RTSThreshold_ 0`).
- The disconnection drops every frame on the air for d seconds (the MAC retries and then
  gives up, as in ns-2 when a node leaves range); it starts at the first transmission of
  segment 1000 by the sender.
- Five seeds per point (the only randomness is the DCF's backoff); figures show the mean
  and the spread over seeds.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cwnd import stats
from cwnd.plot import colors, panels, spread
from cwnd.studies.ns2 import RECOVERY, VEGAS_NS2, Controller, ns2_flow, ns2_tcp, ns2_wireless
from cwnd.studies.study import (
    Claim,
    FigureSpec,
    Measured,
    Sensitivity,
    Study,
    StudyData,
    SweepPlan,
    TableSpec,
    because,
    not_measurable,
    verdict,
)
from cwnd.sweep import Point

if TYPE_CHECKING:
    import pandas as pd

SEGMENTS = 3000
SEGMENT_BYTES = 1000
OUTAGE_AT_SEGMENT = 1000
DURATIONS = [0.0, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
QUICK_DURATIONS = [0.0, 1.0, 5.0, 20.0]
VARIANTS = ["reno", "vegas", "westwood", "cubic", "compound"]
LABELS = {
    "reno": "Reno",
    "vegas": "Vegas",
    "westwood": "Westwood",
    "cubic": "CUBIC",
    "compound": "Compound",
}
CC: dict[str, Controller] = {"vegas": VEGAS_NS2}
SEEDS = [1, 2, 3, 4, 5]
QUICK_SEEDS = [1]
#: ns-2's default `window_` (the paper is silent), and a window that never limits.
WINDOW = 20
LARGE_WINDOW = 1000

PARAMETERS = [
    ("topology", "fixed —10 Mb/s, 2 ms— bs ~802.11b 2 Mb/s~ mobile", "paper §2, Fig. 1"),
    ("transfer", "3000 segments of 1000 B, fixed → mobile", "paper §2"),
    ("disconnection", "from the sending of segment 1000, d s, data and ACKs", "paper §2"),
    ("d", "0, 0.05, 0.1, 0.5, 1, 2, 5, 10, 20 s", "paper §2"),
    ("variants", "Reno, Vegas (α 1, β 3), Westwood, CUBIC, Compound", "paper §2; α, β: ns-2"),
    (
        "TCP",
        "rwnd 20 segments, IW 2, RTO 3 s initial, 200 ms min, 60 s max, 10 ms tick; "
        "ssthresh 2 on a repeated timeout",
        "ns-2.35 defaults (the paper is silent)",
    ),
    (
        "recovery",
        ", ".join(f"{LABELS[cc]}: {RECOVERY[cc]}" for cc in VARIANTS),
        "each variant's ns-2.35 agent (CUBIC and Compound exist only in TCP-Linux)",
    ),
    ("ACKs", "one per segment (no delayed ACKs), no SACK", "ns-2 TCPSink default"),
    ("wired queue", "DropTail, 50 packets", "ns-2 default"),
    (
        "802.11",
        "DCF, 2 Mb/s data, 1 Mb/s ACKs, long preamble, IFQ 50, RTS/CTS on every frame",
        "ns-2's Mac/802_11 defaults",
    ),
    ("seeds", "5 per point (1 in --quick)", "the DCF backoff is the only randomness"),
]


def build(point: Point) -> dict[str, Any]:
    """The scenario of one point: `cc` (a name from VARIANTS), `d` (seconds) and
    `window`, the receive window in segments."""
    cc: str = point["cc"]
    d = float(point["d"])
    wireless = ns2_wireless("wlan", ["bs", "mobile"], "2Mbps")
    if d > 0:
        trigger = {"flow": "tcp", "segment": OUTAGE_AT_SEGMENT}
        wireless["impairments"] = [{"kind": "outage", "start_on": trigger, "duration": f"{d}s"}]
    return {
        "name": f"outage_{cc}_{d:g}s",
        "duration": "200s",
        "links": [
            {
                "between": ["fixed", "bs"],
                "bandwidth": "10Mbps",
                "delay": "2ms",
                "queue": {"packets": 50},
            }
        ],
        "wireless": [wireless],
        "flows": [
            {
                "name": "tcp",
                "from": "fixed",
                "to": "mobile",
                **ns2_flow(CC.get(cc, cc)),
                "app": {"kind": "transfer", "segments": SEGMENTS},
                "tcp": ns2_tcp(SEGMENT_BYTES, point["window"]),
            }
        ],
        "trace": {"segments": True, "throughput_bin": "250ms"},
    }


def sweeps(quick: bool) -> list[SweepPlan]:
    durations = QUICK_DURATIONS if quick else DURATIONS
    seeds = QUICK_SEEDS if quick else SEEDS
    tables = ("series", "throughput", "segments")

    def points(window: int) -> list[Point]:
        return [{"cc": cc, "d": d, "window": window} for cc in VARIANTS for d in durations]

    return [
        SweepPlan("runs", build, points(WINDOW), seeds, tables),
        # Beyond the paper: the same runs without the window limit, where the variants'
        # own window rules decide.
        SweepPlan("large_window", build, points(LARGE_WINDOW), seeds, tables),
    ]


# --- measurements -------------------------------------------------------------------


def per_run(data: StudyData, plan: str = "runs") -> pd.DataFrame:
    """One row per run of a sweep: cc, d, window, seed, total transfer time (s),
    average throughput (Mb/s, payload bits over the transfer time), and the
    disconnection's start and the first transmission after its end (s), from the
    segment trace."""
    return data.derived(f"per_run/{plan}", lambda: _per_run(data, plan))


def _per_run(data: StudyData, plan: str) -> pd.DataFrame:
    table = data.table(plan)
    rows = []
    # Run by run (issue 17: every run's segment trace at once took most of the
    # parent's 619 MB), in the order the runs' rows had in the whole frame.
    for s in data.frames(plan, "segments"):
        if not len(s):
            continue
        run = s["run"].iloc[0]
        summary = table[table["run"] == run].iloc[0]
        total = float(summary["completion_time"])
        out_start, resumed = outage_times(s, float(summary["d"]))
        rows.append(
            {
                "cc": summary["cc"],
                "d": float(summary["d"]),
                "window": int(summary["window"]),
                "seed": int(summary["seed"]),
                "run": run,
                "total_time": total,
                "throughput_mbps": SEGMENTS * SEGMENT_BYTES * 8 / total / 1e6,
                "outage_start": out_start,
                "resumed": resumed,
            }
        )
    import pandas as pd

    return pd.DataFrame(rows)


def outage_times(segments: pd.DataFrame, d: float) -> tuple[float, float]:
    """(start of the disconnection, first transmission at or after its end); the
    disconnection starts at the first transmission of segment 1000."""
    first_seq = (OUTAGE_AT_SEGMENT - 1) * SEGMENT_BYTES
    start = float(segments.loc[segments["seq"] == first_seq, "time"].min())
    after = segments.loc[segments["time"] >= start + d, "time"]
    return start, float(after.min()) if len(after) else float("nan")


def means(data: StudyData) -> pd.DataFrame:
    """Mean over seeds of every run metric, indexed by (cc, d)."""
    return per_run(data).groupby(["cc", "d"])[["total_time", "throughput_mbps", "resumed"]].mean()


def _by_d(data: StudyData, column: str) -> pd.DataFrame:
    """A (d × variant) table of the seed mean of `column`."""
    return means(data)[column].unstack("cc")


def claim_throughput_falls(data: StudyData) -> Measured:
    tp = _by_d(data, "throughput_mbps")
    rises = []
    for cc in tp.columns:
        col = tp[cc].to_numpy()
        for i in range(1, len(col)):
            if col[i] > col[i - 1] * 1.01:
                rises.append(f"{LABELS[cc]} {tp.index[i - 1]:g}→{tp.index[i]:g} s")
    first, last = tp.index[0], tp.index[-1]
    span = "; ".join(
        f"{LABELS[c]} {tp.loc[first, c]:.2f}→{tp.loc[last, c]:.2f}" for c in tp.columns
    )
    text = f"Mb/s at d = {first:g} → {last:g} s: {span}. Rises > 1 %: " + (
        ", ".join(rises) if rises else "none"
    )
    return Measured(text, verdict(not rises), because(lambda: _falls_why(data)))


def _falls_why(data: StudyData) -> str:
    total = _by_d(data, "total_time")["reno"]
    first, last = total.index[0], total.index[-1]
    return (
        f"the throughput is the fixed {SEGMENTS * SEGMENT_BYTES * 8 / 1e6:g} Mb over the "
        f"transfer time, and every second of disconnection adds at least a second to it "
        f"(Reno: {total.iloc[0]:.1f} s at d = {first:g} s, {total.iloc[-1]:.1f} s at "
        f"d = {last:g} s)"
    )


def _slopes(data: StudyData, cc: str) -> tuple[list[float], list[float], tuple[float, ...]]:
    """Per seed, the slope of the total time against d over the two shortest and the
    two longest durations of 1 s or more (seconds of transfer per second of
    disconnection), and those durations."""
    runs = per_run(data)
    r = runs[runs["cc"] == cc].pivot_table(index="seed", columns="d", values="total_time")
    longer = [d for d in r.columns if d >= 1.0]
    if len(longer) < 3:
        raise ValueError("needs at least three durations of 1 s or more")
    d1, d2, d3, d4 = longer[0], longer[1], longer[-2], longer[-1]
    early = ((r[d2] - r[d1]) / (d2 - d1)).tolist()
    late = ((r[d4] - r[d3]) / (d4 - d3)).tolist()
    return early, late, (d1, d2, d3, d4)


def claim_total_time_superlinear(data: StudyData) -> Measured:
    total = _by_d(data, "total_time")
    increasing = bool((total.diff().iloc[1:] > 0).all().all())
    if len(per_run(data)["seed"].unique()) < 2:
        return not_measurable("needs 2 seeds or more for the slopes' intervals",
                              why=because(lambda: _backoff_why(data)))  # fmt: skip
    convex, parts = [], []
    for cc in VARIANTS:
        early, late, (d1, d2, d3, d4) = _slopes(data, cc)
        change = stats.mean_ci([b - a for a, b in zip(early, late, strict=True)])
        convex.append(change.low > 0)
        parts.append(
            f"{LABELS[cc]} {sum(early) / len(early):.2f} → {sum(late) / len(late):.2f} "
            f"(change {change.text('{:+.2f}')})"
        )
    text = (
        f"total time increases with d for every variant: {'yes' if increasing else 'no'}; "
        f"slope of the total time, s per s of disconnection, over {d1:g}–{d2:g} s → over "
        f"{d3:g}–{d4:g} s: " + "; ".join(parts)
    )
    return Measured(text, verdict(increasing and all(convex)), because(lambda: _backoff_why(data)))


def retries(data: StudyData, cc: str, d: float) -> list[float]:
    """Offsets from the disconnection's start of the first seed's retransmissions
    during it, and of its first transmission after it (s)."""
    run = _run_of(data, cc, d)
    s = data.run_frame("runs", "segments", run["run"])
    start, resumed = run["outage_start"], run["resumed"]
    inside = s[(s["time"] > start) & (s["time"] < start + d) & s["retransmission"]]
    return sorted({round(t - start, 3) for t in inside["time"]} | {round(resumed - start, 3)})


def _backoff_why(data: StudyData) -> str:
    d = max(per_run(data)["d"])
    offsets = retries(data, "reno", d)
    reno = _by_d(data, "total_time")["reno"]
    rates = [(reno[x] - reno[0.0]) / x for x in reno.index if x >= 1.0]
    return (
        f"the RTO backoff: Reno's retries during a {d:g} s disconnection come "
        + ", ".join(f"{t:g}" for t in offsets)
        + " s after it began, each gap twice the one before; the link's return waits for "
        f"the next retry, so a second of disconnection costs between 1 and 2 s "
        f"(measured {min(rates):.2f}–{max(rates):.2f} s per s for d ≥ 1 s): linear growth "
        "with a step set by the retries' phase, not exponential"
    )


#: The smallest difference of transfer times cwnd can show: the TCP clock (ns-2's
#: `tcpTick_`, 10 ms) sets every timer.
TIME_RESOLUTION = 0.01


def _times(data: StudyData, cc: str, d: float, plan: str = "runs") -> list[float]:
    runs = per_run(data, plan)
    return [float(t) for t in runs.loc[(runs["cc"] == cc) & (runs["d"] == d), "total_time"]]


def slowest(data: StudyData, d: float, plan: str = "runs") -> tuple[str | None, str]:
    """The variant whose total time at `d` exceeds every other's beyond the spread
    over seeds and the 10 ms clock, or None; and a text with the margin."""
    means = {cc: sum(t) / len(t) for cc in VARIANTS if (t := _times(data, cc, d, plan))}
    order = sorted(means, key=lambda cc: means[cc], reverse=True)
    top, second = order[0], order[1]
    a, b = _times(data, top, d, plan), _times(data, second, d, plan)
    margin = means[top] - means[second]
    if len(a) < 2:
        return None, f"one seed, no margin to judge ({LABELS[top]} {means[top]:.2f} s)"
    if stats.distinct(a, b, TIME_RESOLUTION):
        return top, f"{LABELS[top]} ({means[top]:.2f} s, {margin:+.2f} s over {LABELS[second]})"
    spread = max(means.values()) - min(means.values())
    return None, f"indistinguishable (all within {spread:.3f} s; {LABELS[top]} {means[top]:.2f} s)"


def _window_why(data: StudyData) -> str:
    """Why the variants look alike: the receive window, and what a 1000-segment window
    changes, judged by `slowest`'s own margin (the sensitivity's rule)."""
    runs = data.table("runs")
    no_loss = runs.loc[runs["d"] == 0.0, "segments_retransmitted"].sum() == 0
    lossless = (
        "no variant retransmits anything without a disconnection"
        if no_loss
        else "some variants retransmit even without a disconnection"
    )
    text = (
        f"{lossless}: the {WINDOW}-segment receive window, not the controller, limits "
        "every variant, and after the disconnection all wait on the same RTO backoff"
    )
    if "large_window" not in data.results:
        return text
    big = data.table("large_window")
    steady = big[big["d"] == 0.0].groupby("cc")[["mean_rtt", "drops_queue"]].mean()
    long_d = max(per_run(data, "large_window")["d"])
    slow, margin = slowest(data, long_d, "large_window")
    return (
        f"{text}. With a {LARGE_WINDOW}-segment window (the sensitivity) the window no longer "
        "binds: without a disconnection the mean RTT and queue drops per transfer are "
        + ", ".join(
            f"{LABELS[cc]} {r.mean_rtt * 1e3:.0f} ms, {r.drops_queue:.0f}"
            for cc, r in steady.loc[[cc for cc in VARIANTS if cc in steady.index]].iterrows()
        )
        + " (the loss-based variants fill the access point's queue, Vegas holds it short), "
        "but the 2 Mb/s hop's rate bounds every transfer and the backoff every resumption"
        + (
            f", and at d = {long_d:g} s the slowest is {margin}"
            if slow is not None
            else f": at d = {long_d:g} s, {margin}"
        )
    )


def claim_reno_longest(data: StudyData) -> Measured:
    long_d = sorted(d for d in per_run(data)["d"].unique() if d >= 5.0)
    if not long_d:
        return not_measurable("needs d ≥ 5 s")
    found = {d: slowest(data, d) for d in long_d}
    text = "; ".join(f"d = {d:g} s: slowest {t}" for d, (_, t) in found.items())
    return Measured(text, verdict(all(cc == "reno" for cc, _ in found.values())),
                    because(lambda: _window_why(data)))  # fmt: skip


def claim_vegas_lowest(data: StudyData) -> Measured:
    # The lowest throughput is the longest transfer (throughput = 24 Mb / total time).
    durations = sorted(per_run(data)["d"].unique())
    found = {d: slowest(data, d) for d in durations}
    hits = sum(cc == "vegas" for cc, _ in found.values())
    text = f"Vegas lowest, beyond the seeds' spread and the 10 ms clock, at {hits} of " + (
        f"{len(durations)} durations; " + "; ".join(f"{d:g} s: {t}" for d, (_, t) in found.items())
    )
    return Measured(text, verdict(hits == len(durations)), because(lambda: _window_why(data)))


def _resume_ratio(data: StudyData, cc: str, d: float) -> float:
    runs = per_run(data)
    r = runs[(runs["cc"] == cc) & (runs["d"] == d)]
    return float(((r["resumed"] - r["outage_start"]) / d).mean())


def claim_reno_resumes_after_twice(data: StudyData) -> Measured:
    d = 20.0
    ratio = _resume_ratio(data, "reno", d)
    text = (
        f"Reno's first transmission after a {d:g} s disconnection comes "
        f"{ratio * d:.1f} s after it began: {ratio:.2f} × d"
    )
    return Measured(text, verdict(1.7 <= ratio <= 2.0), because(lambda: _resume_why(data, d)))


def _resume_why(data: StudyData, d: float) -> str:
    offsets = retries(data, "reno", d)
    before = [t for t in offsets if t < d]
    return (
        f"the first transmission after the link returns is the next backed-off retry: "
        f"in seed 1, Reno's last retry inside the disconnection comes at {before[-1]:g} s and the "
        f"next at {offsets[-1]:g} s (retries at RTO·(2^k − 1) from an RTO of "
        f"{offsets[0]:g} s); “almost twice” needs the last retry just before d, which "
        "depends on the RTO before the disconnection, not on the variant"
        if before
        else "no retransmission during the disconnection"
    )


def claim_cwnd_one(data: StudyData) -> Measured:
    runs = per_run(data)
    r = runs[(runs["cc"] == "reno") & (runs["d"] == 5.0)]
    if not len(r):
        return not_measurable("needs Reno at d = 5 s")
    minima = []
    for _, run in r.iterrows():
        s = data.run_frame("runs", "series", run["run"])
        inside = s[(s["time"] >= run["outage_start"]) & (s["time"] <= run["outage_start"] + 5.0)]
        minima.append(float(inside["cwnd"].min()))
    text = "smallest cwnd during the 5 s disconnection (Reno, each seed): " + ", ".join(
        f"{m:g}" for m in minima
    )
    return Measured(text, verdict(all(m == 1.0 for m in minima)),
                    because(lambda: _cwnd_one_why(data, r["run"].tolist())))  # fmt: skip


def _cwnd_one_why(data: StudyData, runs: list[str]) -> str:
    table = data.table("runs")
    timeouts = int(table.loc[table["run"].isin(runs), "timeouts"].min())
    return (
        f"the disconnection loses every segment and ACK, so the retransmission timer "
        f"expires (at least {timeouts} times per run) and RFC 5681 sets cwnd to the loss "
        "window of 1 segment; slow start follows when ACKs return"
    )


def _resumes(data: StudyData, cc: str, d: float) -> list[float]:
    runs = per_run(data)
    r = runs[(runs["cc"] == cc) & (runs["d"] == d)]
    return [float(t) for t in r["resumed"] - r["outage_start"]]


def claim_interruption_order(data: StudyData) -> Measured:
    d = 20.0
    shown = ("vegas", "westwood", "reno")
    ratio = {cc: _resume_ratio(data, cc, d) for cc in shown}
    pairs = list(itertools.pairwise(shown))
    apart = {
        (a, b): stats.distinct(_resumes(data, a, d), _resumes(data, b, d), TIME_RESOLUTION)
        if len(_resumes(data, a, d)) > 1
        else ratio[a] != ratio[b]
        for a, b in pairs
    }
    text = "first transmission after a 20 s disconnection, × d: " + ", ".join(
        f"{LABELS[cc]} {v:.2f}" for cc, v in ratio.items()
    )
    ties = [
        f"{LABELS[a]} and {LABELS[b]} indistinguishable" for (a, b), x in apart.items() if not x
    ]
    if ties:
        text += "; " + ", ".join(ties)
    ordered = ratio["vegas"] < ratio["westwood"] < ratio["reno"] and all(apart.values())
    return Measured(text, verdict(ordered), because(lambda: _order_why(data, shown, d)))


def _order_why(data: StudyData, shown: tuple[str, ...], d: float) -> str:
    return (
        "each variant resumes at its next backed-off retry (seed 1): "
        + "; ".join(
            f"{LABELS[cc]} retries at " + ", ".join(f"{t:g}" for t in retries(data, cc, d)) + " s"
            for cc in shown
        )
        + ", a schedule set by the RTO each had before the disconnection"
    )


CLAIMS = [
    Claim(
        "1",
        "el throughput promedio disminuye a medida que el tiempo de desconexion aumenta",
        "§3, Fig. 4",
        "mean throughput over seeds never rises by more than 1 % from one d to the next, "
        "for every variant",
        claim_throughput_falls,
        english="average throughput falls as the disconnection time grows",
    ),
    Claim(
        "2",
        "a medida que el tiempo de desconexion crece, el tiempo necesario para trasmitir "
        "todos los datos también lo hace, de una forma exponencial",
        "§3, Fig. 5",
        "total time increases with d for every variant, and its slope against d over the "
        "two longest durations exceeds the slope over the two shortest ≥ 1 s, for every "
        "variant, with the 95 % interval of the change (over seeds) above 0 (faster than "
        "linear)",
        claim_total_time_superlinear,
        english="as the disconnection grows, the time to send all the data grows too, "
        "exponentially",
    ),
    Claim(
        "3",
        "siendo la variante de TCP Reno la que mas tiempo necesita para concluir la "
        "transmision de los datos",
        "§3, Fig. 5; §5",
        "Reno has the longest mean total time at every d ≥ 5 s, by more than the 95 % "
        "interval of the difference over seeds and the 10 ms TCP clock (else "
        "“indistinguishable”)",
        claim_reno_longest,
        english="Reno needs the longest time to finish the transfer",
    ),
    Claim(
        "4",
        "Si bien la desconexion es de 20 segundos, TCP Reno demora casi el doble de ese "
        "tiempo en retomar el envio",
        "§3, Fig. 8",
        "Reno's first transmission after the link returns comes 1.7 to 2.0 × d after the "
        "disconnection began (d = 20 s, mean over seeds)",
        claim_reno_resumes_after_twice,
        english="although the disconnection lasts 20 s, Reno takes almost twice that to "
        "resume sending",
    ),
    Claim(
        "5",
        "reduciendo el valor de la ventana a 1 durante la desconexion y disparando el "
        "algoritmo de Slow Start",
        "§3, Fig. 3",
        "Reno's cwnd reaches exactly 1 segment during the 5 s disconnection, every seed",
        claim_cwnd_one,
        english="the window drops to 1 during the disconnection and slow start begins",
    ),
    Claim(
        "6",
        "TCP Vegas es de las variantes ensayadas, la que presenta el menor valor de "
        "throughput promedio en todos los casos",
        "§3, Fig. 4",
        "Vegas has the lowest mean throughput (longest transfer) at every d, by more than "
        "the 95 % interval of the difference over seeds and the 10 ms TCP clock (else "
        "“indistinguishable”)",
        claim_vegas_lowest,
        english="Vegas has the lowest average throughput in every case",
    ),
    Claim(
        "7",
        "la interrupcion del envio de datos afecta en menor medida al protocolo Vegas y en "
        "mayor medida al protocolo Reno, y la variante Westwood, es la que presenta una "
        "respuesta intermedia",
        "§3, Figs. 6–8",
        "after a 20 s disconnection, the first transmission comes soonest for Vegas, then "
        "Westwood, then Reno, each step beyond the 95 % interval over seeds",
        claim_interruption_order,
        english="the interruption affects Vegas least and Reno most, Westwood in between",
    ),
]


# --- figures ------------------------------------------------------------------------


def _run_of(data: StudyData, cc: str, d: float) -> pd.Series:
    """The first seed's run of (cc, d), from the per-run table."""
    runs = per_run(data)
    r = runs[(runs["cc"] == cc) & (runs["d"] == d)].sort_values("seed")
    if not len(r):
        raise KeyError(f"no run for {cc} at d = {d:g} s")
    return r.iloc[0]


def _shade(ax: Any, run: pd.Series, d: float, label: bool = True) -> None:
    ax.axvspan(
        run["outage_start"],
        run["outage_start"] + d,
        color="0.85",
        lw=0,
        zorder=0,
        label=f"disconnection ({d:g} s)" if label else None,
    )


def figure_reno_throughput(data: StudyData, path: Path) -> None:
    run = _run_of(data, "reno", 5.0)
    t = data.run_frame("runs", "throughput", run["run"])
    t = t[t["time"] <= run["total_time"] + 1]
    # The legend under the axes: the trace fills the width, up and down.
    with panels(path.with_suffix(".png"), svg=True, legend_below=True) as (_, axes):
        ax = axes[0, 0]
        _shade(ax, run, 5.0)
        ax.step(
            t["time"],
            t["goodput_bps"] / 1e6,
            where="post",
            color=colors(1)[0],
            label="Reno goodput (250 ms bins)",
        )
        ax.set(
            xlabel="time (s)",
            ylabel="throughput (Mb/s)",
            ylim=(0, None),
            xlim=(0, None),
            title=f"Reno, 5 s disconnection (seed {run['seed']})",
        )


def figure_reno_cwnd(data: StudyData, path: Path) -> None:
    run = _run_of(data, "reno", 5.0)
    s = data.run_frame("runs", "series", run["run"])
    with panels(path.with_suffix(".png"), svg=True, legend_below=True) as (_, axes):
        ax = axes[0, 0]
        _shade(ax, run, 5.0)
        ax.step(s["time"], s["cwnd"], where="post", color=colors(1)[0], label="cwnd")
        ax.step(
            s["time"], s["ssthresh"], where="post", color=colors(2)[1], ls="--", label="ssthresh"
        )
        ax.set(
            xlabel="time (s)",
            ylabel="window (segments)",
            ylim=(0, None),
            xlim=(0, None),
            title=f"Reno, 5 s disconnection (seed {run['seed']})",
        )


def _versus_d(
    data: StudyData,
    path: Path,
    column: str,
    ylabel: str,
    title: str,
    plan: str = "runs",
    linear: bool = False,
) -> None:
    runs = per_run(data, plan)
    bars = stats.error_bars(runs, ["cc", "d"], column)
    with panels(path.with_suffix(".png"), svg=True) as (_, axes):
        ax = axes[0, 0]
        for cc, color in zip(VARIANTS, colors(len(VARIANTS)), strict=True):
            s = bars.loc[cc]
            # A symlog axis shows d = 0 beside the sub-second durations.
            ax.errorbar(
                s.index,
                s["mean"],
                yerr=spread(s["mean"], s["low"], s["high"]),
                marker="o",
                ms=3,
                capsize=2,
                color=color,
                label=LABELS[cc],
            )
        if not linear:
            ax.set_xscale("symlog", linthresh=0.05)
            ticks = sorted(runs["d"].unique())
            ax.set_xticks(ticks, [f"{d:g}" for d in ticks])
        ax.set(xlabel="disconnection d (s)", ylabel=ylabel, title=title)
        ax.set_ylim(bottom=0)
        ax.legend(title=stats.error_bar_note(bars["n"]), ncols=2)


def figure_throughput_vs_d(data: StudyData, path: Path) -> None:
    _versus_d(
        data,
        path,
        "throughput_mbps",
        "average throughput (Mb/s)",
        "Average throughput vs disconnection",
    )


def figure_time_vs_d(data: StudyData, path: Path) -> None:
    _versus_d(
        data,
        path,
        "total_time",
        "total transfer time (s)",
        "Time to send 3000 segments vs disconnection",
    )


def figure_time_vs_d_linear(data: StudyData, path: Path) -> None:
    _versus_d(data, path, "total_time", "total transfer time (s)",
              "Time to send 3000 segments vs disconnection, linear axis", linear=True)  # fmt: skip


def figure_time_vs_d_large_window(data: StudyData, path: Path) -> None:
    _versus_d(data, path, "total_time", "total transfer time (s)",
              f"Time to send 3000 segments, {LARGE_WINDOW}-segment window (beyond the paper)",
              plan="large_window")  # fmt: skip


def figure_sequence_d20(data: StudyData, path: Path) -> None:
    shown = ["westwood", "vegas", "reno"]
    size = (6.4, 7.2)
    with panels(path.with_suffix(".png"), 3, 1, size=size, sharex=True, svg=True,
                legend_below=True) as (_, axes):  # fmt: skip
        for i, (ax, cc) in enumerate(zip(axes[:, 0], shown, strict=True)):
            run = _run_of(data, cc, 20.0)
            s = data.run_frame("runs", "segments", run["run"])
            number = s["seq"].to_numpy() // SEGMENT_BYTES + 1
            retx = s["retransmission"].to_numpy()
            # Labels starting with "_" stay out of the legend: one legend, below.
            hide = "" if i == 0 else "_"
            _shade(ax, run, 20.0, label=i == 0)
            ax.plot(
                s["time"][~retx], number[~retx], ".", ms=1, color=colors(1)[0], label=f"{hide}sent"
            )
            ax.plot(
                s["time"][retx],
                number[retx],
                "x",
                ms=3,
                color="black",
                label=f"{hide}retransmitted",
            )
            ax.axvline(run["resumed"], color="C3", lw=0.8, label=f"{hide}first transmission after")
            ax.set(ylabel="segment number", title=f"{LABELS[cc]}, 20 s disconnection")
            ax.set_ylim(0, SEGMENTS * 1.05)
        axes[-1, 0].set_xlabel("time (s)")
        axes[-1, 0].set_xlim(left=0)


FIGURES = [
    FigureSpec(
        "throughput_reno_d5",
        "Throughput vs time, Reno, 5 s disconnection (paper Fig. 2)",
        figure_reno_throughput,
    ),
    FigureSpec(
        "cwnd_reno_d5", "cwnd vs time, Reno, 5 s disconnection (paper Fig. 3)", figure_reno_cwnd
    ),
    FigureSpec(
        "throughput_vs_d",
        "Average throughput vs disconnection time (paper Fig. 4)",
        figure_throughput_vs_d,
    ),
    FigureSpec(
        "time_vs_d", "Total transfer time vs disconnection time (paper Fig. 5)", figure_time_vs_d
    ),
    FigureSpec(
        "time_vs_d_linear",
        "Total transfer time vs disconnection time on a linear axis: a straight line is "
        "linear growth, an upward bend faster than linear (claim 2)",
        figure_time_vs_d_linear,
    ),
    FigureSpec(
        "time_vs_d_large_window",
        "Total transfer time vs disconnection time with a window that never limits (beyond "
        "the paper: ns-2's 20-segment default makes the variants alike)",
        figure_time_vs_d_large_window,
    ),
    FigureSpec(
        "sequence_d20",
        "Segment number vs time for Westwood, Vegas and Reno, 20 s disconnection (paper Figs. 6–8)",
        figure_sequence_d20,
    ),
]


SENSITIVITY = [
    Sensitivity(
        "receive window (the paper is silent; ns-2's default window_ is 20 segments)",
        ("3", "4", "6", "7"),
        [(f"{WINDOW} segments (the study's)", {}),
         (f"{LARGE_WINDOW} segments", {"runs": "large_window"})],
    ),
]  # fmt: skip


STUDY = Study(
    name="outage",
    title="outage: TCP variants and disconnections of a mobile host",
    citation="“Análisis de desempeño de variantes de TCP ante desconexiones del host móvil en "
    "redes heterogéneas” (simulated with ns-2.35; the text we have begins at the abstract and "
    "names neither its authors nor its venue).",
    seed_file="000_92e1d0a80ff4e023.txt",
    summary="One TCP flow sends 3000 segments of 1000 B from a fixed host to a mobile host "
    "behind a 2 Mb/s 802.11 hop; the hop goes dark for d seconds when segment 1000 is sent.",
    parameters=PARAMETERS,
    sweeps=sweeps,
    figures=FIGURES,
    claims=CLAIMS,
    tables=[
        TableSpec("transfers", lambda data: per_run(data)),
        TableSpec("transfers_large_window", lambda data: per_run(data, "large_window")),
    ],
    sensitivity=SENSITIVITY,
)
