"""Two benchmark binaries side by side (BENCHMARKS.md): CPU medians and their ratio.

Usage: python tools/ab_bench.py A B "ARGS" PAIRS

A and B are benchmark executables copied aside from target/release/deps (for example
after `cargo bench -p cwnd-sim --bench dumbbell --no-run`); ARGS are passed to both
("300 interval", "1000 0.6"). Each pair runs both once, A first in even pairs and B first
in odd ones, so that whatever favours the second run of a pair (a warmed cache, a core's
clock) falls on both equally: with A always first, an identical binary measured 0.95
against itself on this host.

The time of a run is the CPU time it reports itself (`run=…s`, as `many_flows` prints
the simulating thread's own), or else its CPU time as a child process (user + system):
on a host whose cores are shared, wall time measures the queue for a core. Prints both
medians with their range, B / A, and in how many pairs B was faster.
"""

from __future__ import annotations

import re
import resource
import statistics
import subprocess
import sys


def cpu_seconds(binary: str, args: list[str]) -> float:
    """One run of `binary`: the CPU seconds it reports, or its children's rusage."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    reported = re.search(r"run=([0-9.]+)s", out)
    if reported:
        return float(reported.group(1))
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    a, b, args, pairs = argv[0], argv[1], argv[2].split(), int(argv[3])
    ta: list[float] = []
    tb: list[float] = []
    for pair in range(pairs):
        order = [(a, ta), (b, tb)] if pair % 2 == 0 else [(b, tb), (a, ta)]
        for binary, times in order:
            times.append(cpu_seconds(binary, args))
    ma, mb = statistics.median(ta), statistics.median(tb)
    faster = sum(y < x for x, y in zip(ta, tb, strict=True))
    print(
        f"A {ma:.4f} ({min(ta):.4f}-{max(ta):.4f})  B {mb:.4f} ({min(tb):.4f}-{max(tb):.4f})"
        f"  B/A {mb / ma:.3f}  B faster in {faster}/{pairs}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
