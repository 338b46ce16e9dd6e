"""`cwnd run` of the 100-flow dumbbell against its simulation alone (BENCHMARKS.md).

Usage: python tools/bench_frontend.py [ROUNDS] [PYTHONPATH_OF_ANOTHER_TREE]

On a host whose cores are taken by other work, wall time measures the queue for a
core, not the program (a 0.9 CPU-second import took 36 s of wall time on 2026-11-24).
So this measures CPU time, per thread and process, in fresh processes, and computes
the command's critical path on two free cores:

    startup + pre + max(kernel, imports) + results + to_fork + max(parent, child) + end

startup: interpreter and `import cwnd.cli`; pre: the main thread before `cwnd.run`;
kernel: the simulation's own thread (no GIL); imports: the thread importing
matplotlib meanwhile (in trees before 2026-11-24's second change: pandas, pyarrow and
matplotlib); results: the main thread in `cwnd.run` (building the result columns,
which waits for the GIL the imports hold); to_fork: the main thread until the figure
child is forked; parent: importing pandas, the files and the figures it takes;
child: the figures it takes; end: the rest. A tree without the import thread or the child (the other
tree) runs serially: its path is its total CPU. The denominator, "simulation alone",
is the CPU time of `cwnd.run` in a process that does nothing else. Each round runs
every measurement once; prints each round and the medians.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

STARTUP = """
import resource, sys
import cwnd.cli
usage = resource.getrusage(resource.RUSAGE_SELF)
print(usage.ru_utime + usage.ru_stime)
"""

SIMULATION = """
import json, time
import cwnd
from cwnd.cli import bench_dumbbell
spec = bench_dumbbell(flows=100)
start = time.process_time()
cwnd.run(spec, seed=1)
print(time.process_time() - start)
"""

COMMAND = """
import json, resource, sys, time
from pathlib import Path
import cwnd, cwnd.cli as cli
from cwnd.cli import bench_dumbbell

T, P = time.thread_time, time.process_time
marks = {}
Path(sys.argv[1]).write_text(json.dumps(bench_dumbbell(flows=100)))
importing = getattr(cli, "_import_writers", None)
if importing is not None:
    def timed_imports(*args):
        start = T()
        importing(*args)
        marks["imports"] = T() - start
    cli._import_writers = timed_imports
run = cwnd.run
def timed_run(*args, **kwargs):
    marks["run_start"] = T()
    results = run(*args, **kwargs)
    marks["run_end"] = T()
    return results
cwnd.run = timed_run
try:
    from cwnd import beside
except ImportError:
    beside = None
if beside is not None:
    init, result = beside.Beside.__init__, beside.Beside.result
    def timed_init(self, work):
        marks["fork"] = T()
        init(self, work)
    def timed_result(self):
        marks["wait"] = T()
        return result(self)
    beside.Beside.__init__, beside.Beside.result = timed_init, timed_result
start_thread, start_process = T(), P()
marks["start"] = start_thread
cli._run_one(sys.argv[1], 1, Path(sys.argv[2]))
marks["end"] = T()
marks["main"] = marks["end"] - start_thread
marks["process"] = P() - start_process
child = resource.getrusage(resource.RUSAGE_CHILDREN)
marks["child"] = child.ru_utime + child.ru_stime
print(json.dumps(marks))
"""


def _run(code: str, pythonpath: str | None, *args: str) -> str:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return done.stdout.strip().splitlines()[-1]


def critical_path(m: dict[str, float]) -> float:
    """Seconds of the command after start-up on two free cores (module docstring)."""
    if "imports" not in m or "fork" not in m:
        return m["process"] + m["child"]
    kernel = m["process"] - m["main"] - m["imports"]
    return (
        (m["run_start"] - m["start"])
        + max(kernel, m["imports"])
        + (m["run_end"] - m["run_start"])
        + (m["fork"] - m["run_end"])
        + max(m["wait"] - m["fork"], m["child"])
        + (m["end"] - m["wait"])
    )


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    trees: dict[str, str | None] = {"this tree": None}
    if len(sys.argv) > 2:
        trees["other tree"] = sys.argv[2]
    rows: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        scenario, out = str(Path(tmp) / "dumbbell100.json"), str(Path(tmp) / "out")
        for i in range(rounds):
            simulation = float(_run(SIMULATION, None))
            for name, path in trees.items():
                startup = float(_run(STARTUP, path))
                marks: dict[str, Any] = json.loads(_run(COMMAND, path, scenario, out))
                whole = startup + critical_path(marks)
                rows[name].append((whole, whole / simulation))
                total = startup + marks["process"] + marks["child"]
                print(f"round {i + 1} {name}: simulation {simulation:.3f} CPU s; "
                      f"critical path {whole:.3f} s = {whole / simulation:.2f}x "
                      f"(total CPU {total:.3f} s); {json.dumps(marks)}")  # fmt: skip
    for name, values in rows.items():
        ratios = sorted(r for _, r in values)
        print(f"{name}: whole / simulation, median {statistics.median(ratios):.2f} "
              f"({ratios[0]:.2f}-{ratios[-1]:.2f})")  # fmt: skip


if __name__ == "__main__":
    main()
