"""The structure-aware fuzzer (tests/fuzz.py) as tests: a few hundred well-typed
scenarios with extreme but legal values, each either refused by `check` or run to its
end under a memory and time cap; and every case that ever failed, replayed.

More cases on request: `CWND_FUZZ_CASES=5000 pytest tests/test_fuzz.py`, or
`python tests/fuzz.py 5000 [--huge]`, which saves the smallest failing case in
tests/fuzz_regressions/.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import cwnd
from fuzz import REGRESSIONS, CappedRunner, scenarios

CASES = int(os.environ.get("CWND_FUZZ_CASES", "150"))


@pytest.fixture(scope="module")
def runner() -> Iterator[CappedRunner]:
    capped = CappedRunner()
    yield capped
    capped.close()


def refused_or_runs(spec: dict[str, Any], runner: CappedRunner) -> str | None:
    try:
        with warnings.catch_warnings():
            # A warning (a stage that never starts) is legal: the case runs.
            warnings.simplefilter("ignore", cwnd.ScenarioWarning)
            cwnd.check(spec)
    except cwnd.ScenarioError:
        return None
    return runner.run(spec)


def test_fuzzed_scenarios_are_refused_or_run_to_the_end(runner: CappedRunner) -> None:
    @settings(
        max_examples=CASES,
        derandomize=True,  # the same cases on every machine
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(scenarios())
    def case(spec: dict[str, Any]) -> None:
        problem = refused_or_runs(spec, runner)
        assert problem is None, f"{problem}\n{json.dumps(spec)}"

    case()


@pytest.mark.parametrize(
    "case", sorted(p.name for p in REGRESSIONS.glob("*.json")), ids=lambda name: name[:8]
)
def test_every_case_that_ever_failed_is_refused_or_runs(case: str, runner: CappedRunner) -> None:
    saved = json.loads((REGRESSIONS / case).read_text())
    problem = refused_or_runs(saved["scenario"], runner)
    assert problem is None, f"{case} (first seen: {saved['problem']}): {problem}"


def test_the_runner_reports_a_crash_as_a_failure(runner: CappedRunner) -> None:
    # A run that allocates far beyond the cap must come back as a failure, not hang
    # or take the test process down: an initial window of 4·10⁹ segments.
    spec = (
        cwnd.Scenario(duration="10ms")
        .link("a", "b", bandwidth="1Gbps", delay="1ms")
        .flow("a", "b", cc="reno", initial_window=4_000_000_000)
        .to_dict()
    )
    assert runner.run(spec) is not None
