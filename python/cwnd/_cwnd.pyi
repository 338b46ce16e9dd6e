"""Type stub of the native module (crates/cwnd-py)."""

from typing import Any

__version__: str

class ScenarioError(ValueError):
    """A scenario that cannot run; the message names the field, the value and what is
    allowed, e.g. `links[0].bandwidth: "10Mbs" is not a rate; use e.g. "10Mbps"`."""

def run(spec_json: str, seed: int) -> dict[str, Any]:
    """Runs a scenario given as JSON text; returns summaries and numpy columns.

    Raises ScenarioError; on the main thread, a signal handler's exception (Ctrl-C's
    KeyboardInterrupt) stops the run within about 50 ms and is raised."""

def check(spec_json: str) -> None:
    """Parses and checks a scenario; raises ScenarioError."""

def check_toml(text: str, base_dir: str | None = None) -> None:
    """Parses and checks a scenario written in TOML; errors carry line numbers. Files
    the scenario names (`p_file`) are read relative to `base_dir` when given."""

def bench_engine(events: int) -> dict[str, float]:
    """Times `events` pops and pushes of the event queue: {"events", "seconds"}."""
