"""Writes the small delivery-opportunity traces the project ships, in mahimahi's mm-link
format (one millisecond timestamp per line, each a delivery opportunity of 1504 bytes of
TUN frame — a 1500-byte IP packet; docs/links.md, "Capacity"), into scenarios/traces/:

* `constant_12mbps.mm`: one opportunity every millisecond for 1 s: 12.032 Mb/s.
* `square_24_6mbps.mm`: a square wave of period 2 s: two opportunities every millisecond
  for 1 s (24.064 Mb/s), then one every other millisecond for 1 s (6.016 Mb/s).
* `lte_synthetic.mm`: 10 s of a synthetic LTE-like downlink. The rate is redrawn every
  20 ms slot from a log-normal first-order autoregressive process, log r(k+1) - log m =
  rho * (log r(k) - log m) + sigma * sqrt(1 - rho^2) * e(k), e(k) standard normal, with
  median m = 8 Mb/s, rho = 0.95 (a correlation time of about 0.4 s) and sigma = 0.8 (rates
  between about 1.7 and 38 Mb/s 95 % of the time; mean 8 * exp(sigma^2 / 2) = 11 Mb/s),
  capped at 50 Mb/s; within a slot each millisecond (an LTE transmission time interval)
  gets a Poisson number of opportunities with the slot's mean, r / (1504 * 8 bit/ms), so
  that several opportunities may share a millisecond, as in the cellular traces recorded
  for mahimahi. Seeded: the file is the same on every run (9.64 Mb/s on average over its
  10 s). It is a stand-in for a recorded trace, not a channel model: it has rate
  variations on the time scales TCP sees, and nothing else of LTE.

Usage: python tools/mm_traces.py [OUT_DIR]   (default scenarios/traces)
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

OPPORTUNITY_BITS = 1504 * 8


def constant() -> list[int]:
    return list(range(1, 1001))


def square_wave() -> list[int]:
    high = [ms for ms in range(1, 1001) for _ in range(2)]
    low = list(range(1002, 2001, 2))
    return high + low


def poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method: fine for the small means here (a few per millisecond)."""
    limit, k, p = math.exp(-mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def lte_synthetic(seconds: int = 10, seed: int = 2029) -> list[int]:
    rng = random.Random(seed)
    median, rho, sigma, cap = 8e6, 0.95, 0.8, 50e6
    slot_ms, x = 20, 0.0
    times: list[int] = []
    for slot in range(seconds * 1000 // slot_ms):
        x = rho * x + sigma * math.sqrt(1 - rho * rho) * rng.gauss(0.0, 1.0)
        per_ms = min(median * math.exp(x), cap) / 1000 / OPPORTUNITY_BITS
        for ms in range(slot * slot_ms + 1, (slot + 1) * slot_ms + 1):
            times.extend([ms] * poisson(rng, per_ms))
    # The trace loops after its last timestamp: end it at the last millisecond.
    if not times or times[-1] != seconds * 1000:
        times.append(seconds * 1000)
    return times


def main(argv: list[str]) -> int:
    root = Path(__file__).resolve().parent.parent
    out = Path(argv[0]) if argv else root / "scenarios" / "traces"
    out.mkdir(parents=True, exist_ok=True)
    for name, times in [
        ("constant_12mbps", constant()),
        ("square_24_6mbps", square_wave()),
        ("lte_synthetic", lte_synthetic()),
    ]:
        path = out / f"{name}.mm"
        path.write_text("".join(f"{t}\n" for t in times))
        rate = len(times) * OPPORTUNITY_BITS / (times[-1] / 1000)
        print(f"{path}: {len(times)} opportunities over {times[-1]} ms, {rate / 1e6:.3f} Mb/s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
