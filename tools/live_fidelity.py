"""The live-mode fidelity table (docs/validation.md): cwnd's TCP against the kernel's.

Runs each scenario of the set with each congestion control this kernel has, for
several seeds, simulated (on the "rfc" profile, and with `--linux` on the "linux"
profile: the TCP options the kernel here has, as far as cwnd has them) and live
(the kernel's own TCP over the same models), and prints one markdown row per scenario
and controller: mean goodput of each, the ratio live / simulated and the verdict
against the ±15 % tolerance of `cwnd compare`, retransmissions and timeouts, and the
relay's worst p99 timing error.

    sudo .venv/bin/python tools/live_fidelity.py --seeds 2 --duration 20s [--linux]

Needs what live mode needs (root, /dev/net/tun). Each live run takes its duration in
wall-clock time: 5 scenarios × 3 controllers × 2 seeds × 20 s ≈ 11 minutes.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import warnings
from pathlib import Path
from typing import Any

import cwnd
from cwnd.live import run_live
from cwnd.live.checks import available_cc
from cwnd.live.compare import GOODPUT_TOLERANCE

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = {
    "clean": "single_lossless",
    "1 % data loss": "single_random_loss",
    "5 s outage at segment 1000": "outage",
    "802.16 LOS SNR 30": "wimax_los_snr30",
    "802.16 NLOS SNR 10": "wimax_nlos_snr10",
}


# The kernel's TCP options as far as cwnd has them, PRR, RACK-TLP and CUBIC's
# HyStart among them, are `tcp.profile = "linux"` (docs/tcp.md, "Profiles": what it
# lacks, the ATO's adaptation and quick-ACK mode among it, is listed there).


def variant(spec: dict[str, Any], cc: str, duration: str, linux: bool) -> dict[str, Any]:
    """The scenario with every flow on `cc`, shortened, on the "linux" profile (the
    kernel's options) with `linux`, else on "rfc"; a flow's own options win."""
    out = copy.deepcopy(spec)
    out["duration"] = duration
    out.setdefault("trace", {}).update(sampling="interval", segments=False)
    for flow in out["flows"]:
        flow["cc"] = cc
        flow["tcp"] = {"profile": "linux" if linux else "rfc", **flow.get("tcp", {})}
    return out


def summary(results: cwnd.Results) -> dict[str, float]:
    s = results.summary
    return {
        "goodput": float(s["goodput_bps"].sum()),
        "retransmitted": float(s["segments_retransmitted"].sum()),
        "timeouts": float(s["timeouts"].sum()),
    }


def mean(rows: list[dict[str, float]], key: str) -> float:
    return statistics.fmean(r[key] for r in rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--duration", default="20s")
    parser.add_argument("--linux", action="store_true", help="a column with Linux's options")
    args = parser.parse_args()
    import tomllib

    kernel = [cc for cc in ("reno", "cubic", "bbr") if cc in available_cc()]
    head = "| scenario | cc | sim (rfc) | "
    head += "sim (Linux options) | " if args.linux else ""
    head += "live | live/sim | verdict | retransmitted sim → live | timeouts sim → live | "
    head += "relay p99 |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for label, name in SCENARIOS.items():
        text = (ROOT / "scenarios" / f"{name}.toml").read_text()
        spec = tomllib.loads(text)
        for cc in kernel:
            sim_rows, prof_rows, live_rows, late = [], [], [], []
            for seed in range(1, args.seeds + 1):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", cwnd.ScenarioWarning)
                    plain = variant(spec, cc, args.duration, False)
                    sim_rows.append(summary(cwnd.run(plain, seed=seed)))
                    tuned = variant(spec, cc, args.duration, True)
                    if args.linux:
                        prof_rows.append(summary(cwnd.run(tuned, seed=seed)))
                    results, relay = run_live(tuned, seed=seed, log=lambda _: None)
                live_rows.append(summary(results))
                late.append(relay["late_p99"])
            reference = prof_rows or sim_rows
            ratio = mean(live_rows, "goodput") / mean(reference, "goodput")
            verdict = "agree" if abs(ratio - 1) <= GOODPUT_TOLERANCE else "differ"
            cells = [label, cc, f"{mean(sim_rows, 'goodput') / 1e6:.2f} Mb/s"]
            if args.linux:
                cells.append(f"{mean(prof_rows, 'goodput') / 1e6:.2f} Mb/s")
            cells += [
                f"{mean(live_rows, 'goodput') / 1e6:.2f} Mb/s",
                f"{ratio:.2f}",
                verdict,
                f"{mean(reference, 'retransmitted'):.0f} → {mean(live_rows, 'retransmitted'):.0f}",
                f"{mean(reference, 'timeouts'):.1f} → {mean(live_rows, 'timeouts'):.1f}",
                f"{max(late) * 1e6:.0f} µs",
            ]
            print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
