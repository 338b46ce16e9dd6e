//! The world: nodes, links, flows and the event loop that moves packets between
//! them. Built from a scenario by `scenario::build`; consumed by `run`.
//!
//! A run is single-threaded and deterministic: the only sources of randomness are
//! the components' own streams (seeded from the run seed), and the event queue
//! breaks ties by insertion order.

use crate::engine::{EventCode, EventQueue};
use crate::net::medium::{AnyMedium, Hop, Loss, Medium, SendOutcome};
use crate::net::routing::RoutingTable;
use crate::packet::sack_store::SackStore;
use crate::packet::{FlowId, NodeId, Packet, Payload, TcpData};
use crate::results::RunResults;
use crate::time::SimTime;
use crate::trace::pcap::Captures;
use crate::trace::Recorder;
use crate::trace::Sampling;
use crate::transport::sctp::sender::Outgoing;
use crate::transport::sctp::store::PacketStore;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};

mod connections;
mod external;
mod handshake;
mod interrupt;
mod report;
mod sctp;
mod tcp;
mod udp;
use connections::Connections;
pub use connections::{
    is_connection, ConnectionTemplate, TrafficGenerator, LIVE_CONNECTION_BYTES, MAX_CONNECTIONS,
    MAX_GENERATORS, RECORD_BYTES,
};
pub use external::{passthrough_flow, passthrough_index, Delivery, ExternalDrop, Injection};
pub use interrupt::{Stopped, BUDGET_EVERY, POLL_EVERY};
pub use sctp::SctpFlow;
pub use tcp::Flow;
pub use udp::UdpFlow;

/// Everything that can happen. Ids index the world's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Medium `m` (index in the media table) has something to do: a link
    /// direction's head packet arrives, a channel's slot is decided, a cell's frame
    /// starts (`net::medium`).
    Medium(u32),
    SenderTimer(FlowId),
    /// The pacing gate of a flow's sender opens (`transport::tcp::pacing`).
    PacingTimer(FlowId),
    ReceiverTimer(FlowId),
    FlowStart(FlowId),
    FlowStop(FlowId),
    /// Interval sampling of every flow's state.
    Sample,
    /// SCTP association `k` (index in the association table) starts, stops, or
    /// has a timer due.
    AssociationStart(u32),
    AssociationStop(u32),
    AssociationTimer(u32),
    /// UDP flow `k` (index in the UDP table) has datagrams to send.
    UdpSend(u32),
    /// Traffic generator `g` opens its next connection (`world::connections`).
    Connect(u32),
}

impl Event {
    /// A number identifying kind and target, folded into the run's fingerprint: the
    /// event's code, but a medium's is its own (`World::medium_tags`).
    fn tag(&self, medium_tags: &[u64]) -> u64 {
        match *self {
            Event::Medium(m) => medium_tags[m as usize],
            _ => self.encode(),
        }
    }
}

/// `(kind << 32) | id`, the kinds being the numbers the fingerprint always folded.
impl EventCode for Event {
    fn encode(self) -> u64 {
        let (kind, id) = match self {
            Event::Medium(m) => (1, m),
            Event::SenderTimer(f) => (2, f),
            Event::ReceiverTimer(f) => (3, f),
            Event::FlowStart(f) => (4, f),
            Event::FlowStop(f) => (5, f),
            Event::Sample => (6, 0),
            Event::AssociationStart(k) => (8, k),
            Event::AssociationStop(k) => (9, k),
            Event::AssociationTimer(k) => (10, k),
            Event::PacingTimer(f) => (11, f),
            Event::UdpSend(k) => (13, k),
            Event::Connect(g) => (14, g),
        };
        (kind << 32) | u64::from(id)
    }

    fn decode(code: u64) -> Self {
        let id = code as u32;
        match code >> 32 {
            1 => Event::Medium(id),
            2 => Event::SenderTimer(id),
            3 => Event::ReceiverTimer(id),
            4 => Event::FlowStart(id),
            5 => Event::FlowStop(id),
            6 => Event::Sample,
            8 => Event::AssociationStart(id),
            9 => Event::AssociationStop(id),
            10 => Event::AssociationTimer(id),
            11 => Event::PacingTimer(id),
            13 => Event::UdpSend(id),
            14 => Event::Connect(id),
            kind => unreachable!("event kind {kind}: only `encode` makes codes"),
        }
    }
}

/// A stage switched on by a flow event: when `flow` first sends data segment
/// number `segment` (from 1), stage `stage` of medium `medium` (index in the media
/// table) starts.
#[derive(Clone, Copy, Debug)]
pub struct Trigger {
    pub flow: FlowId,
    pub segment: u64,
    pub medium: usize,
    pub stage: usize,
}

/// Names of a link direction, for results (in the order of the links in the media
/// table).
pub struct LinkInfo {
    pub name: String,
    pub direction: &'static str,
}

pub struct World {
    pub name: String,
    pub seed: u64,
    pub end: SimTime,
    pub node_names: Vec<String>,
    /// Every medium: link directions, then 802.11 channels, then 802.16 cells.
    pub media: Vec<AnyMedium>,
    /// Each medium's fingerprint tag: its kind and its index among its kind.
    medium_tags: Vec<u64>,
    /// Reused buffer of the packets a medium lost in an event or a trigger.
    medium_lost: Vec<(Packet, Loss)>,
    pub link_info: Vec<LinkInfo>,
    pub routes: RoutingTable,
    /// Route edges: `routes` gives an index into this table.
    pub hops: Vec<Hop>,
    pub flows: Vec<Flow>,
    /// SCTP associations; association `k` has flow id `flows.len() + k`.
    pub associations: Vec<SctpFlow>,
    /// UDP flows; flow `k` has flow id `flows.len() + associations.len() + k`.
    pub udp: Vec<UdpFlow>,
    pub recorder: Recorder,
    triggers: Vec<Trigger>,
    captures: Captures,
    queue: EventQueue<Event>,
    next_uid: u64,
    /// Reused output buffer of the sender being served.
    data_out: Vec<TcpData>,
    /// Bodies of the SCTP packets in flight, and reused buffers.
    sctp_store: PacketStore,
    sctp_out: Vec<Outgoing>,
    /// SACK blocks of the ACKs in flight (`packet::AckRef`).
    sack_store: SackStore,
    path_snapshots: Vec<crate::trace::sctp::PathSnapshot>,
    /// Bytes the traces may hold in `run_until_stopped` (`u64::MAX`: no limit).
    memory_budget: u64,
    /// External packets that reached their destination (`world::external`).
    delivered_out: Vec<Delivery>,
    /// External packets dropped on the way (`world::external`).
    dropped_out: Vec<ExternalDrop>,
    /// Traffic generators and the connections they opened.
    connections: Connections,
}

/// Everything a world is made of, as `scenario::build` assembles it: one value
/// instead of a long list of positional arguments, so that a new part is a named
/// field. Flow ids: TCP flows first, then SCTP associations, then UDP flows.
pub struct WorldParts {
    pub name: String,
    pub seed: u64,
    pub end: SimTime,
    pub node_names: Vec<String>,
    /// Link directions, then 802.11 channels, then 802.16 cells (`Hop::medium`,
    /// `Trigger::medium` index this table).
    pub media: Vec<AnyMedium>,
    pub link_info: Vec<LinkInfo>,
    pub routes: RoutingTable,
    pub hops: Vec<Hop>,
    pub flows: Vec<Flow>,
    pub associations: Vec<SctpFlow>,
    pub udp: Vec<UdpFlow>,
    pub generators: Vec<TrafficGenerator>,
    pub recorder: Recorder,
    pub triggers: Vec<Trigger>,
    /// Nodes captured as pcap files (`trace.pcap`).
    pub captures: Captures,
    /// Bytes the traces may hold in `run_until_stopped` (`u64::MAX`: no limit).
    pub memory_budget: u64,
}

impl World {
    /// The world made of `parts`, every start, stop and first sample scheduled.
    pub fn new(parts: WorldParts) -> Self {
        let WorldParts {
            name,
            seed,
            end,
            node_names,
            media,
            link_info,
            routes,
            hops,
            flows,
            associations,
            udp,
            generators,
            recorder,
            triggers,
            captures,
            memory_budget,
        } = parts;
        let mut queue = EventQueue::new();
        for (i, f) in flows.iter().enumerate() {
            queue.schedule(f.start, Event::FlowStart(i as FlowId));
            if let Some(stop) = f.stop {
                queue.schedule(stop, Event::FlowStop(i as FlowId));
            }
        }
        if recorder.sampling == Sampling::Interval {
            queue.schedule(SimTime::ZERO, Event::Sample);
        }
        let medium_tags = fingerprint_tags(&media);
        let mut world = World {
            name,
            seed,
            end,
            node_names,
            media,
            medium_tags,
            medium_lost: Vec::new(),
            link_info,
            routes,
            hops,
            flows,
            recorder,
            triggers,
            captures,
            queue,
            next_uid: 0,
            data_out: Vec::with_capacity(64),
            associations: Vec::new(),
            udp: Vec::new(),
            sctp_store: PacketStore::default(),
            sctp_out: Vec::new(),
            sack_store: SackStore::default(),
            path_snapshots: Vec::new(),
            memory_budget,
            delivered_out: Vec::new(),
            dropped_out: Vec::new(),
            connections: Connections::default(),
        };
        // In this order, as before: events due at the same time run in the order
        // they were scheduled.
        world.add_associations(associations);
        world.add_generators(generators);
        world.add_udp_flows(udp);
        world
    }

    /// Runs until the end time and returns what was recorded.
    pub fn run(mut self) -> RunResults {
        // A flag nobody sets and no budget: the run always reaches its end.
        self.memory_budget = u64::MAX;
        self.advance_to(self.end, &AtomicBool::new(false));
        self.into_results()
    }

    /// Runs until the end time, or until `stop` is set, or until the traces outgrow
    /// the memory budget (`with_memory_budget`; see `interrupt`).
    pub fn run_until_stopped(mut self, stop: &AtomicBool) -> Result<RunResults, Stopped> {
        match self.advance_to(self.end, stop) {
            None => Ok(self.into_results()),
            Some(why) => Err(why),
        }
    }

    /// Stops `run_until_stopped` when the traces hold more than `bytes`.
    pub fn with_memory_budget(mut self, bytes: u64) -> Self {
        self.memory_budget = bytes;
        self
    }

    /// Processes every event due at or before `t` (`run` goes to the end time; live
    /// mode follows the wall clock, `world::external`).
    pub fn run_until(&mut self, t: SimTime) {
        self.advance_to(t, &AtomicBool::new(false));
    }

    /// The event loop up to `t`; why it stopped first, if it did.
    fn advance_to(&mut self, t: SimTime, stop: &AtomicBool) -> Option<Stopped> {
        while self.queue.peek_time().is_some_and(|next| next <= t) {
            let tags = &self.medium_tags;
            let Some((now, event)) = self.queue.pop(|e| e.tag(tags)) else {
                break;
            };
            self.dispatch(now, event);
            let events = self.queue.processed();
            if events & (POLL_EVERY - 1) == 0 {
                if stop.load(Ordering::Relaxed) {
                    return Some(Stopped::Interrupted { events });
                }
                if events & (BUDGET_EVERY - 1) == 0 && self.memory_budget != u64::MAX {
                    let held = self.bytes_held();
                    if held > self.memory_budget {
                        let budget = self.memory_budget;
                        return Some(Stopped::OverBudget {
                            held,
                            budget,
                            at: now,
                        });
                    }
                }
            }
        }
        None
    }

    /// What the growing tables hold: traces, queue traces, captures.
    fn bytes_held(&self) -> u64 {
        let media: u64 = self.media.iter().map(Medium::trace_bytes).sum();
        self.recorder.bytes_held()
            + media
            + self.captures.bytes_held()
            + self.connections.bytes_held()
    }

    /// Inlined into the loop, its one caller, whatever its size: out of line, its
    /// call and register saves cost every event (BENCHMARKS.md, "ECN").
    #[inline(always)]
    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::Medium(m) => self.on_medium(now, m as usize),
            Event::SenderTimer(f) if self.opening(f) => self.on_syn_timer(now, f),
            Event::SenderTimer(f) => self.on_sender_timer(now, f),
            Event::PacingTimer(f) => self.on_pacing_timer(now, f),
            Event::ReceiverTimer(f) => self.on_receiver_timer(now, f),
            Event::FlowStart(f) if self.opening(f) => self.on_open_start(now, f),
            Event::FlowStart(f) => self.on_flow_start(now, f),
            Event::FlowStop(f) => self.flows[f as usize].sender.stop(),
            Event::AssociationStart(k) => self.on_association_start(now, k as usize),
            Event::AssociationStop(k) => self.on_association_stop(now, k as usize),
            Event::AssociationTimer(k) => self.on_association_timer(now, k as usize),
            Event::UdpSend(k) => self.on_udp_send(now, k as usize),
            Event::Connect(g) => self.on_connect(now, g as usize),
            Event::Sample => {
                self.sample_tcp_flows(now);
                for k in 0..self.associations.len() {
                    if self.associations[k].start <= now {
                        self.record_association(now, k, false);
                    }
                }
                let next = now + self.recorder.interval;
                if next <= self.end {
                    self.queue.schedule(next, Event::Sample);
                }
            }
        }
    }

    /// Medium `m`'s event: what it lost is counted, what it delivered is received
    /// (one packet at a time: `net::medium`), and its next event scheduled.
    fn on_medium(&mut self, now: SimTime, m: usize) {
        if !self.media[m].on_event(now, &mut self.medium_lost) {
            return;
        }
        if !self.medium_lost.is_empty() {
            self.count_medium_losses();
        }
        while let Some((at, packet)) = self.media[m].next_delivery(now) {
            self.receive(now, at, packet);
        }
        self.schedule_medium(m);
    }

    /// Counts every packet a medium lost against its flow.
    fn count_medium_losses(&mut self) {
        let mut lost = std::mem::take(&mut self.medium_lost);
        for (packet, why) in lost.drain(..) {
            self.count_drop(&packet, why == Loss::Queue);
        }
        // Back, empty, for the next event to reuse.
        self.medium_lost = lost;
    }

    /// Arms medium `m`'s next event. One out-of-line function with the medium's
    /// `event_to_schedule` and the queue's `schedule` inlined into it, as the link's
    /// `schedule_link` was before the media shared a trait: 2 % faster on the
    /// 10-flow dumbbell than inlining it into its callers (BENCHMARKS.md).
    #[inline(never)]
    fn schedule_medium(&mut self, m: usize) {
        if let Some(t) = self.media[m].event_to_schedule() {
            self.queue.schedule(t, Event::Medium(m as u32));
        }
    }

    /// A packet reaches node `at`: deliver it to its agent or forward it.
    fn receive(&mut self, now: SimTime, at: NodeId, packet: Packet) {
        self.captures
            .record(now, at, &packet, &self.sctp_store, &self.sack_store);
        if packet.dst != at {
            self.forward(now, at, packet);
            return;
        }
        let f = packet.flow;
        match packet.payload {
            Payload::TcpData(seg) => self.on_tcp_data(now, f, &seg),
            Payload::TcpAck(r) => {
                let ack = r.unstow(&mut self.sack_store);
                self.on_tcp_ack(now, f, &ack);
            }
            Payload::TcpSyn(syn) => self.on_syn_segment(now, f, syn),
            Payload::Sctp(r) => self.on_sctp_packet(now, at, packet.src, f, r),
            Payload::External(x) => {
                let delivery = Delivery::new(now, at, f, packet.created, x);
                self.delivered_out.push(delivery);
            }
            Payload::Udp(d) => {
                let k = self.udp_index(f).expect("a datagram's flow is a UDP flow");
                self.on_udp_datagram(now, k, packet.size, packet.created, d);
            }
        }
    }

    /// Sends a packet out of node `at` towards its destination.
    fn forward(&mut self, now: SimTime, at: NodeId, packet: Packet) {
        let Some(edge) = self.routes.next_hop(at, packet.dst) else {
            debug_assert!(false, "no route: build() checks every flow's path");
            return;
        };
        // A capture sees what leaves the node: not what its own full queue refuses,
        // but what an impairment then loses on the way.
        let copy = packet;
        let Hop { medium, to } = self.hops[edge as usize];
        let m = medium as usize;
        match self.media[m].send(now, at, to, packet) {
            SendOutcome::Accepted => self.schedule_medium(m),
            SendOutcome::DroppedQueue => {
                self.count_drop(&copy, true);
                return;
            }
            SendOutcome::DroppedImpairment => {
                // Captured before its body or SACK blocks go back to the store.
                self.captures
                    .record(now, at, &copy, &self.sctp_store, &self.sack_store);
                self.count_drop(&copy, false);
                return;
            }
        }
        self.captures
            .record(now, at, &copy, &self.sctp_store, &self.sack_store);
    }

    /// `packet` was dropped by a full queue (`queue`) or an impairment: counts it
    /// against its flow and frees what it kept in a store.
    fn count_drop(&mut self, packet: &Packet, queue: bool) {
        if let Payload::TcpAck(r) = packet.payload {
            r.release(&mut self.sack_store);
        }
        let (flow, sctp_body) = (packet.flow, packet.sctp_body());
        if self.note_external_drop(packet, queue) {
            return;
        }
        if is_connection(flow) {
            self.connections.count_drop(flow, queue);
            return;
        }
        match self.flows.get_mut(flow as usize) {
            Some(f) if queue => f.drops_queue += 1,
            Some(f) => f.drops_impairment += 1,
            None => match self.udp_index(flow) {
                Some(k) => self.on_udp_drop(k, queue),
                None => self.on_sctp_drop(flow, sctp_body, queue),
            },
        }
    }

    fn new_packet(
        &mut self,
        now: SimTime,
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        size: u32,
        payload: Payload,
    ) -> Packet {
        self.next_uid += 1;
        Packet {
            uid: self.next_uid,
            flow,
            src,
            dst,
            size,
            created: now,
            payload,
        }
    }

    /// Switches on the stages waiting for one of this flow's data segment numbers
    /// `segments` (from 1; for SCTP, TSNs).
    fn fire_triggers(&mut self, now: SimTime, f: FlowId, segments: RangeInclusive<u64>) {
        let mut i = 0;
        while i < self.triggers.len() {
            let t = self.triggers[i];
            if t.flow != f || !segments.contains(&t.segment) {
                i += 1;
                continue;
            }
            self.triggers.swap_remove(i);
            self.media[t.medium].trigger(t.stage, now, &mut self.medium_lost);
            self.count_medium_losses();
            // What the medium carries may have changed: re-arm its event.
            self.schedule_medium(t.medium);
        }
    }
}

/// Each medium's fingerprint tag, `(kind << 32) | index among its kind`: link
/// direction `l` is (1, l), channel `c` (7, c), cell `c` (12, c), the numbers the
/// fingerprint always folded for them.
fn fingerprint_tags(media: &[AnyMedium]) -> Vec<u64> {
    let mut seen: Vec<(u64, u64)> = Vec::new();
    media
        .iter()
        .map(|m| {
            let kind = m.fingerprint_kind();
            let index = match seen.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => {
                    *n += 1;
                    *n - 1
                }
                None => {
                    seen.push((kind, 1));
                    0
                }
            };
            (kind << 32) | index
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::Event;
    use crate::engine::EventCode;
    use crate::net::medium::AnyMedium;
    use crate::scenario::{build, load};
    use crate::time::SimTime;

    /// Every kind of event comes back from its code as it went in, with the largest
    /// id too; the code of a flow's sender timer is the fingerprint's (2 << 32) | f.
    #[test]
    fn events_come_back_from_their_codes() {
        for id in [0, 7, u32::MAX] {
            for event in [
                Event::Medium(id),
                Event::SenderTimer(id),
                Event::PacingTimer(id),
                Event::ReceiverTimer(id),
                Event::FlowStart(id),
                Event::FlowStop(id),
                Event::Sample,
                Event::AssociationStart(id),
                Event::AssociationStop(id),
                Event::AssociationTimer(id),
                Event::UdpSend(id),
                Event::Connect(id),
            ] {
                assert_eq!(Event::decode(event.encode()), event);
            }
        }
        assert_eq!(Event::SenderTimer(7).encode(), (2 << 32) | 7);
    }

    /// An ACK's SACK blocks wait in the store while it travels (`packet::AckRef`):
    /// its slot must be freed when the ACK arrives and when a link loses it. Data
    /// lost at 5 % makes most ACKs carry blocks; ACKs lost at 10 % on the way back
    /// make dozens of those drops. The flow stops sending new data at 5 s and has
    /// recovered everything long before 20 s, so no ACK is left in flight and every
    /// slot must be free again.
    #[test]
    fn sack_slots_are_freed_when_acks_arrive_or_are_lost() {
        let text = r#"
            name = "sack_slots"
            duration = "20s"
            [[links]]
            between = ["a", "b"]
            bandwidth = "10Mbps"
            delay = "10ms"
            impairments = [
                { kind = "bernoulli", p = 0.05, direction = "forward", applies_to = "data" },
                { kind = "bernoulli", p = 0.1, direction = "reverse", applies_to = "acks" },
            ]
            [[flows]]
            name = "f"
            from = "a"
            to = "b"
            cc = "newreno"
            stop = "5s"
            tcp = { sack = true }
        "#;
        let mut world = build::build(&load::load(text, None).unwrap(), 1);
        let mut most_in_use = 0;
        for ms in (10..=5000).step_by(10) {
            world.run_until(SimTime::from_millis(ms));
            most_in_use = most_in_use.max(world.sack_store.in_use());
        }
        assert!(most_in_use > 0, "ACKs with SACK blocks were in flight");
        world.run_until(SimTime::from_secs(20));
        let AnyMedium::Link(ack_link) = &world.media[1] else {
            panic!("medium 1 is the link's reverse direction");
        };
        let acks_lost = ack_link.stats.drops_impairment;
        assert!(acks_lost > 20, "{acks_lost} ACKs lost");
        assert_eq!(
            world.flows[0].sender.tcb.snd_una,
            world.flows[0].sender.tcb.snd_nxt
        );
        assert_eq!(world.sack_store.in_use(), 0);
    }
}
