"""Scenarios as data: TOML files and a small builder that produce the same dict.

The dict's shape is the Rust spec (`crates/cwnd-sim/src/scenario/spec.rs`), the single
source of truth; loading and checking happen there (`_cwnd.load`, once per scenario,
into a `Plan` that stays in the simulator), so this module only builds data.
"""

from __future__ import annotations

import copy
import json
import math
import numbers
import stat
import warnings
from pathlib import Path
from typing import Any

from cwnd import _cwnd

WHAT_A_SCENARIO_IS = "give a TOML file's path, TOML text, a dict, a cwnd.Scenario or a cwnd.Plan"


class ScenarioWarning(UserWarning):
    """A scenario asks for something that can never happen in its run (a stage
    triggered at a segment its flow never sends, a stage starting after the end):
    not an error, but almost surely not what was meant."""


def plan(source: ScenarioLike) -> _cwnd.Plan:
    """Loads a scenario into its `Plan`: from a TOML file path, TOML text, a dict or a
    `Scenario` (a `Plan` is returned as it is).

    A `str` that names an existing file, ends in `.toml`, or is one line without `=`
    (TOML text has a `key = value`) is read as a path; the files it names (`p_file`)
    are then relative to its folder (a dict's, to the working directory). The
    simulator parses and checks the text once (errors name the line) and reads those
    files once; the plan it gives back stays in the simulator, so that `cwnd.run`
    and `cwnd.check` take it without loading anything again. It pickles (a process
    pool, Dask) as its canonical JSON, which needs no file. What can never happen in
    the run is reported as a `ScenarioWarning`.

    Raises `ScenarioError` (also for a file that is missing or not UTF-8).
    """
    return warned(source, stacklevel=3)


def warned(source: ScenarioLike, stacklevel: int) -> _cwnd.Plan:
    """`source`'s plan (`loaded`), its warnings reported as `ScenarioWarning`s
    `stacklevel` frames up; a `Plan` given was reported when it was made."""
    if isinstance(source, _cwnd.Plan):
        return source
    made = loaded(source)
    for message in made.warnings:
        warnings.warn(ScenarioWarning(message), stacklevel=stacklevel)
    return made


def load_scenario(source: ScenarioLike) -> dict[str, Any]:
    """The plan of a scenario (anything `plan` takes) as a dict, its canonical form:
    every default written out and each file's contents in place of its name, so it
    runs anywhere and is still a scenario dict that sweeps can edit. Raises
    `ScenarioError`."""
    spec: dict[str, Any] = loaded(source).spec
    return spec


def loaded(source: ScenarioLike) -> _cwnd.Plan:
    """The `Plan` of a scenario (anything `plan` takes): one call to the simulator's
    `load`, none for a `Plan`, and no warnings reported."""
    if isinstance(source, _cwnd.Plan):
        return source
    if isinstance(source, Scenario):
        source = source.to_dict()
    if isinstance(source, dict):
        return _cwnd.load(_json_text(source))
    if isinstance(source, str) and not source.strip():
        raise _cwnd.ScenarioError(f"scenario: the text is empty; {WHAT_A_SCENARIO_IS}")
    if isinstance(source, Path) or (isinstance(source, str) and _looks_like_path(source)):
        path = Path(source)
        return _cwnd.load(_file_text(path), str(path.resolve().parent))
    if isinstance(source, str):
        return _cwnd.load(source)
    shown = f"{_short(source)} ({type(source).__name__})"
    raise _cwnd.ScenarioError(f"scenario: {shown} is not a scenario; {WHAT_A_SCENARIO_IS}")


def _looks_like_path(text: str) -> bool:
    """A one-line `str` is a path when it ends in `.toml`, names a file, or has no `=`
    (one line of TOML text that could be a scenario has `duration = ...`)."""
    return "\n" not in text and (text.endswith(".toml") or "=" not in text or Path(text).is_file())


def _file_text(path: Path) -> str:
    """A scenario file's text: a regular file (never a FIFO, which would block, nor a
    device), UTF-8 with or without a byte-order mark."""
    try:
        kind = path.stat().st_mode
    except FileNotFoundError:
        raise _cwnd.ScenarioError(f"{path}: no such scenario file") from None
    except OSError as e:
        raise _cwnd.ScenarioError(f"{path}: cannot read: {e.strerror}") from None
    if stat.S_ISDIR(kind):
        raise _cwnd.ScenarioError(f"{path}: is a folder; name a scenario file")
    if not stat.S_ISREG(kind):
        raise _cwnd.ScenarioError(f"{path}: not a regular file; name a scenario file")
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise _cwnd.ScenarioError(f"{path}: cannot read: {e.strerror}") from None
    try:
        return raw.decode("utf-8-sig")  # a byte-order mark is accepted and dropped
    except UnicodeDecodeError as e:
        raise _cwnd.ScenarioError(
            f"{path}: not UTF-8 text (byte 0x{raw[e.start]:02x} at offset {e.start}); "
            "save the file as UTF-8"
        ) from None


def _json_text(spec: dict[str, Any]) -> str:
    """A scenario dict as JSON text. Numbers of other types (numpy's) are written as
    numbers; NaN, infinities and values JSON has no form for are refused with their
    field (the simulator would see a syntax error, not the field)."""
    try:
        # allow_nan=False refuses NaN and infinities in the same pass that writes the
        # text; only then is the dict searched for the field path (a search of every
        # value costs more than the JSON itself for 100 000 flows).
        return json.dumps(spec, allow_nan=False, default=_plain_number)
    except (ValueError, TypeError):
        bad = _first_bad_value(spec, "")
        if bad is None:
            raise
        raise _cwnd.ScenarioError(f"{bad[0] or 'scenario'}: {bad[1]}") from None


def _plain_number(value: object) -> int | float:
    """A number of another type (numpy's int64, float32…) as Python's, for JSON."""
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(type(value).__name__)


def _first_bad_value(value: Any, path: str) -> tuple[str, str] | None:
    """The first value of a scenario dict that JSON cannot hold (NaN, an infinity, a
    set, bytes, any object…) or a key that is not a string: its field path and what
    is wrong with it."""
    if isinstance(value, numbers.Real) and not math.isfinite(value):
        return path, f"{value} is not a finite number; give a value"
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                return path, f"key {_short(key)} is not a string; name fields with strings"
        items = ((f"{path}.{k}" if path else k, v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    elif value is None or isinstance(value, str | numbers.Real):
        return None
    else:
        return path, (
            f"{_short(value)} ({type(value).__name__}) is not a scenario value; give a "
            "string, number, boolean, list or dict"
        )
    return next((bad for p, v in items if (bad := _first_bad_value(v, p))), None)


def _short(value: object) -> str:
    """`repr(value)`, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:60]}… ({len(text)} characters)"


def _given(**fields: Any) -> dict[str, Any]:
    """The optional fields a builder method was given (those not None)."""
    return {k: v for k, v in fields.items() if v is not None}


def listed(value: Any) -> Any:
    """A list or tuple a builder was given, as a list of its own; anything else as it
    is, for the simulator to refuse with its field path (`list("ab")` would turn a
    mistaken string into a list of letters, and `list(5)` raise a bare TypeError)."""
    return list(value) if isinstance(value, list | tuple) else value


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
        stages = listed(impairments or [])
        if loss is not None:
            if not isinstance(stages, list):
                at = f"links[{len(self._spec['links'])}].impairments"
                raise _cwnd.ScenarioError(f"{at}: {_short(stages)} is not a list of stages")
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
        flow["app"] = {"kind": app} if isinstance(app, str) else copy.deepcopy(app)
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
        flow["app"] = {"kind": app} if isinstance(app, str) else copy.deepcopy(app)
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
        flow["source"] = copy.deepcopy(source)
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
        channel: dict[str, Any] = {"stations": listed(stations), "rate": rate, **fields}
        if name is not None:
            channel["name"] = name
        if impairments:
            channel["impairments"] = listed(impairments)
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
        cell: dict[str, Any] = {"base_station": base_station, "subscribers": listed(subscribers)}
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


#: What `plan`, `load_scenario`, `cwnd.run` and `cwnd.check` take as a scenario.
ScenarioLike = str | Path | dict[str, Any] | Scenario | _cwnd.Plan
