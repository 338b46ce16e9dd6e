"""Paper-style figures of one run: windows, sequence numbers, throughput, queues.

matplotlib is imported here only, so that `import cwnd` and the CLI stay fast when no
figure is drawn. Figures are drawn on an Agg canvas of their own, without pyplot:
no backend is selected, no figure manager kept, nothing to close (issue 17).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cwnd.atomic import replacing
from cwnd.impairment_windows import seconds, shade
from cwnd.run_view import FIGURES, RunView

if TYPE_CHECKING:
    from multiprocessing.sharedctypes import Synchronized

    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

STYLE: dict[RcKeyType, Any] = {
    "figure.figsize": (6.4, 3.6),
    "figure.dpi": 150,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "lines.linewidth": 1.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


@contextmanager
def panels(
    path: Path,
    nrows: int = 1,
    ncols: int = 1,
    *,
    size: tuple[float, float] | None = None,
    sharex: bool = False,
    sharey: bool = False,
    svg: bool = False,
    legend_below: bool = False,
    legend_title: str | None = None,
) -> Iterator[tuple[Figure, np.ndarray]]:
    """Yields a new figure in the project style and its axes (a 2-D array), then
    saves it to `path` (and to `path` with suffix .svg when `svg`). Each panel gets
    its own legend, or with `legend_below` (panels showing the same curves, too many
    for a legend inside, or a legend that would cover data) one legend under them all,
    of every panel's labels once. `legend_title` (e.g. what the error bars are) heads
    that legend, or the first panel's."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=size)
        FigureCanvasAgg(fig)
        axes = fig.subplots(nrows, ncols, sharex=sharex, sharey=sharey, squeeze=False)
        yield fig, axes
        if legend_below:
            by_label: dict[str, Any] = {}
            for ax in axes.flat:
                for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                    by_label.setdefault(label, handle)
            fig.legend(list(by_label.values()), list(by_label), loc="upper center",
                       bbox_to_anchor=(0.5, 0.0), ncols=min(len(by_label), 3),
                       title=legend_title)  # fmt: skip
        for i, ax in enumerate([] if legend_below else axes.flat):
            if ax.get_legend() is None and ax.get_legend_handles_labels()[0]:
                _legend(ax, legend_title if i == 0 else None)
        for target in [path, path.with_suffix(".svg")] if svg else [path]:
            with replacing(target) as tmp:
                fig.savefig(tmp, format=target.suffix[1:])


MAX_LEGEND_ENTRIES = 16
#: The attribute of a `steps` collection that counts its curves, for `_legend`.
CURVES = "cwnd_curves"


def _legend(ax: Axes, title: str | None = None) -> None:
    """A legend where it can be read; beyond `MAX_LEGEND_ENTRIES` curves a note instead
    (a hundred flows' names help no reader, and laying them out costs seconds)."""
    handles = ax.get_legend_handles_labels()[0]
    curves = sum(getattr(h, CURVES, 1) for h in handles)
    if curves <= MAX_LEGEND_ENTRIES:
        ax.legend(loc="best", ncols=2 if len(ax.get_lines()) > 6 else 1, title=title)
        return
    ax.text(0.99, 0.98, f"{curves} curves: too many to name, one colour each",
            transform=ax.transAxes, ha="right", va="top", fontsize=7, color="0.3")  # fmt: skip


#: A step curve for `steps`: time, value, label, style (`Line2D` keywords).
Curve = tuple[Any, Any, str, dict[str, Any]]


def steps(ax: Axes, curves: Sequence[Curve]) -> None:
    """Step curves ("post": a value holds until the next sample), each `(time, value,
    label, style)`, the style a colour and optionally a linestyle and an alpha. Up to
    `MAX_LEGEND_ENTRIES` curves, one labelled `Line2D` each, for the legend; beyond,
    where the legend gives way to a note (`_legend`), one `LineCollection` of them
    all, in the same order, colours and styles: a hundred flows' `Line2D`s cost more
    CPU to create and draw than their pixels to rasterise (issue 17, BENCHMARKS.md)."""
    from matplotlib.collections import LineCollection
    from matplotlib.colors import to_rgba

    if len(curves) <= MAX_LEGEND_ENTRIES:
        for t, y, label, style in curves:
            ax.step(t, y, where="post", label=label, **style)
        return
    collection = LineCollection(
        [_post_steps(np.asarray(t, float), np.asarray(y, float)) for t, y, _, _ in curves],
        colors=[to_rgba(style["color"], style.get("alpha")) for _, _, _, style in curves],
        linestyles=[style.get("linestyle", "-") for _, _, _, style in curves],
        label="curves",
    )
    setattr(collection, CURVES, len(curves))
    ax.add_collection(collection)


def _post_steps(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The vertices of a "post" step curve through (t, y): (t0, y0), (t1, y0),
    (t1, y1), (t2, y1)…, as `drawstyle="steps-post"` draws it."""
    return np.column_stack([np.repeat(t, 2)[1:], np.repeat(y, 2)[:-1]])


def thin(time: Any, *values: Any, bins: int = 2000) -> tuple[np.ndarray, ...]:
    """The rows of a time series worth drawing at figure resolution: in each of `bins`
    equal slices of the time axis, the first and last row and the rows where each of
    `values` is smallest and largest. A step or line plot of the result looks the same
    as one of every row (the extremes and the level at each slice's edges are kept)
    but costs at most 2 + 2·len(values) points per slice instead of one per ACK.
    `time` must be sorted; series shorter than 4·bins are returned whole."""
    t = np.asarray(time, dtype=float)
    cols = [np.asarray(v) for v in values]
    if len(t) <= 4 * bins:
        return (t, *cols)
    edges = np.linspace(t[0], t[-1], bins + 1)[1:-1]
    starts = np.concatenate([[0], np.searchsorted(t, edges, side="left")])
    starts = np.unique(starts)
    keep = [starts, np.concatenate([starts[1:] - 1, [len(t) - 1]])]
    for v in cols:
        vf = v.astype(float)
        filled = np.where(np.isfinite(vf), vf, np.nan)
        for reduce in (np.fmin, np.fmax):
            extreme = reduce.reduceat(filled, starts)
            # The first row of each slice that reaches the slice's extreme.
            slice_of = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(t))))
            hit = np.flatnonzero(filled == extreme[slice_of])
            first_hit = np.unique(slice_of[hit], return_index=True)[1]
            keep.append(hit[first_hit])
    rows = np.unique(np.concatenate(keep))
    return (t[rows], *(v[rows] for v in cols))


def by_flow(
    columns: dict[str, np.ndarray], names: list[str], index: str = "flow"
) -> dict[str, dict[str, np.ndarray]]:
    """The rows of each flow (link, association) of a table's numpy columns
    (`Results.columns`), by name, for those that have rows: `index` holds codes into
    `names`. One stable sort, and no pandas: the figures are drawn in a process that
    need not import it."""
    codes = columns[index]
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(names) + 1))
    rows = {}
    for code, name in enumerate(names):
        mine = order[bounds[code] : bounds[code + 1]]
        if len(mine):
            rows[name] = {column: values[mine] for column, values in columns.items()}
    return rows


@contextmanager
def figure(
    path: Path, title: str, xlabel: str, ylabel: str, *, svg: bool = False
) -> Iterator[Axes]:
    """Yields the axes of a new one-panel figure in the project style, then saves it."""
    with panels(path, svg=svg) as (_, axes):
        ax = axes[0, 0]
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        yield ax


def spread(mean: Any, low: Any, high: Any) -> np.ndarray:
    """Error bars from `mean` down to `low` and up to `high` (e.g. the min and max over
    seeds), as matplotlib's `yerr`; clipped at 0, since a mean of equal values can land
    a rounding error outside them."""
    mean, low, high = (np.asarray(v, dtype=float) for v in (mean, low, high))
    bars: np.ndarray = np.clip(np.vstack([mean - low, high - mean]), 0.0, None)
    return bars


def colors(n: int) -> list[tuple[float, float, float, float]]:
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def cwnd(results: RunView, path: Path) -> Path | None:
    """Congestion window (solid) and slow-start threshold (dashed) per TCP flow, and
    each SCTP path's window; None, drawing nothing, when there is no window."""
    sctp = set(results.association_names)
    names = [n for n in results.flow_names if n not in sctp]
    rows = by_flow(results.columns("series"), results.flow_names)
    if not any(n in rows for n in names) and not len(results.columns("path_series")["time"]):
        return None
    with figure(path, f"{results.name}: congestion window", "time (s)", "segments") as ax:
        shade(ax, results)
        curves: list[Curve] = []
        for name, color in zip(names, colors(len(names)), strict=True):
            if name not in rows:
                continue
            f = rows[name]
            t, window, ss = thin(f["time"], f["cwnd"], f["ssthresh"])
            curves.append((t, window, f"{name} cwnd", {"color": color}))
            if np.isfinite(ss.astype(float)).any():
                curves.append((t, ss, f"{name} ssthresh", {"color": color, "linestyle": "--"}))
        steps(ax, curves)
        if sctp:
            _sctp_windows(results, ax)
        ax.set_xlim(0, results.duration)
        ax.set_ylim(bottom=0)
    return path


def _sctp_windows(results: RunView, ax: Axes) -> None:
    """cwnd of every SCTP path, in full chunks (the counterpart of segments)."""
    ps = results.path_series
    keys = [(a, p) for a in results.association_names for p in sorted(set(ps["path"]))]
    for (assoc, p), color in zip(keys, colors(len(keys)), strict=True):
        f = ps[(ps["association"] == assoc) & (ps["path"] == p)]
        if len(f):
            label = f"{assoc} path {p} cwnd (chunks)"
            ax.step(f["time"], f["cwnd"], where="post", color=color, label=label)


def _sctp_tsns(results: RunView, ax: Axes) -> None:
    """TSN of every DATA chunk sent; retransmissions marked."""
    chunks = results.chunks
    names = results.association_names
    for name, color in zip(names, colors(len(names)), strict=True):
        c = chunks[chunks["association"] == name]
        retx = c["retransmission"].to_numpy()
        ax.plot(c["time"][~retx], c["tsn"][~retx], ".", ms=1.5, color=color, label=name)
        if retx.any():
            ax.plot(
                c["time"][retx],
                c["tsn"][retx],
                "x",
                ms=4,
                color="black",
                label=f"{name} retransmissions",
            )


def sequence(results: RunView, path: Path) -> Path | None:
    """Segment number of every transmission (retransmissions marked), or the
    sender's snd_nxt/snd_una when no segment trace was recorded; None, drawing
    nothing, when there is neither."""
    names = results.flow_names
    segments = by_flow(results.columns("segments"), names)
    chunks = len(results.columns("chunks")["time"])
    title = f"{results.name}: sequence numbers"
    if segments or chunks:
        with figure(path, title, "time (s)", "segment number (SCTP: TSN)") as ax:
            shade(ax, results)
            if chunks:
                _sctp_tsns(results, ax)
            for name, color in zip(names, colors(len(names)), strict=True):
                s = segments.get(name)
                if s is None:
                    continue
                mss = float(s["len"].max())
                number = s["seq"] / mss
                retx = s["retransmission"]
                ax.plot(s["time"][~retx], number[~retx], ".", ms=1.5, color=color, label=name)
                if retx.any():
                    ax.plot(
                        s["time"][retx],
                        number[retx],
                        "x",
                        ms=4,
                        color="black",
                        label=f"{name} retransmissions",
                    )
            ax.set_xlim(0, results.duration)
        return path
    rows = by_flow(results.columns("series"), names)
    if not rows:
        return None
    with figure(path, title, "time (s)", "sequence number (kB)") as ax:
        shade(ax, results)
        curves: list[Curve] = []
        for name, color in zip(names, colors(len(names)), strict=True):
            if name not in rows:
                continue
            t, snd_nxt, snd_una = thin(rows[name]["time"], rows[name]["snd_nxt"],
                                       rows[name]["snd_una"])  # fmt: skip
            una = {"color": color, "alpha": 0.5, "linestyle": ":"}
            curves.append((t, snd_nxt / 1e3, f"{name} snd_nxt", {"color": color}))
            curves.append((t, snd_una / 1e3, f"{name} snd_una", una))
        steps(ax, curves)
        ax.set_xlim(0, results.duration)
    return path


def throughput(results: RunView, path: Path) -> Path | None:
    """Goodput per flow over time, in bins; None, drawing nothing, without flows."""
    names = results.flow_names
    rows = by_flow(results.columns("throughput"), names)
    if not rows:
        return None
    with figure(path, f"{results.name}: goodput", "time (s)", "goodput (Mb/s)") as ax:
        shade(ax, results)
        curves: list[Curve] = []
        for name, color in zip(names, colors(len(names)), strict=True):
            if name in rows:
                t, goodput = thin(rows[name]["time"], rows[name]["goodput_bps"])
                curves.append((t, goodput / 1e6, name, {"color": color}))
        steps(ax, curves)
        slowest_link_note(ax, results)
        ax.set_xlim(0, results.duration)
        ax.set_ylim(bottom=0)
    return path


def slowest_rate(results: RunView) -> float | None:
    """The slowest link's or 802.11 channel's rate (bit/s); None with an 802.16 cell,
    whose rate depends on its modulation."""
    plan = results.spec
    if plan.get("wimax"):
        return None
    rates = [link["bandwidth"] for link in plan.get("links", [])]
    rates += [medium["rate"] for medium in plan.get("wireless", [])]
    return min(float(str(r).removesuffix("bps")) for r in rates) if rates else None


def slowest_link_note(ax: Axes, results: RunView) -> bool:
    """When a goodput bin exceeds every link's rate by more than one 1500-byte packet
    (a bin's share of a packet that straddles its edge), draws the slowest rate and
    says why: data that waited at the receiver behind a hole (out of order) is
    delivered at once when the retransmission fills the hole. Returns whether it drew."""
    rate = slowest_rate(results)
    goodput = results.columns("throughput")["goodput_bps"]
    if rate is None or not len(goodput):
        return False
    bin_seconds = seconds(results.spec["trace"]["throughput_bin"])
    if goodput.max() <= rate + 1500 * 8 / bin_seconds:
        return False
    label = f"slowest link ({rate / 1e6:g} Mb/s): bins above it deliver data held out of order"
    ax.axhline(rate / 1e6, color="0.3", ls="--", lw=0.8, label=label)
    return True


def queues(results: RunView, path: Path) -> Path | None:
    """Every output queue that ever held a packet: its occupancy over time (top), and
    below, on the same time axis, the queue delay of each packet it handed to its
    transmitter, at its departure (the delay CoDel and PIE act on)."""
    rows = by_flow(results.columns("queues"), results.link_names, index="link")
    busy = [name for name, g in rows.items() if g["packets"].max() > 0]
    if not busy:
        return None
    delays = by_flow(results.columns("queue_delays"), results.link_names, index="link")
    with panels(path, 2, size=(6.4, 6.0), sharex=True) as (fig, axes):
        top, bottom = axes[0, 0], axes[1, 0]
        fig.suptitle(f"{results.name}: queues")
        for ax in (top, bottom):
            shade(ax, results)
        for name, color in zip(busy, colors(len(busy)), strict=True):
            g = rows[name]
            top.step(g["time"], g["packets"], where="post", color=color, label=name)
            if name in delays:
                d = delays[name]
                bottom.plot(d["time"], d["delay"] * 1e3, ".", ms=1.5, color=color)
        top.set_ylabel("packets waiting")
        top.set_ylim(bottom=0)
        bottom.set_ylabel("queue delay (ms)")
        bottom.set_xlabel("time (s)")
        bottom.set_xlim(0, results.duration)
        bottom.set_ylim(bottom=0)
    return path


#: BBR's state numbers in `cc_metrics` (docs/results.md) by name: Linux's `enum
#: bbr_mode` for `bbr` and `bbr3`, and v3's ProbeBW phases (`enum
#: bbr_pacing_gain_phase`), drawn as named levels: BBR's state over time.
BBR_STATES: dict[str, tuple[str, ...]] = {
    "mode": ("Startup", "Drain", "ProbeBW", "ProbeRTT"),
    "phase": ("Up", "Down", "Cruise", "Refill"),
}


def state_levels(cc: str, metric: str) -> tuple[str, ...] | None:
    """The names of the levels of `metric` when it is one of BBR's states."""
    return BBR_STATES.get(metric) if cc in ("bbr", "bbr3") else None


def cc_metrics(results: RunView, flow: str, path: Path) -> Path:
    """One flow's controller numbers (`trace.cc_metrics`), one panel per metric: each
    has its own unit (docs/results.md); BBR's states with their names."""
    frame = results.flow_cc_metrics(flow)
    names = [c for c in frame.columns if c not in ("flow", "time")]
    size = (6.4, 1.4 * len(names) + 0.6)
    with panels(path, len(names), size=size, sharex=True) as (fig, axes):
        cc = results.summary.set_index("name").loc[flow, "cc"]
        fig.suptitle(f"{results.name}: {flow} ({cc}) controller state")
        for ax, name in zip(axes[:, 0], names, strict=True):
            ax.step(frame["time"], frame[name], where="post")
            ax.set_ylabel(name)
            levels = state_levels(cc, name)
            if levels is not None:
                ax.set_yticks(range(len(levels)), labels=levels)
                ax.set_ylim(-0.5, len(levels) - 0.5)
        axes[-1, 0].set_xlabel("time (s)")
        axes[-1, 0].set_xlim(0, results.duration)
    return path


def figures(
    results: RunView, out: Path, names: Collection[str] = FIGURES
) -> list[Callable[[], Path | None]]:
    """The figures of one run named in `names` (`FIGURES`), each as a function that
    draws it into `out` and returns its path (None when the run has nothing to show
    in it); "cc_metrics" is one figure per flow whose controller reports numbers
    when `trace.cc_metrics` is on."""
    one_each = {"cwnd": cwnd, "sequence": sequence, "throughput": throughput, "queue": queues}
    drawers: list[Callable[[], Path | None]] = [
        partial(one_each[name], results, out / f"{name}.png")
        for name in FIGURES[:-1]
        if name in names
    ]
    if "cc_metrics" in names:
        codes = np.unique(results.columns("cc_metrics")["flow"])
        traced = [results.flow_names[code] for code in codes]
        drawers += [partial(cc_metrics, results, flow, out / f"cc_metrics_{flow}.png")
                    for flow in traced]  # fmt: skip
    return drawers


def draw(
    drawers: Sequence[Callable[[], Path | None]], taken: Synchronized[int] | None = None
) -> list[tuple[int, Path | None]]:
    """Draws figures, in order, and returns each one's index and what it returned:
    every figure, or with `taken` (a counter shared with other processes drawing
    the same `drawers`) each figure that no other process has taken yet, until none
    is left, so that two processes share the work whatever each figure costs."""
    drawn: list[tuple[int, Path | None]] = []
    while True:
        if taken is None:
            index = len(drawn)
        else:
            with taken.get_lock():
                index = taken.value
                taken.value = index + 1
        if index >= len(drawers):
            return drawn
        drawn.append((index, drawers[index]()))


def draw_all(results: RunView, out: Path) -> list[Path]:
    """Every figure of one run (`figures`), as PNG files in `out`."""
    return [p for _, p in draw(figures(results, out)) if p is not None]
