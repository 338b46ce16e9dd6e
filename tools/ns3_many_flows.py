"""ns-3's side of the many-flows benchmark (BENCHMARKS.md, "Many flows: the N curve").

Builds in ns-3 the dumbbell of `cargo bench -p cwnd-sim --bench many_flows -- N SECONDS`
and prints, in the same form, the set-up CPU seconds (topology, stacks, addresses,
routes, applications), the CPU seconds of `Simulator::Run()` alone, its events and the
process's peak RSS. Run it with the python of a venv holding ns-3 from PyPI (`pip install
ns3==3.44.post0`; never a project dependency), one N per process:

    /tmp/ns3venv/bin/python tools/ns3_many_flows.py N SECONDS

The dumbbell: N senders, each on its own 1 Gb/s, 1 ms access link to r0; r0 to r1 at
10·N Mb/s, 10 ms, with a DropTail queue of 20·N packets; r1 to each receiver at 1 Gb/s,
1 ms. N NewReno flows of unlimited data start evenly over the first 10 ms. Settings as in
cwnd's defaults (and tools/crosscheck_ns3.py): MSS 1460, no SACK, no timestamps, no
delayed ACKs, initial window 3, RTO minimum 1 s, classic recovery; the traffic-control
layer's queue disc is removed so the device's DropTail queue is the bottleneck queue.
Socket buffers stay at ns-3's 128 KiB, above a flow's window here (its 10 Mb/s × 24 ms
and 20 packets of queue: about 60 KB): with 64 MiB, as tools/crosscheck_ns3.py sets for
one flow, each sender keeps 64 MiB of unsent data and Run() slows down as it fills.
"""

from __future__ import annotations

import resource
import sys
import time

from ns import ns


def configure() -> None:
    cfg = ns.Config.SetDefault
    cfg("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
    cfg("ns3::TcpL4Protocol::RecoveryType", ns.StringValue("ns3::TcpClassicRecovery"))
    cfg("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1460))
    cfg("ns3::TcpSocket::DelAckCount", ns.UintegerValue(1))
    cfg("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(3))
    cfg("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
    cfg("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(1)))


def main() -> int:
    flows = int(sys.argv[1])
    seconds = float(sys.argv[2])
    cpu = time.process_time()
    configure()
    routers = ns.NodeContainer()
    routers.Create(2)
    senders = ns.NodeContainer()
    senders.Create(flows)
    receivers = ns.NodeContainer()
    receivers.Create(flows)
    stack = ns.InternetStackHelper()
    for nodes in (routers, senders, receivers):
        stack.Install(nodes)
    p2p = ns.PointToPointHelper()
    tch = ns.TrafficControlHelper()
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.252"))

    def connect(a: object, b: object, rate: str, queue: int) -> object:
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(f"{queue}p"))
        devices = p2p.Install(a, b)
        interfaces = addr.Assign(devices)
        tch.Uninstall(devices)
        addr.NewNetwork()
        return interfaces

    p2p.SetChannelAttribute("Delay", ns.StringValue("10ms"))
    connect(routers.Get(0), routers.Get(1), f"{10 * flows}Mbps", 20 * flows)
    p2p.SetChannelAttribute("Delay", ns.StringValue("1ms"))
    sinks = []
    for i in range(flows):
        connect(senders.Get(i), routers.Get(0), "1Gbps", 100)
        far = connect(routers.Get(1), receivers.Get(i), "1Gbps", 100)
        any_addr = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9).ConvertTo()
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_addr)
        sinks.append(sink.Install(receivers.Get(i)))
        to = ns.InetSocketAddress(far.GetAddress(1), 9).ConvertTo()  # type: ignore[attr-defined]
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", to)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.Install(senders.Get(i)).Start(ns.NanoSeconds(i * 10_000_000 // flows))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    ns.Simulator.Stop(ns.Seconds(seconds))
    set_up = time.process_time() - cpu
    rss_set_up = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cpu = time.process_time()
    ns.Simulator.Run()
    run = time.process_time() - cpu
    events = int(ns.Simulator.GetEventCount())
    received = sum(int(ns.DynamicCast[ns.PacketSink](s.Get(0)).GetTotalRx()) for s in sinks)
    rss_run = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    ns.Simulator.Destroy()
    print(
        f"ns-3 flows={flows} sim={seconds}s cpu: set-up={set_up:.3f}s run={run:.3f}s "
        f"events={events} ({events / run / 1e6:.3f} M/s of cpu) "
        f"segments received={received // 1460} peak-rss: set-up={rss_set_up:.0f}MB "
        f"run={rss_run:.0f}MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
