"""The memory estimate `check` holds against `memory_budget` (crates/cwnd-sim/src/scenario/
budget.rs) is within a factor of two of what runs really hold, both ways: each case runs
in a child process, whose peak resident memory above its baseline (the interpreter, numpy
and the extension's code paged in by a first small run) is compared with the estimate.

The cases are the example scenarios and a generated set, each small enough to run in about
a second and large enough that the term it is about dominates: many flows, long runs with
every trace on, big queues, 802.11, 802.16, generators, SCTP, UDP, declared nodes, many
hosts, captures, long schedules. Below 2 MiB a peak is the allocator's and the pages'
granularity more than the scenario's, so both sides are taken as at least 2 MiB."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

FLOOR = 2 << 20

CHILD = r"""
import json, sys
import numpy  # noqa: F401  (the results' columns need it: part of the baseline)
from cwnd import _cwnd

WARM_UP = '''duration = "1s"
[[links]]
between = ["a", "b"]
bandwidth = "1Mbps"
delay = "1ms"
[[flows]]
from = "a"
to = "b"
[trace]
segments = true
queues = true
'''

def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(key)

_cwnd.run(_cwnd.load(WARM_UP), 1)
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak (VmHWM) starts again from here
base = status("VmRSS")
text, folder = sys.stdin.read(), sys.argv[1]
plan = _cwnd.load(text, folder)
estimate = plan.memory_estimate
_cwnd.run(plan, 1)
print(json.dumps({"peak": status("VmHWM") - base, "estimate": estimate}))
"""


def dumbbell(flows: int, seconds: float, *, hosts: bool = True, trace: str = "") -> str:
    """`flows` flows over a 100 Mb/s bottleneck, each from its own host when `hosts`."""
    out = [f'duration = "{seconds}s"', "[[links]]", 'between = ["r1", "r2"]']
    out += ['bandwidth = "100Mbps"', 'delay = "10ms"']
    for i in range(flows if hosts else 0):
        out += ["[[links]]", f'between = ["s{i}", "r1"]', 'bandwidth = "1Gbps"', 'delay = "1ms"']
        out += ["[[links]]", f'between = ["r2", "d{i}"]', 'bandwidth = "1Gbps"', 'delay = "1ms"']
    for i in range(flows):
        ends = (f"s{i}", f"d{i}") if hosts else ("r1", "r2")
        out += ["[[flows]]", f'from = "{ends[0]}"', f'to = "{ends[1]}"']
    return "\n".join(out) + f"\n[trace]\n{trace}\n"


FLOW = '[[flows]]\nfrom = "s"\nto = "d"\n'


def one_path(
    seconds: float, rate: str, flows: str = FLOW, *, queue: str = "", trace: str = ""
) -> str:
    """s –1 Gb/s, 1 ms– r –`rate`, 10 ms– d, with `flows`."""
    return f"""duration = "{seconds}s"
[[links]]
between = ["s", "r"]
bandwidth = "1Gbps"
delay = "1ms"
[[links]]
name = "r-d"
between = ["r", "d"]
bandwidth = "{rate}"
delay = "10ms"
{queue}
{flows}
[trace]
{trace}
"""


def wifi(stations: int, seconds: float) -> str:
    names = ", ".join(f'"w{i}"' for i in range(stations))
    flows = "".join(f'[[flows]]\nfrom = "w0"\nto = "w{i}"\n' for i in range(1, stations))
    channel = f'[[wireless]]\nstations = [{names}]\nrate = "54Mbps"\n'
    return f'duration = "{seconds}s"\nlinks = []\n{channel}{flows}'


def wimax(subscribers: int, seconds: float) -> str:
    names = ", ".join(f'"ss{i}"' for i in range(subscribers))
    flows = "".join(f'[[flows]]\nfrom = "server"\nto = "ss{i}"\n' for i in range(subscribers))
    return f"""duration = "{seconds}s"
[[links]]
between = ["server", "bs"]
bandwidth = "100Mbps"
delay = "1ms"
[[wimax]]
base_station = "bs"
subscribers = [{names}]
preset = "los_snr30"
{flows}"""


GENERATORS = """
[[generators]]
kind = "web"
from = "s"
to = "d"
link = "r-d"
load = 0.4
[[generators]]
kind = "ftp"
from = "s"
to = "d"
link = "r-d"
load = 0.4
mean_size = "100KB"
"""


SCTP = """duration = "60s"
[[links]]
between = ["a0", "b0"]
bandwidth = "20Mbps"
delay = "20ms"
[[links]]
between = ["a1", "b1"]
bandwidth = "20Mbps"
delay = "20ms"
[[flows]]
from = ["a0", "a1"]
to = ["b0", "b1"]
transport = "sctp"
[trace]
segments = true
"""


def declared_nodes(count: int) -> str:
    names = ", ".join(f'{{ name = "n{i}" }}' for i in range(count))
    return f"nodes = [{names}]\n" + one_path(1, "10Mbps")


def schedule(steps: int) -> str:
    table = ", ".join(f'["{k}ms", {0.001 * (k % 7)}]' for k in range(steps))
    stage = f'impairments = [{{ kind = "bernoulli", schedule = [{table}], applies_to = "data" }}]'
    return one_path(10, "10Mbps", queue=stage)


UDP = 'transport = "udp"\nsource = { kind = "cbr", rate = "120Mbps", packet_size = "500B" }'

GENERATED = {
    "many flows, change sampling": dumbbell(2000, 2),
    "many flows between two routers": dumbbell(3000, 1, hosts=False),
    "a long run, every trace on": one_path(
        240,
        "10Mbps",
        FLOW + 'cc = "cubic"',
        trace="segments = true\nqueues = true\ncc_metrics = true",
    ),
    "interval sampling of many flows": dumbbell(
        50, 60, trace='sampling = "interval"\ninterval = "5ms"\nthroughput_bin = "10ms"'
    ),
    "a big queue": one_path(
        10, "50Mbps", queue="queue = { packets = 50000 }", trace='sampling = "interval"'
    ),
    "802.11": wifi(30, 20),
    "802.16": wimax(12, 20),
    "generators": one_path(60, "100Mbps", GENERATORS),
    "SCTP": SCTP,
    "UDP": one_path(30, "100Mbps", FLOW + UDP, trace="queues = true"),
    "declared nodes": declared_nodes(2500),
    "captures": one_path(20, "50Mbps", trace='pcap = ["r"]'),
    "a long loss schedule": schedule(40000),
}

EXAMPLES = {p.stem: p.read_text() for p in sorted((ROOT / "scenarios").glob("*.toml"))}


def measure(text: str, folder: Path) -> tuple[int, int]:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder)],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(proc.stdout)
    return out["peak"], out["estimate"]


@pytest.mark.parametrize("name", [*GENERATED, *EXAMPLES])
def test_the_estimate_is_within_twice_the_peak(name: str) -> None:
    text = GENERATED.get(name) or EXAMPLES[name]
    peak, estimate = measure(text, ROOT / "scenarios")
    ratio = max(estimate, FLOOR) / max(peak, FLOOR)
    assert 0.5 <= ratio <= 2.0, f"{name}: estimate {estimate} B, peak {peak} B"
