"""What one run returns, as pandas frames built from numpy columns.

pandas is imported on first use, so that `import cwnd` stays fast.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cwnd import _cwnd
from cwnd.atomic import replacing, write_bytes
from cwnd.run_view import FIGURES

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

SERIES_METRICS = ("cwnd", "ssthresh", "srtt", "rto", "snd_una", "snd_nxt", "delivered")

#: The tables `Results.columns` gives, as numpy columns.
COLUMN_TABLES = (
    "series",
    "throughput",
    "segments",
    "queues",
    "queue_delays",
    "cc_metrics",
    "association_series",
    "path_series",
    "chunks",
    "sctp_events",
)


class Results:
    """Summaries and time series of one run (see docs/results.md for every column),
    and the plan it ran (a `Plan`, or its spec as a dict)."""

    def __init__(self, raw: dict[str, Any], plan: _cwnd.Plan | dict[str, Any]) -> None:
        self._raw = raw
        self._plan = plan

    @cached_property
    def spec(self) -> dict[str, Any]:
        """The plan's canonical spec (docs/scenarios.md), made from the plan when
        first asked for: a run that draws no figure never writes it out."""
        if isinstance(self._plan, dict):
            return self._plan
        spec: dict[str, Any] = self._plan.spec
        return spec

    @property
    def name(self) -> str:
        return str(self._raw["name"])

    @property
    def seed(self) -> int:
        return int(self._raw["seed"])

    @property
    def fingerprint(self) -> int:
        """Hash of every event processed: equal for identical runs."""
        return int(self._raw["fingerprint"])

    @property
    def events(self) -> int:
        return int(self._raw["events"])

    @property
    def duration(self) -> float:
        """Simulated seconds."""
        return float(self._raw["duration"])

    @property
    def flow_names(self) -> list[str]:
        """Every flow: the TCP flows, then the SCTP associations, then the UDP flows."""
        return [f["name"] for f in self._raw["flows"]]

    @property
    def association_names(self) -> list[str]:
        """The SCTP associations, in the order of their `association` codes."""
        return [f["name"] for f in self._raw["flows"] if f["transport"] == "sctp"]

    @property
    def link_names(self) -> list[str]:
        """Every link direction, "<name> <direction>", in the order of `links`."""
        return [f"{link['name']} {link['direction']}" for link in self._raw["links"]]

    def columns(self, table: str) -> dict[str, np.ndarray]:
        """The numpy columns of a table ("series", "throughput", "segments", "queues"…)
        as the simulator returned them, its flow (link, association) a code into
        `flow_names` (`link_names`, `association_names`): for work that needs no pandas,
        such as a run's figures, drawn in a process that has not imported it (0.25 s
        of CPU: issue 17). Raises `ScenarioError` for a name not in `COLUMN_TABLES`."""
        if table not in COLUMN_TABLES:
            raise _refused("table", table, COLUMN_TABLES)
        return dict(self._raw[table])

    @cached_property
    def summary(self) -> pd.DataFrame:
        """One row per flow."""
        import pandas as pd

        return pd.DataFrame(self._raw["flows"])

    @cached_property
    def links(self) -> pd.DataFrame:
        """One row per link direction."""
        import pandas as pd

        return pd.DataFrame(self._raw["links"])

    @cached_property
    def channels(self) -> pd.DataFrame:
        """One row per shared medium (802.11 channel, 802.16 cell) with its counters."""
        import pandas as pd

        return pd.DataFrame(self._raw["channels"])

    @cached_property
    def connections(self) -> pd.DataFrame:
        """One row per connection a traffic generator opened (empty without
        `[[generators]]`)."""
        import pandas as pd

        return pd.DataFrame(self._raw["connections"])

    @cached_property
    def generators(self) -> pd.DataFrame:
        """One row per traffic generator: its target load and the load it offered."""
        import pandas as pd

        return pd.DataFrame(self._raw["generators"])

    @cached_property
    def connection_summary(self) -> pd.DataFrame:
        """The connections aggregated per generator and variant
        (`cwnd.connections.per_generator`)."""
        from cwnd.connections import per_generator

        return per_generator(self.connections)

    def _check_flow(self, flow: str) -> None:
        if flow not in self.flow_names:
            raise _refused("flow", flow, self.flow_names)

    def _columns(self, key: str, index: str, names: list[str]) -> pd.DataFrame:
        return self._columns_of(dict(self._raw[key]), index, names)

    @staticmethod
    def _columns_of(cols: dict[str, Any], index: str, names: list[str]) -> pd.DataFrame:
        """A frame of numpy columns, the `index` codes turned into a categorical."""
        import pandas as pd

        ids = cols.pop(index)
        frame = pd.DataFrame(cols)
        frame.insert(0, index, pd.Categorical.from_codes(ids.astype("int64"), categories=names))
        return frame

    @cached_property
    def series_wide(self) -> pd.DataFrame:
        """Sender state: one row per sample, one column per metric."""
        return self._columns("series", "flow", self.flow_names)

    @cached_property
    def series(self) -> pd.DataFrame:
        """Sender state in long (tidy) form: flow, time, metric, value."""
        wide = self.series_wide
        long = wide.melt(
            id_vars=["flow", "time"], value_vars=list(SERIES_METRICS), var_name="metric"
        )
        return long

    def flow_series(self, flow: str) -> pd.DataFrame:
        """The wide series of one flow; raises `ScenarioError` for a name not in
        `flow_names`."""
        self._check_flow(flow)
        wide = self.series_wide
        return wide[wide["flow"] == flow].reset_index(drop=True)

    @cached_property
    def throughput(self) -> pd.DataFrame:
        """Goodput and throughput per time bin and flow (bit/s)."""
        return self._columns("throughput", "flow", self.flow_names)

    @cached_property
    def segments(self) -> pd.DataFrame:
        """Every data transmission (empty unless `trace.segments = true`)."""
        return self._columns("segments", "flow", self.flow_names)

    @cached_property
    def cc_metrics(self) -> pd.DataFrame:
        """The controllers' internal numbers in long form: flow, time, metric, value
        (empty unless `trace.cc_metrics = true`; docs/results.md lists them)."""
        import pandas as pd

        cols = dict(self._raw["cc_metrics"])
        names = cols.pop("metric_names")
        frame = self._columns_of(cols, "flow", self.flow_names)
        frame["metric"] = pd.Categorical.from_codes(
            frame["metric"].to_numpy().astype("int64"), categories=names
        )
        return frame

    @cached_property
    def cc_metrics_wide(self) -> pd.DataFrame:
        """The controllers' numbers, one row per sample and one column per metric
        (NaN where a flow's controller has no such metric)."""
        import pandas as pd

        long = self.cc_metrics
        groups = long.groupby("flow", observed=True, sort=False)
        frames = [_wide_cc_metrics(str(flow), rows) for flow, rows in groups]
        if not frames:
            return pd.DataFrame({"flow": [], "time": []})
        wide = pd.concat(frames, ignore_index=True)
        wide["flow"] = pd.Categorical(wide["flow"], categories=self.flow_names)
        return wide

    def flow_cc_metrics(self, flow: str) -> pd.DataFrame:
        """The wide controller numbers of one flow: its own metrics, in its order;
        raises `ScenarioError` for a name not in `flow_names`."""
        self._check_flow(flow)
        long = self.cc_metrics
        return _wide_cc_metrics(flow, long[long["flow"] == flow])

    @cached_property
    def paths(self) -> pd.DataFrame:
        """One row per path of every SCTP association, with its counters."""
        import pandas as pd

        frame = pd.DataFrame(self._raw["paths"])
        if len(frame):
            codes = frame["association"].astype("int64")
            frame["association"] = pd.Categorical.from_codes(
                codes, categories=self.association_names
            )
        return frame

    @cached_property
    def association_series(self) -> pd.DataFrame:
        """SCTP association state over time: cumulative TSN ack, highest TSN sent,
        delivered bytes, dupthresh, fast recovery."""
        return self._columns("association_series", "association", self.association_names)

    @cached_property
    def path_series(self) -> pd.DataFrame:
        """SCTP path state over time: cwnd, ssthresh, flight (chunks and bytes), srtt,
        rto, active."""
        return self._columns("path_series", "association", self.association_names)

    @cached_property
    def chunks(self) -> pd.DataFrame:
        """Every SCTP DATA chunk transmission, with the truth about retransmissions
        (empty unless `trace.segments = true`)."""
        return self._columns("chunks", "association", self.association_names)

    @cached_property
    def sctp_events(self) -> pd.DataFrame:
        """SCTP retransmission events (fast retransmits, timeouts): truth and detection."""
        return self._columns("sctp_events", "association", self.association_names)

    @cached_property
    def queues(self) -> pd.DataFrame:
        """Queue occupancy at every change (empty unless `trace.queues = true`)."""
        return self._columns("queues", "link", self.link_names)

    @cached_property
    def queue_delays(self) -> pd.DataFrame:
        """Every packet a queue handed to its transmitter: when, and how long it had
        waited (empty unless `trace.queues = true`)."""
        return self._columns("queue_delays", "link", self.link_names)

    @property
    def pcaps(self) -> dict[str, bytes]:
        """pcap files of the nodes named in `trace.pcap`, by node (file contents)."""
        return dict(self._raw["pcaps"])

    def write(self, out: str | Path, figures: bool | Collection[str] = True) -> list[Path]:
        """Writes links.csv; summary.csv, series.parquet, throughput.parquet when the
        scenario has flows (generators' connections alone have none of them);
        channels.csv when it has shared media, segments/queues/queue_delays/cc_metrics when traced,
        the SCTP tables when there are associations, generators.csv and
        connections.parquet when there are traffic generators, `<node>.pcap` for
        captured nodes; and the PNG figures that have something to show: all of them
        with `figures` true, none with false, or those named (`cwnd.run_view.FIGURES`).
        Returns the paths written. Each file is written whole or not at all
        (`cwnd.atomic`)."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        names = FIGURES if figures is True else () if figures is False else figures
        # Before any frame is built: the figures need none (`_FigureDrawing`).
        drawing = _FigureDrawing(self, out, names) if names else None
        try:
            written = self._write_files(out)
            if drawing is not None:
                written += drawing.finish()
        finally:
            if drawing is not None:
                drawing.close()
        return written

    def _write_files(self, out: Path) -> list[Path]:
        """The tables and pcap files of `write`; their paths."""
        csvs = {"links": self.links}
        shared = {
            "summary": self.summary,
            "paths": self.paths,
            "channels": self.channels,
            "generators": self.generators,
        }
        csvs.update({name: frame for name, frame in shared.items() if len(frame)})
        tables = {
            "series": self.series_wide,
            "throughput": self.throughput,
            "segments": self.segments,
            "cc_metrics": self.cc_metrics,
            "queues": self.queues,
            "queue_delays": self.queue_delays,
            "association_series": self.association_series,
            "path_series": self.path_series,
            "chunks": self.chunks,
            "sctp_events": self.sctp_events,
            "connections": self.connections,
        }
        tables = {name: frame for name, frame in tables.items() if len(frame)}
        written = []
        for name, frame in csvs.items():
            path = out / f"{name}.csv"
            with replacing(path) as tmp:
                frame.to_csv(tmp, index=False)
            written.append(path)
        for name, frame in tables.items():
            path = out / f"{name}.parquet"
            with replacing(path) as tmp:
                frame.to_parquet(tmp, index=False)
            written.append(path)
        for node, data in self.pcaps.items():
            path = out / f"{node}.pcap"
            write_bytes(path, data)
            written.append(path)
        return written


class _FigureDrawing:
    """A run's figures, drawn by a child forked at construction and by this process
    when `finish` is called (after it wrote the tables), each taking the next figure
    that neither has taken: on two cores the figures cost about half their serial
    time (issue 17; `cwnd.beside`). The child draws from the numpy columns
    (`Results.columns`), so it starts before pandas is imported or any frame built.
    One core, or no `fork`: all are drawn here."""

    def __init__(self, results: Results, out: Path, names: Collection[str]) -> None:
        import multiprocessing

        from cwnd import plot
        from cwnd.beside import Beside, can_fork

        self._drawers = plot.figures(results, out, names)
        parallel = len(self._drawers) > 1 and can_fork()
        self._taken = multiprocessing.get_context("fork").Value("i", 0) if parallel else None
        self._child = Beside(partial(plot.draw, self._drawers, self._taken)) if parallel else None

    def finish(self) -> list[Path]:
        """The figures' paths, in the order of `plot.figures`."""
        from cwnd import plot

        drawn = plot.draw(self._drawers, self._taken)
        if self._child is not None:
            drawn += self._child.result()
        return [p for _, p in sorted(drawn, key=lambda d: d[0]) if p is not None]

    def close(self) -> None:
        """Stops the child if `finish` did not read it (a failure on the way)."""
        if self._child is not None:
            self._child.close()


def _wide_cc_metrics(flow: str, rows: pd.DataFrame) -> pd.DataFrame:
    """One flow's long controller numbers as one row per sample: every sample reports
    the same names in the same order (`CongestionControl::info`), so a reshape."""
    import pandas as pd

    names = list(dict.fromkeys(rows["metric"]))
    if not names:
        return pd.DataFrame({"flow": [], "time": []})
    values = rows["value"].to_numpy().reshape(-1, len(names))
    frame = pd.DataFrame(values, columns=names)
    frame.insert(0, "time", rows["time"].to_numpy()[:: len(names)])
    frame.insert(0, "flow", flow)
    return frame


def _refused(what: str, name: object, allowed: Collection[str]) -> Exception:
    """A name that is not one of `allowed`, as the one-line `ScenarioError` of the API."""
    return _cwnd.ScenarioError(f"{what}: {name!r} is not one of {', '.join(allowed)}")
