"""What the figures of one run are and what they read of its results.

`Results.write` draws a run's figures (`plot.py`), and the figures and the impairment
windows they shade (`impairment_windows.py`) read the run's results. So that neither
side names the other's module (the front end's import graph has no cycle:
tests/test_import_graph.py), the figures read a `RunView`, the part of `Results` they
use, which `Results` satisfies as it is: mypy checks it where `Results.write` hands
itself to the figures. Here too are the figures' names, which the CLI and `Results`
need without importing numpy or matplotlib.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

#: The figures of one run, by the name `cwnd run --figures` takes: each is drawn into
#: `<name>.png` (`cwnd.plot`), and "cc_metrics" into one `cc_metrics_<flow>.png` per
#: traced flow.
FIGURES = ("cwnd", "sequence", "throughput", "queue", "cc_metrics")


class RunView(Protocol):
    """A run's results as its figures read them (`cwnd.results.Results` documents
    each member)."""

    @property
    def name(self) -> str: ...

    @property
    def duration(self) -> float: ...

    @property
    def spec(self) -> dict[str, Any]: ...

    @property
    def flow_names(self) -> list[str]: ...

    @property
    def association_names(self) -> list[str]: ...

    @property
    def link_names(self) -> list[str]: ...

    @property
    def summary(self) -> pd.DataFrame: ...

    @property
    def segments(self) -> pd.DataFrame: ...

    @property
    def path_series(self) -> pd.DataFrame: ...

    @property
    def chunks(self) -> pd.DataFrame: ...

    def columns(self, table: str) -> dict[str, np.ndarray]: ...

    def flow_series(self, flow: str) -> pd.DataFrame: ...

    def flow_cc_metrics(self, flow: str) -> pd.DataFrame: ...
