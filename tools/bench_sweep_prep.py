"""A sweep's preparation per point: the CPU time `cwnd.sweep` spends before its first
run, per point of a grid (BENCHMARKS.md; issue 27).

Usage: python tools/bench_sweep_prep.py [ROUNDS] [PYTHONPATH_OF_ANOTHER_TREE]

Each measurement is a fresh process that sweeps a grid over `links[0].delay` of an
example scenario, one seed, into an empty cache, with the local pool's `results`
replaced by one that stops the sweep as it is called: what is measured is everything
before the first run (loading the base, checking the fields, each point's plan, key
and cache lookup). The time per point is the slope between a small and a large grid,
(cpu(LARGE) - cpu(SMALL)) / (LARGE - SMALL), so that start-up and the once-per-sweep
work cancel. CPU time, not wall time: the host's cores are shared. Both trees, when
another is given, are measured in every round, in alternating order; prints each
round and the medians.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from functools import partial
from pathlib import Path

from alternated import alternated

SCENARIOS = ("scenarios/single_random_loss.toml", "scenarios/dumbbell.toml")
SMALL, LARGE = 2_000, 20_000

MEASURE = """
import sys, tempfile, time
import cwnd
import cwnd.executors

class Prepared(Exception):
    pass

def stop(self, fn, jobs):
    raise Prepared

cwnd.executors.LocalPool.results = stop
scenario, points = sys.argv[1], int(sys.argv[2])
grid = {"links[0].delay": [f"{i}us" for i in range(1, points + 1)]}
with tempfile.TemporaryDirectory() as cache:
    start = time.process_time()
    try:
        cwnd.sweep(scenario, grid=grid, seeds=[0], cache=cache, progress=False, workers=1)
    except Prepared:
        pass
    print(time.process_time() - start)
"""


def cpu(pythonpath: str | None, scenario: str, points: int) -> float:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run(
        [sys.executable, "-c", MEASURE, scenario, str(points)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return float(proc.stdout.split()[-1])


def per_point_us(pythonpath: str | None, scenario: str) -> float:
    return (
        (cpu(pythonpath, scenario, LARGE) - cpu(pythonpath, scenario, SMALL))
        / (LARGE - SMALL)
        * 1e6
    )


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if len(sys.argv) > 2:
        trees.append((sys.argv[2], sys.argv[2]))
    root = Path(__file__).resolve().parent.parent
    for scenario in SCENARIOS:
        path = str(root / scenario)
        measured = alternated(
            scenario, trees, rounds, partial(per_point_us, scenario=path), "{:.1f} µs".format
        )
        medians = {n: statistics.median(v) for n, v in measured.items()}
        print(f"{scenario} median per point: " + ", ".join(
            f"{n} {m:.1f} µs" for n, m in medians.items()))  # fmt: skip
        if len(trees) == 2:
            print(f"{scenario} ratio: {medians[trees[1][0]] / medians[trees[0][0]]:.1f}×")


if __name__ == "__main__":
    main()
