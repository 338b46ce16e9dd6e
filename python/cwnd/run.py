"""Running scenarios: anything scenario-like in, `Results` out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cwnd import _cwnd
from cwnd.results import Results
from cwnd.scenario import Scenario, load_scenario


def to_spec(scenario: str | Path | dict[str, Any] | Scenario) -> dict[str, Any]:
    """The scenario as a dict: from a TOML path or text, a dict, or a builder."""
    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    if isinstance(scenario, dict):
        return scenario
    return load_scenario(scenario)


def run(scenario: str | Path | dict[str, Any] | Scenario, seed: int = 0) -> Results:
    """Runs one scenario with one seed. The simulation releases the GIL.

    Raises `ScenarioError` for a scenario that cannot run.
    """
    spec = to_spec(scenario)
    return Results(_cwnd.run(json.dumps(spec), seed), spec)


def check(scenario: str | Path | dict[str, Any] | Scenario) -> None:
    """Validates a scenario without running it; raises `ScenarioError`."""
    _cwnd.check(json.dumps(to_spec(scenario)))
