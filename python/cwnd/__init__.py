"""cwnd: a laboratory for transport protocols over hard networks.

A fast, deterministic packet-level simulator of TCP, SCTP and UDP over links that
lose, delay, reorder and disconnect. Describe a scenario in TOML or with `Scenario`,
load it once into a `Plan` with `plan` (or let `run` do it), run it with `run`, and
look at the `Results`; run many with `sweep`. `controllers()` lists the congestion
controllers a flow may name. A mistake in what a call is given raises
`ScenarioError`, or for a sweep `SweepError`, `SummaryError` or `ClusterError`
(docs/python.md, "What the API raises").
"""

from cwnd import impairments, sources
from cwnd._cwnd import Plan, ScenarioError, __version__, controllers
from cwnd.executors import ClusterError
from cwnd.results import Results
from cwnd.run import check, run
from cwnd.scenario import Scenario, ScenarioWarning, load_scenario, plan
from cwnd.sweep import sweep
from cwnd.sweep_arguments import SweepError
from cwnd.sweep_summary import SummaryError

__all__ = [
    "ClusterError",
    "Plan",
    "Results",
    "Scenario",
    "ScenarioError",
    "ScenarioWarning",
    "SummaryError",
    "SweepError",
    "__version__",
    "check",
    "controllers",
    "impairments",
    "load_scenario",
    "plan",
    "run",
    "sources",
    "sweep",
]
