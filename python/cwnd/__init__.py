"""cwnd: a laboratory for transport protocols over hard networks.

A fast, deterministic packet-level simulator of TCP, SCTP and UDP over links that
lose, delay, reorder and disconnect. Describe a scenario in TOML or with `Scenario`,
run it with `run`, and look at the `Results`; run many with `sweep`. A mistake in
what a call is given raises `ScenarioError`, or for a sweep `SweepError`,
`SummaryError` or `ClusterError` (docs/python.md, "What the API raises").
"""

from cwnd import impairments, sources
from cwnd._cwnd import ScenarioError, __version__
from cwnd.executors import ClusterError
from cwnd.results import Results
from cwnd.run import ScenarioWarning, check, run
from cwnd.scenario import Scenario, load_scenario
from cwnd.sweep import sweep
from cwnd.sweep_arguments import SweepError
from cwnd.sweep_summary import SummaryError

__all__ = [
    "ClusterError",
    "Results",
    "Scenario",
    "ScenarioError",
    "ScenarioWarning",
    "SummaryError",
    "SweepError",
    "__version__",
    "check",
    "impairments",
    "load_scenario",
    "run",
    "sources",
    "sweep",
]
