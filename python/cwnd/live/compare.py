"""`cwnd compare`: one scenario simulated and live, side by side.

Per flow, one figure overlays the two runs' congestion windows and sequence
traces (acknowledged bytes); a table gives the ratios live / simulated of goodput,
retransmitted segments, timeouts and mean RTT, with a verdict on goodput against
`GOODPUT_TOLERANCE` (issue 14's fidelity target: ±15 %).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from cwnd.results import Results

GOODPUT_TOLERANCE = 0.15
COMPARED = ("goodput_bps", "segments_retransmitted", "timeouts", "mean_rtt")


def ratio_table(sim: Results, live: Results) -> pd.DataFrame:
    """One row per flow and compared column: both values, their ratio and, for
    goodput, the verdict."""
    import pandas as pd

    rows = []
    s_rows = sim.summary.set_index("name")
    l_rows = live.summary.set_index("name")
    for flow in s_rows.index:
        for column in COMPARED:
            s, v = float(s_rows.loc[flow, column]), float(l_rows.loc[flow, column])
            ratio = v / s if s else (1.0 if v == 0 else math.inf)
            verdict = ""
            if column == "goodput_bps":
                within = abs(ratio - 1) <= GOODPUT_TOLERANCE
                verdict = "agree" if within else "differ"
            rows.append(
                {
                    "flow": flow,
                    "metric": column,
                    "simulated": s,
                    "live": v,
                    "ratio": ratio,
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


def overlay(sim: Results, live: Results, flow: str, path: Path) -> Path:
    """cwnd (top) and acknowledged bytes (bottom) of one flow, both runs."""
    from cwnd.plot import panels

    with panels(path, 2, 1, sharex=True, size=(6.4, 5.0)) as (fig, axes):
        fig.suptitle(f"{sim.name}: {flow}, simulated and live")
        for results, label, style in ((sim, "simulated", "-"), (live, "live", "--")):
            f = results.flow_series(flow)
            axes[0, 0].step(f["time"], f["cwnd"], where="post", linestyle=style, label=label)
            axes[1, 0].plot(f["time"], f["snd_una"] / 1e6, linestyle=style, label=label)
        axes[0, 0].set_ylabel("cwnd (segments)")
        axes[1, 0].set_ylabel("acknowledged (MB)")
        axes[1, 0].set_xlabel("time (s)")
        for ax in axes[:, 0]:
            ax.set_xlim(0, sim.duration)
            ax.set_ylim(bottom=0)
    return path


def write(sim: Results, live: Results, out: Path) -> tuple[pd.DataFrame, list[Path]]:
    out.mkdir(parents=True, exist_ok=True)
    table = ratio_table(sim, live)
    table.to_csv(out / "compare.csv", index=False)
    figures = [overlay(sim, live, flow, out / f"compare_{flow}.png") for flow in sim.flow_names]
    return table, [out / "compare.csv", *figures]


def format_table(table: pd.DataFrame) -> str:
    lines = [f"goodput verdict: live within ±{GOODPUT_TOLERANCE:.0%} of simulated"]
    for r in table.to_dict("records"):
        lines.append(
            f"{r['flow']:<12} {r['metric']:<24} sim {_fmt(r['simulated'])}  live "
            f"{_fmt(r['live'])}  ratio {r['ratio']:.3f} {r['verdict']}"
        )
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    return f"{value:>12.4g}"
