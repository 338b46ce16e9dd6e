"""When a run's impairments acted: the windows a per-run figure shades (outages,
delay steps, any stage with a `start` or a `duration`) and the steps it marks (a loss
schedule's changes of p), as the study figures shade their disconnections.

Times come from the scenario's plan (docs/links.md): a stage is active from `start`
(default 0) for `duration` (default: to the end of the run). A stage started by
`start_on = {flow, segment}` is active from the moment that flow first sends data
segment `segment` (counted from 1): the run's segment trace gives that moment
(`trace.segments`), else the sender's series (the first sample whose snd_nxt is past
the segment, exact with the default sampling on change, later by up to one interval
with `sampling = "interval"`). A trigger on an SCTP association, or one the flow
never reached, draws nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from cwnd.run_view import RunView

#: Seconds per unit of a duration's text, as the simulator reads them (units.rs).
TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}

_DURATION = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zµ]+)\s*")


def seconds(value: str | float) -> float:
    """A duration of the plan (`"5s"`, `"250ms"`, or a number of seconds) in seconds."""
    if isinstance(value, int | float):
        return float(value)
    match = _DURATION.fullmatch(value)
    if not match or match[2] not in TIME_UNITS:
        raise ValueError(f"{value!r} is not a duration")
    return float(match[1]) * TIME_UNITS[match[2]]


@dataclass(frozen=True)
class Window:
    """An impairment active from `start` to `end` (seconds)."""

    start: float
    end: float
    label: str


@dataclass(frozen=True)
class Step:
    """A change of an impairment's parameter at `time` (seconds)."""

    time: float
    label: str


def _stages(plan: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every impairment stage with the name of its link or medium."""
    found = []
    for kind in ("links", "wireless", "wimax"):
        for i, medium in enumerate(plan.get(kind, [])):
            where = medium.get("name") or f"{kind}[{i}]"
            found += [(str(where), stage) for stage in medium.get("impairments", [])]
    return found


def trigger_time(results: RunView, flow: str, segment: int) -> float | None:
    """When `flow` first sent data segment `segment` (counted from 1), or None."""
    if flow not in results.flow_names or flow in results.association_names:
        return None
    segments = results.segments
    mine = segments[segments["flow"] == flow] if len(segments) else segments
    if len(mine):
        mss = float(mine["len"].max())
        sent = mine[mine["seq"] >= (segment - 1) * mss]
        return float(sent["time"].min()) if len(sent) else None
    series = results.flow_series(flow)
    mss = _mss(results, flow)
    past = series[series["snd_nxt"] >= segment * mss]
    return float(past["time"].min()) if len(past) else None


def _mss(results: RunView, flow: str) -> float:
    """Payload bytes of the flow's full segments: its MSS clamped to the MTU, less
    the timestamp option's 12 B when timestamps are on (docs/tcp.md)."""
    tcp = next(f for f in results.spec["flows"] if f.get("name") == flow).get("tcp", {})
    mss = float(str(tcp.get("mss") or "1460B").removesuffix("B"))
    mss = min(mss, float(tcp.get("mtu") or 1500) - 40)
    return mss - 12 if tcp.get("timestamps") else mss


def windows(results: RunView) -> tuple[list[Window], list[Step]]:
    """The windows and steps of every impairment stage of the run's scenario."""
    spans: list[Window] = []
    steps: list[Step] = []
    end_of_run = results.duration
    for where, stage in _stages(results.spec):
        kind = str(stage["kind"])
        for time, p in stage.get("schedule") or []:
            steps.append(Step(seconds(time), f"{where}: p = {p:g}"))
        if "start_on" in stage:
            trigger = stage["start_on"]
            start = trigger_time(results, str(trigger["flow"]), int(trigger["segment"]))
            if start is None:
                continue
        elif "start" in stage or "duration" in stage or kind in ("outage", "delay_step"):
            start = seconds(stage.get("start", 0.0))
        else:
            continue
        end = start + seconds(stage["duration"]) if "duration" in stage else end_of_run
        label = f"{where}: {kind.replace('_', ' ')}"
        if kind == "delay_step":
            label += f" +{stage['extra']}"
        spans.append(Window(start, min(end, end_of_run), label))
    return spans, steps


def shade(ax: Axes, results: RunView) -> None:
    """Shades the run's impairment windows in grey and marks its steps with dotted
    lines, each named in the legend once."""
    spans, steps = windows(results)
    for window in spans:
        # An edge, so that the legend's swatch shows where it lies on a shaded area.
        ax.axvspan(window.start, window.end, facecolor="0.88", edgecolor="0.6", lw=0.5,
                   zorder=0, label=window.label)  # fmt: skip
    for step in steps:
        ax.axvline(step.time, color="0.5", ls=":", lw=0.8, zorder=0)
        ax.annotate(
            step.label.split(": ")[-1],
            (step.time, 1.0),
            xycoords=("data", "axes fraction"),
            xytext=(2, -2),
            textcoords="offset points",
            fontsize=7,
            color="0.35",
            va="top",
        )
