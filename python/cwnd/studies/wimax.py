"""Study 3, `wimax`: nine Linux TCP variants over an 802.16 link.

The paper (Amorim and Bruno, a real testbed): two laptops with Linux 2.6.20 on 100 Mb/s
Ethernet at each end of a pre-WiMAX OFDM radio link (5.8 GHz, 2.5 km, FEC, capped at
30 Mb/s down and 26.4 Mb/s up); four profiles, line of sight or not × SNR 30 or 10 dB;
iperf bulk transfers for every variant × segment size (64 B … 64 KB in powers of 4) ×
socket buffer (2 KB … 512 KB in powers of 4). Its results are for the two profiles
without line of sight only.

cwnd runs the same grid over the 802.16 cell's presets (docs/links.md). The choices, with
their reasons (docs/studies.md has the argument in full, written before any run):
- The segment size is iperf's `-M` (TCP_MAXSEG), clamped as Linux 2.6.20 does it:
  64, 256, 1024 B as asked; 4 and 16 KB clamped to the 1500-byte MTU's 1460 B; 64 KB
  rejected (EINVAL above 32767), so the default 1460 B; iperf's default 8 KB writes.
  The other reading, `-l` (write size, MSS 1460, Nagle), is a sensitivity.
- The buffer is iperf's `-w`: SO_RCVBUF and SO_SNDBUF, capped at rmem_max/wmem_max
  (131071 B) as 2.6.20 does; cwnd doubles them, turns SO_RCVBUF into the advertised
  window and bounds the writer's unsent + unacknowledged bytes by SO_SNDBUF.
- Linux 2.6.20's TCP (`linux_tcp`, `CC`): SACK, timestamps, D-SACK, delayed ACKs,
  limited transmit, RFC 3390's initial window, slow start +1 segment per ACK, RTO
  3 s initial / 200 ms minimum / 120 s maximum with Linux's rule, the controller's RTT
  sample from the oldest segment an ACK covers (`rtt_sample`); each controller with
  2.6.20's parameters (CUBIC's β 0.8, Scalable's 1/50 and 1/8; Westwood is Westwood+).
- Runs of 30 s at SNR 30 (3 seeds), 120 s at SNR 10 (5 seeds); the first 5 s skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cwnd import stats
from cwnd.plot import colors, panels, thin
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
    verdict,
)
from cwnd.sweep import Point

if TYPE_CHECKING:
    import pandas as pd

VARIANTS = ["reno", "vegas", "westwood", "veno", "hybla", "cubic", "bic", "highspeed",
            "scalable"]  # fmt: skip
LABELS = {"reno": "Reno", "vegas": "Vegas", "westwood": "Westwood", "veno": "Veno",
          "hybla": "Hybla", "cubic": "CUBIC", "bic": "BIC", "highspeed": "HighSpeed",
          "scalable": "Scalable"}  # fmt: skip
#: Each variant as Linux 2.6.20 runs it: `tcp_vegas.c` α 2, β 4, γ 1; `tcp_westwood.c`
#: is Westwood+ (50 ms minimum sample interval, cwnd's default) whose RTT and RTTmin come
#: from the smoothed RTT (`w->rtt = tp->srtt >> 3` in `tcp_westwood_pkts_acked`);
#: `tcp_veno.c` β 3;
#: `tcp_hybla.c` RTT0 25 ms; `tcp_cubic.c` (v2.1) β = 819/1024 = 0.8 (0.7 from 2.6.25),
#: C = bic_scale 41/1024·10 = 0.4, fast convergence and TCP friendliness on, no
#: HyStart (2.6.29); `tcp_bic.c` β 819/1024, S_max 16, low window 14 (cwnd's `bic`);
#: `tcp_highspeed.c` RFC 3649; `tcp_scalable.c` TCP_SCALABLE_AI_CNT 50 (a = 1/50) and
#: TCP_SCALABLE_MD_SCALE 3 (b = 1/8).
CC: dict[str, Any] = {
    "reno": "reno",
    "vegas": {"name": "vegas", "alpha": 2, "beta": 4, "gamma": 1},
    "westwood": {"name": "westwood_plus", "rtt": "srtt"},
    "veno": {"name": "veno", "beta": 3},
    "hybla": {"name": "hybla", "rtt0": "25ms"},
    "cubic": {"name": "cubic", "beta": 0.8, "c": 0.4, "fast_convergence": True,
              "tcp_friendliness": True},
    "bic": "bic",
    "highspeed": "highspeed",
    "scalable": {"name": "scalable", "a": 0.02, "b": 0.125},
}  # fmt: skip
#: iperf's `-M` values (bytes) and `-w` values (KB): 64 B … 64 KB and 2 … 512 KB in
#: powers of 4, as the paper.
SIZES = [64, 256, 1024, 4096, 16384, 65536]
BUFFERS_KB = [2, 8, 32, 128, 512]
PROFILES = ["los_snr30", "los_snr10", "nlos_snr30", "nlos_snr10"]


@dataclass(frozen=True)
class Grid:
    """The grid's axes: variants, iperf sizes (B), socket buffers (KB), link profiles."""

    variants: list[str]
    sizes: list[int]
    buffers: list[int]
    profiles: list[str]


QUICK_GRID = Grid(["reno", "westwood", "bic", "cubic"], [256, 4096], [8, 512], PROFILES)
QUICK_SEEDS = [1, 2]
#: Run length and seeds by mean SNR (docs/studies.md: SNR 30 is steady within a second
#: and lossless; SNR 10 is a sequence of losses and timeouts, and cheap to simulate).
SECONDS = {30: 30, 10: 120}
SEEDS = {30: [1, 2, 3], 10: [1, 2, 3, 4, 5]}
QUICK_SECONDS = {30: 10, 10: 30}
#: Every measurement skips slow start and the first timeouts (3 s initial RTO).
WARMUP = 5.0
#: Linux 2.6.20's delayed-ACK timer, `icsk_ack.ato`, is never below TCP_ATO_MIN = HZ/25
#: = 40 ms, and `tcp_send_delayed_ack` bounds it by max(srtt, 40 ms) once the receiver
#: has an srtt (with timestamps, from the handshake): 40 ms on this 10 ms path (read
#: after the runs, issue 35; docs/studies.md). cwnd's timer is fixed (200 ms by default,
#: the study's choice, written before the runs). With windows of 1–3 segments at SNR 10
#: a lone segment waits on it, so the claims at nlos_snr10 are measured again with
#: 40 ms (`SENSITIVITY`).
ATO_MIN = "40ms"
#: The cell of the paper's 300 % claim and of the cwnd traces.
REFERENCE = {"size": 4096, "buffer": 512}
#: The presets' fading (docs/links.md): Rician K (0 without line of sight, Rayleigh) and
#: two diversity branches. The branches are a calibration against the paper's "no loss
#: at SNR 30" (docs/links.md), which claim 3 tests: the `one_branch` sweeps show the
#: radio without it.
K_FACTOR = {"los": 10.0, "nlos": 0.0}
#: The grid's plans read from the `one_branch` sweeps (claim 3's calibration).
ONE_BRANCH = {f"grid_snr{level}": f"grid_snr{level}_one_branch" for level in (30, 10)}

# --- Linux 2.6.20's socket options ------------------------------------------------

#: The path MTU (Ethernet at both ends) and the IPv4 + TCP headers without options.
MTU = 1500
HEADERS = 40
#: `net.core.rmem_max` and `wmem_max`: 131071 B on a machine with 512 MB or more
#: (`sk_init`, net/core/sock.c, 2.6.20); `sock_setsockopt` caps SO_RCVBUF and SO_SNDBUF
#: at them before doubling. cwnd's `rcvbuf`/`sndbuf` do the doubling and the rest
#: (crates/cwnd-sim/src/transport/tcp/socket_options.rs), not the cap: the study,
#: whose machine it is, applies it. The paper does not say the sysctls were raised.
RMEM_MAX = WMEM_MAX = 131071
#: iperf 2.0.x's default `-l` (8 KB): the write size under the `-M` reading.
IPERF_WRITE = 8 * 1024
#: TCP timestamps' option (10 B + 2 NOPs), which Linux takes from each segment's payload.
TIMESTAMPS = 12
#: 802.16 generic MAC header and CRC per PDU (docs/links.md).
MAC_OVERHEAD = 10
#: The readings of the paper's segment size (docs/studies.md): iperf's `-M` (the
#: study's), or its `-l` write size with the default MSS and Nagle's algorithm.
READINGS = ("mss", "write")


def wire_mss(size: int) -> int:
    """The MSS a Linux 2.6.20 sender uses after iperf's `-M size` on a 1500-byte path:
    `tcp_sync_mss` clamps `user_mss` to MTU − 40 B (`tcp_setsockopt(TCP_MAXSEG)`
    rejects values above 32767 with EINVAL, and iperf goes on with the default, the
    same 1460 B). cwnd clamps `tcp.mss` to `tcp.mtu` the same way; this is for the
    claims' arithmetic. E.g. 256 → 256, 16384 → 1460, 65536 → 1460."""
    return min(size, MTU - HEADERS)


def payload(mss: int) -> int:
    """Bytes of data per segment with timestamps on (Linux's `mss_cache`)."""
    return mss - TIMESTAMPS


def linux_tcp(
    size: int, buffer_kb: int, delayed_ack_timeout: str | None = None, reading: str = "mss"
) -> dict[str, Any]:
    """A flow's `tcp` table as Linux 2.6.20 with iperf `-M size -w buffer_kb K` (or,
    in the `write` reading, `-l size -w buffer_kb K`): SO_RCVBUF and SO_SNDBUF capped
    at rmem_max/wmem_max (cwnd doubles them and turns SO_RCVBUF into the window),
    Nagle on, SACK, D-SACK, timestamps (`tcp_sack`, `tcp_dsack`, `tcp_timestamps` = 1),
    delayed ACKs (every second segment, at most cwnd's default 200 ms, RFC 1122's bound,
    or `delayed_ack_timeout`), limited transmit, RFC 3390's initial window (cwnd's
    default), slow start one segment per ACK (`tcp_abc` = 0 makes 2.6.20's
    `tcp_slow_start` add one per ACK whatever it acknowledges: cwnd's default
    `abc_limit` 1), RTO 3 s initial (`TCP_TIMEOUT_INIT`), 200 ms minimum, 120 s
    maximum, 1 ms clock (HZ 1000), the minimum bounding the variance term (Linux's
    rule). F-RTO is off (`tcp_frto` = 0 before 2.6.24). The controller's RTT sample
    is the oldest newly acknowledged segment's age, none if one was retransmitted
    (`tcp.cc_sample = "oldest"`: 2.6.20's `rtt_sample` hook, Vegas's and Veno's)."""
    if reading not in READINGS:
        raise ValueError(f"reading: {reading!r} is not one of {list(READINGS)}")
    buffer = buffer_kb * 1024
    segments = {"mss": f"{size}B", "write_size": f"{IPERF_WRITE}B"}
    if reading == "write":
        segments = {"mss": f"{MTU - HEADERS}B", "write_size": f"{size}B"}
    timer = {} if delayed_ack_timeout is None else {"delayed_ack_timeout": delayed_ack_timeout}
    return {
        **segments,
        **timer,
        # 2.6.20 is not today's "linux" profile: what is not written here is RFC's.
        "profile": "rfc",
        "mtu": MTU,
        "rcvbuf": f"{min(buffer, RMEM_MAX)}B",
        "sndbuf": f"{min(buffer, WMEM_MAX)}B",
        "nagle": True,
        "sack": True,
        "dsack": True,
        "timestamps": True,
        "delayed_ack": True,
        "limited_transmit": True,
        "cc_sample": "oldest",
        "rto": {"initial": "3s", "min": "200ms", "max": "120s", "granularity": "1ms",
                "rule": "linux"},
    }  # fmt: skip


def snr(profile: str) -> int:
    """The profile's mean SNR in dB (30 or 10), from its name."""
    return int(profile.rsplit("snr", 1)[1])


def build(
    point: Point,
    seconds: dict[int, int],
    keep_series: bool = False,
    delayed_ack_timeout: str | None = None,
    reading: str = "mss",
) -> dict[str, Any]:
    """One run: `cc`, `size` (bytes), `buffer` (KB) and `profile` from the point; the
    topology of scenarios/wimax_*.toml (100 Mb/s Ethernet, the radio, 100 Mb/s
    Ethernet), one bulk flow over the downlink, goodput in 1 s bins; the sender's state
    every 100 ms with `keep_series` (the cwnd traces), else every second (unused).
    `delayed_ack_timeout` and `reading` as `linux_tcp`. A point's `branches` replaces
    the preset's two diversity branches (`K_FACTOR`)."""
    cc, size, buffer_kb, profile = point["cc"], point["size"], point["buffer"], point["profile"]
    interval = "100ms" if keep_series else "1s"
    trace = {"throughput_bin": "1s", "sampling": "interval", "interval": interval}
    cell: dict[str, Any] = {"name": "radio", "base_station": "bs", "subscribers": ["ss"],
                            "preset": profile}  # fmt: skip
    if "branches" in point:
        k = K_FACTOR[profile.split("_")[0]]
        cell["fading"] = {"k_factor": k, "branches": point["branches"]}
    diversity = f"_{point['branches']}br" if "branches" in point else ""
    return {
        "name": f"wimax_{profile}_{cc}_M{size}_w{buffer_kb}K{diversity}",
        "duration": f"{seconds[snr(profile)]}s",
        "links": [
            {"between": ["server", "bs"], "bandwidth": "100Mbps", "delay": "0.1ms"},
            {"between": ["ss", "client"], "bandwidth": "100Mbps", "delay": "0.1ms"},
        ],
        "wimax": [cell],
        "flows": [
            {
                "name": "iperf",
                "from": "server",
                "to": "client",
                "cc": CC[cc],
                "tcp": linux_tcp(size, buffer_kb, delayed_ack_timeout, reading),
            }
        ],
        "trace": trace,
    }


def grid(quick: bool) -> Grid:
    """The grid's axes, full or quick."""
    return QUICK_GRID if quick else Grid(VARIANTS, SIZES, BUFFERS_KB, PROFILES)


def sweeps(quick: bool) -> list[SweepPlan]:
    axes = grid(quick)
    seconds = QUICK_SECONDS if quick else SECONDS
    plans = []
    for level in (30, 10):
        points = [
            {"cc": cc, "size": size, "buffer": b, "profile": p}
            for p in axes.profiles if snr(p) == level
            for cc in axes.variants for size in axes.sizes for b in axes.buffers
        ]  # fmt: skip
        plans.append(
            SweepPlan(
                f"grid_snr{level}",
                partial(build, seconds=seconds),
                points,
                QUICK_SEEDS if quick else SEEDS[level],
                tables=("throughput",),
            )
        )
    # The cwnd traces: every variant at SNR 10 in the reference cell, seed 1.
    traces = [
        {"cc": cc, "size": REFERENCE["size"], "buffer": REFERENCE["buffer"], "profile": p}
        for p in axes.profiles if snr(p) == 10 for cc in axes.variants
    ]  # fmt: skip
    series = partial(build, seconds=seconds, keep_series=True)
    plans.append(SweepPlan("traces", series, traces, [1], tables=("series",)))

    def nlos(level: int) -> list[Point]:
        return [
            {"cc": cc, "size": size, "buffer": b, "profile": f"nlos_snr{level}"}
            for cc in axes.variants for size in axes.sizes for b in axes.buffers
        ]  # fmt: skip

    def seeds(level: int) -> list[int]:
        return QUICK_SEEDS if quick else SEEDS[level]

    # Sensitivities: nlos_snr10 with Linux's 40 ms delayed-ACK timer; both NLOS
    # profiles with the paper's size read as iperf's -l.
    plans.append(
        SweepPlan(
            "grid_snr10_ato40",
            partial(build, seconds=seconds, delayed_ack_timeout=ATO_MIN),
            nlos(10),
            seeds(10),
            tables=("throughput",),
        )
    )
    # Claim 3's calibration: the NLOS profiles' reference cell with one branch.
    plans += [
        SweepPlan(
            f"grid_snr{level}_one_branch",
            partial(build, seconds=seconds),
            [{**REFERENCE, "cc": cc, "profile": f"nlos_snr{level}", "branches": 1}
             for cc in axes.variants],
            seeds(level),
            tables=("throughput",),
        )
        for level in (30, 10)
    ]  # fmt: skip
    plans += [
        SweepPlan(
            f"grid_snr{level}_write",
            partial(build, seconds=seconds, reading="write"),
            nlos(level),
            seeds(level),
            tables=("throughput",),
        )
        for level in (30, 10)
    ]
    return plans


# --- measurements -------------------------------------------------------------------


def per_run(data: StudyData) -> pd.DataFrame:
    """One row per grid run: cc, size, buffer, profile, seed, `goodput_mbps` and
    `cv` (of the 1 s goodput after the warm-up), `lost` (fraction of data segments the
    radio lost: sent − received − queue drops, over sent)."""
    return data.derived("per_run", lambda: _per_run(data))


def _per_run(data: StudyData) -> pd.DataFrame:
    import pandas as pd

    frames = []
    for plan in ("grid_snr30", "grid_snr10"):
        if plan not in data.results:
            continue
        table = data.table(plan).set_index("run")
        # Run by run (issue 17: not every run's bins of the grid at once): each run's
        # mean and deviation come from the same rows, in the same order.
        per_run = []
        for bins in data.frames(plan, "throughput"):
            by_run = bins[bins["time"] >= WARMUP].groupby("run")["goodput_bps"]
            per_run.append(pd.DataFrame({"mean": by_run.mean(), "sd": by_run.std(ddof=0)}))
        moments = pd.concat(per_run)
        mean, sd = moments["mean"], moments["sd"]
        lost = radio_data_losses(table)
        frames.append(
            table[["cc", "size", "buffer", "profile", "seed"]].assign(
                goodput_mbps=mean / 1e6,
                cv=(sd / mean).where(mean > 0),
                lost=(lost / (table["segments_sent"] - table["drops_queue"])).clip(lower=0),
                timeouts=table["timeouts"],
                fast_retransmits=table["fast_retransmits"],
                drops_queue=table["drops_queue"],
                mean_rtt=table["mean_rtt"],
            )
        )
    if not frames:
        raise KeyError("no grid sweep ran")
    return pd.concat(frames).reset_index()


def radio_data_losses(table: pd.DataFrame) -> pd.Series:
    """Data segments the radio lost in each run: the flow's impairment drops (the
    802.16 cell's block errors, data and ACKs) less its lost ACKs (sent by the receiver,
    never received by the sender). ACKs still on their way at the run's end count as
    lost: a handful per run, against thousands of segments. (Sent − received would
    count the window in flight at the end: 0.6 % of a 10 s run at 26 Mb/s.)"""
    return table["drops_impairment"] - (table["acks_sent"] - table["acks_received"])


def cells(data: StudyData) -> pd.DataFrame:
    """Mean over seeds of each grid cell: cc, size, buffer, profile, goodput_mbps, cv,
    lost, timeouts (per run), n (seeds)."""
    runs = per_run(data)
    return runs.groupby(["cc", "size", "buffer", "profile"], as_index=False).agg(
        goodput_mbps=("goodput_mbps", "mean"),
        cv=("cv", "mean"),
        lost=("lost", "mean"),
        timeouts=("timeouts", "mean"),
        n=("seed", "count"),
    )


def _goodput(runs: pd.DataFrame, cc: str, profile: str, size: int, buffer: int) -> pd.Series:
    """Goodput (Mb/s) of one cell's runs, by seed."""
    sel = (runs["cc"] == cc) & (runs["profile"] == profile) & (runs["size"] == size)
    sel &= runs["buffer"] == buffer
    if not sel.any():
        raise KeyError(f"no runs of {cc} at {profile}, {size} B, {buffer} KB")
    return runs[sel].set_index("seed")["goodput_mbps"].sort_index()


def _present(runs: pd.DataFrame, column: str) -> list[Any]:
    return sorted(runs[column].unique().tolist())


def link_ceiling_mbps() -> float:
    """The downlink's goodput ceiling for 1448-byte payloads: 170 data symbols of
    64-QAM 3/4 (108 B each) per 5 ms frame = 170·108·8/0.005 = 29.376 Mb/s of PDUs,
    below the 30 Mb/s cap; each 1500-byte packet is a 1510-byte PDU carrying 1448 B:
    29.376 · 1448/1510 = 28.17 Mb/s (docs/links.md, frame and scheme tables)."""
    pdu_rate = 170 * 108 * 8 / 0.005
    return min(pdu_rate, 30e6) * payload(MTU - HEADERS) / (MTU + MAC_OVERHEAD) / 1e6


FILLS = 0.9


def claim_fills_link(data: StudyData) -> Measured:
    runs = per_run(data)
    bar = FILLS * link_ceiling_mbps()
    size, buffer = REFERENCE["size"], REFERENCE["buffer"]
    means = {cc: float(_goodput(runs, cc, "nlos_snr30", size, buffer).mean())
             for cc in _present(runs, "cc")}  # fmt: skip
    low = min(means, key=means.__getitem__)
    high = max(means, key=means.__getitem__)
    text = (
        f"nlos_snr30, {size} B, {buffer} KB: {LABELS[low]} {means[low]:.2f} … "
        f"{LABELS[high]} {means[high]:.2f} Mb/s; bar {bar:.2f} Mb/s "
        f"({FILLS:.0%} of {link_ceiling_mbps():.2f})"
    )

    def why() -> str:
        sel = (runs["profile"] == "nlos_snr30") & (runs["size"] == size)
        r = runs[sel & (runs["buffer"] == buffer)]
        queue = r["drops_queue"].mean()
        cause = (
            "the only losses are the base station's queue overflowing"
            if queue > 0
            else "nothing is lost: the receive buffer alone bounds the window"
        )
        return (
            f"{r['lost'].mean():.2%} of the data segments lost on the radio, {queue:.0f} "
            f"packets dropped by full queues and {r['timeouts'].mean():.1f} timeouts per "
            f"run, mean RTT {r['mean_rtt'].mean() * 1e3:.0f} ms: {cause}"
        )

    return Measured(text, verdict(means[low] >= bar), because(why))


SMALL = 1024


def claim_best_from_1024(data: StudyData) -> Measured:
    runs = per_run(data)
    buffer = REFERENCE["buffer"]
    sizes = _present(runs, "size")
    small, large = [s for s in sizes if s < SMALL], [s for s in sizes if s >= SMALL]
    if not small or not large:
        raise ValueError(f"needs sizes on both sides of {SMALL} B, got {sizes}")
    failing, against, vegas_small = [], [], []
    for cc in _present(runs, "cc"):
        for lo in small:
            for hi in large:
                a = _goodput(runs, cc, "nlos_snr30", hi, buffer).tolist()
                b = _goodput(runs, cc, "nlos_snr30", lo, buffer).tolist()
                d = stats.difference_ci(a, b)
                if d.low <= 0:
                    failing.append(f"{LABELS[cc]} {hi} vs {lo} B ({d.mean:+.2f} Mb/s)")
                    if cc == "vegas" and lo not in vegas_small:
                        vegas_small.append(lo)
                if d.high < 0:
                    against.append(f"{LABELS[cc]} {lo} B above {hi} B")
    ratio = [
        float(_goodput(runs, cc, "nlos_snr30", max(small), buffer).mean()
              / _goodput(runs, cc, "nlos_snr30", min(large), buffer).mean())
        for cc in _present(runs, "cc")
    ]  # fmt: skip
    text = (
        f"nlos_snr30, {buffer} KB: goodput at {max(small)} B is {min(ratio):.0%}–"
        f"{max(ratio):.0%} of that at {min(large)} B; "
        + ("every size ≥ 1024 B distinctly above every smaller one for every variant"
           if not failing else f"not distinct: {'; '.join(failing[:3])}")
    )  # fmt: skip
    if not failing:
        result = Verdict.AGREE
    elif against:
        result = Verdict.DISAGREE
    else:
        result = Verdict.NOT_MEASURABLE
    shares = ", ".join(
        f"{payload(m)} B {payload(m) / (m + HEADERS + MAC_OVERHEAD):.0%}"
        for m in sorted({wire_mss(s) for s in sizes})
    )
    why = (
        f"each packet carries {HEADERS + TIMESTAMPS} B of TCP/IP headers with timestamps "
        f"and the radio adds {MAC_OVERHEAD} B of MAC header and CRC: the payload's share "
        f"of a PDU is {shares}"
    )
    for size in vegas_small:
        why += "; " + vegas_base_rtt_note(runs, size, buffer)
    return Measured(text, result, why)


def vegas_base_rtt_note(runs: pd.DataFrame, size: int, buffer: int) -> str:
    """Why Vegas's goodput at a small size varies with the seed (docs/studies.md,
    “Vegas at 256 B”): the radio's RTT stays at two 5 ms frames until the link is full,
    so Vegas's diff weighs how far BaseRTT, the minimum of every sample, lies below it,
    and its window stays in [α, β]·RTT/(RTT − BaseRTT), wherever the luckiest frame
    of the run put BaseRTT. Brakmo & Peterson's rule and 2.6.20's `tcp_vegas.c`, not
    a defect: the per-seed goodputs say how much it moved."""
    per_seed = _goodput(runs, "vegas", "nlos_snr30", size, buffer)
    values = ", ".join(f"{g:.1f}" for g in per_seed)
    return (
        f"Vegas at {size} B varies with the seed ({values} Mb/s): its RTT stays at two "
        f"radio frames until the link is full, so its window is set by how far BaseRTT, "
        f"its luckiest sample, lies below that, not by a queue (docs/studies.md, "
        f"“Vegas at 256 B”)"
    )


LOSS_BAR = 0.10
LOSSLESS = 0.001


def _loss_per_seed(runs: pd.DataFrame, profile: str) -> list[float]:
    """Per seed, the fraction of data segments lost on the radio, pooled over every
    variant and buffer with full-sized segments (sizes ≥ 4096 B)."""
    sel = (runs["profile"] == profile) & (runs["size"] >= REFERENCE["size"])
    return [float(x) for x in runs[sel].groupby("seed")["lost"].mean()]


def claim_loss_snr10(data: StudyData) -> Measured:
    runs = per_run(data)
    ci = stats.mean_ci(_loss_per_seed(runs, "nlos_snr10"))
    result = interval_verdict(ci.low, ci.high, LOSS_BAR, 1.0)
    text = f"nlos_snr10: {ci.text('{:.1%}')} of 1448-byte data segments lost on the radio"
    try:
        lossless = stats.mean_ci(_loss_per_seed(runs, "nlos_snr30"))
        text += f"; nlos_snr30: {lossless.text('{:.3%}')}"
        if lossless.low >= LOSSLESS:
            result = Verdict.DISAGREE
    except (KeyError, ValueError) as e:
        text += f"; nlos_snr30 not measured ({e})"

    def why() -> str:
        r = runs[runs["profile"] == "nlos_snr10"]
        by_size = r.assign(mss=r["size"].map(wire_mss)).groupby("mss")["lost"].mean()
        shares = ", ".join(f"{payload(m)} B {v:.1%}" for m, v in by_size.items())
        return (
            "a PDU is lost when any of its FEC blocks fails, so the loss grows with the "
            f"packet: {shares} of the data segments by payload at nlos_snr10; "
            + because(lambda: calibration_note(per_run(data.view(ONE_BRANCH))))
        )

    return Measured(text, result, because(why))


def calibration_note(one_branch: pd.DataFrame) -> str:
    """Claim 3 is partly the radio's calibration: the presets' two diversity branches
    were chosen so that nlos_snr30 loses nothing, as the paper says. What the same
    cells lose with one branch (`one_branch`: the per-run table of the `ONE_BRANCH`
    sweeps)."""
    lost = {p: stats.mean_ci(_loss_per_seed(one_branch, p)) for p in ("nlos_snr30", "nlos_snr10")}
    return (
        "partly circular: the presets' two diversity branches were chosen so that "
        "nlos_snr30 loses nothing, as the paper says (docs/links.md), and the SNR 10 loss "
        "comes from the same calibrated radio; with one branch the reference cell loses "
        f"{lost['nlos_snr30'].text('{:.3%}')} at nlos_snr30 and "
        f"{lost['nlos_snr10'].text('{:.1%}')} at nlos_snr10 (the sensitivity to the "
        "diversity judges the claim on those runs)"
    )


def _per_seed_mean(runs: pd.DataFrame, profile: str, column: str, sizes: list[int] | None
                   = None) -> dict[str, list[float]]:  # fmt: skip
    """Per variant, the per-seed mean of `column` over the profile's cells (optionally
    only `sizes`)."""
    sel = runs["profile"] == profile
    if sizes is not None:
        sel &= runs["size"].isin(sizes)
    grouped = runs[sel].groupby(["cc", "seed"])[column].mean()
    return {cc: grouped[cc].tolist() for cc in grouped.index.get_level_values(0).unique()}


def ranking(values: dict[str, list[float]], highest: bool = True) -> list[str]:
    """Variants by mean of their per-seed values, best first."""
    return sorted(values, key=lambda cc: np.mean(values[cc]), reverse=highest)


def _recovery_why(runs: pd.DataFrame, ccs: list[str], **cell: int) -> str:
    """Why variants part at nlos_snr10 (in one cell when `cell` gives size and buffer):
    the radio's losses keep cwnd so small that every variant waits on its timer about
    as often; what separates them is how many losses duplicate ACKs repair between
    timeouts, which needs the window a variant keeps after a loss."""
    sel = runs["profile"] == "nlos_snr10"
    for column, value in cell.items():
        sel &= runs[column] == value
    r = runs[sel]
    ccs = list(dict.fromkeys(ccs))
    mean = {cc: r.loc[r["cc"] == cc, ["timeouts", "fast_retransmits"]].mean() for cc in ccs}
    timeouts = ", ".join(f"{LABELS[cc]} {mean[cc]['timeouts']:.0f}" for cc in ccs)
    repaired = ", ".join(
        f"{LABELS[cc]} {m['fast_retransmits']:.0f} "
        f"({m['fast_retransmits'] / (m['fast_retransmits'] + m['timeouts']):.0%})"
        for cc, m in mean.items()
    )
    return (
        f"{r['lost'].mean():.0%} of the data segments lost on the radio keep cwnd at a few "
        "segments, where three duplicate ACKs rarely come, so every variant waits on its "
        f"timer about as often (timeouts per run: {timeouts}); they part by how many losses "
        "duplicate ACKs repair between timeouts, more the larger the window a variant "
        f"keeps after a loss (fast retransmits per run, share of repairs: {repaired})"
    )


def claim_westwood_bic_best(data: StudyData) -> Measured:
    runs = per_run(data)
    m = westwood_bic_best(_per_seed_mean(runs, "nlos_snr10", "goodput_mbps"))
    order = ranking(_per_seed_mean(runs, "nlos_snr10", "goodput_mbps"))
    ccs = [order[0], order[-1], "westwood", "bic"]
    why = because(lambda: f"{_recovery_why(runs, ccs)}; {_mean_cwnd_why(data, ccs)}; {GROWTH}")
    return replace(m, why=why)


#: Claim 4's part of the mechanism the runs' counters do not show.
GROWTH = (
    "at these windows BIC and CUBIC halve as Reno does (BIC below 14 segments), and cwnd's "
    "BIC adds a segment per cwnd ACKs where its Reno adds one per cwnd segments, half as "
    "fast with delayed ACKs (docs/studies.md, “Linux 2.6.20's TCP”)"
)


def _mean_cwnd_why(data: StudyData, ccs: list[str]) -> str:
    """Mean cwnd after the warm-up in the cwnd traces (nlos_snr10, reference cell,
    seed 1): below 4 segments three duplicate ACKs rarely come."""
    s = data.frame("traces", "series")
    s = s[(s["profile"] == "nlos_snr10") & (s["time"] >= WARMUP)]
    means = s.groupby("cc")["cwnd"].mean()
    return (
        f"mean cwnd ({REFERENCE['size']} B, {REFERENCE['buffer']} KB, seed 1): "
        + ", ".join(f"{LABELS[cc]} {means[cc]:.1f}" for cc in dict.fromkeys(ccs))
        + " segments"
    )


def westwood_bic_best(goodput: dict[str, list[float]]) -> Measured:
    """Claim 4's rule on per-seed mean goodputs (over the profile's cells) by variant."""
    pair = {"westwood", "bic"}
    order = ranking(goodput)
    means = ", ".join(f"{LABELS[cc]} {np.mean(goodput[cc]):.3f}" for cc in order)
    text = f"nlos_snr10, mean goodput over the (size, buffer) cells, Mb/s: {means}"
    if set(order[:2]) == pair:
        third = order[2]
        apart = all(stats.difference_ci(goodput[cc], goodput[third]).low > 0 for cc in pair)
        if apart:
            return Measured(text, Verdict.AGREE)
        return Measured(text + f"; indistinguishable from {LABELS[third]}",
                        Verdict.NOT_MEASURABLE)  # fmt: skip
    beaten = [
        f"{LABELS[cc]} below {LABELS[other]}"
        for cc in sorted(pair) for other in order if other not in pair
        if stats.difference_ci(goodput[other], goodput[cc]).low > 0
    ]  # fmt: skip
    if beaten:
        return Measured(text + "; distinctly: " + ", ".join(beaten), Verdict.DISAGREE)
    return Measured(text + "; indistinguishable", Verdict.NOT_MEASURABLE)


GAIN_BAND = (2.0, 4.0)


def claim_westwood_300(data: StudyData) -> Measured:
    runs = per_run(data)
    size, buffer = REFERENCE["size"], REFERENCE["buffer"]
    by_cc = {cc: _goodput(runs, cc, "nlos_snr10", size, buffer) for cc in _present(runs, "cc")}
    m = westwood_gain(by_cc)
    worst = min((cc for cc in by_cc if cc != "westwood"), key=lambda cc: by_cc[cc].mean())
    why = because(lambda: _recovery_why(runs, ["westwood", worst], size=size, buffer=buffer))
    return replace(m, why=why)


def westwood_gain(by_cc: dict[str, pd.Series]) -> Measured:
    """Claim 5's rule on per-seed goodputs (by seed) of each variant in the cell."""
    worst = min((cc for cc in by_cc if cc != "westwood"), key=lambda cc: by_cc[cc].mean())
    gain = (by_cc["westwood"] / by_cc[worst] - 1).replace([np.inf, -np.inf], np.nan).dropna()
    ci = stats.mean_ci(gain.tolist())
    text = (
        f"nlos_snr10, {REFERENCE['size']} B, {REFERENCE['buffer']} KB: Westwood "
        f"{by_cc['westwood'].mean():.3f} Mb/s, worst {LABELS[worst]} "
        f"{by_cc[worst].mean():.3f} Mb/s: gain {ci.text()}"
    )
    return Measured(text, interval_verdict(ci.low, ci.high, *GAIN_BAND))


def claim_bic_most_stable(data: StudyData) -> Measured:
    runs = per_run(data)
    sizes = [s for s in _present(runs, "size") if s >= SMALL]
    cv = _per_seed_mean(runs, "nlos_snr10", "cv", sizes)
    order = ranking(cv, highest=False)
    ccs = [order[0], "bic", order[-1]]
    why = because(lambda: stability_why(runs[runs["size"].isin(sizes)], _empty_bins(data, sizes),
                                        ccs))  # fmt: skip
    return replace(bic_most_stable(cv), why=why)


def _empty_bins(data: StudyData, sizes: list[int]) -> pd.Series:
    """Per variant, the share of the 1 s goodput bins after the warm-up with nothing
    delivered, at nlos_snr10 over `sizes`."""
    import pandas as pd

    table = data.table("grid_snr10").set_index("run")
    cells = table[(table["profile"] == "nlos_snr10") & table["size"].isin(sizes)]
    shares = []
    for bins in data.frames("grid_snr10", "throughput"):
        b = bins[(bins["time"] >= WARMUP) & bins["run"].isin(cells.index)]
        shares.append(pd.DataFrame({"cc": cells.loc[b["run"], "cc"].to_numpy(),
                                    "empty": (b["goodput_bps"] == 0).to_numpy()}))  # fmt: skip
    return pd.concat(shares).groupby("cc")["empty"].mean()


def stability_why(runs: pd.DataFrame, empty: pd.Series, ccs: list[str]) -> str:
    """Claim 6's why: a run's 1 s goodput swings between nothing, while a timeout's
    backoff covers a whole bin, and what the window delivers between timeouts; so
    the variants that deliver least between timeouts swing most against their mean.
    `runs`: per-run rows (nlos_snr10, the claim's sizes); `empty`: `_empty_bins`."""
    r = runs[runs["profile"] == "nlos_snr10"]
    parts = []
    for cc in dict.fromkeys(ccs):
        v = r[r["cc"] == cc]
        parts.append(f"{LABELS[cc]} {v['goodput_mbps'].mean():.3f} Mb/s, CV "
                     f"{v['cv'].mean():.2f}, {empty[cc]:.0%} of the bins empty, "
                     f"{v['timeouts'].mean():.0f} timeouts per run")  # fmt: skip
    return (
        "a 1 s bin's goodput falls to nothing while the timer runs (at least 200 ms, "
        "doubled on each repeat) and between timeouts follows the window, so the variants "
        "that deliver least between timeouts swing most against their mean: " + "; ".join(parts)
    )


def bic_most_stable(cv: dict[str, list[float]]) -> Measured:
    """Claim 6's rule on per-seed mean CVs of the 1 s goodput by variant."""
    order = ranking(cv, highest=False)
    values = ", ".join(f"{LABELS[cc]} {np.mean(cv[cc]):.2f}" for cc in order)
    text = f"nlos_snr10, sizes ≥ 1024 B, CV of 1 s goodput (lowest first): {values}"
    if order[0] == "bic":
        if stats.difference_ci(cv[order[1]], cv["bic"]).low > 0:
            return Measured(text, Verdict.AGREE)
        return Measured(text + f"; BIC indistinguishable from {LABELS[order[1]]}",
                        Verdict.NOT_MEASURABLE)  # fmt: skip
    steadier = [LABELS[cc] for cc in order
                if cc != "bic" and stats.difference_ci(cv["bic"], cv[cc]).low > 0]  # fmt: skip
    if steadier:
        return Measured(text + "; distinctly steadier than BIC: " + ", ".join(steadier),
                        Verdict.DISAGREE)  # fmt: skip
    return Measured(text + "; indistinguishable from BIC", Verdict.NOT_MEASURABLE)


CLAIMS = [
    Claim("1", "as nove implementações do TCP testadas aumentaram a CWND até o limite de "
          "banda do enlace de rádio", "Conclusões (SNR 30, sem visada direta)",
          f"at nlos_snr30, {REFERENCE['size']} B, {REFERENCE['buffer']} KB, every variant's "
          f"mean goodput ≥ {FILLS:.0%} of the link's ceiling (64-QAM 3/4: 29.38 Mb/s of "
          "PDUs × 1448/1510 = 28.17 Mb/s)", claim_fills_link,
          english="the nine TCP implementations tested raised the CWND up to the radio "
          "link's bandwidth limit"),
    Claim("2", "apresentando maior performance com segmentos iguais ou maiores que 1024 "
          "bytes", "Conclusões (SNR 30, sem visada direta)",
          "at nlos_snr30, 512 KB, for every variant the goodput at each size ≥ 1024 B is "
          "distinctly above that at each size < 1024 B (Welch 95 % interval above 0); a "
          "smaller size distinctly better: disagree", claim_best_from_1024,
          english="performing best with segments of 1024 bytes or more"),
    Claim("3", "o segundo com grande degradação (SNR=10) o que representou, como "
          "conseqüência, mais de 10% de perda de pacotes", "Conclusões",
          "at nlos_snr10, sizes ≥ 4096 B, the fraction of data segments lost on the radio "
          "(pooled per seed over variants and buffers): 95 % interval wholly above 10 %; "
          "and at nlos_snr30 (“sem perdas de pacotes”) below 0.1 %", claim_loss_snr10,
          english="the second, with great degradation (SNR 10), which meant more than 10 % "
          "packet loss"),
    Claim("4", "Percebeu-se destaque das versões Westwood e BIC, que apresentaram melhor "
          "desempenho", "Conclusões (SNR 10, sem visada direta)",
          "at nlos_snr10, mean goodput over all (size, buffer) cells per seed: Westwood and "
          "BIC the top two, each distinctly above the third; either distinctly below "
          "another variant: disagree; else indistinguishable", claim_westwood_bic_best,
          english="Westwood and BIC stood out, with the best performance"),
    Claim("5", "O Westwood apresentou diferenças de banda de até 300 % acima do pior caso "
          "em segmentos de 4 Kbytes e com janela máxima de até 512 Kbytes",
          "Conclusões (SNR 10, sem visada direta)",
          "at nlos_snr10, 4096 B, 512 KB: Westwood over the worst variant − 1, per seed; "
          "95 % interval inside 200–400 %: agree, wholly outside: disagree",
          claim_westwood_300,
          english="Westwood's throughput was up to 300 % above the worst case with 4 KB "
          "segments and a window of up to 512 KB"),
    Claim("6", "Destaque também para o TCP-BIC, que além sustentar taxas de transferências "
          "acima dos outros protocolos, obteve maior estabilidade",
          "Conclusões (SNR 10, sem visada direta)",
          "at nlos_snr10, sizes ≥ 1024 B: the coefficient of variation of a run's 1 s "
          "goodput after 5 s, mean per seed: BIC's the lowest and distinctly below the "
          "second: agree; another distinctly below BIC's: disagree; else "
          "indistinguishable", claim_bic_most_stable,
          english="BIC also stood out: besides sustaining transfer rates above the other "
          "protocols, it was the most stable"),
]  # fmt: skip


# --- figures ------------------------------------------------------------------------


def _size_label(size: int) -> str:
    return f"{size // 1024}K" if size >= 1024 else str(size)


def figure_throughput_vs_segment(profile: str, data: StudyData, path: Path) -> None:
    """The paper's Figure 6 for one profile: goodput against segment size, a line per
    variant, a panel per buffer size."""
    c = cells(data)
    c = c[c["profile"] == profile]
    sizes, buffers = sorted(c["size"].unique()), sorted(c["buffer"].unique())
    variants = [cc for cc in VARIANTS if cc in set(c["cc"])]
    size = (2.3 * len(buffers) + 0.6, 3.0)
    with panels(path.with_suffix(".png"), 1, len(buffers), size=size, sharey=True, svg=True,
                legend_below=True) as (fig, axes):  # fmt: skip
        for ax, b in zip(axes[0], buffers, strict=True):
            for cc, color in zip(variants, colors(len(variants)), strict=True):
                s = c[(c["cc"] == cc) & (c["buffer"] == b)].sort_values("size")
                ax.plot(s["size"], s["goodput_mbps"], color=color, marker="o", markersize=2.5,
                        label=LABELS[cc])  # fmt: skip
            ax.set_xscale("log", base=2)
            ax.set_xticks(sizes, [_size_label(s) for s in sizes])
            ax.minorticks_off()
            ax.set(title=f"-w {b} KB", xlabel="segment size, iperf -M (B)")
        # After every panel is drawn: a one-sided limit stops the shared autoscaling.
        axes[0, 0].set_ylim(bottom=0)
        axes[0, 0].set_ylabel("goodput (Mb/s)")
        fig.suptitle(f"{profile}: goodput against segment size, mean over seeds", y=1.04)


def figure_heatmaps(profile: str, data: StudyData, path: Path) -> None:
    """Goodput over (segment size, buffer), a panel per variant, one colour scale."""
    from matplotlib.colors import Normalize

    c = cells(data)
    c = c[c["profile"] == profile]
    sizes, buffers = sorted(c["size"].unique()), sorted(c["buffer"].unique())
    variants = [cc for cc in VARIANTS if cc in set(c["cc"])]
    ncols = 3 if len(variants) > 4 else len(variants)
    nrows = -(-len(variants) // ncols)
    norm = Normalize(vmin=0, vmax=float(c["goodput_mbps"].max()))
    size = (3.0 * ncols + 1.0, 2.4 * nrows + 0.4)
    with panels(path.with_suffix(".png"), nrows, ncols, size=size, sharex=True, sharey=True,
                svg=True) as (fig, axes):  # fmt: skip
        mesh = None
        for ax in axes.flat[len(variants) :]:
            ax.set_visible(False)
        for ax, cc in zip(axes.flat, variants, strict=False):
            g = c[c["cc"] == cc].pivot_table(index="buffer", columns="size", values="goodput_mbps")
            g = g.reindex(index=buffers, columns=sizes).to_numpy()
            mesh = ax.pcolormesh(np.arange(len(sizes) + 1), np.arange(len(buffers) + 1), g,
                                 cmap="viridis", norm=norm)  # fmt: skip
            for (i, j), v in np.ndenumerate(g):
                if np.isfinite(v):
                    shade = "black" if norm(v) > 0.6 else "white"
                    ax.text(j + 0.5, i + 0.5, f"{v:.1f}" if v >= 1 else f"{v:.2f}",
                            ha="center", va="center", fontsize=6, color=shade)  # fmt: skip
            ax.set_xticks(np.arange(len(sizes)) + 0.5, [_size_label(s) for s in sizes])
            ax.set_yticks(np.arange(len(buffers)) + 0.5, [f"{b}K" for b in buffers])
            ax.set_title(LABELS[cc])
            ax.grid(False)
        for ax in axes[-1]:
            ax.set_xlabel("segment size (B)")
        for ax in axes[:, 0]:
            ax.set_ylabel("buffer -w")
        # Half an inch above the panels' top (matplotlib's default top: 0.88 of the height).
        fig.suptitle(f"{profile}: goodput (Mb/s) over (segment size, buffer), mean over seeds",
                     y=0.88 + 0.55 / size[1])  # fmt: skip
        if mesh is not None:
            fig.colorbar(mesh, ax=axes.ravel().tolist(), label="goodput (Mb/s)", shrink=0.8)


def best_and_worst(data: StudyData, profile: str) -> tuple[str, str]:
    """The variants with the highest and lowest mean goodput in the reference cell."""
    runs = per_run(data)
    means = {cc: float(_goodput(runs, cc, profile, REFERENCE["size"], REFERENCE["buffer"]).mean())
             for cc in _present(runs, "cc")}  # fmt: skip
    return max(means, key=means.__getitem__), min(means, key=means.__getitem__)


#: The stretch of the nlos_snr10 trace drawn again, enlarged: over a whole run its
#: windows of 1–15 segments change too often to follow.
ZOOM = (20.0, 40.0)


def figure_cwnd_traces(data: StudyData, path: Path) -> None:
    """cwnd over time of the best and the worst variant of the reference cell, at each
    SNR 10 profile (seed 1), and nlos_snr10 again over `ZOOM`."""
    series = data.frame("traces", "series")
    profiles = [p for p in PROFILES if p in set(series["profile"])]
    rows = [(p, None) for p in profiles] + [("nlos_snr10", ZOOM)] * ("nlos_snr10" in profiles)
    with panels(path.with_suffix(".png"), len(rows), 1, size=(7.2, 2.3 * len(rows)),
                svg=True) as (fig, axes):  # fmt: skip
        fig.subplots_adjust(hspace=0.6)
        for ax, (profile, span) in zip(axes[:, 0], rows, strict=True):
            best, worst = best_and_worst(data, profile)
            for cc, color in zip([best, worst], colors(2), strict=True):
                s = series[(series["profile"] == profile) & (series["cc"] == cc)]
                s = s.sort_values("time")
                if span is not None:
                    s = s[(s["time"] >= span[0]) & (s["time"] <= span[1])]
                t, w = thin(s["time"], s["cwnd"])
                role = "best" if cc == best else "worst"
                ax.step(t, w, where="post", color=color, label=f"{LABELS[cc]} ({role})")
            # Each panel names its own best and worst: its legend beside it, where no
            # step of the traces can be under it.
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
            stretch = "" if span is None else f", {span[0]:g}–{span[1]:g} s"
            ax.set(title=f"{profile}, {REFERENCE['size']} B, -w {REFERENCE['buffer']} KB, "
                   f"seed 1{stretch}", xlabel="time (s)", ylabel="cwnd (segments)")  # fmt: skip
            ax.set_ylim(bottom=0)


FIGURES = [
    *[
        FigureSpec(f"throughput_vs_segment_{p}", f"Goodput against segment size per buffer, "
                   f"a line per variant, {p} (paper Fig. 6)",
                   partial(figure_throughput_vs_segment, p))
        for p in PROFILES
    ],
    *[
        FigureSpec(f"heatmap_{p}", f"Goodput over (segment size, buffer) per variant, {p}",
                   partial(figure_heatmaps, p))
        for p in PROFILES
    ],
    FigureSpec("cwnd_traces", "cwnd over time of the best and worst variant at SNR 10 "
               f"({REFERENCE['size']} B, {REFERENCE['buffer']} KB)", figure_cwnd_traces),
]  # fmt: skip

PARAMETERS = [
    ("topology", "server —100 Mb/s Ethernet— base station ~802.16 radio~ subscriber "
     "—100 Mb/s Ethernet— client; one bulk flow over the downlink", "paper Fig. 4"),
    ("radio", "the presets los_snr30, los_snr10, nlos_snr30, nlos_snr10 (20 MHz OFDM-256, "
     "5 ms frames, AMC, caps 30 / 26.4 Mb/s, 2.5 km)", "paper; docs/links.md"),
    ("variants", ", ".join(LABELS[cc] for cc in VARIANTS) + "; Linux 2.6.20's parameters "
     "(CUBIC β 0.8, Scalable a 1/50 b 1/8, Vegas α 2 β 4, Westwood = Westwood+)",
     "paper; kernel sources of 2.6.20"),
    ("segment size", "iperf -M 64 … 64K B in powers of 4 → MSS 64, 256, 1024, 1460, 1460, "
     "1460 B (TCP_MAXSEG: EINVAL above 32767, clamped to the MTU); 8 KB writes, Nagle",
     "paper's “tamanho de segmento … MSS”; reading chosen (docs/studies.md); -l reading "
     "as a sensitivity"),
    ("buffer", "iperf -w 2 … 512 KB in powers of 4 → SO_RCVBUF = SO_SNDBUF = "
     "min(w, 131071) B; window 3/4 of twice that, less one segment",
     "paper; Linux 2.6.20 (rmem_max, tcp_adv_win_scale 2)"),
    ("TCP", "SACK, D-SACK, timestamps, delayed ACKs, limited transmit, IW RFC 3390, "
     "slow start +1 per ACK, RTO 3 s initial / 200 ms min / 120 s max, Linux's RTO rule",
     "Linux 2.6.20 defaults (paper silent)"),
    ("runs", "30 s × 3 seeds at SNR 30, 120 s × 5 seeds at SNR 10; first 5 s skipped; "
     "--quick: 4 variants × 2 sizes × 2 buffers × 4 profiles, 2 seeds (10 s / 30 s)",
     "steady state; the grid in minutes on 2 cores"),
    ("stability", "coefficient of variation of 1 s goodput after 5 s", "chosen before the runs"),
]  # fmt: skip


SENSITIVITY = [
    Sensitivity(
        "the radio's diversity (the presets' two branches are a calibration against the "
        "paper's lossless SNR 30; reference cell, 4096 B / 512 KB, only)",
        ("3",),
        [("two branches (the presets')", {}), ("one branch", ONE_BRANCH)],
    ),
    Sensitivity(
        "what the paper's segment size is (iperf -M, the MSS; or -l, the write size)",
        ("1", "2", "4", "5", "6"),
        [("-M: MSS as asked, clamped to the MTU; 8 KB writes (the study's)", {}),
         ("-l: writes of that size, MSS 1460 B, Nagle on",
          {"grid_snr30": "grid_snr30_write", "grid_snr10": "grid_snr10_write"})],
    ),
    Sensitivity(
        "delayed-ACK timer (cwnd's fixed 200 ms; 2.6.20's is 40 ms on this path)",
        ("3", "4", "5", "6"),
        [("200 ms (the study's)", {}),
         (f"{ATO_MIN}, Linux's TCP_ATO_MIN", {"grid_snr10": "grid_snr10_ato40"})],
    ),
]  # fmt: skip


STUDY = Study(
    name="wimax",
    title="wimax: nine Linux TCP variants over an 802.16 link",
    citation="Daniel Iser Amorim, Gaspare Giuliano Elias Bruno (Centro Universitário La "
    "Salle), “Análise de desempenho do TCP sobre redes Wimax” (a real testbed with Linux "
    "2.6.20 and iperf; the venue is not named in the text we have).",
    summary="One iperf bulk transfer over a pre-WiMAX OFDM link (30 Mb/s down) for nine "
    "Linux TCP variants × six segment sizes × five socket buffers × four link profiles "
    "(line of sight or not × SNR 30 or 10 dB).",
    parameters=PARAMETERS,
    sweeps=sweeps,
    figures=FIGURES,
    claims=CLAIMS,
    seed_file="002_5193cf6ec0b7751c.txt",
    tables=[TableSpec("cells", cells)],
    sensitivity=SENSITIVITY,
)
