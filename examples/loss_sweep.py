"""Reno's goodput against the random loss rate, with 95 % confidence intervals over
seeds, beside two models: Mathis et al. (1997), MSS/RTT · sqrt(3/(2p)), and the PFTK
approximation with timeouts (Padhye, Firoiu, Towsley, Kurose, SIGCOMM 1998, eq. 33) fed
with each point's measured mean RTT and RTO. Delayed ACKs are off (b = 1).

Run: .venv/bin/python examples/loss_sweep.py [OUT_DIR]
Writes loss_sweep.png and loss_sweep.csv (one row per loss rate: mean, CI, model).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import cwnd

LOSS = "links[1].impairments[0].p"
RATES = [0.001, 0.003, 0.01, 0.03]
SEEDS = range(5)
MSS_BITS, RTT = 1460 * 8, 0.1


def pftk_segments_per_s(p: float, rtt: float, t0: float, b: float = 1.0) -> float:
    """PFTK eq. 33: 1 / (RTT·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²))."""
    return 1.0 / (
        rtt * math.sqrt(2 * b * p / 3)
        + t0 * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p)
    )


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
    stats["mathis"] = [MSS_BITS / RTT * math.sqrt(3 / (2 * p)) for p in stats.index]
    rtt = sweep.summary("mean_rtt").set_index("p")["mean"]
    rto = sweep.summary("mean_rto").set_index("p")["mean"]
    stats["pftk"] = [MSS_BITS * pftk_segments_per_s(p, rtt[p], rto[p]) for p in stats.index]
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
    ax.plot(stats.index, stats["mathis"] / 1e6, "k--", label="Mathis model")
    ax.plot(stats.index, stats["pftk"] / 1e6, "k:", label="PFTK model (measured RTT, RTO)")
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
