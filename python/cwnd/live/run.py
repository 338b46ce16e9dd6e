"""One live run: checks, namespaces, kernel connections, the relay, results.

The relay runs in a thread of this process with the GIL released
(`relay_thread.RelayThread`); the main thread waits for it and turns Ctrl-C and
SIGTERM into a stop request (a byte on a pipe the relay polls), then removes
everything (`LiveNetwork.close`).
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from cwnd import _cwnd
from cwnd.live import checks, series
from cwnd.live.network import LiveNetwork, owner, remove_stale_namespaces
from cwnd.live.relay_thread import RelayThread
from cwnd.results import Results

# Namespaces exist before model time 0; endpoints get this long to start.
STARTUP_SECONDS = 1.5
FIRST_PORT = 5001


class Terminated(Exception):
    """SIGTERM arrived."""


@contextmanager
def sigterm_raises() -> Iterator[None]:
    def handler(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _seconds(value: str) -> float:
    return int(value.removesuffix("ns")) / 1e9


def _bytes(value: str) -> int:
    return int(value.removesuffix("B"))


def _end_hosts(flows: list[dict[str, Any]]) -> list[str]:
    hosts: list[str] = []
    for f in flows:
        for node in (f["from"], f["to"]):
            if node not in hosts:
                hosts.append(node)
    return hosts


def _initcwnd(raw: dict[str, Any]) -> dict[str, int]:
    """`tcp.initial_window` per sending host (a route's `initcwnd`)."""
    wanted: dict[str, int] = {}
    for i, flow in enumerate(raw["flows"]):
        iw = flow.get("tcp", {}).get("initial_window")
        if iw is None:
            continue
        if wanted.setdefault(flow["from"], int(iw)) != int(iw):
            raise checks.LiveRefused(
                f"flow {flow.get('name', f'flow{i}')!r}: tcp.initial_window = {iw} conflicts "
                f"with another flow of host {flow['from']!r}: one route per namespace"
            )
    return wanted


# A run whose p99 timing error exceeds this did not follow its model closely
# enough: the report says so in red.
LATENESS_BOUND_S = 0.001


def run_live(
    raw: dict[str, Any], seed: int = 0, log: Any = print
) -> tuple[Results, _cwnd.RelayReport]:
    """Runs scenario `raw` (as loaded from TOML) live; returns the results and the
    relay's report (counts, timing error, carried rate, CPU). Raises `LiveRefused`
    for what cannot run, `ScenarioError` for an invalid scenario."""
    checks.check_host()
    spec = _cwnd.load(json.dumps(raw)).spec
    raw = checks.asked(spec)
    for note in checks.check_scenario(raw, checks.available_cc()):
        log(f"note: {note}")
    sysctls = checks.namespace_sysctls(raw)
    initcwnd = _initcwnd(raw)
    flows = spec["flows"]
    duration = _seconds(spec["duration"])
    interval = _seconds(spec["trace"]["interval"])
    for ns in remove_stale_namespaces():
        print(
            f"cwnd: removed network namespace {ns}: its run (process {owner(ns)}) has ended",
            file=sys.stderr,
        )
    with LiveNetwork(_end_hosts(flows)) as net, sigterm_raises(), TemporaryDirectory() as tmp:
        net.create(sysctls, initcwnd)
        epoch = time.monotonic_ns() + int(STARTUP_SECONDS * 1e9)
        outputs = _start_endpoints(net, raw, spec, epoch, duration, interval, Path(tmp))
        relay = _relay(net, raw, seed, flows, epoch)
        for p in net.processes:
            p.wait(timeout=10)
        ends = {name: json.loads(path.read_text()) for name, path in outputs.items()}
    for name, data in ends.items():
        if "error" in data:
            raise RuntimeError(f"live endpoint {name}: {data['error']}")
    return Results(series.assemble(relay, spec, ends), raw), relay["relay"]


def relay_report(relay: _cwnd.RelayReport, color: bool) -> str:
    """The relay's lines of a run's report; red when its p99 error passed the bound."""
    text = (
        f"relay: carried {relay['carried_bps'] / 1e6:.3f} Mb/s; timing error p50 "
        f"{relay['late_p50'] * 1e6:.0f} µs, p99 {relay['late_p99'] * 1e6:.0f} µs, max "
        f"{relay['late_max'] * 1e6:.0f} µs over {relay['packets_timed']} packets; "
        f"CPU {relay['cpu_seconds']:.2f} s in {relay['seconds']:.2f} s"
    )
    if relay["late_p99"] <= LATENESS_BOUND_S:
        return text
    warning = (
        f"\nWARNING: p99 timing error above {LATENESS_BOUND_S * 1e3:.0f} ms: this host was "
        "too slow for the scenario; its results do not follow the model"
    )
    return text + (f"\033[31m{warning}\033[0m" if color else warning)


def _start_endpoints(
    net: LiveNetwork,
    raw: dict[str, Any],
    spec: dict[str, Any],
    epoch: int,
    duration: float,
    interval: float,
    tmp: Path,
) -> dict[str, Path]:
    """Starts every flow's receiver, waits until each listens, then its sender."""
    outputs: dict[str, Path] = {}
    common = ["--epoch-ns", str(epoch)]
    receivers = []
    for i, f in enumerate(spec["flows"]):
        out = tmp / f"receiver{i}.json"
        outputs[f"receiver{i}"] = out
        asked_tcp = raw["flows"][i].get("tcp", {})
        args = [*common, "--stop", str(duration), "--port", str(FIRST_PORT + i)]
        args += ["--addr", net.address(f["to"]), "--out", str(out)]
        for key in ("rwnd", "rcvbuf"):
            if asked_tcp.get(key) is not None:
                args += ["--rcvbuf", str(_bytes(f["tcp"][key]))]
        receivers.append(net.spawn_endpoint(f["to"], ["receiver", *args]))
    for p in receivers:
        assert p.stdout is not None
        if p.stdout.readline().strip() != "listening":
            raise RuntimeError(
                f"live receiver did not start: {p.stderr.read() if p.stderr else ''}"
            )
    for i, f in enumerate(spec["flows"]):
        out = tmp / f"sender{i}.json"
        outputs[f"sender{i}"] = out
        stop = min(_seconds(f["stop"]), duration) if f.get("stop") else duration
        app = f["app"]
        size = _bytes(app["bytes"]) if app.get("bytes") else 0
        if app.get("segments"):
            size = app["segments"] * _bytes(f["tcp"]["mss"])
        args = [*common, "--stop", str(stop), "--port", str(FIRST_PORT + i)]
        args += ["--dst", net.address(f["to"]), "--out", str(out), "--cc", checks.kernel_cc(f)]
        args += ["--mss", str(_bytes(f["tcp"]["mss"])), "--bytes", str(size)]
        args += ["--start", str(_seconds(f["start"])), "--interval", str(interval)]
        tcp = f["tcp"]
        if tcp.get("sndbuf") is not None:
            args += ["--sndbuf", str(_bytes(tcp["sndbuf"]))]
        if tcp.get("write_size") is not None:
            args += ["--write-size", str(_bytes(tcp["write_size"]))]
        if tcp.get("nagle") is False:
            args.append("--nodelay")
        net.spawn_endpoint(f["from"], ["sender", *args])
    return outputs


def _relay(
    net: LiveNetwork, raw: dict[str, Any], seed: int, flows: list[dict[str, Any]], epoch: int
) -> _cwnd.LiveResults:
    """Runs the relay in a thread until the scenario's end; Ctrl-C and SIGTERM stop
    it (and propagate once it has stopped)."""
    hosts = [(h, net.tun_fds[h], _addr(net.address(h))) for h in net.hosts]
    ports = [
        (i, _addr(net.address(f["from"])), _addr(net.address(f["to"])), FIRST_PORT + i)
        for i, f in enumerate(flows)
    ]
    with RelayThread(json.dumps(raw), seed, hosts=hosts, flows=ports, epoch_ns=epoch) as relay:
        while relay.alive():
            relay.join(0.1)
        return relay.result()


def _addr(dotted: str) -> int:
    a, b, c, d = (int(x) for x in dotted.split("."))
    return a << 24 | b << 16 | c << 8 | d
