"""A sweep's answer: a metric's mean over seeds at every point, with its 95 %
confidence interval, and the figure of it against one swept field.

The swept fields are field paths (`links[1].impairments[0].p`); tables and figures call
them by short names, the shortest tail of the path that no other swept field shares
(`p`, `cc`; `flows[0].cc` and `flows[1].cc` stay whole), unless the caller names them
(`{"loss": "links[1].impairments[0].p"}`). The figure puts one field on the x axis
(`x`, by default the numeric field with the most values) and draws one line per value of
the others (`hue` first in each label), and per flow when the scenario has several.

Intervals are Student-t intervals of the mean over seeds (`cwnd.stats`, the
quantiles the studies use too): mean ± t(0.975, n − 1) · s / √n.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cwnd.stats import t975

if TYPE_CHECKING:
    import pandas as pd

#: The metric a sweep's summary and figure show unless told otherwise.
DEFAULT_METRIC = "goodput_bps"

#: Summary columns in seconds (the others are counts, or bit/s when named `*_bps`).
SECONDS = {"start", "end", "completion_time", "mean_rtt", "mean_rto", "established_at"}

#: Ratio of largest to smallest x value from which the x axis is logarithmic.
LOG_RATIO = 20


class SummaryError(ValueError):
    """A metric, an axis or a name that the sweep does not have; the message names
    the option, the value and what is allowed."""


def short_names(paths: Sequence[str]) -> dict[str, str]:
    """Short name → path: for each path, the shortest tail of its dotted parts that no
    other path ends with (`links[1].impairments[0].p` → `p`)."""
    parts = {path: path.split(".") for path in paths}
    named: dict[str, str] = {}
    for path, own in parts.items():
        for size in range(1, len(own) + 1):
            tail = ".".join(own[-size:])
            others = (".".join(p[-size:]) for q, p in parts.items() if q != path)
            if tail not in others:
                break
        named[tail] = path
    return named


def axis_names(paths: Sequence[str], names: Mapping[str, str] | None = None) -> dict[str, str]:
    """Short name → path for every swept path: the caller's `names` (short name → path)
    where given, else `short_names`. Raises `SummaryError` for a name of a path that
    was not swept, or a name that clashes with another axis's."""
    given = dict(names or {})
    for name, path in given.items():
        if path not in paths:
            raise SummaryError(f"names.{name}: {path!r} is not a swept field; swept: {list(paths)}")
    rest = [p for p in paths if p not in given.values()]
    named = {**given}
    for name, path in short_names(rest).items():
        if name in named:
            raise SummaryError(f"names.{name}: {name!r} is also the short name of {path!r}")
        named[name] = path
    return {name: named[name] for name in sorted(named, key=lambda n: paths.index(named[n]))}


def metric_label(metric: str) -> tuple[str, float]:
    """The axis label of a summary column and the factor that scales it to that unit:
    `goodput_bps` → ("goodput (Mb/s)", 1e6)."""
    if metric.endswith("_bps"):
        return f"{metric.removesuffix('_bps').replace('_', ' ')} (Mb/s)", 1e6
    if metric in SECONDS:
        return f"{metric.replace('_', ' ')} (s)", 1.0
    return metric.replace("_", " "), 1.0


def _key(value: Any) -> Any:
    """A point's value as a table cell that groups: lists and tables as their JSON."""
    return value if isinstance(value, str | int | float | bool) else json.dumps(value)


def resolve(option: str, value: str, axes: Mapping[str, str]) -> str:
    """The short name of an axis given by its short name or its path."""
    for name, path in axes.items():
        if value in (name, path):
            return name
    allowed = ", ".join(axes) or "none (nothing was swept)"
    raise SummaryError(f"{option}: {value!r} is not a swept field; swept: {allowed}")


def default_x(frame: pd.DataFrame, axes: Sequence[str]) -> str | None:
    """The axis to draw along: the numeric one with the most distinct values (else
    any one with the most), the first on a tie; None when nothing was swept."""

    def numeric(name: str) -> bool:
        return all(isinstance(v, int | float) and not isinstance(v, bool) for v in frame[name])

    ranked = sorted(axes, key=lambda n: (not numeric(n), -frame[n].nunique()))
    return ranked[0] if ranked else None


def summarize(
    rows: pd.DataFrame,
    paths: Sequence[str],
    metric: str = DEFAULT_METRIC,
    *,
    names: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per point (and flow, when the scenario has several): the axes under
    their short names, then `seeds` (runs that finished), `mean`, `ci_low` and
    `ci_high` of `metric` over seeds (NaN with one seed). `rows` is a sweep's table."""
    import pandas as pd

    axes = axis_names(list(paths), names)
    if metric not in rows.columns or not pd.api.types.is_numeric_dtype(rows[metric]):
        numeric = [c for c in rows.columns if pd.api.types.is_numeric_dtype(rows[c])]
        shown = [c for c in numeric if c not in ("point", "seed", "fingerprint", *paths)]
        raise SummaryError(f"metric: {metric!r} is not a numeric column; try {', '.join(shown)}")
    frame = pd.DataFrame({name: rows[path].map(_key) for name, path in axes.items()})
    by = list(axes)
    if rows["name"].nunique() > 1:
        frame["flow"] = rows["name"]
        by.append("flow")
    frame["value"] = rows[metric].astype(float)
    if not by:
        by, frame["all"] = ["all"], ""
    stats = (
        frame.groupby(by, sort=False, dropna=False)["value"]
        .agg(["count", "mean", "std"])
        .reset_index()
    )
    half = [
        t975(n - 1) * sd / math.sqrt(n) if n > 1 else math.nan
        for n, sd in zip(stats["count"], stats["std"], strict=True)
    ]
    stats["ci_low"] = stats["mean"] - half
    stats["ci_high"] = stats["mean"] + half
    stats = stats.drop(columns=["std", "all"], errors="ignore").rename(columns={"count": "seeds"})
    stats.attrs["metric"] = metric
    return stats


def format_summary(summary: pd.DataFrame) -> str:
    """The summary as aligned text, the metric in its display unit."""
    label, scale = metric_label(summary.attrs.get("metric", DEFAULT_METRIC))
    keys = [c for c in summary.columns if c not in ("seeds", "mean", "ci_low", "ci_high")]
    rows = [(*keys, "seeds", label, "95 % CI")]
    for record in summary.to_dict("records"):
        low, high = record["ci_low"] / scale, record["ci_high"] / scale
        interval = "-" if math.isnan(low) else f"{low:.4g} … {high:.4g}"
        rows.append(
            (
                *(str(record[k]) for k in keys),
                str(record["seeds"]),
                f"{record['mean'] / scale:.4g}",
                interval,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )


@dataclass
class Line:
    """One line of a sweep's figure: its label, and per x value the metric's mean and
    95 % interval, in the metric's display unit (`metric_label`)."""

    label: str
    x: list[Any]
    mean: list[float]
    low: list[float]
    high: list[float]


def lines(summary: pd.DataFrame, x: str | None = None, hue: str | None = None) -> list[Line]:
    """The summary as the figure's lines: along axis `x` (a short name; default
    `default_x`), one line per value of the other axes and flows, `hue` first in the
    label. Raises `SummaryError` for an `x` or `hue` that is not a swept axis."""
    keys = [c for c in summary.columns if c not in ("seeds", "mean", "ci_low", "ci_high")]
    axes = [k for k in keys if k != "flow"]
    x = default_x(summary, axes) if x is None else x
    if x is None or x not in axes:
        raise SummaryError(f"x: {x!r} is not a swept field; swept: {', '.join(axes) or 'none'}")
    if hue is not None and (hue not in keys or hue == x):
        others = ", ".join(k for k in keys if k != x) or "none"
        raise SummaryError(f"hue: {hue!r} is not another swept field; others: {others}")
    by = ([hue] if hue else []) + [k for k in keys if k not in (x, hue)]
    scale = metric_label(summary.attrs.get("metric", DEFAULT_METRIC))[1]
    groups = summary.groupby(by, sort=False, dropna=False) if by else [((), summary)]
    drawn = []
    for values, group in groups:
        values = values if isinstance(values, tuple) else (values,)
        label = ", ".join(f"{k} = {v}" for k, v in zip(by, values, strict=True))
        drawn.append(
            Line(
                label,
                list(group[x]),
                list(group["mean"] / scale),
                list(group["ci_low"] / scale),
                list(group["ci_high"] / scale),
            )
        )
    return drawn


def draw(
    summary: pd.DataFrame,
    path: Path,
    *,
    x: str | None = None,
    hue: str | None = None,
    title: str | None = None,
) -> Path:
    """Draws `lines(summary, x, hue)` with the 95 % intervals as error bars (none with
    one seed) and writes the figure to `path` (PNG). A numeric x spanning a factor of
    `LOG_RATIO` or more is drawn on a log scale."""
    import numpy as np

    from cwnd.plot import colors, figure

    keys = [c for c in summary.columns if c not in ("seeds", "mean", "ci_low", "ci_high", "flow")]
    x = default_x(summary, keys) if x is None else x
    drawn = lines(summary, x, hue)
    label = metric_label(summary.attrs.get("metric", DEFAULT_METRIC))[0]
    seeds = sorted(set(summary["seeds"]))
    counted = f"{seeds[0]} seeds" if len(seeds) == 1 else f"{seeds[0]}–{seeds[-1]} seeds"
    bars = "mean ± 95 % CI" if seeds[-1] > 1 else "1 seed, no interval"
    heading = f"{title}: " if title else ""
    heading += f"{label.split(' (')[0]} against {x} ({bars}, {counted})"
    with figure(path, heading, str(x), label) as ax:
        for line, color in zip(drawn, colors(len(drawn)), strict=True):
            mean, low, high = (np.asarray(v, dtype=float) for v in (line.mean, line.low, line.high))
            error = np.nan_to_num(np.vstack([mean - low, high - mean]))
            ax.errorbar(line.x, mean, yerr=error, fmt="o-", ms=3, capsize=3, color=color,
                        label=line.label or None)  # fmt: skip
        xs = [v for v in summary[x] if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(xs) == len(summary) and min(xs) > 0 and max(xs) / min(xs) >= LOG_RATIO:
            ax.set_xscale("log")
        if summary["mean"].min() >= 0:
            ax.set_ylim(bottom=0)
    return path
