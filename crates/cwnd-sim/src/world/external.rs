//! External packets: packets that enter the world from outside and leave it at
//! their destination node. This is how live mode (`cwnd live`) puts real kernel TCP
//! on the very links, queues, impairments and wireless models a simulated run uses:
//! one model, two clocks. The idea is ns-3's `RealtimeSimulatorImpl` with a
//! `TapBridge`: a driver follows the wall clock, and packets cross the boundary at
//! the nodes where the outside world attaches.
//!
//! A driver (crate `cwnd-live`) detaches the world's own TCP agents
//! (`detach_agents`), then in a loop injects the packets read from outside at their
//! source node (`inject`, which first runs the event loop up to the injection
//! time), runs the loop up to the current time (`World::run_until`), learns when
//! the next event is due (`next_event_time`) and takes the packets that reached
//! their destination (`drain_delivered`). The world moves only a reference to the
//! packet's bytes (`ExternalRef`), its real IP size and ECN field; drops are
//! counted on the flow the driver names, as for simulated packets, and handed back
//! to the driver (`drain_dropped`) with their cause. A queue may mark an
//! ECN-capable packet CE (RFC 3168 §5): the delivery says so, and the driver writes
//! the mark into the real header.
//!
//! A packet of no scenario flow (`cwnd shell` carries every packet between its
//! hosts: ping, DNS, QUIC) travels under a *passthrough* flow id the driver makes
//! (`passthrough_flow`, one per 5-tuple): stages that count per flow (reordering,
//! holding outages) see each 5-tuple as a flow of its own, and its drops are
//! counted by the driver, not in the world's flow tables.

use super::connections::CONNECTION_FLAG;
use super::World;
use crate::engine::EventQueue;
use crate::packet::{Ecn, ExternalRef, FlowId, NodeId, Packet, Payload};
use crate::results::RunResults;
use crate::time::SimTime;

/// The bit that marks a passthrough flow id (bit 31 marks generators'
/// connections, `CONNECTION_FLAG`; listed flows count up from 0).
const PASSTHROUGH_FLAG: FlowId = 1 << 30;

/// The flow id of the driver's passthrough flow number `index` (< 2³⁰).
pub fn passthrough_flow(index: u32) -> FlowId {
    debug_assert!(index < PASSTHROUGH_FLAG, "passthrough index {index}");
    PASSTHROUGH_FLAG | index
}

/// The index of passthrough flow id `f`; None for any other flow id.
pub fn passthrough_index(f: FlowId) -> Option<u32> {
    (f & CONNECTION_FLAG == 0 && f & PASSTHROUGH_FLAG != 0).then_some(f & !PASSTHROUGH_FLAG)
}

/// A packet handed to the world from outside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Injection {
    /// The scenario flow it belongs to (drop counters, per-flow impairments).
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// The real IP datagram size in bytes.
    pub size: u32,
    pub external: ExternalRef,
    /// For a data packet from the flow's sender: the bytes of its stream the
    /// payload carries, [start, end) counted from 0 (the driver reads them from
    /// the sequence numbers). Impairment triggers (`start_on`) fire on them.
    pub stream_bytes: Option<(u64, u64)>,
}

/// An external packet that reached its destination node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// When the model delivered it: the time it should leave the world.
    pub time: SimTime,
    pub node: NodeId,
    pub flow: FlowId,
    /// When it was injected: `time − sent` is the model's one-way delay.
    pub sent: SimTime,
    /// The handle given at injection.
    pub handle: u64,
    /// The ECN field as the model leaves it: CE if a queue marked it, for the
    /// driver to write into the real header (`packet::set_ipv4_ecn`).
    pub ecn: Ecn,
}

impl Delivery {
    pub(super) fn new(
        time: SimTime,
        node: NodeId,
        flow: FlowId,
        sent: SimTime,
        external: ExternalRef,
    ) -> Self {
        Delivery {
            time,
            node,
            flow,
            sent,
            handle: external.handle,
            ecn: external.ecn,
        }
    }
}

/// An external packet the network dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExternalDrop {
    pub flow: FlowId,
    pub handle: u64,
    /// A full queue refused it (else the medium lost it: an impairment, a retry
    /// limit, a lifetime, a block error — `net::medium::Loss`).
    pub queue: bool,
}

impl World {
    /// Removes every pending event (flow starts and stops, sampling), so that the
    /// world's own TCP agents never run and only injected packets make events.
    /// The flow table stays: its names, nodes and drop counters serve the packets
    /// injected for each flow. Call it before the first `run_until`.
    pub fn detach_agents(&mut self) {
        self.queue = EventQueue::new();
    }

    /// Runs the world up to `time`, then puts the packet on the network at its
    /// source node as that node's own traffic (sent, as a simulated agent's
    /// packet is: a capture there sees it leave once).
    pub fn inject(&mut self, time: SimTime, packet: Injection) {
        self.run_until(time);
        let now = time.max(self.queue.now());
        let Injection {
            flow,
            src,
            dst,
            size,
            external,
            stream_bytes,
        } = packet;
        if let (Some((start, end)), false) = (stream_bytes, self.triggers.is_empty()) {
            // Segment k of the scenario's flow starts at byte (k − 1)·mss: the
            // packet fires the triggers of the segments starting inside it (the
            // kernel's segments need not be the scenario's MSS).
            let mss = u64::from(self.flows[flow as usize].sender.tcb.mss);
            let (first, last) = (start.div_ceil(mss) + 1, end.div_ceil(mss));
            if first <= last {
                self.fire_triggers(now, flow, first..=last);
            }
        }
        let packet = self.new_packet(now, flow, src, dst, size, Payload::External(external));
        self.forward(now, src, packet);
    }

    /// When the next event is due, if any.
    pub fn next_event_time(&mut self) -> Option<SimTime> {
        self.queue.peek_time()
    }

    /// The external packets delivered since the last call, in delivery order.
    pub fn drain_delivered(&mut self) -> std::vec::Drain<'_, Delivery> {
        self.delivered_out.drain(..)
    }

    /// The external packets dropped since the last call, in order.
    pub fn drain_dropped(&mut self) -> std::vec::Drain<'_, ExternalDrop> {
        self.dropped_out.drain(..)
    }

    /// Keeps a dropped external packet for `drain_dropped`; true when its flow is
    /// a passthrough flow, which the world's flow tables do not count.
    pub(super) fn note_external_drop(&mut self, packet: &Packet, queue: bool) -> bool {
        let Payload::External(x) = packet.payload else {
            return false;
        };
        self.dropped_out.push(ExternalDrop {
            flow: packet.flow,
            handle: x.handle,
            queue,
        });
        passthrough_index(packet.flow).is_some()
    }

    /// Writes the external packets seen at the nodes `trace.pcap` names since the
    /// last call into their captures, with the bytes `bytes_of(handle)` gives;
    /// returns how many had no bytes any more.
    pub fn write_external_captures<'a>(
        &mut self,
        bytes_of: impl Fn(u64) -> Option<&'a [u8]>,
    ) -> u64 {
        self.captures.write_external(bytes_of)
    }

    /// The run's results (links, channels, drop counters) once the driver stops.
    pub fn finish(self) -> RunResults {
        self.into_results()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{build, load};

    /// h1 — h2 over one 10 Mb/s × 20 ms link without link-layer overhead, one flow.
    fn world(impairments: &str) -> World {
        let toml = format!(
            r#"
            name = "external"
            duration = "10s"
            [[links]]
            between = ["h1", "h2"]
            bandwidth = "10Mbps"
            delay = "20ms"
            queue = {{ packets = 100000 }}
            impairments = [{impairments}]
            [[flows]]
            name = "f"
            from = "h1"
            to = "h2"
            "#
        );
        let plan = load(&toml, None).expect("scenario");
        let mut w = build(&plan, 7);
        w.detach_agents();
        w
    }

    fn packet(handle: u64, size: u32, data: bool) -> Injection {
        Injection {
            flow: 0,
            src: 0,
            dst: 1,
            size,
            external: ExternalRef {
                handle,
                data,
                ecn: Ecn::NotEct,
            },
            stream_bytes: None,
        }
    }

    /// Runs past every delivery (the last injections below are at 9.999 s).
    fn run_all(w: &mut World) -> Vec<Delivery> {
        w.run_until(SimTime::from_secs(11));
        w.drain_delivered().collect()
    }

    #[test]
    fn detached_world_has_no_events_of_its_own() {
        let mut w = world("");
        assert_eq!(w.next_event_time(), None);
        assert!(run_all(&mut w).is_empty());
        assert_eq!(w.flows[0].sender.tcb.snd_nxt, 0);
    }

    #[test]
    fn injected_packets_cross_the_link_at_its_rate_and_delay() {
        let mut w = world("");
        // 1500 B at 10 Mb/s: 1500 × 8 / 1e7 s = 1.2 ms on the wire, then 20 ms of
        // propagation: the first arrives at 21.2 ms; the second, queued behind it,
        // 1.2 ms later (22.4 ms); one injected at 5 ms finds the link idle again
        // (busy until 2.4 ms): 5 + 1.2 + 20 = 26.2 ms.
        w.inject(SimTime::ZERO, packet(10, 1500, true));
        w.inject(SimTime::ZERO, packet(11, 1500, true));
        w.inject(SimTime::from_millis(5), packet(12, 1500, true));
        assert_eq!(w.next_event_time(), Some(SimTime::from_micros(21_200)));
        let got: Vec<(u64, u64, NodeId)> = run_all(&mut w)
            .iter()
            .map(|d| (d.handle, d.time.as_nanos(), d.node))
            .collect();
        assert_eq!(
            got,
            vec![
                (10, 21_200_000, 1),
                (11, 22_400_000, 1),
                (12, 26_200_000, 1)
            ]
        );
    }

    #[test]
    fn injection_first_runs_the_world_up_to_its_time() {
        let mut w = world("");
        w.inject(SimTime::ZERO, packet(1, 1500, true));
        // Injecting at 30 ms delivers the first packet (due at 21.2 ms) on the way.
        w.inject(SimTime::from_millis(30), packet(2, 1500, true));
        let first: Vec<u64> = w.drain_delivered().map(|d| d.handle).collect();
        assert_eq!(first, vec![1]);
    }

    #[test]
    fn a_data_loss_stage_drops_data_and_counts_it_on_the_flow() {
        let mut w = world(r#"{ kind = "bernoulli", p = 0.01, applies_to = "data" }"#);
        // 10 000 data packets of 100 B, 1 ms apart (80 µs each on the wire: no
        // queueing), and 10 000 ACK-class packets. Dropped data ~ Binomial(10 000,
        // 0.01): mean 100, sd √(10 000 × 0.01 × 0.99) ≈ 9.95; ±4 sd is 60..140.
        for i in 0..10_000u64 {
            w.inject(SimTime::from_millis(i), packet(2 * i, 100, true));
            w.inject(SimTime::from_millis(i), packet(2 * i + 1, 40, false));
        }
        let delivered = run_all(&mut w);
        let acks = delivered.iter().filter(|d| d.handle % 2 == 1).count();
        let data = delivered.len() - acks;
        assert_eq!(acks, 10_000, "the stage applies to data only");
        let dropped = 10_000 - data as u64;
        assert!((60..=140).contains(&dropped), "dropped {dropped}");
        assert_eq!(w.flows[0].drops_impairment, dropped);
    }

    #[test]
    fn an_outage_starts_at_the_packet_carrying_its_trigger_segment() {
        // Segment 3 of a 1460-byte MSS starts at byte 2 × 1460 = 2920. Packets of
        // 1000 payload bytes carry [0, 1000), [1000, 2000), [2000, 3000): the
        // third (at 100 ms) holds byte 2920, so the 1 s outage starts with it and
        // drops it and the fourth (101 ms); the first two arrived at 20.8 and
        // 50.8 ms, before it; the fifth, at 1.2 s, passes.
        let mut w = world(
            r#"{ kind = "outage", start_on = { flow = "f", segment = 3 }, duration = "1s" }"#,
        );
        let at = [0, 30, 100, 101, 1200];
        for (i, &ms) in at.iter().enumerate() {
            let start = i as u64 * 1000;
            let mut p = packet(i as u64, 1040, true);
            p.stream_bytes = Some((start, start + 1000));
            w.inject(SimTime::from_millis(ms), p);
        }
        let got: Vec<u64> = run_all(&mut w).iter().map(|d| d.handle).collect();
        assert_eq!(got, vec![0, 1, 4]);
        assert_eq!(w.flows[0].drops_impairment, 2);
    }

    #[test]
    fn a_delivery_carries_its_injection_time() {
        let mut w = world("");
        // Injected at 3 ms: 1500 B take 1.2 ms at 10 Mb/s, then 20 ms: out at 24.2 ms.
        w.inject(SimTime::from_millis(3), packet(1, 1500, true));
        let d = run_all(&mut w)[0];
        assert_eq!(
            (d.sent, d.time),
            (SimTime::from_millis(3), SimTime::from_micros(24_200))
        );
    }

    #[test]
    fn passthrough_ids_are_neither_listed_flows_nor_connections() {
        use super::super::connections::CONNECTION_FLAG;
        assert_eq!(passthrough_index(passthrough_flow(7)), Some(7));
        assert_eq!(passthrough_index(0), None);
        // A generator's connection may have bit 30 set (generator 64 << 24).
        assert_eq!(passthrough_index(CONNECTION_FLAG | 64 << 24), None);
    }

    #[test]
    fn drops_come_back_with_their_cause_and_passthrough_ones_stay_off_the_flows() {
        // Every packet is lost on the link (p = 1): one of the listed flow, one of
        // passthrough flow 3.
        let mut w = world(r#"{ kind = "bernoulli", p = 1.0 }"#);
        let mut listed = packet(1, 1500, true);
        listed.flow = 0;
        let mut pass = packet(2, 1500, true);
        pass.flow = passthrough_flow(3);
        w.inject(SimTime::ZERO, listed);
        w.inject(SimTime::from_millis(10), pass);
        run_all(&mut w);
        let drops: Vec<ExternalDrop> = w.drain_dropped().collect();
        assert_eq!(
            drops,
            vec![
                ExternalDrop {
                    flow: 0,
                    handle: 1,
                    queue: false
                },
                ExternalDrop {
                    flow: passthrough_flow(3),
                    handle: 2,
                    queue: false
                },
            ]
        );
        // The listed flow counts its own drop; the passthrough one is the driver's.
        assert_eq!(w.flows[0].drops_impairment, 1);
    }

    #[test]
    fn captured_external_packets_are_written_with_their_own_bytes() {
        let toml = r#"
            name = "external"
            duration = "1s"
            [[links]]
            between = ["h1", "h2"]
            bandwidth = "10Mbps"
            delay = "20ms"
            [[flows]]
            name = "f"
            from = "h1"
            to = "h2"
            [trace]
            pcap = ["h1", "h2"]
            "#;
        let mut w = build(&load(toml, None).expect("scenario"), 7);
        w.detach_agents();
        w.inject(SimTime::ZERO, packet(5, 60, true));
        w.inject(SimTime::ZERO, packet(6, 60, true));
        run_all(&mut w);
        // Packet 5's bytes are still there, packet 6's slot was reused: it is
        // missing at both nodes. Each packet is seen once at h1 (leaving) and once
        // at h2 (arriving).
        let ip: Vec<u8> = (0..60u8).collect();
        let missing = w.write_external_captures(|h| (h == 5).then_some(ip.as_slice()));
        assert_eq!(missing, 2);
        let pcaps = w.finish().pcaps;
        let (h1, pcap) = (&pcaps[0].1, &pcaps[1].1);
        // 24-byte file header, 16-byte record header, 14 + 60 bytes of frame; at h2
        // the record is stamped at 20 ms + 60 × 8 / 10⁷ s = 20.048 ms.
        assert_eq!((h1.len(), pcap.len()), (24 + 16 + 74, 24 + 16 + 74));
        let word = |at: usize| u32::from_le_bytes(pcap[at..at + 4].try_into().unwrap());
        assert_eq!(
            (word(24), word(28), word(32), word(36)),
            (0, 20_048, 74, 74)
        );
        assert_eq!(&pcap[24 + 16 + 14..], ip.as_slice());
    }
}
