"""Running scenarios: anything scenario-like in, `Results` out."""

from __future__ import annotations

import numbers

from cwnd import _cwnd
from cwnd.results import Results
from cwnd.scenario import ScenarioLike, warned
from cwnd.sweep_arguments import SEED_LIMIT


def run(scenario: ScenarioLike, seed: int = 0) -> Results:
    """Runs one scenario with one seed. The scenario is loaded once (`cwnd.plan`; a
    `Plan` is not loaded again) and the simulation releases the GIL. What can never
    happen in the run is reported as a `ScenarioWarning`.

    Raises `ScenarioError` for a scenario that cannot run or a seed that is not an
    integer in 0 to 2^64 − 1, and `KeyboardInterrupt` when Ctrl-C stops it.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise _cwnd.ScenarioError(f"seed: {seed!r} is not an integer")
    if not 0 <= int(seed) < SEED_LIMIT:
        raise _cwnd.ScenarioError(f"seed: {seed} is not in 0 to 2^64 - 1")
    plan = warned(scenario, stacklevel=3)
    return Results(_cwnd.run(plan, int(seed)), plan)


def check(scenario: ScenarioLike) -> None:
    """Checks a scenario without running it (a `Plan` was checked when it was made);
    raises `ScenarioError`, reports what can never happen as a `ScenarioWarning`."""
    warned(scenario, stacklevel=3)
