"""Running scenarios: anything scenario-like in, `Results` out."""

from __future__ import annotations

import json
import numbers
import warnings

from cwnd import _cwnd
from cwnd.results import Results
from cwnd.scenario import ScenarioLike, plan_text
from cwnd.sweep_arguments import SEED_LIMIT


def to_plan(scenario: ScenarioLike) -> str:
    """The scenario's plan, checked, as canonical JSON text (what `_cwnd.run` takes),
    from one call to the simulator's `load`. A dict's files (`p_file`) are read
    relative to the working directory. What can never happen in the run is reported
    as a `ScenarioWarning`.

    Raises `ScenarioError` for a scenario that cannot run.
    """
    found: list[str] = []
    plan = plan_text(scenario, found)
    for message in found:
        warnings.warn(ScenarioWarning(message), stacklevel=3)
    return plan


class ScenarioWarning(UserWarning):
    """A scenario asks for something that can never happen in its run (a stage
    triggered at a segment its flow never sends, a stage starting after the end):
    not an error, but almost surely not what was meant."""


def run(scenario: ScenarioLike, seed: int = 0) -> Results:
    """Runs one scenario with one seed. The simulation releases the GIL.

    Raises `ScenarioError` for a scenario that cannot run or a seed that is not an
    integer in 0 to 2^64 − 1, and `KeyboardInterrupt` when Ctrl-C stops it.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise _cwnd.ScenarioError(f"seed: {seed!r} is not an integer")
    if not 0 <= int(seed) < SEED_LIMIT:
        raise _cwnd.ScenarioError(f"seed: {seed} is not in 0 to 2^64 - 1")
    seed = int(seed)
    plan = to_plan(scenario)
    return Results(_cwnd.run(plan, seed), json.loads(plan))


def check(scenario: ScenarioLike) -> None:
    """Checks a scenario without running it; raises `ScenarioError`."""
    to_plan(scenario)
