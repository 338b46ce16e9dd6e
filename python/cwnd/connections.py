"""The traffic generators' connections, aggregated per generator and variant.

A run's `Results.connections` has one row per connection (docs/results.md); here
they become one row per (generator, cc) — `per_generator` — and, over the seeds of a
sweep, means with Student-t 95 % intervals (`over_seeds`, `cwnd.stats`).

Means are over completed connections only: a connection still open at the end of the
run has a truncated transfer, whose goodput and window would bias the mean towards
the slow ones that happened to start late. Their count is kept (`unfinished`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from cwnd.stats import mean_ci

if TYPE_CHECKING:
    import pandas as pd

#: Per-connection columns averaged per generator (means of completed connections).
METRICS = ("goodput_bps", "mean_cwnd", "mean_rtt", "timeouts", "fast_retransmits")

#: Columns of `per_generator` beside the metrics' means.
COUNTS = ("connections", "completed", "unfinished")


def per_generator(connections: pd.DataFrame) -> pd.DataFrame:
    """One row per (generator, cc): counts of connections, and the mean of each of
    `METRICS` over the completed ones (NaN when none completed)."""
    import pandas as pd

    keys = ["generator", "cc"]
    if connections.empty:
        return pd.DataFrame(columns=[*keys, *COUNTS, *METRICS])
    rows = []
    for (generator, cc), group in connections.groupby(keys, sort=False):
        done = group[group["completed"]]
        row = {"generator": generator, "cc": cc, "connections": len(group)}
        row.update(completed=len(done), unfinished=len(group) - len(done))
        row.update({m: float(done[m].mean()) if len(done) else float("nan") for m in METRICS})
        rows.append(row)
    return pd.DataFrame(rows)


def over_seeds(table: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Means over seeds with their 95 % t intervals: `table` has a row per (seed,
    generator, cc, *by) with the columns of `per_generator` (a sweep's
    `SweepResults.generators`); the result has a row per (*by, generator, cc) with,
    for each metric, `<metric>` (the mean over seeds), `<metric>_low` and
    `<metric>_high`, and `seeds`. A group of fewer than two seeds (or with a metric
    NaN in some seed) gets NaN bounds: no interval without spread to measure."""
    import pandas as pd

    keys = [*by, "generator", "cc"]
    rows = []
    for values, group in table.groupby(keys, sort=False):
        row = dict(zip(keys, values if isinstance(values, tuple) else (values,), strict=True))
        row["seeds"] = group["seed"].nunique()
        for m in METRICS:
            xs = [float(x) for x in group[m] if x == x]
            row[m] = sum(xs) / len(xs) if xs else float("nan")
            if len(xs) >= 2 and len(xs) == len(group):
                ci = mean_ci(xs)
                row[f"{m}_low"], row[f"{m}_high"] = ci.low, ci.high
            else:
                row[f"{m}_low"] = row[f"{m}_high"] = float("nan")
        rows.append(row)
    return pd.DataFrame(rows)
