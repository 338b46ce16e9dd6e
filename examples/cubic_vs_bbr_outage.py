"""CUBIC and BBR share a 20 Mb/s path that goes dark for 2 s: how does each come back?

Run: .venv/bin/python examples/cubic_vs_bbr_outage.py [OUT_DIR]
Writes cubic_vs_bbr_outage.png (both windows over time, the outage shaded) and prints
each flow's goodput, retransmissions and timeouts.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import cwnd

OUTAGE_START, OUTAGE_LENGTH = 10.0, 2.0


def scenario() -> cwnd.Scenario:
    """Two hosts behind one bottleneck; both flows use SACK, as today's stacks do."""
    outage = {
        "kind": "outage",
        "start": f"{OUTAGE_START}s",
        "duration": f"{OUTAGE_LENGTH}s",
    }
    return (
        cwnd.Scenario(duration="30s", name="cubic_vs_bbr_outage")
        .link("a", "r", bandwidth="1Gbps", delay="1ms")
        .link("b", "r", bandwidth="1Gbps", delay="1ms")
        .link("r", "d", bandwidth="20Mbps", delay="20ms", queue_packets=100, impairments=[outage])
        .flow("a", "d", cc="cubic", name="cubic", sack=True)
        .flow("b", "d", cc="bbr", name="bbr", sack=True)
    )


def main(out: Path) -> None:
    results = cwnd.run(scenario(), seed=1)
    print(results.summary[["name", "cc", "goodput_bps", "segments_retransmitted", "timeouts"]])

    fig, ax = plt.subplots(figsize=(7, 3.5))
    # One line per flow: select each flow's rows before plotting (a single plot call
    # over the whole frame would join the two flows' points into one line).
    for flow in results.flow_names:
        rows = results.flow_series(flow)
        ax.step(rows["time"], rows["cwnd"], where="post", label=flow)
    ax.axvspan(OUTAGE_START, OUTAGE_START + OUTAGE_LENGTH, color="0.85", label="outage")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.legend()
    fig.tight_layout()
    out.mkdir(parents=True, exist_ok=True)
    fig.savefig(out / "cubic_vs_bbr_outage.png", dpi=150)
    print(f"written {out / 'cubic_vs_bbr_outage.png'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("results/examples"))
