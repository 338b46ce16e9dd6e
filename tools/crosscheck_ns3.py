"""Cross-check cwnd against ns-3 on single-bottleneck random-loss scenarios.

Runs the same path in both simulators — a 100 Mb/s, 1 ms access link and a 10 Mb/s,
24 ms bottleneck (50 ms RTT, 100-packet DropTail queue) whose data direction loses
packets with probability p — for each congestion-control variant both have, and prints
goodput (median over seeds, with its range) and the loss rate each simulator actually
applied, side by side, with the AIMD model's goodput (`AIMD` below: Mathis's formula
generalised to a variant's increase and decrease, at the nominal p and cwnd's mean RTT)
and each simulator's ratio to it, for the variants that have one.

ns-3 comes from PyPI (`pip install ns3==3.44.post0`) in its own virtual environment; the
project never depends on it. The ns-3 interpreter is `--ns3-python`, else
`$CWND_NS3_PYTHON`, else /tmp/ns3venv/bin/python (where it is installed on the shared
machine). ns-3 results are cached by job in `--ns3-cache`, by default
`crosscheck_cache.json` in that venv's directory (/tmp/ns3venv/crosscheck_cache.json), so
that a cache belongs to one ns-3 build. Every ns-3 simulation runs in a fresh process (ns-3
keeps global state between simulations in one process). Usage (from the project venv):

    python -m venv /tmp/ns3venv && /tmp/ns3venv/bin/pip install ns3==3.44.post0
    .venv/bin/python tools/crosscheck_ns3.py --seconds 60 --losses 0.01

`--trace DIR` also writes, for each ns-3 simulation, the sender's trace sources as
`time_s,source,value` lines (DIR/ns3_<variant>_<p>_<seed>.csv; windows in bytes, RTTs in
seconds), and for each cwnd run its series and controller metrics
(DIR/cwnd_<variant>_<p>_<seed>_{series,cc}.csv), for side-by-side comparison; traced
ns-3 runs are not taken from the cache.

Settings matched in both: cwnd's `tcp.profile = "rfc"` (so the default "linux" profile's
options do not apply) with MSS 1460, no SACK (BBR, and every variant with --sack: SACK on
in both), no timestamps, no delayed ACKs, RFC 6298 RTO with a 1 s minimum, initial
window 3, no pacing (BBR paces in both), 64 MiB buffers. Where ns-3 has a mechanism cwnd
turns it on too, so that like is compared with like:
- the connection handshake: ns-3 always opens with SYN and SYN-ACK, so cwnd runs with
  `tcp.handshake = true`;
- limited transmit (RFC 3042): ns-3's `TcpSocketBase::LimitedTransmit` (default true) is
  left on, and cwnd runs with `tcp.limited_transmit = true`;
- loss recovery: without SACK, NewReno-style window inflation in both (ns-3
  `TcpClassicRecovery`); with SACK, PRR (RFC 6937) in both: cwnd's `tcp.prr = true` on its
  RFC 6675 recovery against ns-3's `TcpPrrRecovery`.
In ns-3 the traffic-control layer's default queue disc is removed, so the 100-packet
DropTail device queue is the bottleneck queue, as in cwnd; and the variants' parameters
are set to cwnd's defaults where ns-3's differ (CUBIC without HyStart, Hybla RTT0 25 ms,
Scalable a = 1/100).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

# cwnd name → (ns-3 TypeId, ns-3 attributes set to cwnd's defaults)
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "newreno": ("ns3::TcpNewReno", {}),
    "vegas": ("ns3::TcpVegas", {}),
    "veno": ("ns3::TcpVeno", {}),
    "westwood_plus": ("ns3::TcpWestwoodPlus", {}),
    "cubic": ("ns3::TcpCubic", {"ns3::TcpCubic::HyStart": False}),
    "bic": ("ns3::TcpBic", {}),
    "highspeed": ("ns3::TcpHighSpeed", {}),
    "scalable": ("ns3::TcpScalable", {"ns3::TcpScalable::AIFactor": 100}),
    "hybla": ("ns3::TcpHybla", {"ns3::TcpHybla::RRTT": "25ms"}),
    "bbr": ("ns3::TcpBbr", {}),
    # ns-3's defaults are Linux's constants for Illinois and YeAH; its H-TCP has no
    # counterpart of Linux's RTT scaling or bandwidth switch (docs/validation.md).
    "htcp": ("ns3::TcpHtcp", {}),
    "illinois": ("ns3::TcpIllinois", {}),
    "yeah": ("ns3::TcpYeah", {}),
}
# The AIMD model of a Reno-like flow under random loss p (Mathis et al. 1997,
# generalised to AIMD(a, β) by Floyd, Handley & Padhye 2000): goodput =
# √(a(1 + β) / (2(1 − β))) · MSS / (RTT · √p), a segments added per RTT, β the fraction
# of the window kept after a loss; no timeouts, so an upper estimate without SACK.
# (a, β) at the windows of this path (5–30 segments), for the variants that have them:
AIMD: dict[str, tuple[float, float]] = {
    "newreno": (1.0, 0.5),
    # RFC 3649: a(w) = 1, b(w) = 1/2 below Low_Window = 38.
    "highspeed": (1.0, 0.5),
    # RFC 9438 §4.3: the Reno-friendly region, a = 3(1 − β)/(1 + β) with β = 0.7.
    "cubic": (3 * 0.3 / 1.7, 0.7),
    # Linux tcp_scalable: Reno's increase below 1/a = 100 segments, β = 7/8.
    "scalable": (1.0, 7 / 8),
    # Hybla: a = ρ² with ρ = RTT/RTT0 ≈ 2 on this path (RTT0 25 ms), Reno's halving.
    "hybla": (4.0, 0.5),
    # Veno when every loss is taken as random (an upper bound): β = 4/5.
    "veno": (1.0, 0.8),
    # YeAH with its queue estimate near 0 (random loss, no standing queue): Scalable's
    # growth, which below 100 segments is Reno's, and a loss takes cwnd/8.
    "yeah": (1.0, 7 / 8),
}
MSS_BITS = 1460 * 8


def aimd_model_bps(variant: str, p: float, rtt: float) -> float:
    """The AIMD model's goodput (bit/s) for `variant` at loss rate p and RTT (s); NaN for
    the variants without one (Vegas, Westwood+, BIC, BBR, H-TCP, Illinois)."""
    if variant not in AIMD:
        return float("nan")
    a, beta = AIMD[variant]
    return (a * (1 + beta) / (2 * (1 - beta))) ** 0.5 * MSS_BITS / (rtt * p**0.5)


# Variants run with SACK in both simulators even without --sack (BBR is deployed with
# it; docs/tcp.md).
WITH_SACK = {"bbr"}
# ns-3's loss recovery: without SACK the classic window inflation, as cwnd's NewReno;
# with SACK, PRR (RFC 6937), as cwnd's `tcp.prr` (ns-3's classic recovery with SACK
# inflates cwnd on top of a pipe that already discounts SACKed segments, and so sends
# more).
NS3_RECOVERY = {False: "ns3::TcpClassicRecovery", True: "ns3::TcpPrrRecovery"}


# The sender socket's trace sources written with --trace (BytesInFlight: the pipe
# ns-3 passes to `GetSsThresh` as FlightSize; HighestSequence − HighestRxAck: the data
# actually outstanding), and the variant's own state
# where ns-3 exposes it (Hybla's ρ; Vegas and Veno keep their RTTs private, but they are
# the smoothed RTTs `TcpSocketBase` passes to `PktsAcked`, which the `RTT` trace gives).
NS3_TRACE_SOURCES = [
    "CongestionWindow",
    "SlowStartThreshold",
    "BytesInFlight",
    "HighestSequence",
    "HighestRxAck",
    "CongState",
    "RTT",
    "LastRTT",
]
NS3_VARIANT_TRACE_SOURCES = {"ns3::TcpHybla": ["CongestionOps/$ns3::TcpHybla/Rho"]}
NS3_TRACE_TYPES = {
    "RTT": "ns3::Time",
    "LastRTT": "ns3::Time",
    "Rho": "double",
    "HighestSequence": "ns3::SequenceNumber32",
    "HighestRxAck": "ns3::SequenceNumber32",
}


def trace_name(side: str, variant: str, p: float, seed: int) -> str:
    """The stem of one run's trace files in the --trace directory."""
    return f"{side}_{variant}_{p}_{seed}"


def cwnd_run(
    cc: str, p: float, seconds: int, seed: int, sack: bool, trace: pathlib.Path | None
) -> dict[str, float]:
    """One cwnd run: goodput (bit/s) and the loss rate the Bernoulli stage applied; with
    `trace` (a file stem), its series and controller metrics are written beside it."""
    import cwnd

    tracing = {"sampling": "change", "cc_metrics": True} if trace else {}
    s = (
        cwnd.Scenario(duration=f"{seconds}s", name="crosscheck", **tracing)
        .link("h1", "r", bandwidth="100Mbps", delay="1ms", queue_packets=100)
        .link(
            "r",
            "h2",
            bandwidth="10Mbps",
            delay="24ms",
            queue_packets=100,
            impairments=[
                {"kind": "bernoulli", "p": p, "direction": "forward", "applies_to": "data"}
            ],
        )
        .flow(
            "h1",
            "h2",
            cc=cc,
            name="f",
            rwnd="64MiB",
            profile="rfc",
            sack=sack,
            prr=sack,
            limited_transmit=True,
            handshake=True,
        )
    )
    results = cwnd.run(s, seed=seed)
    if trace:
        results.flow_series("f").to_csv(f"{trace}_series.csv", index=False)
        results.flow_cc_metrics("f").to_csv(f"{trace}_cc.csv", index=False)
    row = results.summary.iloc[0]
    reached = row["segments_sent"] - row["drops_queue"]
    return {
        "goodput": float(row["goodput_bps"]),
        "loss": float(row["drops_impairment"]) / float(reached),
        "rtt": float(row["mean_rtt"]),
    }


def ns3_job(job: dict[str, Any]) -> dict[str, float]:
    """Runs in the ns-3 venv, alone in its process: one simulation."""
    import cppyy
    from ns import ns

    # Counts what the error model drops and what gets through, at the bottleneck's
    # receiving device (PhyRxDrop fires for each packet the error model corrupts).
    cppyy.cppdef(
        """
        namespace crosscheck {
        uint64_t drops = 0, received = 0;
        void Drop(ns3::Ptr<const ns3::Packet>) { drops++; }
        void Rx(ns3::Ptr<const ns3::Packet>) { received++; }
        void Watch(ns3::Ptr<ns3::NetDevice> d) {
            d->TraceConnectWithoutContext("PhyRxDrop", ns3::MakeCallback(&Drop));
            d->TraceConnectWithoutContext("MacRx", ns3::MakeCallback(&Rx));
        }
        }
        """
    )
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(job["seed"] + 1)
    cfg = ns.Config.SetDefault
    cfg("ns3::TcpL4Protocol::SocketType", ns.StringValue(job["type"]))
    cfg("ns3::TcpL4Protocol::RecoveryType", ns.StringValue(job["recovery"]))
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
    cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(3))
    cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(64 << 20))
    cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(64 << 20))
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(job["sack"]))
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::LimitedTransmit", ns.BooleanValue(job["limited_transmit"]))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1)))
    for name, value in job["attributes"].items():
        if isinstance(value, bool):
            cfg(name, ns.BooleanValue(value))
        elif isinstance(value, int):
            cfg(name, ns.UintegerValue(value))
        else:
            cfg(name, ns.TimeValue(ns.Time(value)))
    nodes = ns.NodeContainer()
    nodes.Create(3)
    p2p = ns.PointToPointHelper()
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("100p"))
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("100Mbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue("1ms"))
    access = p2p.Install(nodes.Get(0), nodes.Get(1))
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("10Mbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue("24ms"))
    bottleneck = p2p.Install(nodes.Get(1), nodes.Get(2))
    em = ns.CreateObject[ns.RateErrorModel]()
    em.SetAttribute("ErrorRate", ns.DoubleValue(job["p"]))
    em.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
    bottleneck.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
    cppyy.gbl.crosscheck.Watch(bottleneck.Get(1))
    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(access)
    addr.SetBase(ns.Ipv4Address("10.1.2.0"), ns.Ipv4Mask("255.255.255.0"))
    far = addr.Assign(bottleneck)
    # Address assignment installed the default queue disc on every device; without
    # removing it, that queue disc (not the 100-packet DropTail) is the bottleneck queue.
    tch = ns.TrafficControlHelper()
    tch.Uninstall(access)
    tch.Uninstall(bottleneck)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    sink_addr = ns.InetSocketAddress(far.GetAddress(1), 9).ConvertTo()
    sender = ns.BulkSendHelper("ns3::TcpSocketFactory", sink_addr)
    sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
    sender.Install(nodes.Get(0)).Start(ns.Seconds(0))
    any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9).ConvertTo()
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(nodes.Get(2))
    sink.Start(ns.Seconds(0))
    if job.get("trace"):
        trace_ns3_sender(cppyy, job["trace"], job["type"])
    ns.Simulator.Stop(ns.Seconds(job["seconds"]))
    ns.Simulator.Run()
    received = ns.DynamicCast[ns.PacketSink](sink.Get(0)).GetTotalRx()
    ns.Simulator.Destroy()
    drops, passed = int(cppyy.gbl.crosscheck.drops), int(cppyy.gbl.crosscheck.received)
    return {"goodput": received * 8 / job["seconds"], "loss": drops / max(drops + passed, 1)}


def trace_ns3_sender(cppyy: Any, path: str, variant: str) -> None:
    """Writes `time_s,source,value` lines for the sender socket's trace sources to `path`,
    connected 1 ns after the start, once BulkSend has created the socket."""
    connections = "\n".join(
        f"""ns3::Config::ConnectWithoutContext(socket + "/{source}", ns3::MakeBoundCallback(
                &Write<{NS3_TRACE_TYPES.get(source.split("/")[-1], "uint32_t")}>,
                std::string("{source.split("/")[-1]}")));"""
        for source in NS3_TRACE_SOURCES + NS3_VARIANT_TRACE_SOURCES.get(variant, [])
        if source != "CongState"
    )
    cppyy.cppdef(
        f"""
        namespace crosscheck_trace {{
        std::ofstream out;
        double Value(uint32_t v) {{ return v; }}
        double Value(double v) {{ return v; }}
        double Value(ns3::Time v) {{ return v.GetSeconds(); }}
        double Value(ns3::SequenceNumber32 v) {{ return v.GetValue(); }}
        template <typename T> void Write(std::string name, T, T now) {{
            out << ns3::Simulator::Now().GetSeconds() << "," << name << "," << Value(now)
                << "\\n";
        }}
        void State(ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t now) {{
            out << ns3::Simulator::Now().GetSeconds() << ",CongState," << int(now) << "\\n";
        }}
        void Connect() {{
            std::string socket = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0";
            ns3::Config::ConnectWithoutContext(socket + "/CongState", ns3::MakeCallback(&State));
            {connections}
        }}
        void Start(std::string path) {{
            out.open(path);
            ns3::Simulator::Schedule(ns3::NanoSeconds(1), &Connect);
        }}
        }}
        """
    )
    cppyy.gbl.crosscheck_trace.Start(path)


def run_ns3(python: str, job: dict[str, Any]) -> dict[str, float]:
    """One ns-3 job in a fresh process of the ns-3 venv."""
    proc = subprocess.run(
        [python, __file__, "--ns3-job", json.dumps(job)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cached_ns3_runs(
    python: str, cache_path: pathlib.Path, jobs: list[dict[str, Any]], parallel: int
) -> list[dict[str, float]]:
    """The ns-3 results of `jobs`, running only those not in the cache at `cache_path`,
    which is rewritten after each run (an interrupted batch keeps what it finished)."""
    cache: dict[str, dict[str, float]] = {}
    if cache_path.exists():
        cache = json.loads(cache_path.read_text())
    todo = [job for job in jobs if json.dumps(job, sort_keys=True) not in cache]
    with ThreadPoolExecutor(parallel) as pool:
        for job, result in zip(todo, pool.map(lambda j: run_ns3(python, j), todo), strict=True):
            cache[json.dumps(job, sort_keys=True)] = result
            cache_path.write_text(json.dumps(cache, indent=1))
    return [cache[json.dumps(job, sort_keys=True)] for job in jobs]


def median_range(values: list[float]) -> str:
    """The median over seeds, with the smallest and largest value."""
    return f"{statistics.median(values):6.2f} [{min(values):5.2f}, {max(values):5.2f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--ns3-python",
        type=pathlib.Path,
        default=pathlib.Path(os.environ.get("CWND_NS3_PYTHON", "/tmp/ns3venv/bin/python")),
        help="python of a venv with `pip install ns3` (default: $CWND_NS3_PYTHON, "
        "else /tmp/ns3venv/bin/python)",
    )
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--losses", type=float, nargs="+", default=[0.001, 0.01, 0.02])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--sack", action="store_true", help="SACK on for every variant, in both")
    ap.add_argument("--parallel", type=int, default=1, help="ns-3 processes at a time")
    ap.add_argument(
        "--ns3-cache",
        type=pathlib.Path,
        help="JSON file of ns-3 results by job: read if present, written after each run "
        "(default: crosscheck_cache.json in the ns-3 venv's directory)",
    )
    ap.add_argument(
        "--trace",
        type=pathlib.Path,
        help="directory for both simulators' traces of every run (ns-3 runs then bypass the cache)",
    )
    ap.add_argument("--ns3-job", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ns3_job:
        print(json.dumps(ns3_job(json.loads(args.ns3_job))))
        return 0
    if not args.ns3_python.exists():
        ap.error(f"--ns3-python: {args.ns3_python} does not exist; install ns-3 in a venv there")
    cache_path = args.ns3_cache or args.ns3_python.parent.parent / "crosscheck_cache.json"
    if args.trace:
        args.trace.mkdir(parents=True, exist_ok=True)
    points = [(v, p, s) for v in args.variants for p in args.losses for s in range(args.seeds)]
    sack = {v: args.sack or v in WITH_SACK for v in args.variants}
    jobs = [
        {
            "type": VARIANTS[v][0],
            "attributes": VARIANTS[v][1],
            "sack": sack[v],
            "recovery": NS3_RECOVERY[sack[v]],
            "limited_transmit": True,
            "p": p,
            "seed": s,
            "seconds": args.seconds,
        }
        for v, p, s in points
    ]
    if args.trace:
        traced = [
            dict(job, trace=str(args.trace / f"{trace_name('ns3', v, p, s)}.csv"))
            for job, (v, p, s) in zip(jobs, points, strict=True)
        ]
        with ThreadPoolExecutor(args.parallel) as pool:
            ns3 = list(pool.map(lambda j: run_ns3(str(args.ns3_python), j), traced))
    else:
        ns3 = cached_ns3_runs(str(args.ns3_python), cache_path, jobs, args.parallel)
    mine = [
        cwnd_run(
            v,
            p,
            args.seconds,
            s,
            sack[v],
            args.trace / trace_name("cwnd", v, p, s) if args.trace else None,
        )
        for v, p, s in points
    ]
    print(
        f"{'variant':<14} {'p':>6} {'cwnd Mb/s, median [min, max]':>28}"
        f" {'ns-3 Mb/s, median [min, max]':>28} {'ratio':>6} {'cwnd loss':>9} {'ns-3 loss':>9}"
        f" {'model':>6} {'cwnd/m':>6} {'ns-3/m':>6}"
    )
    for i in range(0, len(points), args.seeds):
        v, p, _ = points[i]
        a = [r["goodput"] / 1e6 for r in mine[i : i + args.seeds]]
        b = [r["goodput"] / 1e6 for r in ns3[i : i + args.seeds]]
        la = statistics.median(r["loss"] for r in mine[i : i + args.seeds])
        lb = statistics.median(r["loss"] for r in ns3[i : i + args.seeds])
        ratio = statistics.median(a) / statistics.median(b)
        # The model at the nominal p and cwnd's mean RTT (ns-3's is not measured here).
        rtt = statistics.median(r["rtt"] for r in mine[i : i + args.seeds])
        model = aimd_model_bps(v, p, rtt) / 1e6
        print(
            f"{v:<14} {p:>6} {median_range(a):>28} {median_range(b):>28} {ratio:>6.2f}"
            f" {la:>9.4f} {lb:>9.4f} {model:>6.2f} {statistics.median(a) / model:>6.2f}"
            f" {statistics.median(b) / model:>6.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
