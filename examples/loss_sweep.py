"""Reno's goodput against the random loss rate, with 95 % confidence intervals over
seeds, beside two models: Mathis et al. (1997), MSS/RTT · sqrt(3/(2bp)), and the PFTK
approximation with timeouts (Padhye, Firoiu, Towsley, Kurose, SIGCOMM 1998, eq. 33).

Like with like: each model gets what the runs had, measured per loss rate. MSS is the
payload of a segment (1448 B: the default "linux" profile's 1460-byte MSS less 12 B of
timestamps), RTT and RTO the runs' means. b is the models' segments per window increase
of 1/W: the receiver acknowledges 1.0 to 1.7 segments per ACK (delayed ACKs, on in the
"linux" profile, fewer as losses bring immediate ACKs; measured and printed), but cwnd's
Reno counts acknowledged segments in congestion avoidance (RFC 3465, Linux's
`tcp_cong_avoid_ai`), so its window grows one segment per round trip whatever the ACK
ratio: b = 1. The curve "PFTK, b = segments per ACK" is the model of a sender that
counts ACKs instead, shown for the difference.

Run: .venv/bin/python examples/loss_sweep.py [OUT_DIR]
Writes loss_sweep.png and loss_sweep.csv (one row per loss rate: mean, CI, models).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import cwnd

LOSS = "links[1].impairments[0].p"
RATES = [0.001, 0.003, 0.01, 0.03]
SEEDS = range(5)
#: Segments per window increase of 1/W for a sender that counts acknowledged segments.
B_SEGMENT_COUNTING = 1.0


def mathis_segments_per_s(p: float, rtt: float, b: float) -> float:
    """Mathis et al. 1997: sqrt(3/(2bp)) / RTT segments per second."""
    return math.sqrt(3 / (2 * b * p)) / rtt


def pftk_segments_per_s(p: float, rtt: float, t0: float, b: float = 1.0) -> float:
    """PFTK eq. 33: 1 / (RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²))."""
    return 1.0 / (
        rtt * math.sqrt(2 * b * p / 3)
        + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    )


def models(measured: pd.DataFrame) -> pd.DataFrame:
    """`measured` (indexed by loss rate: `payload` bytes per segment, `mean_rtt` and
    `mean_rto` in s, `segments_per_ack`) with each model's goodput (b/s) beside it:
    `mathis` and `pftk` with b = 1, `pftk_ack_counting` with b = segments per ACK."""
    out = measured.copy()
    bits = out["payload"] * 8
    rtt, rto, per_ack = out["mean_rtt"], out["mean_rto"], out["segments_per_ack"]
    b = B_SEGMENT_COUNTING
    out["mathis"] = [bits[p] * mathis_segments_per_s(p, rtt[p], b) for p in out.index]
    out["pftk"] = [bits[p] * pftk_segments_per_s(p, rtt[p], rto[p], b) for p in out.index]
    out["pftk_ack_counting"] = [
        bits[p] * pftk_segments_per_s(p, rtt[p], rto[p], per_ack[p]) for p in out.index
    ]
    return out


def scenario() -> cwnd.Scenario:
    """A 100 Mb/s bottleneck that the loss, not the link, limits; 100 ms RTT."""
    return (
        cwnd.Scenario(duration="60s", name="loss_sweep")
        .link("h1", "r", bandwidth="1Gbps", delay="1ms")
        .link(
            "r",
            "h2",
            bandwidth="100Mbps",
            delay="49ms",
            queue_packets=1000,
            loss=0.01,
            loss_applies_to="data",
        )
        .flow("h1", "h2", cc="reno", name="reno")
    )


def main(out: Path) -> None:
    sweep = cwnd.sweep(
        scenario(), grid={LOSS: RATES}, seeds=SEEDS, progress=False, cache=out / "cache"
    )
    # Mean and Student-t 95 % interval over the seeds at each loss rate.
    stats = sweep.summary("goodput_bps").set_index("p")
    # What the runs had, per loss rate: payload per segment, RTT, RTO, segments per ACK.
    runs = (
        sweep.table.assign(
            payload=lambda t: t["bytes_sent"] / t["segments_sent"],
            segments_per_ack=lambda t: t["segments_received"] / t["acks_sent"],
        )
        .groupby(LOSS)[["payload", "mean_rtt", "mean_rto", "segments_per_ack"]]
        .mean()
    )
    stats = models(stats.join(runs))
    print(stats)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.errorbar(
        stats.index,
        stats["mean"] / 1e6,
        yerr=[(stats["mean"] - stats["ci_low"]) / 1e6, (stats["ci_high"] - stats["mean"]) / 1e6],
        fmt="o-",
        capsize=3,
        label="cwnd, Reno (mean ± 95 % CI, 5 seeds)",
    )
    ax.plot(stats.index, stats["mathis"] / 1e6, "k--", label="Mathis, b = 1")
    ax.plot(stats.index, stats["pftk"] / 1e6, "k:", label="PFTK, b = 1")
    b = stats["segments_per_ack"]
    ax.plot(stats.index, stats["pftk_ack_counting"] / 1e6, ":", color="0.6",
            label=f"PFTK, b = segments per ACK ({b.max():.2f} … {b.min():.2f})")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_yticks([0.3, 0.5, 1, 2, 5])
    ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("loss probability p")
    ax.set_ylabel("goodput (Mb/s)")
    ax.legend()
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "loss_sweep.png", dpi=150)
    stats.to_csv(out / "loss_sweep.csv")
    print(f"written {out / 'loss_sweep.png'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/examples"))
