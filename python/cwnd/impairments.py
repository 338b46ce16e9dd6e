"""Impairment stages and delay distributions as keyword functions.

Each function returns the table a scenario file would hold (docs/links.md describes
every parameter), so `Scenario.link(..., impairments=[outage(start="5s", duration="2s")])`
and the TOML `{ kind = "outage", start = "5s", duration = "2s" }` are the same stage.
Keywords left at `None` are left out, so the simulator's defaults apply.

Every stage takes the common keywords: `direction` (`"both"`, `"forward"`, `"reverse"`),
`applies_to` (`"all"`, `"data"`, `"acks"`), and when it is active: `start` (a duration),
`start_on` (`trigger(flow, segment)`), `duration`.
"""

from __future__ import annotations

from typing import Any

from cwnd.scenario import listed

Table = dict[str, Any]


def _stage(kind: str, **fields: Any) -> Table:
    return {"kind": kind, **{k: v for k, v in fields.items() if v is not None}}


def _steps(schedule: Any) -> Any:
    """A schedule [(time, value)…] as the lists a TOML file gives; anything else as it
    is, for the simulator to refuse with its field path (`listed`)."""
    return [listed(step) for step in schedule] if isinstance(schedule, list | tuple) else schedule


def trigger(flow: str, segment: int) -> Table:
    """Starts a stage when `flow` first sends data segment number `segment` (from 1)."""
    return {"flow": flow, "segment": segment}


def bernoulli(
    p: float | None = None,
    *,
    schedule: list[tuple[str, float]] | None = None,
    p_file: str | None = None,
    **common: Any,
) -> Table:
    """Independent loss with probability `p`, or stepping by `schedule` [(time, p)…] or
    a trace file `p_file` (one of the three)."""
    return _stage("bernoulli", p=p, schedule=_steps(schedule), p_file=p_file, **common)


def gilbert_elliott(
    *,
    p_gb: float,
    p_bg: float,
    loss_good: float | None = None,
    loss_bad: float | None = None,
    **common: Any,
) -> Table:
    """Bursty loss: a good and a bad state, per-packet transition probabilities."""
    return _stage(
        "gilbert_elliott",
        p_gb=p_gb,
        p_bg=p_bg,
        loss_good=loss_good,
        loss_bad=loss_bad,
        **common,
    )


def drop_list(packets: list[int], *, flow: str | None = None, **common: Any) -> Table:
    """Drops the k-th packets (from 1) of `flow` (or of every packet) through the stage."""
    return _stage("drop_list", packets=listed(packets), flow=flow, **common)


def outage(*, mode: str | None = None, **common: Any) -> Table:
    """Nothing gets through while active; `mode = "hold"` keeps packets queued instead."""
    return _stage("outage", mode=mode, **common)


def reorder(
    r: float | None = None,
    *,
    delay: Table | str | None = None,
    packet: int | None = None,
    positions: int | None = None,
    **common: Any,
) -> Table:
    """Holds a fraction `r` of packets back by `delay` (a distribution), or one `packet`
    exactly `positions` places late."""
    return _stage("reorder", r=r, delay=delay, packet=packet, positions=positions, **common)


def delay_step(extra: str, **common: Any) -> Table:
    """From `start` on, every packet takes `extra` longer (an RTT jump)."""
    return _stage("delay_step", extra=extra, **common)


def arq(
    pv: float | None = None,
    *,
    pv_schedule: list[tuple[str, float]] | None = None,
    delay: Table | str | None = None,
    in_order: bool | None = None,
    residual_loss: float | None = None,
    **common: Any,
) -> Table:
    """Link-layer retransmission delays: a fraction `pv` of packets is delayed by `delay`."""
    return _stage(
        "arq",
        pv=pv,
        pv_schedule=_steps(pv_schedule),
        delay=delay,
        in_order=in_order,
        residual_loss=residual_loss,
        **common,
    )


def constant(value: str) -> Table:
    return {"distribution": "constant", "value": value}


def uniform(low: str, high: str) -> Table:
    return {"distribution": "uniform", "min": low, "max": high}


def normal(mean: str, sd: str) -> Table:
    return {"distribution": "normal", "mean": mean, "sd": sd}


def exponential(mean: str) -> Table:
    return {"distribution": "exponential", "mean": mean}


def empirical(values: list[str], weights: list[float] | None = None) -> Table:
    table: Table = {"distribution": "empirical", "values": listed(values)}
    if weights is not None:
        table["weights"] = listed(weights)
    return table
