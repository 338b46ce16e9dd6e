"""What the default TCP profile moves in the example scenarios (CHANGELOG.md, issue 37).

Usage: python tools/profile_moves.py [FROM [TO]]   (default: rfc linux)

Runs every `scenarios/*.toml` that pins no `tcp.profile` once with each profile (seed 1)
and prints a Markdown table of its TCP flows' summed goodput, segments retransmitted
and timeouts, FROM → TO; a scenario without a TCP flow is left out.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

import cwnd

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def tcp_totals(path: Path, profile: str) -> tuple[int, float, int, int] | None:
    """(flows, goodput Mb/s, retransmitted, timeouts) of the TCP flows, None without."""
    spec: dict[str, Any] = tomllib.loads(path.read_text())
    spec.setdefault("tcp", {})["profile"] = profile
    summary = cwnd.run(spec, seed=1).summary
    tcp = summary[summary.transport == "tcp"] if "transport" in summary else summary[:0]
    if tcp.empty:
        return None
    return (
        len(tcp),
        tcp.goodput_bps.sum() / 1e6,
        int(tcp.segments_retransmitted.sum()),
        int(tcp.timeouts.sum()),
    )


def main() -> None:
    before = sys.argv[1] if len(sys.argv) > 1 else "rfc"
    after = sys.argv[2] if len(sys.argv) > 2 else "linux"
    print(f"| scenario | TCP flows | goodput Mb/s, {before} → {after} | retransmitted | timeouts |")
    print("|---|---|---|---|---|")
    for path in sorted(SCENARIOS.glob("*.toml")):
        if "profile" in tomllib.loads(path.read_text()).get("tcp", {}):
            continue
        a, b = tcp_totals(path, before), tcp_totals(path, after)
        if a is None or b is None:
            continue
        goodput = f"{a[1]:.3f} → {b[1]:.3f}"
        print(f"| {path.stem} | {a[0]} | {goodput} | {a[2]} → {b[2]} | {a[3]} → {b[3]} |")


if __name__ == "__main__":
    main()
