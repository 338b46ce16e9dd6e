"""Type stub of the native module (crates/cwnd-py)."""

from typing import Any

__version__: str

class ScenarioError(ValueError):
    """A scenario that cannot run; the message names the field, the value and what is
    allowed, e.g. `links[0].bandwidth: "10Mbs" is not a rate; use e.g. "10Mbps"`."""

def load(text: str, base_dir: str | None = None) -> str:
    """Loads a scenario, TOML or JSON text, into its plan (canonical JSON text):
    checked once, the files it names (`p_file`) read once, relative to `base_dir` when
    given, and put in it. Raises ScenarioError; errors in TOML carry line numbers."""

def run(plan_json: str, seed: int) -> dict[str, Any]:
    """Runs a plan (the JSON text `load` gives) with `seed`; returns summaries and
    numpy columns."""

def bench_engine(events: int) -> dict[str, float]:
    """Times `events` pops and pushes of the event queue: {"events", "seconds"}."""
