"""One `cwnd.run` from Python: its CPU time and peak memory, this tree against another
(BENCHMARKS.md; issue 28: a run loaded its scenario twice).

Usage: python tools/bench_run_load.py [ROUNDS] [PYTHONPATH_OF_ANOTHER_TREE]

Cases, each a scenario dict given to `cwnd.run(spec, seed=1)`:
- small: `scenarios/single_random_loss.toml` as written (60 s simulated);
- small set-up: the same cut to 1 µs simulated, so that what is measured is what a
  run costs besides its simulation (loading, building, the results);
- 100 000 flows: the end-to-end dumbbell (`cwnd.cli.bench_dumbbell`) with 100 000
  flows started at 0, 1 µs simulated: set-up only, as in "Many flows: the N curve".

Each measurement is a fresh process that builds the dict, runs it once to warm up
(small cases only), then measures `cwnd.run` with `time.process_time` (every thread:
the simulation runs on its own) `REPEATS` times and prints the median, and the peak
RSS (`ru_maxrss`). CPU time, not wall time: the host's cores are shared. Both trees,
when another is given, are measured in every round, in alternating order; prints each
round and the medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from functools import partial
from pathlib import Path

from alternated import alternated

ROOT = Path(__file__).resolve().parent.parent

#: Case → runs measured per process (the median is kept).
REPEATS = {"small": 5, "small set-up": 21, "100 000 flows": 1}

MEASURE = """
import json, resource, statistics, sys, time, tomllib
import cwnd
from cwnd.cli import bench_dumbbell

case, repeats, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
if case == "100 000 flows":
    spec = {**bench_dumbbell(flows=100_000), "duration": "1us"}
    for flow in spec["flows"]:
        flow["start"] = "0s"
else:
    with open(f"{root}/scenarios/single_random_loss.toml", "rb") as f:
        spec = tomllib.load(f)
    if case == "small set-up":
        spec["duration"] = "1us"
    cwnd.run(spec, seed=1)
times = []
for _ in range(repeats):
    start = time.process_time()
    cwnd.run(spec, seed=1)
    times.append(time.process_time() - start)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"cpu": statistics.median(times), "peak": peak}))
"""


def measure(pythonpath: str | None, case: str) -> dict[str, float]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run(
        [sys.executable, "-c", MEASURE, case, str(REPEATS[case]), str(ROOT)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result: dict[str, float] = json.loads(proc.stdout.splitlines()[-1])
    return result


def _shown(m: dict[str, float]) -> str:
    cpu = m["cpu"]
    time = (
        f"{cpu * 1e6:.0f} µs"
        if cpu < 1e-3
        else f"{cpu * 1e3:.2f} ms"
        if cpu < 1
        else f"{cpu:.2f} s"
    )
    return f"{time}, {m['peak'] / 1e6:.0f} MB"


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if len(sys.argv) > 2:
        trees.append((sys.argv[2], sys.argv[2]))
    for case in REPEATS:
        measured = alternated(case, trees, rounds, partial(measure, case=case), _shown)
        medians = {
            n: {k: statistics.median(m[k] for m in v) for k in ("cpu", "peak")}
            for n, v in measured.items()
        }
        print(f"{case} median: " + ", ".join(f"{n} {_shown(m)}" for n, m in medians.items()))
        if len(trees) == 2:
            other, this = medians[trees[1][0]], medians[trees[0][0]]
            print(f"{case} CPU ratio (other / this): {other['cpu'] / this['cpu']:.2f}×")


if __name__ == "__main__":
    main()
