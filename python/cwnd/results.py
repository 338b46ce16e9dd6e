"""What one run returns, as pandas frames built from numpy columns.

pandas is imported on first use, so that `import cwnd` stays fast.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cwnd.atomic import replacing, write_bytes

if TYPE_CHECKING:
    import pandas as pd

SERIES_METRICS = ("cwnd", "ssthresh", "srtt", "rto", "snd_una", "snd_nxt", "delivered")


class Results:
    """Summaries and time series of one run (see docs/results.md for every column)."""

    def __init__(self, raw: dict[str, Any], spec: dict[str, Any]) -> None:
        self._raw = raw
        self.spec = spec

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
        """Every flow: the TCP flows, then the SCTP associations."""
        return [f["name"] for f in self._raw["flows"]]

    @property
    def association_names(self) -> list[str]:
        """The SCTP associations, in the order of their `association` codes."""
        return [f["name"] for f in self._raw["flows"] if f["transport"] == "sctp"]

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

    def _columns(self, key: str, index: str, names: list[str]) -> pd.DataFrame:
        import pandas as pd

        cols = dict(self._raw[key])
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
        """The wide series of one flow."""
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
        links = [f"{link['name']} {link['direction']}" for link in self._raw["links"]]
        return self._columns("queues", "link", links)

    @property
    def pcaps(self) -> dict[str, bytes]:
        """pcap files of the nodes named in `trace.pcap`, by node (file contents)."""
        return dict(self._raw["pcaps"])

    def write(self, out: str | Path, figures: bool = True) -> list[Path]:
        """Writes summary.csv, links.csv, series.parquet, throughput.parquet (and
        channels.csv when the scenario has shared media, segments/queues when traced, the
        SCTP tables when there are associations,
        `<node>.pcap` for captured nodes) and, with `figures`, the PNG figures; returns
        the paths written. Each file is written whole or not at all (`cwnd.atomic`)."""
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
        csvs = {"summary": self.summary, "links": self.links}
        shared = {"paths": self.paths, "channels": self.channels}
        csvs.update({name: frame for name, frame in shared.items() if len(frame)})
        written = []
        for name, frame in csvs.items():
            path = out / f"{name}.csv"
            with replacing(path) as tmp:
                frame.to_csv(tmp, index=False)
            written.append(path)
        tables = {"series": self.series_wide, "throughput": self.throughput}
        optional = {
            "segments": self.segments,
            "queues": self.queues,
            "association_series": self.association_series,
            "path_series": self.path_series,
            "chunks": self.chunks,
            "sctp_events": self.sctp_events,
        }
        tables.update({name: frame for name, frame in optional.items() if len(frame)})
        for name, frame in tables.items():
            path = out / f"{name}.parquet"
            with replacing(path) as tmp:
                frame.to_parquet(tmp, index=False)
            written.append(path)
        for node, data in self.pcaps.items():
            path = out / f"{node}.pcap"
            write_bytes(path, data)
            written.append(path)
        if figures:
            from cwnd import plot

            written += plot.draw_all(self, out)
        return written
