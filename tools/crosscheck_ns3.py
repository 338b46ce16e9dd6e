"""Cross-check cwnd against ns-3 on single-bottleneck random-loss scenarios.

Runs the same path in both simulators — a 100 Mb/s, 1 ms access link and a 10 Mb/s,
24 ms bottleneck (50 ms RTT) whose data direction loses packets with probability p —
for each congestion-control variant both have, and prints goodput side by side.

ns-3 comes from PyPI (`pip install ns3`) in its own virtual environment; the project's
tests never need it. Usage (from the project venv):

    python tools/crosscheck_ns3.py --ns3-python /path/to/ns3-venv/bin/python

Settings chosen to match cwnd's defaults in both: MSS 1460, no SACK, no timestamps, no
delayed ACKs, RFC 6298 RTO with a 1 s minimum, initial window 3, classic (non-PRR) loss
recovery in ns-3, large socket buffers, DropTail 100 packets.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

# cwnd name → ns-3 TypeId
VARIANTS = {
    "newreno": "ns3::TcpNewReno",
    "vegas": "ns3::TcpVegas",
    "veno": "ns3::TcpVeno",
    "westwood_plus": "ns3::TcpWestwoodPlus",
    "cubic": "ns3::TcpCubic",
    "bic": "ns3::TcpBic",
    "highspeed": "ns3::TcpHighSpeed",
    "scalable": "ns3::TcpScalable",
    "hybla": "ns3::TcpHybla",
}


def cwnd_goodput(cc: str, p: float, seconds: int, seed: int) -> float:
    import cwnd

    s = (
        cwnd.Scenario(duration=f"{seconds}s", name="crosscheck")
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
        .flow("h1", "h2", cc=cc, name="f", rwnd="64MiB")
    )
    return float(cwnd.run(s, seed=seed).summary["goodput_bps"][0])


def ns3_worker(jobs: list[dict]) -> list[float]:
    """Runs in the ns-3 venv: one simulation per job, returns goodputs (bit/s)."""
    from ns import ns

    results = []
    for job in jobs:
        ns.RngSeedManager.SetSeed(1)
        ns.RngSeedManager.SetRun(job["seed"] + 1)
        cfg = ns.Config.SetDefault
        cfg("ns3::TcpL4Protocol::SocketType", ns.StringValue(job["type"]))
        cfg("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpClassicRecovery"))
        cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
        cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
        cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(3))
        cfg("ns3::TcpSocket::SndBufSize", ns.UintegerValue(64 << 20))
        cfg("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(64 << 20))
        cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
        cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
        cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1)))
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
        ns.InternetStackHelper().Install(nodes)
        addr = ns.Ipv4AddressHelper()
        addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(access)
        addr.SetBase(ns.Ipv4Address("10.1.2.0"), ns.Ipv4Mask("255.255.255.0"))
        far = addr.Assign(bottleneck)
        ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
        sink_addr = ns.InetSocketAddress(far.GetAddress(1), 9).ConvertTo()
        sender = ns.BulkSendHelper("ns3::TcpSocketFactory", sink_addr)
        sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
        sender.Install(nodes.Get(0)).Start(ns.Seconds(0))
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9).ConvertTo()
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr).Install(nodes.Get(2))
        sink.Start(ns.Seconds(0))
        ns.Simulator.Stop(ns.Seconds(job["seconds"]))
        ns.Simulator.Run()
        received = ns.DynamicCast[ns.PacketSink](sink.Get(0)).GetTotalRx()
        ns.Simulator.Destroy()
        results.append(received * 8 / job["seconds"])
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns3-python", help="python of a venv with `pip install ns3`")
    ap.add_argument("--seconds", type=int, default=120)
    ap.add_argument("--losses", type=float, nargs="+", default=[0.001, 0.01, 0.02])
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--ns3-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ns3_worker:
        print(json.dumps(ns3_worker(json.load(sys.stdin))))
        return 0
    if not args.ns3_python:
        ap.error("--ns3-python is required")
    points = [(v, p, s) for v in args.variants for p in args.losses for s in range(args.seeds)]
    jobs = [{"type": VARIANTS[v], "p": p, "seed": s, "seconds": args.seconds} for v, p, s in points]
    proc = subprocess.run(
        [args.ns3_python, __file__, "--ns3-worker"],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        check=True,
    )
    ns3 = json.loads(proc.stdout.strip().splitlines()[-1])
    mine = [cwnd_goodput(v, p, args.seconds, s) for v, p, s in points]
    print(f"{'variant':<14} {'p':>6} {'cwnd Mb/s':>10} {'ns-3 Mb/s':>10} {'cwnd/ns-3':>9}")
    for i in range(0, len(points), args.seeds):
        v, p, _ = points[i]
        a = sum(mine[i : i + args.seeds]) / args.seeds / 1e6
        b = sum(ns3[i : i + args.seeds]) / args.seeds / 1e6
        print(f"{v:<14} {p:>6} {a:>10.3f} {b:>10.3f} {a / b:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
