"""The `wimax` study's live half: this machine's kernel TCP over the same 802.16 presets,
side by side with cwnd's simulated TCP in the same cells (docs/studies.md, "wimax: live").

Live mode (docs/live.md) carries real kernel connections across cwnd's own model of the
radio. The kernel here has reno, cubic and bbr only: the paper's Vegas, Westwood, Veno,
Hybla, BIC, HighSpeed and Scalable are not in it, and BBR (2016) is not in the paper's
2.6.20. The cells, chosen to hold the paper's claims' cells in a grid that runs live in
about ten minutes of wall clock:
- segment size: iperf `-M 256` (below the claim-2 threshold of 1024 B) and `-M 1460`
  (what 4096 … 65536 B become on a 1500-byte path, so the cell of claims 1 and 5);
- buffer: `-w 8K` (the window limits the transfer) and `-w 128K` (2.6.20's rmem_max,
  what the paper's 512 KB became, so the cell of claims 1 and 5).

Each cell is one scenario written with only the options live mode maps to the kernel
(`cc`, `tcp.mss` → TCP_MAXSEG, `tcp.rwnd` → SO_RCVBUF, `tcp.initial_window` → the
route's initcwnd, `tcp.sack`/`tcp.timestamps` → the namespaces' sysctls) on the "linux"
profile, today's kernel's options as far as cwnd has them (its RTO rule, 40 ms
delayed-ACK timer and quick-ACK mode, RACK-TLP, PRR, F-RTO, D-SACK undo). The simulated
twin is the same scenario: the twin of a kernel is the "linux" profile. (It was first
the "rfc" profile with Linux's RTO and ACK timer added: no RACK-TLP, PRR or undo, and
half the goodput at nlos_snr10; docs/studies.md.) What still differs is what the
profile lacks (docs/tcp.md, "Profiles"; the kernel's pacing, TCP small queues and its
receive-window autotuning around SO_RCVBUF: the advertised window is about, not
exactly, the buffer) and the send buffer (iperf's `-w` also sets SO_SNDBUF; live mode
cannot, so neither side bounds it); and the paper's 2.6.20 options of the simulated grid
(Nagle, 8 KB writes, 3 s initial RTO, RFC 3390's initial window) are not these cells'.
"""

from __future__ import annotations

import statistics
import warnings
from functools import partial
from pathlib import Path
from typing import Any

from cwnd.studies.study import FigureSpec, ReportSection
from cwnd.studies.wimax import HEADERS, LABELS, MTU, PROFILES

KERNEL_VARIANTS = ["reno", "cubic", "bbr"]
#: The paper's variants that this kernel does not have.
ABSENT = ["vegas", "westwood", "veno", "hybla", "bic", "highspeed", "scalable"]
SIZES = [256, MTU - HEADERS]
BUFFERS_KB = [8, 128]
#: 48 cells × (8 s + about 2.5 s of namespaces and start-up) ≈ 8.5 minutes live.
SECONDS = 8
SEEDS = [1]
#: `--quick`: the claim-5 cell at the two NLOS profiles, 5 s each (about 15 s live).
QUICK_CELLS = [
    {"cc": "cubic", "size": MTU - HEADERS, "buffer": 128, "profile": p}
    for p in ("nlos_snr30", "nlos_snr10")
]
QUICK_SECONDS = 5
#: The kernel's initial window (RFC 6928, tcp.h TCP_INIT_CWND), set on both sides.
KERNEL_IW = 10


def cells(quick: bool) -> list[dict[str, Any]]:
    """The live grid: one dict per cell (cc, size, buffer in KB, profile)."""
    if quick:
        return [dict(c) for c in QUICK_CELLS]
    return [
        {"cc": cc, "size": size, "buffer": b, "profile": p}
        for p in PROFILES for cc in KERNEL_VARIANTS for size in SIZES for b in BUFFERS_KB
    ]  # fmt: skip


def scenario(cell: dict[str, Any], seconds: int) -> dict[str, Any]:
    """The cell as live mode runs it and as its simulated twin runs: the topology of
    scenarios/wimax_*.toml, one bulk flow over the downlink, the "linux" profile and
    only options the kernel honours."""
    return {
        "name": f"wimax_live_{cell['profile']}_{cell['cc']}_M{cell['size']}_w{cell['buffer']}K",
        "duration": f"{seconds}s",
        "links": [
            {"between": ["server", "bs"], "bandwidth": "100Mbps", "delay": "0.1ms"},
            {"between": ["ss", "client"], "bandwidth": "100Mbps", "delay": "0.1ms"},
        ],
        "wimax": [
            {
                "name": "radio",
                "base_station": "bs",
                "subscribers": ["ss"],
                "preset": cell["profile"],
            }
        ],
        "flows": [
            {
                "name": "iperf",
                "from": "server",
                "to": "client",
                "cc": cell["cc"],
                "tcp": {
                    "profile": "linux",
                    "mss": f"{cell['size']}B",
                    "rwnd": f"{cell['buffer'] * 1024}B",
                    "initial_window": KERNEL_IW,
                    "sack": True,
                    "timestamps": True,
                },
            }
        ],
        "trace": {"sampling": "interval", "interval": "100ms"},
    }


def why_not_live() -> str | None:
    """Why live mode cannot run here (no root/CAP_NET_ADMIN, no /dev/net/tun, a
    variant missing from the kernel), or None."""
    from cwnd.live import checks

    try:
        checks.check_host()
    except checks.LiveRefused as e:
        return str(e)
    missing = [cc for cc in KERNEL_VARIANTS if cc not in checks.available_cc()]
    if missing:
        return f"this kernel lacks {', '.join(missing)} (tcp_available_congestion_control)"
    return None


def reproduce_live(folder: Path, quick: bool, log: Any = print) -> ReportSection:
    """Runs the live grid and its simulated twins into `folder` (`live_cells.parquet`,
    `live_vs_simulated.png`); returns the report's section. Skipped, with the reason,
    where live mode cannot run."""
    head = ["", "## Live: this kernel's TCP over the same presets", ""]
    absent = ", ".join(LABELS[cc] for cc in ABSENT)
    head += [
        f"The kernel here has reno, cubic and bbr only: {absent} are not in it (and BBR "
        "is not in the paper's Linux 2.6.20). docs/studies.md says which options differ.",
        "",
    ]
    reason = why_not_live()
    if reason is not None:
        log(f"wimax: live half skipped: {reason}")
        return ReportSection([*head, f"Skipped: {reason}."])
    seconds = QUICK_SECONDS if quick else SECONDS
    rows, failures = [], []
    for cell in cells(quick):
        for seed in SEEDS:
            try:
                rows.append({**cell, "seed": seed, **run_cell(cell, seconds, seed, log)})
            except RuntimeError as e:
                failures.append(f"- {cell} seed {seed}: {e}")
    table = _table(rows)
    if table.empty:
        return ReportSection([*head, "No live cell finished.", "", *failures])
    table.to_parquet(folder / "live_cells.parquet", index=False)
    figure = FigureSpec("live_vs_simulated", "Simulated and live (kernel) goodput per cell, "
                        "a panel per preset", partial(_draw_table, table))  # fmt: skip
    path = (folder / figure.stem).with_suffix(".png")
    draw(table, path)
    lines = [*head, f"{len(rows)} live runs of {seconds} s, seeds {SEEDS}.", "", *markdown(table)]
    return ReportSection(lines + (["", "Failed:", *failures] if failures else []),
                         [(figure, path)])  # fmt: skip


def run_cell(cell: dict[str, Any], seconds: int, seed: int, log: Any) -> dict[str, float]:
    """One cell live and simulated: goodput (Mb/s), retransmitted segments, the relay's
    p99 timing error (s)."""
    import cwnd
    from cwnd.live import run_live

    spec = scenario(cell, seconds)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cwnd.ScenarioWarning)
        sim = cwnd.run(spec, seed=seed).summary
    live, relay = run_live(spec, seed=seed, log=lambda _: None)
    out = {
        "sim_mbps": float(sim["goodput_bps"].sum()) / 1e6,
        "live_mbps": float(live.summary["goodput_bps"].sum()) / 1e6,
        "sim_retransmitted": float(sim["segments_retransmitted"].sum()),
        "live_retransmitted": float(live.summary["segments_retransmitted"].sum()),
        "relay_p99": float(relay["late_p99"]),
    }
    log(f"wimax live {cell['profile']} {cell['cc']} -M {cell['size']} -w {cell['buffer']}K: "
        f"sim {out['sim_mbps']:.2f}, live {out['live_mbps']:.2f} Mb/s")  # fmt: skip
    return out


def _table(rows: list[dict[str, Any]]) -> Any:
    """Mean over seeds per cell, with live / simulated."""
    import pandas as pd

    keys = ["profile", "cc", "size", "buffer"]
    if not rows:
        return pd.DataFrame(columns=keys)
    frame = pd.DataFrame(rows)
    means = frame.groupby(keys, as_index=False, sort=False).agg(
        sim_mbps=("sim_mbps", "mean"), live_mbps=("live_mbps", "mean"),
        sim_retransmitted=("sim_retransmitted", "mean"),
        live_retransmitted=("live_retransmitted", "mean"),
        relay_p99=("relay_p99", "max"), n=("seed", "count"),
    )  # fmt: skip
    return means.assign(ratio=means["live_mbps"] / means["sim_mbps"])


def markdown(table: Any) -> list[str]:
    """One row per cell: goodput simulated and live, their ratio, retransmissions."""
    lines = [
        "| profile | cc | -M (B) | -w (KB) | simulated (Mb/s) | live (Mb/s) | live/sim | "
        "retransmitted sim → live | relay p99 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        lines.append(
            f"| {r.profile} | {r.cc} | {r.size} | {r.buffer} | {r.sim_mbps:.2f} | "
            f"{r.live_mbps:.2f} | {r.ratio:.2f} | {r.sim_retransmitted:.0f} → "
            f"{r.live_retransmitted:.0f} | {r.relay_p99 * 1e6:.0f} µs |"
        )
    ratios = [x for x in table["ratio"] if x == x]
    if ratios:
        lines += ["", f"Median live/sim over the cells: {statistics.median(ratios):.2f}."]
    return lines


def _draw_table(table: Any, _data: Any, path: Path) -> None:
    """`draw` as a figure's drawer (a partial of it pickles: the live half may run in
    a child process and send its section back)."""
    draw(table, path)


def draw(table: Any, path: Path) -> None:
    """Simulated and live goodput per cell: a panel per preset (two columns, so that the
    figure keeps the report's width), a row of two horizontal bars per cell, labelled
    across so that the labels stay readable (every preset has the same cells, in the
    same order: the left column names them); the legend under the panels."""
    import numpy as np

    from cwnd.plot import colors, panels

    profiles = [p for p in PROFILES if p in set(table["profile"])]
    ncols = min(len(profiles), 2)
    nrows = -(-len(profiles) // ncols)
    rows = max(int((table["profile"] == p).sum()) for p in profiles)
    # In inches: 0.2 a cell, 0.6 between rows of panels (tick labels, the next title),
    # 0.6 above (the titles), 0.5 below (tick labels and the axis label).
    panel, gap, top, bottom = 0.2 * rows + 0.2, 0.6, 0.6, 0.5
    height = nrows * panel + (nrows - 1) * gap + top + bottom
    size = (3.6 * ncols, height)
    sim_color, live_color = colors(2)
    # Each panel its own scale: nlos_snr10's cells carry a tenth of the others'.
    with panels(path, nrows, ncols, size=size, sharey=True, svg=True,
                legend_below=True) as (fig, axes):  # fmt: skip
        fig.subplots_adjust(top=1 - top / height, bottom=bottom / height, hspace=gap / panel,
                            wspace=0.08)  # fmt: skip
        for ax in axes.flat[len(profiles) :]:
            ax.set_visible(False)
        for ax, profile in zip(axes.flat, profiles, strict=False):
            t = table[table["profile"] == profile]
            y = np.arange(len(t))[::-1]
            ax.barh(y + 0.2, t["sim_mbps"], 0.4, color=sim_color, label="simulated")
            ax.barh(y - 0.2, t["live_mbps"], 0.4, color=live_color, label="live (kernel)")
            labels = [f"{cc} {s} / {b}K" for cc, s, b in zip(t["cc"], t["size"], t["buffer"],
                                                              strict=True)]  # fmt: skip
            ax.set_yticks(y, labels, fontsize=7)
            ax.set_title(profile)
            ax.grid(axis="y", visible=False)
        for ax in axes[-1]:
            ax.set_xlabel("goodput (Mb/s)")
        for ax in axes[:, 0]:
            ax.set_ylabel("cc  -M / -w")
        fig.suptitle("wimax: simulated and live goodput per cell", y=1 - 0.1 / height)
