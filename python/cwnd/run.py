"""Running scenarios: anything scenario-like in, `Results` out."""

from __future__ import annotations

import json
import math
import numbers
import warnings
from pathlib import Path
from typing import Any

from cwnd import _cwnd
from cwnd.results import Results
from cwnd.scenario import Scenario, plan_text
from cwnd.sweep_arguments import SEED_LIMIT


def to_plan(scenario: str | Path | dict[str, Any] | Scenario) -> str:
    """The scenario's plan, checked, as canonical JSON text (what `_cwnd.run` takes),
    from one call to the simulator's `load`. A dict's files (`p_file`) are read
    relative to the working directory. What can never happen in the run is reported
    as a `ScenarioWarning`.

    Raises `ScenarioError` for a scenario that cannot run.
    """
    found: list[str] = []
    if isinstance(scenario, str | Path):
        plan = plan_text(scenario, found)
    else:
        spec = scenario.to_dict() if isinstance(scenario, Scenario) else scenario
        plan = _cwnd.load(_json_text(spec), None, found)
    for message in found:
        warnings.warn(ScenarioWarning(message), stacklevel=3)
    return plan


def _json_text(spec: dict[str, Any]) -> str:
    """A scenario dict as JSON text; NaN and infinities are refused with their field."""
    try:
        # allow_nan=False refuses NaN and infinities in the same pass that writes the
        # text; only then is the dict searched for the field path (a search of every
        # value costs more than the JSON itself for 100 000 flows).
        return json.dumps(spec, allow_nan=False)
    except (ValueError, TypeError):
        bad = _first_non_finite(spec, "")
        if bad is None:
            raise
        path, value = bad
        raise _cwnd.ScenarioError(f"{path}: {value} is not a finite number; give a value") from None


class ScenarioWarning(UserWarning):
    """A scenario asks for something that can never happen in its run (a stage
    triggered at a segment its flow never sends, a stage starting after the end):
    not an error, but almost surely not what was meant."""


def _first_non_finite(value: Any, path: str) -> tuple[str, float] | None:
    """The first NaN or infinity in a scenario dict, with its field path (JSON has no
    form for them: the simulator would see a syntax error, not the field)."""
    if isinstance(value, float) and not math.isfinite(value):
        return path, value
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((bad for p, v in items if (bad := _first_non_finite(v, p))), None)


def run(scenario: str | Path | dict[str, Any] | Scenario, seed: int = 0) -> Results:
    """Runs one scenario with one seed. The simulation releases the GIL.

    Raises `ScenarioError` for a scenario that cannot run, `ValueError` for a seed that
    is not an integer in 0 to 2^64 − 1, and `KeyboardInterrupt` when Ctrl-C stops it.
    """
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(f"seed: {seed!r} is not an integer")
    if not 0 <= int(seed) < SEED_LIMIT:
        raise ValueError(f"seed: {seed} is not in 0 to 2^64 - 1")
    seed = int(seed)
    plan = to_plan(scenario)
    return Results(_cwnd.run(plan, seed), json.loads(plan))


def check(scenario: str | Path | dict[str, Any] | Scenario) -> None:
    """Checks a scenario without running it; raises `ScenarioError`."""
    to_plan(scenario)
