"""Scenarios as data: TOML files and a small builder that produce the same dict.

The dict's shape is the Rust spec (`crates/cwnd-sim/src/scenario/spec.rs`), the single
source of truth; loading and checking happen there (`_cwnd.load`, once per scenario),
so this module only builds data.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from cwnd import _cwnd


def load_scenario(source: str | Path) -> dict[str, Any]:
    """Loads a scenario from a TOML file path, or from TOML text, into its plan.

    A `str` that names an existing file, or ends in `.toml`, is read as a path; the
    files it names (`p_file`) are then relative to its folder. The simulator parses
    and checks the text once (errors name the line) and reads those files once: the
    dict it gives back is the plan in canonical form, every default written out and
    each file's contents in place of its name, so it runs anywhere (a Dask worker
    needs no files) and is still a scenario dict that sweeps can edit.
    Raises `FileNotFoundError` or `ScenarioError` (also for a file that is not UTF-8).
    """
    plan: dict[str, Any] = json.loads(plan_text(source))
    return plan


def plan_text(source: str | Path, found: list[str] | None = None) -> str:
    """The plan of a TOML file path or TOML text (as `load_scenario`), as the canonical
    JSON text `_cwnd.run` takes: one call to the simulator's `load`. What can never
    happen in the run is appended to `found` when given."""
    base: Path | None = None
    if isinstance(source, Path) or _looks_like_path(source):
        raw = Path(source).read_bytes()
        try:
            text = raw.decode("utf-8-sig")  # a byte-order mark is accepted and dropped
        except UnicodeDecodeError as e:
            raise _cwnd.ScenarioError(
                f"{source}: not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}); "
                "save the file as UTF-8"
            ) from None
        base = Path(source).resolve().parent
    else:
        text = source
    return _cwnd.load(text, None if base is None else str(base), found)


def _given(**fields: Any) -> dict[str, Any]:
    """The optional fields a builder method was given (those not None)."""
    return {k: v for k, v in fields.items() if v is not None}


def _looks_like_path(text: str) -> bool:
    return "\n" not in text and (text.endswith(".toml") or Path(text).is_file())


class Scenario:
    """Builds a scenario dict step by step.

    >>> s = (Scenario(duration="30s", name="demo")
    ...      .link("h1", "r", bandwidth="100Mbps", delay="1ms")
    ...      .link("r", "h2", bandwidth="10Mbps", delay="24ms", queue_packets=50, loss=0.01)
    ...      .flow("h1", "h2", cc="reno", name="f1"))
    >>> s.to_dict()["links"][1]["impairments"][0]["p"]
    0.01
    """

    def __init__(self, duration: str, name: str | None = None, **trace: Any) -> None:
        self._spec: dict[str, Any] = {"duration": duration, "links": [], "flows": []}
        if name is not None:
            self._spec["name"] = name
        if trace:
            self._spec["trace"] = dict(trace)

    def link(
        self,
        a: str,
        b: str,
        *,
        bandwidth: str,
        delay: str,
        name: str | None = None,
        queue_packets: int | None = None,
        queue_bytes: str | None = None,
        overhead: str | None = None,
        loss: float | None = None,
        loss_applies_to: str = "all",
        impairments: list[dict[str, Any]] | None = None,
    ) -> Scenario:
        """Adds a full-duplex link; `loss` adds Bernoulli loss in both directions."""
        link: dict[str, Any] = {"between": [a, b], "bandwidth": bandwidth, "delay": delay}
        if name is not None:
            link["name"] = name
        if queue_packets is not None or queue_bytes is not None:
            link["queue"] = {}
            if queue_packets is not None:
                link["queue"]["packets"] = queue_packets
            if queue_bytes is not None:
                link["queue"]["bytes"] = queue_bytes
        if overhead is not None:
            link["overhead"] = overhead
        stages = list(impairments or [])
        if loss is not None:
            stages.append({"kind": "bernoulli", "p": loss, "applies_to": loss_applies_to})
        if stages:
            link["impairments"] = stages
        self._spec["links"].append(link)
        return self

    def flow(
        self,
        src: str,
        dst: str,
        *,
        cc: str | dict[str, Any] = "newreno",
        name: str | None = None,
        start: str | None = None,
        stop: str | None = None,
        app: str | dict[str, Any] = "bulk",
        recovery: str | None = None,
        **tcp: Any,
    ) -> Scenario:
        """Adds a TCP flow; extra keyword arguments go to its `tcp` table."""
        flow: dict[str, Any] = {"from": src, "to": dst, "cc": cc}
        flow.update(_given(name=name, start=start, stop=stop))
        flow["app"] = {"kind": app} if isinstance(app, str) else dict(app)
        if recovery is not None:
            flow["recovery"] = recovery
        if tcp:
            flow["tcp"] = dict(tcp)
        self._spec["flows"].append(flow)
        return self

    def sctp(
        self,
        src: str | list[str],
        dst: str | list[str],
        *,
        name: str | None = None,
        start: str | None = None,
        stop: str | None = None,
        app: str | dict[str, Any] = "bulk",
        **options: Any,
    ) -> Scenario:
        """Adds an SCTP association. `src` and `dst` are a node or, for a multihomed
        endpoint, a list of nodes (one per address; the first of `dst` is the primary
        destination); extra keyword arguments go to its `sctp` table."""
        flow: dict[str, Any] = {"from": src, "to": dst, "transport": "sctp"}
        flow.update(_given(name=name, start=start, stop=stop))
        flow["app"] = {"kind": app} if isinstance(app, str) else dict(app)
        if options:
            flow["sctp"] = dict(options)
        self._spec["flows"].append(flow)
        return self

    def udp(
        self,
        src: str,
        dst: str,
        *,
        source: dict[str, Any],
        name: str | None = None,
        start: str | None = None,
        stop: str | None = None,
    ) -> Scenario:
        """Adds a UDP flow sending what `source` says (`cwnd.sources`: `cbr`,
        `exponential`, `pareto`) from `start` until `stop` or the end of the run."""
        flow: dict[str, Any] = {"from": src, "to": dst, "transport": "udp"}
        flow.update(_given(name=name, start=start, stop=stop))
        flow["source"] = dict(source)
        self._spec["flows"].append(flow)
        return self

    def wireless(
        self,
        stations: list[str],
        *,
        rate: str,
        name: str | None = None,
        impairments: list[dict[str, Any]] | None = None,
        **fields: Any,
    ) -> Scenario:
        """Adds an 802.11b or 802.11a/g channel (which one follows from `rate`) shared
        by `stations` (one collision domain). Other keywords are the `[[wireless]]`
        fields (`basic_rate`, `queue_packets`, `per`, `radio`, `preamble`,
        `rts_threshold`, `msdu_lifetime`)."""
        channel: dict[str, Any] = {"stations": list(stations), "rate": rate, **fields}
        if name is not None:
            channel["name"] = name
        if impairments:
            channel["impairments"] = list(impairments)
        self._spec.setdefault("wireless", []).append(channel)
        return self

    def wimax(
        self,
        base_station: str,
        subscribers: list[str],
        *,
        preset: str | None = None,
        name: str | None = None,
        **fields: Any,
    ) -> Scenario:
        """Adds an 802.16 cell; `preset` names one of the `wimax` study's link profiles
        (`los_snr30`, `los_snr10`, `nlos_snr30`, `nlos_snr10`), other keywords are the
        `[[wimax]]` fields and override it."""
        cell: dict[str, Any] = {"base_station": base_station, "subscribers": list(subscribers)}
        if preset is not None:
            cell["preset"] = preset
        if name is not None:
            cell["name"] = name
        cell.update(fields)
        self._spec.setdefault("wimax", []).append(cell)
        return self

    def route(self, at: str, to: str, via: str) -> Scenario:
        """Forces the next hop at `at` towards `to` through neighbour `via`."""
        self._spec.setdefault("routes", []).append({"at": at, "to": to, "via": via})
        return self

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the scenario, as a TOML file would give it."""
        return copy.deepcopy(self._spec)
