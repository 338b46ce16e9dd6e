"""Live mode: real Linux TCP over cwnd's own network models (docs/live.md).

`run_live` takes the same scenario as `cwnd.run` and returns the same `Results`
(summary, series, throughput, links, figures), measured on kernel connections
between network namespaces whose only path is the Rust relay running the
scenario's world against the wall clock.
"""

from cwnd.live.checks import LiveRefused
from cwnd.live.run import run_live

__all__ = ["LiveRefused", "run_live"]
