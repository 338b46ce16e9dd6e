"""Type stub of the native module (crates/cwnd-py)."""

from typing import Any

__version__: str

class ScenarioError(ValueError):
    """A scenario that cannot run; the message names the field, the value and what is
    allowed, e.g. `links[0].bandwidth: "10Mbs" is not a rate; use e.g. "10Mbps"`."""

def load(text: str, base_dir: str | None = None, warnings: list[str] | None = None) -> str:
    """Loads a scenario, TOML or JSON text, into its plan (canonical JSON text):
    checked once, the files it names (`p_file`) read once, relative to `base_dir` when
    given, and put in it. Raises ScenarioError; errors in TOML carry line numbers. With a
    list as `warnings`, appends what the scenario asks for that can never happen."""

def run(plan_json: str, seed: int) -> dict[str, Any]:
    """Runs a plan (the JSON text `load` gives) with `seed`; returns summaries and
    numpy columns.

    Raises ScenarioError; on the main thread, a signal handler's exception (Ctrl-C's
    KeyboardInterrupt) stops the run within about 50 ms and is raised."""

def bench_engine(events: int) -> dict[str, float]:
    """Times `events` pops and pushes of the event queue: {"events", "seconds"}."""

def open_tun(name: str) -> int:
    """Creates TUN device `name` (IFF_TUN, no packet info, non-blocking) in the caller's
    network namespace; returns its descriptor, which the caller closes."""

def live_relay(
    spec_json: str,
    seed: int,
    hosts: list[tuple[str, int, int]],
    flows: list[tuple[int, int, int, int]],
    epoch_ns: int,
    stop_fd: int,
    pin_cpu: int | None = None,
) -> dict[str, Any]:
    """Relays the scenario's network between TUN devices from `epoch_ns`
    (CLOCK_MONOTONIC) until its end or until `stop_fd` is readable. hosts: (node, TUN
    fd, IPv4 address as an integer); flows: (flow index, sender address, receiver
    address, receiver port). Returns the world's results with a `relay` report."""
