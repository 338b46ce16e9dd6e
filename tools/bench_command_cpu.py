"""The whole `cwnd run` command's CPU time against its simulation alone (BENCHMARKS.md).

Usage: python tools/bench_command_cpu.py ROUNDS PYTHONPATH_A PYTHONPATH_B [FLOWS]

Each tree (a `python/` folder with the built `_cwnd.abi3.so` copied in) runs
`python -m cwnd run` of the benchmark dumbbell (`bench_dumbbell(FLOWS)`, default 100)
as a user runs it, in a fresh process; its CPU time is everything the process and
its children used from exec to exit (user + system, `RUSAGE_CHILDREN` around the
wait), so start-up, imports, the figure child and the interpreter's teardown all
count. The denominator is the CPU time of `cwnd.run` alone in a process that does
nothing else. A and B alternate within each round; prints each round and the medians.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SIMULATION = """
import sys, time
import cwnd
from cwnd.cli import bench_dumbbell
spec = bench_dumbbell(flows=int(sys.argv[1]))
start = time.process_time()
cwnd.run(spec, seed=1)
print(time.process_time() - start)
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _env(pythonpath: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": pythonpath}


def command_cpu(pythonpath: str, scenario: Path, out: Path) -> float:
    """CPU seconds of one `cwnd run` process and every child it waited for."""
    before = _children_cpu()
    subprocess.run([sys.executable, "-m", "cwnd", "run", str(scenario), "--out", str(out)],
                   env=_env(pythonpath), check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    return _children_cpu() - before


def simulation_cpu(pythonpath: str, flows: int) -> float:
    done = subprocess.run([sys.executable, "-c", SIMULATION, str(flows)], env=_env(pythonpath),
                          check=True, capture_output=True, text=True)  # fmt: skip
    return float(done.stdout.split()[-1])


def main() -> None:
    rounds, trees = int(sys.argv[1]), {"A": sys.argv[2], "B": sys.argv[3]}
    flows = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    sys.path.insert(0, trees["A"])
    from cwnd.cli import bench_dumbbell

    totals: dict[str, list[float]] = {name: [] for name in trees}
    simulations: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        scenario = Path(tmp) / f"dumbbell{flows}.json"
        scenario.write_text(json.dumps(bench_dumbbell(flows=flows)))
        for i in range(rounds):
            simulations.append(simulation_cpu(trees["A"], flows))
            for name, path in trees.items():
                totals[name].append(command_cpu(path, scenario, Path(tmp) / f"out{name}"))
            print(f"round {i + 1}: simulation {simulations[-1]:.3f} CPU s; "
                  f"A {totals['A'][-1]:.3f} s; B {totals['B'][-1]:.3f} s")  # fmt: skip
    simulation = statistics.median(simulations)
    for name, values in totals.items():
        median = statistics.median(values)
        print(f"{name}: total CPU median {median:.3f} s ({min(values):.3f}-{max(values):.3f})"
              f" = {median / simulation:.2f}x the simulation ({simulation:.3f} s)")  # fmt: skip
    ratios = [b / a for a, b in zip(totals["A"], totals["B"], strict=True)]
    print(f"B / A per round: median {statistics.median(ratios):.3f} "
          f"({min(ratios):.3f}-{max(ratios):.3f})")  # fmt: skip


if __name__ == "__main__":
    main()
