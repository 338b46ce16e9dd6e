"""The traffic generators' connections, aggregated per generator and variant.

A run's `Results.connections` has one row per connection (docs/results.md); here
they become one row per (generator, cc) — `per_generator` — and, over the seeds of a
sweep, means with Student-t 95 % intervals (`over_seeds`, `cwnd.stats`).

Means are over every connection the generator opened, a connection still open at the
end of the run by what it did until then: its bytes delivered over the time it was
open, its window and RTT so far, its timeouts so far. Averaging the completed ones
only is survivorship bias (issue 35): the connections that outlive a run are the
large and the slow ones, so the completed ones overstate what a variant gets, and by
more for the variant that leaves more unfinished. The other way round, a connection
opened just before the end is measured on its first round trips; the counts
(`completed`, `unfinished`) say how many of each a mean holds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from cwnd.stats import mean_ci

if TYPE_CHECKING:
    import pandas as pd

#: Per-connection columns averaged per generator (over every connection; NaN values,
#: a connection without an RTT sample or open for no time, left out).
METRICS = ("goodput_bps", "mean_cwnd", "mean_rtt", "timeouts", "fast_retransmits")

#: Columns of `per_generator` beside the metrics' means: counts of connections, and
#: totals over them (data segments sent, packets dropped by full or early-dropping
#: queues: their ratio is the loss the generator's connections met).
COUNTS = ("connections", "completed", "unfinished")
TOTALS = ("segments_sent", "drops_queue")


def per_generator(connections: pd.DataFrame) -> pd.DataFrame:
    """One row per (generator, cc): counts of connections, totals of `TOTALS`, and the
    mean of each of `METRICS` over every connection (NaN when none has a value)."""
    import pandas as pd

    keys = ["generator", "cc"]
    if connections.empty:
        return pd.DataFrame(columns=[*keys, *COUNTS, *TOTALS, *METRICS])
    rows = []
    for (generator, cc), group in connections.groupby(keys, sort=False):
        completed = int(group["completed"].sum())
        row = {"generator": generator, "cc": cc, "connections": len(group)}
        row.update(completed=completed, unfinished=len(group) - completed)
        row.update({t: int(group[t].sum()) for t in TOTALS})
        row.update({m: _mean(group[m]) for m in METRICS})
        rows.append(row)
    return pd.DataFrame(rows)


def _mean(values: pd.Series) -> float:
    finite = [float(v) for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else math.nan


def over_seeds(table: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Means over seeds with their 95 % t intervals: `table` has a row per (seed,
    generator, cc, *by) with the columns of `per_generator` (a sweep's
    `SweepResults.generators`); the result has a row per (*by, generator, cc) with,
    for each metric, `<metric>` (the mean over seeds), `<metric>_low` and
    `<metric>_high`; `seeds`; and `connections`, `unfinished` summed over the seeds.
    A group of fewer than two seeds (or with a metric NaN in some seed) gets NaN
    bounds: no interval without spread to measure."""
    import pandas as pd

    keys = [*by, "generator", "cc"]
    rows = []
    for values, group in table.groupby(keys, sort=False):
        row = dict(zip(keys, values if isinstance(values, tuple) else (values,), strict=True))
        row["seeds"] = group["seed"].nunique()
        row["connections"] = int(group["connections"].sum())
        row["unfinished"] = int(group["unfinished"].sum())
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
