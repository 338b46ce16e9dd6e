"""Study 4, `arq`: Reno, Vegas and Veno over a reliable 802.11b link.

The paper (Pavilanskas, ns-2): two 802.11b nodes at 11 Mb/s, one FTP bulk transfer of
1494-byte segments with a 45-segment window, Vegas and Veno with α = 1, β = 3. Two
impairments act on the TCP packets: random loss with probability p, and random long
delays from the link layer's retransmissions — a fraction Pv of the packets is late by
an exponentially distributed time of mean D (0.5, 1 or 2 s). Each run lasts 3 h; p
changes every 1000 s and, within each p, Pv takes 100 values, one every 10 s; the
throughput of each 10 s cell is one point of the paper's (p, Pv) surfaces.

cwnd follows that design: one run per (variant, D, seed) with p and Pv on schedules,
and the goodput and mean cwnd of every 10 s cell. Choices where the paper is silent
(each also in `PARAMETERS`):
- p levels 0, 10⁻⁴, 3·10⁻⁴, 10⁻³, 3·10⁻³, 10⁻², 2·10⁻², 3·10⁻², 4·10⁻², 6·10⁻², 10⁻¹
  (covering the claims' 10⁻², 3·10⁻², 6·10⁻²): 11 levels × 1000 s = 11 000 s, the
  paper's "3 h" rounded up to whole levels. Pv = 0 %, 1 %, …, 99 %, up within one p
  level and down within the next (the paper does not give the order; a serpentine keeps
  every cell next to a similar one, see below).
- Loss and delay act above the 802.11 MAC, on the data packets, as the paper's "random
  packet loss" and "random long delay" seen by TCP: a zero-delay 1 Gb/s link in front of
  the access point carries the two stages (Bernoulli with a schedule; the ARQ-delay
  stage with a Pv schedule). A delayed packet does not hold back the packets behind it
  (out of order): "only the random TCP packets will be delayed" — with head-of-line
  blocking a Pv of 30 % at D = 2 s would leave almost nothing to measure, unlike the
  paper's figures. The 802.11b hop itself is the DCF at 11 Mb/s without frame errors,
  with ns-2's MAC defaults (RTS/CTS before every frame).
- ns-2.35's TCP defaults (`ns2.ns2_tcp`), with the paper's window of 45 segments:
  RTO 200 ms minimum, 3 s initial, 60 s maximum; no delayed ACKs, no SACK. Every
  variant recovers as Reno (`ns2.RECOVERY`): the paper's Veno "modifies only the
  sender-side protocol of Reno", and with NewReno for Veno and Vegas (cwnd's default
  for them) the comparison would be between recoveries (Veno +16 % over Reno at
  p = 3·10⁻² with NewReno, +1 % with Reno's recovery).
- Each cell follows the previous one without a pause, as in the paper, so its first
  seconds carry what the previous cell left (late packets, a backed-off timer). With Pv
  rising from 0 to 99 % at every level, the Pv = 0 cell of a level would follow the
  99 % cell of the one before and measure mostly that transient (Reno at p = 10⁻²:
  −24 % instead of −8 %); the serpentine avoids it. The surfaces are averaged over 10
  seeds.
- The claims that quote one cell (3, 5, 7; and 1, 8) are read from dedicated steady
  runs as well: 300 s at that (p, Pv), 10 seeds, the verdict from the 95 % interval of
  the per-seed ratio (inside the rule's band: agree; wholly outside: disagree; across
  its edge: not measurable). A single 10 s cell per seed swung by 5–40 % with the seeds
  and with the previous cell; the cells' value is still shown beside.
The paper's conclusions 3 and 4 contradict each other about Veno under 2 s delays at
Pv ≥ 30 %; claim 7 tests the figure-backed reading (Reno ahead by 65 %).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cwnd import stats
from cwnd.plot import colors, panels
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
    interval_verdict,
    verdict,
)
from cwnd.sweep import Point

if TYPE_CHECKING:
    import pandas as pd

CELL_SECONDS = 10
MSS = 1494
WINDOW = 45
P_LEVELS = [0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 2e-2, 3e-2, 4e-2, 6e-2, 1e-1]
PV_LEVELS = [k / 100 for k in range(100)]
QUICK_P_LEVELS = [0.0, 1e-2, 3e-2, 6e-2]
QUICK_PV_LEVELS = [0.0, 0.1, 0.2, 0.3, 0.5]
DELAYS = [0.5, 1.0, 2.0]
VARIANTS = ["reno", "veno", "vegas"]
LABELS = {"reno": "Reno", "veno": "Veno", "vegas": "Vegas"}
CC: dict[str, Controller] = {"vegas": VEGAS_NS2, "veno": {"name": "veno", "beta": 3}}
SEEDS = list(range(1, 11))
QUICK_SEEDS = [1]
#: Dedicated runs at one (p, Pv) for the rules read from single cells: long enough for
#: a few hundred losses or late packets, and 10 seeds for an interval (3 in --quick).
STEADY_SECONDS = 300
QUICK_STEADY_SECONDS = 60
QUICK_STEADY_SEEDS = [1, 2, 3]
#: (cc, D, p, Pv) of the steady runs: claims 1, 3, 5, 7 and 8.
STEADY_POINTS = [
    ("reno", 2.0, 0.0, 0.0), ("reno", 2.0, 1e-2, 0.0), ("veno", 2.0, 1e-2, 0.0),
    ("reno", 2.0, 3e-2, 0.0), ("veno", 2.0, 3e-2, 0.0), ("reno", 2.0, 0.0, 0.1),
    ("reno", 2.0, 0.0, 0.3), ("veno", 2.0, 0.0, 0.3),
]  # fmt: skip
#: How Vegas and Veno repair losses without delays (claim 9's why): steady runs at the
#: paper's random-loss levels, Pv = 0, counting fast retransmits and timer expiries.
REPAIR_POINTS = [(cc, 2.0, p, 0.0) for cc in ("vegas", "veno") for p in (1e-2, 3e-2, 6e-2)]
#: Veno's window cuts, counted from a series sampled at every change of the sender's
#: state (hundreds of thousands of rows per run, hence shorter runs and 3 seeds).
CUT_POINTS = [("veno", 2.0, 1e-2, 0.0), ("veno", 2.0, 3e-2, 0.0), ("veno", 1.0, 0.0, 0.1)]
CUT_SECONDS = 100
CUT_SEEDS = [1, 2, 3]
#: The bursty reading of the paper's "exponential random loss models" (ns-2's
#: `ErrorModel/Expo`, two states with exponential sojourns): cwnd's Gilbert–Elliott
#: stage, every packet lost in the bad state, none in the good one. It steps per packet,
#: so its sojourns are geometric in packets, exponential in time only at a steady packet
#: rate; the paper gives no burst length: a mean burst of 2 packets (P(bad→good) 0.5).
BURST_EXIT = 0.5
#: The paper's simulation sets a "TCP system delay of 0 ms"; its measurement campaign
#: saw an RTT of at least 128 ms. This one-way delay on the wired side gives it.
CAMPAIGN_ONE_WAY = "64ms"
#: Other readings of what the paper left open (the sensitivity section), each with the
#: steady points its claims read; 5 seeds each (3 in --quick).
READINGS = {
    "newreno": [pt for pt in STEADY_POINTS if pt[3] == 0 and pt[2] > 0],  # claims 3, 8
    "rtt128": STEADY_POINTS,  # claims 1, 3, 5, 7, 8
    "bursty": [pt for pt in STEADY_POINTS if pt[3] == 0],  # claims 1, 3, 8
    "keep_ssthresh": [pt for pt in STEADY_POINTS if pt[2] == 0],  # claims 5, 7
}
READING_SEEDS = [1, 2, 3, 4, 5]
SAWTOOTH_SEEDS = [1, 2, 3]

PARAMETERS = [
    ("topology", "server —ideal link with the two stages— AP ~802.11b 11 Mb/s~ station",
     "paper Fig. 3; stages above the MAC (see the module)"),
    ("traffic", "one FTP bulk flow, 1494 B segments, window 45 segments", "paper"),
    ("variants", "Reno, Veno (β 3), Vegas (α 1, β 3)", "paper"),
    ("p", "0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 2e-2, 3e-2, 4e-2, 6e-2, 0.1; 1000 s each",
     "paper: p changes every 1000 s; levels chosen to cover the claims"),
    ("Pv", "0 %, 1 %, …, 99 %; 10 s each; up within a p level, down within the next",
     "paper: 100 values, one every 10 s; order chosen"),
    ("D", "exponential, mean 0.5, 1 or 2 s; delayed packets overtaken (out of order)",
     "paper; ordering chosen (see the module)"),
    ("duration", "11 000 s per run (11 levels × 1000 s)", "paper: 3 h"),
    ("TCP", "IW 2, RTO 3 s initial, 200 ms min, 60 s max, 10 ms tick, no delayed ACKs; "
     "ssthresh 2 on a repeated timeout",
     "ns-2.35 defaults (paper silent)"),
    ("recovery", ", ".join(f"{LABELS[cc]}: {RECOVERY[cc]}" for cc in VARIANTS),
     "ns-2's agents: Veno is “Reno modified on the sender” (paper); the same recovery "
     "for all, so that the controllers are compared, not the recoveries"),
    ("802.11", "DCF, 11 Mb/s data, 1 Mb/s ACKs, long preamble, IFQ 50, RTS/CTS, no errors",
     "ns-2's Mac/802_11 defaults"),
    ("seeds", "10 per (variant, D) (1 in --quick, with 4 p × 5 Pv levels)",
     "averages the 10 s cells"),
    ("steady runs", "300 s at one (p, Pv), 10 seeds (60 s, 3 seeds in --quick); Veno's "
     "cuts from 100 s runs, 3 seeds, sampled at every state change",
     "claims 1, 3, 5, 7, 8 with 95 % intervals; why of 3, 6, 8"),
]  # fmt: skip


def build(
    point: Point, p_levels: list[float], pv_levels: list[float], cell: int = CELL_SECONDS
) -> dict[str, Any]:
    """The scenario of one run: `cc` and `D` (seconds) from the point; p steps every
    len(pv_levels) cells of `cell` seconds and Pv every cell."""
    cc: str = point["cc"]
    mean_delay = float(point["D"])
    level = len(pv_levels) * cell
    p_schedule = [[f"{i * level}s", p] for i, p in enumerate(p_levels)]
    pv_schedule = [
        [f"{i * level + k * cell}s", pv]
        for i in range(len(p_levels))
        for k, pv in enumerate(pv_order(pv_levels, i, point.get("order", "serpentine")))
    ]
    stages = [
        {"kind": "bernoulli", "schedule": p_schedule, "direction": "forward",
         "applies_to": "data"},
        {"kind": "arq", "pv_schedule": pv_schedule, "in_order": False, "direction": "forward",
         "applies_to": "data",
         "delay": {"distribution": "exponential", "mean": f"{mean_delay}s"}},
    ]  # fmt: skip
    return {
        "name": f"arq_{cc}_D{mean_delay:g}s",
        "duration": f"{len(p_levels) * level}s",
        "links": [
            {
                "name": "reliable_mac",
                "between": ["server", "ap"],
                "bandwidth": "1Gbps",
                "delay": "0s",
                "queue": {"packets": 1000},
                "impairments": stages,
            }
        ],
        "wireless": [ns2_wireless("wlan", ["ap", "station"], "11Mbps")],
        "flows": [
            {
                "name": "ftp",
                "from": "server",
                "to": "station",
                **ns2_flow(CC.get(cc, cc)),
                "tcp": ns2_tcp(MSS, WINDOW),
            }
        ],
        "trace": {
            "sampling": "interval",
            "interval": "500ms",
            "throughput_bin": f"{CELL_SECONDS}s",
        },
    }


def build_steady(
    point: Point, seconds: int, every_change: bool = False, reading: str | None = None
) -> dict[str, Any]:
    """A dedicated run of `seconds` at one (p, Pv): `cc`, `D`, `p`, `pv`; with
    `every_change` its series has a row at every change of the sender's state, to see
    each window cut, else none. `reading` (one of READINGS) changes one choice:
    cwnd's default recovery for the controller (NewReno for Veno and Vegas), the
    campaign's 128 ms RTT, bursty loss, or RFC 5681's ssthresh on repeated timeouts."""
    p = float(point["p"])
    spec = build(point, [p], [float(point["pv"])], cell=seconds)
    spec["name"] = f"arq_steady_{point['cc']}_D{point['D']:g}s_p{p:g}_pv{point['pv']:g}"
    spec["trace"] = {"sampling": "change"} if every_change else {}
    flow, link = spec["flows"][0], spec["links"][0]
    if reading == "newreno":
        del flow["recovery"]
    elif reading == "rtt128":
        link["delay"] = CAMPAIGN_ONE_WAY
    elif reading == "bursty":
        # Loss rate p_gb/(p_gb + p_bg) = p.
        link["impairments"][0] = {
            "kind": "gilbert_elliott", "p_gb": p * BURST_EXIT / (1 - p), "p_bg": BURST_EXIT,
            "direction": "forward", "applies_to": "data",
        }  # fmt: skip
    elif reading == "keep_ssthresh":
        flow["tcp"]["ssthresh_on_repeated_timeout"] = "keep"
    elif reading is not None:
        raise ValueError(f"reading: {reading!r} is not one of {list(READINGS)}")
    return spec


def pv_order(pv_levels: list[float], level: int, order: str = "serpentine") -> list[float]:
    """The Pv values in the order p level `level` takes them: up, then down at the
    next level (a serpentine), so that no cell follows a very different one; or up at
    every level (the paper's literal "sawtooth", where the Pv = 0 cell follows 99 %)."""
    if order == "sawtooth" or level % 2 == 0:
        return pv_levels
    return pv_levels[::-1]


def levels(quick: bool) -> tuple[list[float], list[float]]:
    return (QUICK_P_LEVELS, QUICK_PV_LEVELS) if quick else (P_LEVELS, PV_LEVELS)


def sweeps(quick: bool) -> list[SweepPlan]:
    p_levels, pv_levels = levels(quick)
    points = [{"cc": cc, "D": d} for cc in VARIANTS for d in DELAYS]
    seconds = QUICK_STEADY_SECONDS if quick else STEADY_SECONDS
    steady = [{"cc": cc, "D": d, "p": p, "pv": pv} for cc, d, p, pv in STEADY_POINTS]
    cut = [{"cc": cc, "D": d, "p": p, "pv": pv} for cc, d, p, pv in CUT_POINTS]
    cut_seconds = seconds // 5 if quick else CUT_SECONDS
    return [
        SweepPlan(
            "runs",
            partial(build, p_levels=p_levels, pv_levels=pv_levels),
            points,
            QUICK_SEEDS if quick else SEEDS,
            tables=("series", "throughput"),
        ),
        # The paper's literal order (Pv rising at every p level), D = 2 s, 3 seeds: the
        # cells' claims along the order (sensitivity).
        SweepPlan(
            "runs_sawtooth",
            partial(build, p_levels=p_levels, pv_levels=pv_levels),
            [{"cc": cc, "D": 2.0, "order": "sawtooth"} for cc in VARIANTS],
            QUICK_SEEDS if quick else SAWTOOTH_SEEDS,
            tables=("series", "throughput"),
        ),
        SweepPlan(
            "steady",
            partial(build_steady, seconds=seconds),
            steady,
            QUICK_STEADY_SEEDS if quick else SEEDS,
        ),
        *[
            SweepPlan(
                f"steady_{reading}",
                partial(build_steady, seconds=seconds, reading=reading),
                [{"cc": cc, "D": d, "p": p, "pv": pv} for cc, d, p, pv in points],
                QUICK_STEADY_SEEDS if quick else READING_SEEDS,
            )
            for reading, points in READINGS.items()
        ],
        SweepPlan(
            "repairs",
            partial(build_steady, seconds=seconds),
            [{"cc": cc, "D": d, "p": p, "pv": pv} for cc, d, p, pv in REPAIR_POINTS],
            QUICK_STEADY_SEEDS if quick else SEEDS,
        ),
        SweepPlan(
            "veno_cuts",
            partial(build_steady, seconds=cut_seconds, every_change=True),
            cut,
            CUT_SEEDS,
            tables=("series",),
        ),
    ]


# --- measurements -------------------------------------------------------------------


def cells(data: StudyData) -> pd.DataFrame:
    """Mean over seeds of each 10 s cell: columns cc, D, p, pv, goodput_mbps, cwnd."""
    return data.derived("cells", lambda: _cells(data))


def _cells(data: StudyData) -> pd.DataFrame:
    import pandas as pd

    p_levels, pv_levels = levels(data.quick)
    per_level = len(pv_levels)

    # The Pv of every cell, in time order.
    table = data.table("runs")
    order = str(table["order"].iloc[0]) if "order" in table else "serpentine"
    pv_of_cell = np.concatenate([pv_order(pv_levels, i, order) for i in range(len(p_levels))])

    def locate(frame: pd.DataFrame) -> pd.DataFrame:
        cell = (frame["time"].to_numpy() // CELL_SECONDS).astype(int)
        frame = frame.assign(cell=cell)
        frame = frame[frame["cell"] < len(pv_of_cell)]
        return frame.assign(
            p=np.asarray(p_levels)[frame["cell"] // per_level],
            pv=pv_of_cell[frame["cell"]],
        )

    keys = ["cc", "D", "seed", "cell", "p", "pv"]

    def per_cell(table: str, column: str) -> pd.Series:
        """The mean of `column` in each run's cells, run by run: a cell lies in one run
        (keys hold the run's cc, D and seed), so this is the mean over the whole sweep
        without holding its rows at once (issue 17)."""
        means = [locate(f).groupby(keys)[column].mean() for f in data.frames("runs", table)]
        return pd.concat(means).sort_index()

    goodput = per_cell("throughput", "goodput_bps") / 1e6
    cwnd = per_cell("series", "cwnd")
    per_seed = goodput.to_frame("goodput_mbps").join(cwnd).reset_index()
    return per_seed.groupby(["cc", "D", "p", "pv"], as_index=False)[["goodput_mbps", "cwnd"]].mean()


def goodput(data: StudyData, cc: str, p: float, pv: float, d: float | None = None) -> float:
    """Mean goodput (Mb/s) of a cell; over every D when `d` is None (when Pv = 0 the
    delay never acts, so every run measures the cell)."""
    c = cells(data)
    sel = (c["cc"] == cc) & np.isclose(c["p"], p) & np.isclose(c["pv"], pv)
    if d is not None:
        sel &= c["D"] == d
    values = c.loc[sel, "goodput_mbps"]
    if not len(values):
        raise KeyError(f"no cell {cc} p={p:g} Pv={pv:g}" + (f" D={d:g} s" if d else ""))
    return float(values.mean())


def _drop(before: float, after: float) -> float:
    return 1 - after / before


def steady(
    data: StudyData, cc: str, d: float, p: float, pv: float, plan: str = "steady"
) -> pd.DataFrame:
    """The steady runs of one (cc, D, p, Pv), one row per seed, by seed."""
    t = data.table(plan)
    sel = (t["cc"] == cc) & (t["D"] == d) & np.isclose(t["p"], p) & np.isclose(t["pv"], pv)
    if not sel.any():
        raise KeyError(f"no steady run {cc} D={d:g} p={p:g} Pv={pv:g}")
    return t[sel].set_index("seed").sort_index()


def steady_goodput(data: StudyData, cc: str, d: float, p: float, pv: float) -> pd.Series:
    """Goodput (Mb/s) of each seed's steady run."""
    return steady(data, cc, d, p, pv)["goodput_bps"] / 1e6


def paired_ratio(a: pd.Series, b: pd.Series) -> stats.Interval:
    """a/b − 1 per seed (the same seed's runs share their loss draws' streams) and the
    interval of its mean."""
    return stats.mean_ci((a / b - 1).dropna().tolist())


def cuts(data: StudyData, cc: str, d: float, p: float, pv: float) -> tuple[int, int, int]:
    """(cuts to 4/5, cuts to 1/2, ambiguous) of the window on fast retransmit in the
    steady runs of a point, from the change-sampled series: a row where ssthresh changes
    and cwnd is not 1 (a timeout) is a cut, ssthresh/cwnd before it ≥ 0.65 a 4/5 cut;
    with cwnd below 4 the two rules can give the same integer, so it is ambiguous."""
    runs = steady(data, cc, d, p, pv, "veno_cuts")["run"].tolist()
    series = data.frame("veno_cuts", "series")
    fifth = half = ambiguous = 0
    for _, s in series[series["run"].isin(runs)].groupby("run"):
        before = s["cwnd"].shift()
        changed = (s["ssthresh"] != s["ssthresh"].shift()) & (s["cwnd"] > 1) & before.notna()
        ratio = s["ssthresh"][changed] / before[changed]
        small = before[changed] < 4
        fifth += int(((ratio >= 0.65) & ~small).sum())
        half += int(((ratio < 0.65) & ~small).sum())
        ambiguous += int(small.sum())
    return fifth, half, ambiguous


#: A 10 s cell that carried less than a segment per second (1494 B × 8 = 11.95 kb/s)
#: measured a stall, not a rate: no ratio is taken against it.
STALL_BPS = MSS * 8


#: A 10 s cell of the surface, D = 2 s: variant, p, Pv and its goodput (Mb/s).
Cell = tuple[str, float, float, float]


def cells_change(data: StudyData, new: Cell, old: Cell) -> str:
    """`new`'s goodput over `old`'s − 1, or, where either cell carried less than
    `STALL_BPS`, why there is no ratio: the stalled variant's timer as it entered the
    cell (in the paper's sawtooth order the Pv = 0 cell of a level follows its 99 %
    cell)."""
    stalled = [cell for cell in (old, new) if cell[3] * 1e6 < STALL_BPS]
    if not stalled:
        return f"{new[3] / old[3] - 1:+.0%}"
    cc, p, pv, g = stalled[0]
    note = because(
        lambda: f"it entered the cell with an RTO of {rto_entering(data, cc, p, pv):.1f} s"
    )
    return (
        f"no ratio: {LABELS[cc]}'s cell carried {g * 1e3:.1f} kb/s, under a segment per second, "
        f"a stall that the cell before left: {note}"
    )


def rto_entering(data: StudyData, cc: str, p: float, pv: float, d: float = 2.0) -> float:
    """The mean over seeds of `cc`'s RTO at the start of the (p, Pv) cell (D = `d`),
    from the surface runs' series (sampled every 500 ms)."""
    p_levels, pv_levels = levels(data.quick)
    table = data.table("runs")
    order = str(table["order"].iloc[0]) if "order" in table else "serpentine"
    level = int(np.argmin(np.abs(np.asarray(p_levels) - p)))
    within = pv_order(pv_levels, level, order)
    k = int(np.argmin(np.abs(np.asarray(within) - pv)))
    start = (level * len(pv_levels) + k) * CELL_SECONDS
    values = []
    for s in data.frames("runs", "series"):
        before = s[(s["cc"] == cc) & (s["D"] == d) & (s["time"] <= start)]
        if len(before):
            values.append(float(before["rto"].iloc[-1]))
    if not values:
        raise KeyError(f"no series of {cc} at D = {d:g} s")
    return sum(values) / len(values)


def _mathis_why(data: StudyData, p: float, paper_drop: float | None) -> str:
    """Mathis et al.'s (1997) rate for Reno at loss p, 1.22·MSS/(RTT·√p), with the RTT
    measured in the steady runs, against what the hop carries without loss; and the
    RTT the paper's drop would need by the same formula."""
    run = steady(data, "reno", 2.0, p, 0.0)
    rtt = float(run["mean_rtt"].mean())
    rate = 1.22 * MSS * 8 / (rtt * np.sqrt(p)) / 1e6
    hop = float(steady_goodput(data, "reno", 2.0, 0.0, 0.0).mean())
    text = (
        f"Reno's mean RTT at p = {p:g} is {rtt * 1e3:.0f} ms (mostly the access point's "
        f"queue): Mathis's rate 1.22·MSS/(RTT·√p) is {rate:.1f} Mb/s, "
        + ("above" if rate > hop else "below")
        + f" the {hop:.2f} Mb/s the 802.11b hop carries without loss"
    )
    if paper_drop is not None:
        need = 1.22 * MSS * 8 / ((1 - paper_drop) * hop * 1e6 * np.sqrt(p))
        text += (
            f"; the paper's −{paper_drop:.0%} needs that rate at {1 - paper_drop:.0%} of "
            f"the hop, an RTT of {need * 1e3:.0f} ms, which its “TCP system delay of 0 ms” "
            "does not give"
        )
    return text


def _steady_text(ci: stats.Interval, fmt: str = "{:+.0%}") -> str:
    return f"steady runs: {ci.text(fmt)} over {ci.n} seeds"


def _drop_ci(after: pd.Series, before: pd.Series) -> stats.Interval:
    """1 − after/before per seed, with its interval."""
    ratio = paired_ratio(after, before)
    return stats.Interval(-ratio.mean, -ratio.high, -ratio.low, ratio.n)


def claim_reno_p1e2(data: StudyData) -> Measured:
    base, at = goodput(data, "reno", 0.0, 0.0), goodput(data, "reno", 1e-2, 0.0)
    drop = _drop_ci(steady_goodput(data, "reno", 2.0, 1e-2, 0.0),
                    steady_goodput(data, "reno", 2.0, 0.0, 0.0))  # fmt: skip
    text = (
        f"Reno's drop from p = 0 to 10⁻² (Pv = 0), {_steady_text(drop, '{:.0%}')}; "
        f"the surface's 10 s cells: {base:.2f} → {at:.2f} Mb/s "
        f"({cells_change(data, ('reno', 1e-2, 0.0, at), ('reno', 0.0, 0.0, base))})"
    )
    return Measured(text, interval_verdict(drop.low, drop.high, 0.30, 0.50),
                    because(lambda: _mathis_why(data, 1e-2, 0.40)))  # fmt: skip


def claim_reno_impossible(data: StudyData) -> Measured:
    at = goodput(data, "reno", 6e-2, 0.0) * 1e3
    why = because(lambda: _mathis_why(data, 3e-2, None))
    return Measured(f"Reno {at:.0f} kb/s at p = 6·10⁻², Pv = 0 (10 s cells)",
                    verdict(at < 100), why)  # fmt: skip


def claim_veno_beats_reno(data: StudyData) -> Measured:
    reno, veno = goodput(data, "reno", 3e-2, 0.0), goodput(data, "veno", 3e-2, 0.0)
    gain = paired_ratio(steady_goodput(data, "veno", 2.0, 3e-2, 0.0),
                        steady_goodput(data, "reno", 2.0, 3e-2, 0.0))  # fmt: skip
    text = (
        f"Veno over Reno at p = 3·10⁻², Pv = 0, {_steady_text(gain)}; the surface's 10 s cells: "
        f"Veno {veno:.2f}, Reno {reno:.2f} Mb/s "
        f"({cells_change(data, ('veno', 3e-2, 0.0, veno), ('reno', 3e-2, 0.0, reno))})"
    )
    return Measured(text, interval_verdict(gain.low, gain.high, 0.20, 0.80),
                    because(lambda: _cuts_why(data, 2.0, 3e-2, 0.0)))  # fmt: skip


def _cuts_why(data: StudyData, d: float, p: float, pv: float) -> str:
    fifth, half, ambiguous = cuts(data, "veno", d, p, pv)
    total = fifth + half
    return (
        f"Veno's advantage is its 1/5 cut for a loss it judges random (backlog below "
        f"β = 3): at p = {p:g}, Pv = {pv:.0%}, D = {d:g} s, {fifth} of its {total} "
        f"decidable cuts ({fifth / total:.0%}) were 1/5 and {half} were 1/2 "
        f"({ambiguous} more at cwnd < 4 cannot tell); with the same (Reno) recovery as "
        "Reno, the rest of the comparison is the same algorithm"
        if total
        else f"Veno made no decidable window cut at p = {p:g}, Pv = {pv:.0%}"
    )


def claim_vegas_collapses(data: StudyData) -> Measured:
    c = cells(data)
    sel = (c["cc"] == "vegas") & (c["D"] == 2.0) & (c["p"] == 0.0) & (c["pv"] >= 0.2)
    base = goodput(data, "vegas", 0.0, 0.0, d=2.0)
    high = float(c.loc[sel, "goodput_mbps"].mean())
    drop = _drop(base, high)
    text = (
        f"Vegas, D = 2 s, p = 0: {base:.2f} Mb/s at Pv = 0, mean {high:.2f} Mb/s over "
        f"Pv ≥ 20 %: −{drop:.0%}"
    )
    cwnd_low = float(c.loc[sel, "cwnd"].mean())
    zero = (c["cc"] == "vegas") & (c["D"] == 2.0) & (c["p"] == 0.0) & (c["pv"] == 0.0)
    cwnd_base = float(c.loc[zero, "cwnd"].mean())
    why = (
        f"Vegas reads the late packets' RTT as queueing and shrinks its window: mean cwnd "
        f"{cwnd_base:.1f} segments at Pv = 0, {cwnd_low:.1f} over Pv ≥ 20 % (D = 2 s); "
        "with a few segments in flight every late packet stalls the flow"
    )
    return Measured(text, verdict(drop >= 0.90), why)


def _timeouts_why(data: StudyData, points: list[tuple[str, float, float, float]]) -> str:
    d = points[0][1]
    parts, rtos = [], []
    for cc, dd, p, pv in points:
        run = steady(data, cc, dd, p, pv)
        seconds = float((run["end"] - run["start"]).mean())
        rtos.append(float(run["mean_rto"].mean()))
        parts.append(f"{LABELS[cc]} {float(run['timeouts'].mean()) / seconds:.2f}/s")
    rto = sum(rtos) / len(rtos)
    return (
        f"a packet late by Exp(D = {d:g} s) outlasts the mean RTO of {rto * 1e3:.0f} ms "
        f"with probability e^(−RTO/D) = {np.exp(-rto / d):.2f}, so most late packets fire "
        "a spurious timeout and a slow start from 1 segment; timeouts per second in the "
        "steady runs: " + ", ".join(parts)
    )


def claim_reno_pv10(data: StudyData) -> Measured:
    base = goodput(data, "reno", 0.0, 0.0, d=2.0)
    at = goodput(data, "reno", 0.0, 0.1, d=2.0)
    drop = _drop_ci(steady_goodput(data, "reno", 2.0, 0.0, 0.1),
                    steady_goodput(data, "reno", 2.0, 0.0, 0.0))  # fmt: skip
    text = (
        f"Reno's drop from Pv = 0 to 10 % (D = 2 s, p = 0), {_steady_text(drop, '{:.0%}')}; "
        f"the surface's 10 s cells: {base:.2f} → {at:.2f} Mb/s "
        f"({cells_change(data, ('reno', 0.0, 0.1, at), ('reno', 0.0, 0.0, base))})"
    )
    why = because(lambda: _timeouts_why(data, [("reno", 2.0, 0.0, 0.1)]))
    return Measured(text, interval_verdict(drop.low, drop.high, 0.40, 0.60), why)


def claim_veno_below_reno_short_delays(data: StudyData) -> Measured:
    c = cells(data)
    # The paper's Fig. 10 is about delay alone: the cells without random loss.
    c = c[(c["pv"] > 0) & (c["p"] == 0.0) & c["D"].isin([0.5, 1.0])]
    wide = c.pivot_table(index=["D", "p", "pv"], columns="cc", values="goodput_mbps")
    wide = wide.dropna(subset=["reno", "veno"])
    below = wide["veno"] < wide["reno"]
    share = float(below.mean())
    ratio = float((wide["veno"] / wide["reno"]).mean())
    text = (
        f"Veno below Reno in {int(below.sum())} of {len(below)} cells with Pv > 0, p = 0 at "
        f"D = 0.5 and 1 s ({share:.0%}); mean Veno/Reno {ratio:.2f}"
    )
    return Measured(text, verdict(share >= 0.9),
                    because(lambda: _cuts_why(data, 1.0, 0.0, 0.1)))  # fmt: skip


def claim_reno_beats_veno_pv30(data: StudyData) -> Measured:
    reno = goodput(data, "reno", 0.0, 0.3, d=2.0)
    veno = goodput(data, "veno", 0.0, 0.3, d=2.0)
    gain = paired_ratio(steady_goodput(data, "reno", 2.0, 0.0, 0.3),
                        steady_goodput(data, "veno", 2.0, 0.0, 0.3))  # fmt: skip
    text = (
        f"Reno over Veno at Pv = 30 % (D = 2 s, p = 0), {_steady_text(gain)}; the surface's 10 s "
        f"cells: Reno {reno:.2f}, Veno {veno:.2f} Mb/s "
        f"({cells_change(data, ('reno', 0.0, 0.3, reno), ('veno', 0.0, 0.3, veno))})"
    )
    why = because(lambda: _timeouts_why(data, [("reno", 2.0, 0.0, 0.3), ("veno", 2.0, 0.0, 0.3)]))
    return Measured(text, interval_verdict(gain.low, gain.high, 0.40, 0.90), why)


def claim_veno_as_reno_p1e2(data: StudyData) -> Measured:
    gain = paired_ratio(steady_goodput(data, "veno", 2.0, 1e-2, 0.0),
                        steady_goodput(data, "reno", 2.0, 1e-2, 0.0))  # fmt: skip
    text = f"Veno over Reno at p = 10⁻², Pv = 0, {_steady_text(gain)}"
    return Measured(text, interval_verdict(gain.low, gain.high, -0.10, 0.10),
                    because(lambda: _cuts_why(data, 2.0, 1e-2, 0.0)))  # fmt: skip


def claim_vegas_as_veno_under_loss(data: StudyData) -> Measured:
    c = cells(data)
    c = c[c["pv"] == 0.0].groupby(["cc", "p"])[["goodput_mbps", "cwnd"]].mean()
    ratio = c.loc["vegas", "goodput_mbps"] / c.loc["veno", "goodput_mbps"] - 1
    worst = ratio.abs().idxmax()
    text = (
        f"Vegas against Veno at Pv = 0, every p level (cells, mean over D and seeds): "
        f"{ratio.min():+.0%} … {ratio.max():+.0%}; farthest at p = {worst:g}"
    )
    vegas, veno = c.loc[("vegas", worst), "cwnd"], c.loc[("veno", worst), "cwnd"]
    why = (
        f"Vegas holds a window of a few segments (mean cwnd {vegas:.1f} at p = {worst:g} "
        f"against Veno's {veno:.1f}), where three duplicate ACKs rarely come; "
        + because(lambda: _repairs_why(data, worst))
    )
    return Measured(text, verdict(float(ratio.abs().max()) <= 0.10), why)


def repair_shares(data: StudyData, cc: str, p: float) -> tuple[float, float]:
    """In the steady runs of `cc` at loss `p` (D = 2 s, Pv = 0): the share of its
    retransmission events that were fast retransmits (three duplicate ACKs or, in
    ns-2's Vegas, its fine-grained check on the first or second), against expiries of
    the coarse timer; and timer expiries per second."""
    run = steady(data, cc, 2.0, p, 0.0, "repairs")
    fast, timeouts = float(run["fast_retransmits"].sum()), float(run["timeouts"].sum())
    seconds = float((run["end"] - run["start"]).sum())
    return fast / (fast + timeouts), timeouts / seconds


def _repairs_why(data: StudyData, p: float) -> str:
    (vegas, vegas_rto), (veno, veno_rto) = (repair_shares(data, cc, p) for cc in ("vegas", "veno"))
    return (
        f"in steady runs at p = {p:g}, Pv = 0, fast retransmission (three duplicate ACKs, or "
        f"Vegas's fine-grained check on the first or second) makes {vegas:.0%} of Vegas's "
        f"retransmission events and the coarse timer the rest ({vegas_rto:.2f} expiries/s), "
        f"against {veno:.0%} of Veno's ({veno_rto:.2f}/s): each expiry costs an RTO of "
        "idle time and a restart from one segment"
    )


def claim_cwnd_decays_exponentially(data: StudyData) -> Measured:
    c = cells(data)
    c = c[(c["cc"] == "reno") & (c["D"] == 2.0) & (c["p"] == 0.0) & (c["pv"] <= 0.5)]
    c = c.sort_values("pv")
    x, y = c["pv"].to_numpy(), c["cwnd"].to_numpy()
    if len(x) < 3 or (y <= 0).any():
        raise ValueError("needs three or more cells with a positive mean cwnd")
    m = decay_shape(x, y)
    text = (
        f"Reno's mean cwnd over Pv = 0 … 50 % (D = 2 s, p = 0): {y[0]:.1f} → {m.middle:.1f} "
        f"(Pv = {m.middle_pv:.0%}) → {y[-1]:.1f} segments: {m.early * 0.1:+.1f} segments per "
        f"10 % of Pv in the first half, {m.late * 0.1:+.1f} in the second; log-linear fit R² "
        f"{m.r2_exp:.2f} (decay e^({m.slope:.1f}·Pv)), linear fit R² {m.r2_lin:.2f}"
    )
    restart = "each late packet beyond the RTO restarts Reno from a window of 1"
    if m.early < m.late < 0:
        why = (
            f"{restart}, so the first late packets cost a large window and later ones a "
            f"small one: the mean cwnd falls {m.early / m.late:.1f}× as fast per unit of Pv "
            "in the first half as in the second"
        )
    elif m.early < 0 <= m.late:
        why = (
            f"{restart}: by Pv = {m.middle_pv:.0%} the restarts come faster than the window "
            f"regrows, and the mean cwnd stays near {m.middle:.1f} segments from there on: "
            "a fall to a floor, not a decay that goes on"
        )
    else:
        why = "the mean cwnd does not fall faster at first than later"
    return Measured(text, verdict(m.early < m.late < 0), why)


@dataclass(frozen=True)
class DecayShape:
    """A decay's shape: slopes over the first and the second half of the range (from
    the first point to the one nearest the middle, and from there to the last), that
    middle point, and the fits' R² (log-linear and linear) with the log-linear slope."""

    early: float
    late: float
    middle: float
    middle_pv: float
    r2_exp: float
    r2_lin: float
    slope: float


def decay_shape(x: np.ndarray, y: np.ndarray) -> DecayShape:
    """Claim 10's measurement of mean cwnd `y` against Pv `x` (sorted, y > 0)."""
    mid = int(np.argmin(np.abs(x - (x[0] + x[-1]) / 2)))
    if mid in (0, len(x) - 1):
        raise ValueError("needs a point inside the range")

    def r2(fit_y: np.ndarray) -> float:
        slope, icpt = np.polyfit(x, fit_y, 1)
        res = fit_y - (slope * x + icpt)
        return float(1 - (res**2).sum() / ((fit_y - fit_y.mean()) ** 2).sum())

    return DecayShape(
        early=float((y[mid] - y[0]) / (x[mid] - x[0])),
        late=float((y[-1] - y[mid]) / (x[-1] - x[mid])),
        middle=float(y[mid]),
        middle_pv=float(x[mid]),
        r2_exp=r2(np.log(y)),
        r2_lin=r2(y),
        slope=float(np.polyfit(x, np.log(y), 1)[0]),
    )


CLAIMS = [
    Claim("1", "When the probability of random loss did not exceed 10^-2 the throughput "
          "decreased by 40 % (by 3 Mbps).", "Modeling of TCP Reno, Fig. 5",
          "Reno's goodput at p = 10⁻² is 30–50 % below p = 0 (Pv = 0): the 95 % interval "
          "of the drop in steady runs inside the band (wholly outside: disagree)",
          claim_reno_p1e2),
    Claim("2", "The minimum (θ ≈ 10kbps) is reached when the probability of random packet "
          "loss is 6·10^-2 … Thus, the connection becomes impossible.",
          "Modeling of TCP Reno, Fig. 5",
          "Reno's goodput at p = 6·10⁻², Pv = 0 is below 100 kb/s", claim_reno_impossible),
    Claim("3", "under the circumstances of 3·10^-2 random packet loss the throughput has "
          "increased by 40 % (1.4 Mbps) in comparison to Reno (0.8 Mbps)",
          "Modeling of Vegas and Veno, Fig. 7",
          "Veno's goodput exceeds Reno's by 20–80 % at p = 3·10⁻², Pv = 0 (the paper's "
          "+40 %, or its 1.4 vs 0.8 Mb/s = +75 %): the 95 % interval of the gain in steady "
          "runs inside the band (wholly outside: disagree)", claim_veno_beats_reno),
    Claim("4", "if the random delayed packet percentage is 20 % or even more, the throughput "
          "decrease to minimum", "Modeling of Vegas and Veno, Fig. 8; conclusion 2 ("
          "“decrease even by 95 %”)",
          "Vegas's mean goodput over Pv ≥ 20 % (D = 2 s, p = 0) is ≥ 90 % below Pv = 0",
          claim_vegas_collapses),
    Claim("5", "the throughput of the 2 s long random delay of 10 % packets decrease by 50 % "
          "(by 3 Mbps)", "Modeling of TCP Reno",
          "Reno's goodput at Pv = 10 % (D = 2 s, p = 0) is 40–60 % below Pv = 0: the 95 % "
          "interval of the drop in steady runs inside the band (wholly outside: disagree)",
          claim_reno_pv10),
    Claim("6", "The results obtained during the modeling of the TCP Reno and Veno with 0.5 and "
          "1 s delays show that in each analyzed case the throughput of TCP Veno is lower in "
          "comparison to Reno", "Fig. 10",
          "Veno's goodput is below Reno's in ≥ 90 % of the cells with Pv > 0 and p = 0 (the "
          "figure's delay-only cells) at D = 0.5 and 1 s", claim_veno_below_reno_short_delays),
    Claim("7", "when the percentage increases up to 30 % the throughput of TCP Reno becomes "
          "larger by 65 % (1.5 Mbps)", "Modeling of Vegas and Veno (2 s delay)",
          "Reno's goodput exceeds Veno's by 40–90 % at Pv = 30 % (D = 2 s, p = 0): the 95 % "
          "interval of the gain in steady runs inside the band (wholly outside: disagree)",
          claim_reno_beats_veno_pv30),
    Claim("8", "Using TCP Veno under the 10^-2 random packet loss, the throughput "
          "corresponds with Reno under the same conditions.", "Conclusion 3",
          "Veno's goodput is within ±10 % of Reno's at p = 10⁻², Pv = 0: the 95 % interval "
          "of the ratio in steady runs inside ±10 %", claim_veno_as_reno_p1e2),
    Claim("9", "In the case of TCP Vegas, the throughput dependence on random packet loss "
          "coincides with TCP Veno characteristics.", "Modeling of Vegas and Veno, Fig. 8",
          "Vegas's goodput is within ±10 % of Veno's at every p level, Pv = 0 (cells, mean "
          "over D and seeds)", claim_vegas_as_veno_under_loss),
    Claim("10", "If the percentage of long delayed packet is increasing the average size of "
          "congestion window exponentially decreases", "Conclusion 1, Fig. 6",
          "Reno's mean cwnd over Pv = 0–50 % (D = 2 s, p = 0) falls over both halves of "
          "the range, faster over the first than over the second, as an exponential decay "
          "does (a straight line falls at one rate); disagree otherwise",
          claim_cwnd_decays_exponentially),
]  # fmt: skip


# --- figures ------------------------------------------------------------------------


#: The surfaces show Pv up to where goodput fades: every cell beyond the last Pv at
#: which some cell (any variant, any p) still carries this share of the peak goodput
#: is dark on a linear scale, and 100 dark columns would squeeze the few that differ
#: (the full grid's goodput is below 10 % of its peak from Pv ≈ 20 % on).
SURFACE_SHARE = 0.1


def surface_pv_levels(c: pd.DataFrame, pv_levels: list[float]) -> list[float]:
    """The Pv levels the surfaces show: up to the last one where a cell of `c` reaches
    `SURFACE_SHARE` of the peak goodput, then on to the next 10 % (the fade itself)."""
    peak = float(c["goodput_mbps"].max())
    active = float(c.loc[c["goodput_mbps"] >= SURFACE_SHARE * peak, "pv"].max())
    last = math.ceil(round((active + 0.05) * 10, 6)) / 10
    return [pv for pv in pv_levels if pv <= last]


#: What each surface shows: its metric (the title's and the colour bar's words) and unit.
SURFACE_METRICS = {"goodput_mbps": ("goodput", "Mb/s"), "cwnd": ("mean cwnd", "segments")}


def _surface(data: StudyData, path: Path, column: str, log: bool = False) -> None:
    from matplotlib.colors import LogNorm, Normalize

    c = cells(data)
    c = c[c["D"] == 2.0]
    p_levels, pv_levels = levels(data.quick)
    shown = surface_pv_levels(c, pv_levels)
    peak = float(c["goodput_mbps"].max())
    c = c[c["pv"] <= shown[-1]]
    vmax = float(c[column].max())
    metric, unit = SURFACE_METRICS[column]
    # A log scale where the values span decades (cwnd from 1 to the 45-segment window).
    norm = LogNorm(vmin=1, vmax=vmax) if log else Normalize(vmin=0, vmax=vmax)
    size = (9.6, 3.6)
    with panels(path.with_suffix(".png"), 1, 3, size=size, sharey=True, svg=True) as (fig, axes):
        mesh = None
        for ax, cc in zip(axes[0], VARIANTS, strict=True):
            grid = c[c["cc"] == cc].pivot_table(index="p", columns="pv", values=column)
            grid = grid.reindex(index=p_levels, columns=shown)
            # Both axes by level (the levels are not evenly spaced), labelled by value.
            x, y = np.arange(len(shown) + 1), np.arange(len(p_levels) + 1)
            mesh = ax.pcolormesh(x, y, grid.to_numpy(), cmap="viridis", norm=norm)
            ax.set_yticks(y[:-1] + 0.5, [f"{p:g}" for p in p_levels])
            step = max(1, len(shown) // 6)
            ax.set_xticks(x[:-1:step] + 0.5, [f"{pv * 100:g}" for pv in shown[::step]])
            ax.set(title=f"{LABELS[cc]}, D = 2 s", xlabel="delayed packets Pv (%)")
            ax.grid(False)
        axes[0, 0].set_ylabel("loss probability p")
        scale = ", log scale" if log else ""
        fig.suptitle(
            f"{metric.capitalize()} ({unit}) over (p, Pv), 10 s cells, mean over seeds\n"
            f"Pv ≤ {shown[-1]:.0%} shown: beyond it no cell's goodput reaches "
            f"{SURFACE_SHARE:.0%} of the peak ({peak:.2f} Mb/s)",
            y=1.04,
        )
        if mesh is not None:
            fig.colorbar(mesh, ax=axes[0].tolist(), label=f"{metric} ({unit}{scale})")


def figure_throughput_surfaces(data: StudyData, path: Path) -> None:
    _surface(data, path, "goodput_mbps")


def figure_cwnd_surfaces(data: StudyData, path: Path) -> None:
    _surface(data, path, "cwnd", log=True)


def figure_reno_veno_delays(data: StudyData, path: Path) -> None:
    c = cells(data)
    c = c[c["p"] == 0.0]
    size = (9.6, 3.2)
    with panels(path.with_suffix(".png"), 1, 3, size=size, sharey=True, svg=True) as (_, axes):
        for ax, d in zip(axes[0], DELAYS, strict=True):
            for cc, color in zip(["reno", "veno"], colors(2), strict=True):
                s = c[(c["cc"] == cc) & (c["D"] == d)].sort_values("pv")
                ax.plot(s["pv"] * 100, s["goodput_mbps"], color=color, label=LABELS[cc])
            ax.set(title=f"D = {d:g} s, p = 0", xlabel="delayed packets Pv (%)")
            ax.set_ylim(bottom=0)
        axes[0, 0].set_ylabel("goodput (Mb/s)")


FIGURES = [
    FigureSpec("throughput_surfaces", "Goodput surfaces over (p, Pv) for Reno, Veno and Vegas, "
               "D = 2 s, Pv up to where goodput fades (paper Figs. 5, 7, 8)",
               figure_throughput_surfaces),
    FigureSpec("cwnd_surfaces", "Mean cwnd over (p, Pv) for Reno, Veno and Vegas, D = 2 s, "
               "the same Pv range (paper Figs. 6, 9)", figure_cwnd_surfaces),
    FigureSpec("reno_veno_delays", "Reno and Veno goodput vs Pv for D = 0.5, 1 and 2 s, "
               "p = 0 (paper Fig. 10)", figure_reno_veno_delays),
]  # fmt: skip


SENSITIVITY = [
    Sensitivity(
        "loss recovery (the paper's simulator: ns-2's agents, Reno's for all three)",
        ("3", "8"),
        [("Reno's recovery for every variant (the study's)", {}),
         ("cwnd's default: NewReno for Veno and Vegas", {"steady": "steady_newreno"})],
    ),
    Sensitivity(
        "RTT (the simulation's “TCP system delay of 0 ms” against the campaign's 128 ms)",
        ("1", "3", "5", "7", "8"),
        [("no added delay (the study's)", {}),
         (f"{CAMPAIGN_ONE_WAY} each way on the wired side", {"steady": "steady_rtt128"})],
    ),
    Sensitivity(
        "loss model (“exponential random loss models”: independent, or ns-2's two-state "
        "ErrorModel/Expo)",
        ("1", "3", "8"),
        [("independent (Bernoulli) losses (the study's)", {}),
         (f"two-state, bursts of {1 / BURST_EXIT:g} packets on average",
          {"steady": "steady_bursty"})],
    ),
    Sensitivity(
        "order of the Pv values within a p level (the paper: 100 values every 10 s)",
        ("1", "2", "3", "4"),
        [("serpentine, up then down (the study's)", {}),
         ("sawtooth, up at every level (D = 2 s, 3 seeds)", {"runs": "runs_sawtooth"})],
    ),
    Sensitivity(
        "ssthresh on a repeated timeout (ns-2: 2; RFC 5681: kept)",
        ("5", "7"),
        [("ns-2's 2 (the study's)", {}), ("RFC 5681: kept", {"steady": "steady_keep_ssthresh"})],
    ),
]  # fmt: skip


STUDY = Study(
    name="arq",
    title="arq: Reno, Vegas and Veno over a reliable 802.11b link",
    citation="Lukas Pavilanskas (Vilnius Gediminas Technical University), “Analysis of TCP "
    "algorithms in the reliable IEEE 802.11b link” (simulated with ns-2; the venue is not "
    "named in the text we have).",
    summary="One bulk TCP flow over an 11 Mb/s 802.11b hop whose reliable link layer loses "
    "packets with probability p and delays a fraction Pv of them by D; p changes every "
    "1000 s and Pv every 10 s over a 3-hour run.",
    parameters=PARAMETERS,
    sweeps=sweeps,
    figures=FIGURES,
    claims=CLAIMS,
    seed_file="003_a58bbc63a5934f86.txt",
    tables=[TableSpec("cells", cells)],
    sensitivity=SENSITIVITY,
)
