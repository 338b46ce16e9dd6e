"""Kernel measurements in the shape of a simulated run's results (`Results`):
one summary row per flow and the same series columns, so that every writer,
figure, sweep and report works on a live run unchanged.

Series from TCP_INFO, per sample: `cwnd` = tcpi_snd_cwnd (segments, as cwnd's
own), `ssthresh` = tcpi_snd_ssthresh (NaN while the kernel's "infinite"
0x7fffffff), `srtt` = tcpi_rtt, `rto` = tcpi_rto (µs → s), `snd_una` =
tcpi_bytes_acked, `snd_nxt` = tcpi_bytes_sent − tcpi_bytes_retrans (new data
sent), `delivered` = tcpi_bytes_acked (the sender's view: what the receiver has
acknowledged), and live-only `delivery_rate` (bit/s) and `retransmits`
(tcpi_total_retrans). Goodput bins come from the receiver's reads.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from cwnd.live.endpoint import TCP_INFINITE_SSTHRESH

if TYPE_CHECKING:
    from cwnd import _cwnd

# Summary columns of a simulated run that TCP_INFO has no counterpart for.
NOT_MEASURED = (
    "dup_acks",
    "fast_retransmits",
    "rtt_samples",
    "spurious_undone",
    "spurious_dsack",
    "spurious_eifel",
    "spurious_frto",
    "avoidable_timeouts",
    "loss_probes",
    "ecn_reductions",
    "loss_reductions",
    "dupthresh",
)


def _seconds(value: str) -> float:
    return int(value.removesuffix("ns")) / 1e9


def assemble(
    relay_raw: _cwnd.LiveResults, spec: dict[str, Any], ends: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The relay's world results with the flows, series and throughput replaced by
    the kernel's, and the relay's own report under `relay`."""
    raw: dict[str, Any] = {**relay_raw}
    duration = relay_raw["duration"]
    world_flows = relay_raw["flows"]
    rows, series_parts, throughput_parts = [], [], []
    for i, f in enumerate(spec["flows"]):
        sender, receiver = ends[f"sender{i}"], ends[f"receiver{i}"]
        relay_counts = relay_raw["relay"]["flows"][i]
        rows.append(_summary(f, world_flows[i], sender, receiver, relay_counts, duration))
        series_parts.append(_series(i, sender))
        throughput_parts.append(_throughput(i, sender, receiver, duration))
    raw["flows"] = rows
    raw["series"] = _concat(series_parts)
    raw["throughput"] = _concat(throughput_parts)
    raw["fingerprint"] = 0
    return raw


def _summary(
    f: dict[str, Any],
    world: dict[str, Any],
    sender: dict[str, Any],
    receiver: dict[str, Any],
    relayed: _cwnd.RelayFlowCounts,
    duration: float,
) -> dict[str, Any]:
    info = {k: v[-1] for k, v in sender["info"].items()}
    start = _seconds(f["start"])
    stop = min(_seconds(f["stop"]), duration) if f.get("stop") else duration
    transfer = f["app"]["kind"] == "transfer"
    done = transfer and not math.isnan(receiver["last"]) and info["unacked"] == 0
    end = receiver["last"] if done else stop
    active = max(end - start, 1e-9)
    srtt = [v / 1e6 for v in sender["info"]["rtt"] if v > 0]
    rto = [v / 1e6 for v in sender["info"]["rto"] if v > 0]
    row = {
        "name": world["name"],
        "transport": "tcp",
        "from": world["from"],
        "to": world["to"],
        "cc": world["cc"],
        "recovery": "linux",
        "start": start,
        "end": end,
        "completion_time": end - start if done else math.nan,
        "bytes_delivered": receiver["bytes"],
        "bytes_sent": info["bytes_sent"],
        "segments_sent": info["data_segs_out"],
        "segments_retransmitted": info["total_retrans"],
        "bytes_retransmitted": info["bytes_retrans"],
        "acks_received": info["segs_in"],
        "timeouts": sender["timeouts"],
        "drops_queue": world["drops_queue"],
        "drops_impairment": world["drops_impairment"],
        "goodput_bps": receiver["bytes"] * 8 / active,
        "throughput_bps": info["bytes_sent"] * 8 / active,
        "mean_rtt": float(np.mean(srtt)) if srtt else math.nan,
        "mean_rto": float(np.mean(rto)) if rto else math.nan,
    }
    row.update({k: math.nan for k in NOT_MEASURED})
    row.update({f"relay_{k}": v for k, v in relayed.items()})
    return row


def _series(i: int, sender: dict[str, Any]) -> dict[str, np.ndarray]:
    info = {k: np.asarray(v, dtype=np.float64) for k, v in sender["info"].items()}
    ssthresh = info["snd_ssthresh"].copy()
    ssthresh[ssthresh >= TCP_INFINITE_SSTHRESH] = np.nan
    n = len(sender["time"])
    return {
        "flow": np.full(n, i, dtype=np.uint32),
        "time": np.asarray(sender["time"], dtype=np.float64),
        "cwnd": info["snd_cwnd"],
        "ssthresh": ssthresh,
        "srtt": np.where(info["rtt"] > 0, info["rtt"] / 1e6, np.nan),
        "rto": info["rto"] / 1e6,
        "snd_una": info["bytes_acked"].astype(np.uint64),
        "snd_nxt": (info["bytes_sent"] - info["bytes_retrans"]).astype(np.uint64),
        "delivered": info["bytes_acked"].astype(np.uint64),
        "delivery_rate": info["delivery_rate"] * 8,
        "retransmits": info["total_retrans"].astype(np.uint64),
    }


def _throughput(
    i: int, sender: dict[str, Any], receiver: dict[str, Any], duration: float
) -> dict[str, np.ndarray]:
    width = float(receiver["bin"])
    bins = math.ceil(duration / width)
    goodput = np.zeros(bins)
    got = np.asarray(receiver["bins"][:bins], dtype=np.float64)
    goodput[: len(got)] = got * 8 / width
    # Bytes sent per bin, from the differences of the sampled tcpi_bytes_sent.
    t = np.asarray(sender["time"], dtype=np.float64)
    sent = np.diff(np.asarray(sender["info"]["bytes_sent"], dtype=np.float64), prepend=0.0)
    per_bin = np.bincount(
        np.clip((t / width).astype(np.int64), 0, bins - 1), weights=sent, minlength=bins
    )
    return {
        "flow": np.full(bins, i, dtype=np.uint32),
        "time": np.arange(bins) * width,
        "goodput_bps": goodput,
        "throughput_bps": per_bin * 8 / width,
    }


def _concat(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
