//! The world: nodes, links, flows and the event loop that moves packets between
//! them. Built from a scenario by `scenario::build`; consumed by `run`.
//!
//! A run is single-threaded and deterministic: the only sources of randomness are
//! the components' own streams (seeded from the run seed), and the event queue
//! breaks ties by insertion order.

use crate::engine::EventQueue;
use crate::net::link::{LinkDirection, SendOutcome};
use crate::net::routing::RoutingTable;
use crate::net::wifi::channel::{Enqueued, WifiChannel};
use crate::net::wimax::cell::{self, WimaxCell};
use crate::packet::sack_store::SackStore;
use crate::packet::{
    AckRef, FlowId, NodeId, Packet, Payload, TcpAck, TcpData, TCP_IP_HEADER, TCP_TIMESTAMP_OPTION,
};
use crate::results::RunResults;
use crate::time::SimTime;
use crate::timer::LazyTimer;
use crate::trace::pcap::Captures;
use crate::trace::Sampling;
use crate::trace::{FlowSnapshot, Recorder};
use crate::transport::sctp::sender::Outgoing;
use crate::transport::sctp::store::PacketStore;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};

mod connections;
mod external;
mod handshake;
mod interrupt;
mod report;
mod sctp;
mod udp;
pub use connections::{
    is_connection, ConnectionTemplate, TrafficGenerator, LIVE_CONNECTION_BYTES, MAX_CONNECTIONS,
    MAX_GENERATORS, RECORD_BYTES,
};
use connections::{tcp_flow, Connections};
pub use external::{Delivery, Injection};
pub use interrupt::{Stopped, BUDGET_EVERY, POLL_EVERY};
pub use sctp::SctpFlow;
pub use udp::UdpFlow;

/// Everything that can happen. Ids index the world's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The head packet of a link direction's in-flight list arrives.
    Arrival(u32),
    SenderTimer(FlowId),
    /// The pacing gate of a flow's sender opens (`transport::tcp::pacing`).
    PacingTimer(FlowId),
    ReceiverTimer(FlowId),
    FlowStart(FlowId),
    FlowStop(FlowId),
    /// Interval sampling of every flow's state.
    Sample,
    /// The next slot decision or frame arrival of a wireless channel.
    Channel(u32),
    /// SCTP association `k` (index in the association table) starts, stops, or
    /// has a timer due.
    AssociationStart(u32),
    AssociationStop(u32),
    AssociationTimer(u32),
    /// The next frame or packet arrival of an 802.16 cell.
    Cell(u32),
    /// UDP flow `k` (index in the UDP table) has datagrams to send.
    UdpSend(u32),
    /// Traffic generator `g` opens its next connection (`world::connections`).
    Connect(u32),
}

impl Event {
    /// A number identifying kind and target, folded into the run's fingerprint.
    fn tag(&self) -> u64 {
        let (kind, id) = match *self {
            Event::Arrival(l) => (1, l),
            Event::SenderTimer(f) => (2, f),
            Event::ReceiverTimer(f) => (3, f),
            Event::FlowStart(f) => (4, f),
            Event::FlowStop(f) => (5, f),
            Event::Sample => (6, 0),
            Event::Channel(c) => (7, c),
            Event::AssociationStart(k) => (8, k),
            Event::AssociationStop(k) => (9, k),
            Event::AssociationTimer(k) => (10, k),
            Event::PacingTimer(f) => (11, f),
            Event::Cell(c) => (12, c),
            Event::UdpSend(k) => (13, k),
            Event::Connect(g) => (14, g),
        };
        (kind << 32) | id as u64
    }
}

/// A TCP connection: both agents and their bookkeeping.
pub struct Flow {
    pub name: String,
    pub cc: String,
    pub src: NodeId,
    pub dst: NodeId,
    pub sender: TcpSender,
    pub receiver: TcpReceiver,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub timestamps: bool,
    pub drops_queue: u64,
    pub drops_impairment: u64,
    /// The connection's set-up, when it opens with one (`tcp.handshake`).
    pub handshake: Option<Handshake>,
    sender_timer: LazyTimer,
    pacing_timer: LazyTimer,
    receiver_timer: LazyTimer,
}

impl Flow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        cc: String,
        src: NodeId,
        dst: NodeId,
        sender: TcpSender,
        receiver: TcpReceiver,
        start: SimTime,
        stop: Option<SimTime>,
        timestamps: bool,
    ) -> Self {
        Flow {
            name,
            cc,
            src,
            dst,
            sender,
            receiver,
            start,
            stop,
            timestamps,
            drops_queue: 0,
            drops_impairment: 0,
            handshake: None,
            sender_timer: LazyTimer::default(),
            pacing_timer: LazyTimer::default(),
            receiver_timer: LazyTimer::default(),
        }
    }

    fn header_bytes(&self) -> u32 {
        TCP_IP_HEADER
            + if self.timestamps {
                TCP_TIMESTAMP_OPTION
            } else {
                0
            }
    }

    fn snapshot(&self) -> FlowSnapshot {
        let tcb = &self.sender.tcb;
        FlowSnapshot {
            cwnd: tcb.cwnd,
            ssthresh: tcb.ssthresh,
            srtt: tcb.srtt.unwrap_or(SimTime::MAX),
            rto: self.sender.rto(),
            snd_una: tcb.snd_una,
            snd_nxt: tcb.snd_nxt,
            delivered: self.receiver.stats.bytes_delivered,
        }
    }
}

/// A stage switched on by a flow event: when `flow` first sends data segment
/// number `segment` (from 1), stage `stage` of `target` starts.
#[derive(Clone, Copy, Debug)]
pub struct Trigger {
    pub flow: FlowId,
    pub segment: u64,
    pub target: TriggerTarget,
    pub stage: usize,
}

/// Where a triggered stage sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TriggerTarget {
    /// A link direction.
    Link(usize),
    /// A wireless channel (frames on their way are not cut: the MAC retries them).
    Channel(usize),
}

/// What a route's next hop is: a link direction, or the air of a wireless channel
/// between two of its stations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hop {
    Link(u32),
    Air {
        channel: u32,
        to: NodeId,
    },
    /// Between an 802.16 base station and one of its subscribers.
    Wimax {
        cell: u32,
        to: NodeId,
    },
}

/// Names of a link direction, for results.
pub struct LinkInfo {
    pub name: String,
    pub direction: &'static str,
}

pub struct World {
    pub name: String,
    pub seed: u64,
    pub end: SimTime,
    pub node_names: Vec<String>,
    pub links: Vec<LinkDirection>,
    pub link_info: Vec<LinkInfo>,
    pub routes: RoutingTable,
    /// Route edges: `routes` gives an index into this table.
    pub hops: Vec<Hop>,
    pub channels: Vec<WifiChannel>,
    pub cells: Vec<WimaxCell>,
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
    /// Traffic generators and the connections they opened.
    connections: Connections,
}

impl World {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        seed: u64,
        end: SimTime,
        node_names: Vec<String>,
        links: Vec<LinkDirection>,
        link_info: Vec<LinkInfo>,
        routes: RoutingTable,
        hops: Vec<Hop>,
        channels: Vec<WifiChannel>,
        cells: Vec<WimaxCell>,
        flows: Vec<Flow>,
        recorder: Recorder,
        triggers: Vec<Trigger>,
    ) -> Self {
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
        World {
            name,
            seed,
            end,
            node_names,
            links,
            link_info,
            routes,
            hops,
            channels,
            cells,
            flows,
            recorder,
            triggers,
            captures: Captures::default(),
            queue,
            next_uid: 0,
            data_out: Vec::with_capacity(64),
            associations: Vec::new(),
            udp: Vec::new(),
            sctp_store: PacketStore::default(),
            sctp_out: Vec::new(),
            sack_store: SackStore::default(),
            path_snapshots: Vec::new(),
            memory_budget: u64::MAX,
            delivered_out: Vec::new(),
            connections: Connections::default(),
        }
    }

    /// Captures packets at some nodes as pcap files (`trace.pcap`).
    pub fn with_captures(mut self, captures: Captures) -> Self {
        self.captures = captures;
        self
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
            let Some((now, event)) = self.queue.pop(Event::tag) else {
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
        let links: u64 = self.links.iter().map(LinkDirection::trace_bytes).sum();
        self.recorder.bytes_held()
            + links
            + self.captures.bytes_held()
            + self.connections.bytes_held()
    }

    fn dispatch(&mut self, now: SimTime, event: Event) {
        match event {
            Event::Arrival(l) => self.on_arrival(now, l as usize),
            Event::SenderTimer(f) if self.opening(f) => self.on_syn_timer(now, f),
            Event::SenderTimer(f) => {
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
                    return;
                };
                if flow.sender_timer.fire(now) {
                    let mut out = std::mem::take(&mut self.data_out);
                    flow.sender.on_timer(now, &mut out);
                    self.flush_sender(now, f, out);
                }
            }
            Event::PacingTimer(f) => {
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
                    return;
                };
                if flow.pacing_timer.fire(now) {
                    let mut out = std::mem::take(&mut self.data_out);
                    flow.sender.on_pacing_timer(now, &mut out);
                    self.flush_sender(now, f, out);
                }
            }
            Event::ReceiverTimer(f) => {
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
                    return;
                };
                if flow.receiver_timer.fire(now) {
                    if let Some(ack) = flow.receiver.on_timer(now) {
                        self.send_ack(now, f, ack);
                    }
                    self.arm_receiver_timer(f);
                }
            }
            Event::FlowStart(f) if self.opening(f) => self.on_open_start(now, f),
            Event::FlowStart(f) => {
                let mut out = std::mem::take(&mut self.data_out);
                self.flows[f as usize].sender.start(now, &mut out);
                self.flush_sender(now, f, out);
            }
            Event::FlowStop(f) => self.flows[f as usize].sender.stop(),
            Event::Channel(c) => self.on_channel(now, c as usize),
            Event::AssociationStart(k) => self.on_association_start(now, k as usize),
            Event::AssociationStop(k) => self.on_association_stop(now, k as usize),
            Event::AssociationTimer(k) => self.on_association_timer(now, k as usize),
            Event::Cell(c) => self.on_cell(now, c as usize),
            Event::UdpSend(k) => self.on_udp_send(now, k as usize),
            Event::Connect(g) => self.on_connect(now, g as usize),
            Event::Sample => {
                for (i, flow) in self.flows.iter().enumerate() {
                    if flow.start <= now {
                        self.recorder.on_sample(i, now, flow.snapshot());
                        let (cc, tcb) = (flow.sender.controller(), &flow.sender.tcb);
                        self.recorder.on_cc_info(i, now, cc, tcb);
                    }
                }
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

    fn on_arrival(&mut self, now: SimTime, l: usize) {
        if !self.links[l].claim_arrival_event(now) {
            return;
        }
        let at = self.links[l].to;
        while let Some(packet) = self.links[l].pop_arrived(now) {
            self.receive(now, at, packet);
        }
        self.schedule_link(l);
    }

    fn on_channel(&mut self, now: SimTime, c: usize) {
        let mut received = Vec::new();
        self.channels[c].on_event(now, &mut received);
        for lost in std::mem::take(&mut self.channels[c].dropped) {
            self.count_drop(&lost, false);
        }
        for (node, packet) in received {
            self.receive(now, node, packet);
        }
        self.schedule_channel(c);
    }

    fn on_cell(&mut self, now: SimTime, c: usize) {
        let mut received = Vec::new();
        self.cells[c].on_event(now, &mut received);
        for lost in std::mem::take(&mut self.cells[c].dropped) {
            self.count_drop(&lost, false);
        }
        for (node, packet) in received {
            self.receive(now, node, packet);
        }
        self.schedule_cell(c);
    }

    fn schedule_cell(&mut self, c: usize) {
        if let Some(t) = self.cells[c].event_to_schedule() {
            self.queue.schedule(t, Event::Cell(c as u32));
        }
    }

    fn schedule_channel(&mut self, c: usize) {
        if let Some(t) = self.channels[c].event_to_schedule() {
            self.queue.schedule(t, Event::Channel(c as u32));
        }
    }

    fn schedule_link(&mut self, l: usize) {
        if let Some(t) = self.links[l].arrival_to_schedule() {
            self.queue.schedule(t, Event::Arrival(l as u32));
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
            Payload::TcpData(seg) => {
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
                    self.connections.count_late(f);
                    return;
                };
                let (ack, delivered) = flow.receiver.on_segment(now, &seg);
                if !is_connection(f) {
                    self.recorder.on_delivered(f as usize, now, delivered);
                }
                if let Some(ack) = ack {
                    self.send_ack(now, f, ack);
                }
                self.arm_receiver_timer(f);
            }
            Payload::TcpAck(r) => {
                let ack = r.unstow(&mut self.sack_store);
                let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
                    self.connections.count_late(f);
                    return;
                };
                let mut out = std::mem::take(&mut self.data_out);
                flow.sender.on_ack(now, &ack, &mut out);
                self.flush_sender(now, f, out);
                self.retire_if_finished(f);
            }
            Payload::TcpSyn(syn) => self.on_syn_segment(now, f, syn),
            Payload::Sctp(r) => self.on_sctp_packet(now, at, packet.src, f, r),
            Payload::External(x) => self.delivered_out.push(Delivery::new(now, at, f, x)),
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
        match self.hops[edge as usize] {
            Hop::Link(l) => {
                let l = l as usize;
                match self.links[l].send(now, packet) {
                    SendOutcome::Accepted => self.schedule_link(l),
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
            }
            Hop::Air { channel, to } => {
                let c = channel as usize;
                match self.channels[c].enqueue(now, at, to, packet) {
                    Enqueued::Accepted => self.schedule_channel(c),
                    Enqueued::QueueFull => {
                        self.count_drop(&copy, true);
                        return;
                    }
                }
            }
            Hop::Wimax { cell: c, to } => {
                let c = c as usize;
                match self.cells[c].enqueue(now, at, to, packet) {
                    cell::Enqueued::Accepted => self.schedule_cell(c),
                    cell::Enqueued::QueueFull => {
                        self.count_drop(&copy, true);
                        return;
                    }
                }
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

    /// Puts the segments a sender produced on the network, re-arms its timers (RTO,
    /// and pacing when the gate held segments back) and traces its state.
    fn flush_sender(&mut self, now: SimTime, f: FlowId, mut out: Vec<TcpData>) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        let (src, dst, header) = (flow.src, flow.dst, flow.header_bytes());
        let mss = flow.sender.tcb.mss as u64;
        let listed = !is_connection(f);
        for seg in out.drain(..) {
            if listed {
                self.recorder.on_segment_sent(
                    f as usize,
                    now,
                    seg.seq,
                    seg.len,
                    seg.retransmission,
                );
            }
            if listed && !self.triggers.is_empty() && !seg.retransmission {
                let segment = seg.seq / mss + 1;
                self.fire_triggers(now, f, segment..=segment);
            }
            let packet = self.new_packet(now, f, src, dst, header + seg.len, Payload::TcpData(seg));
            self.forward(now, src, packet);
        }
        self.data_out = out;
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        if let Some(t) = flow.sender_timer.arm(flow.sender.timer_deadline()) {
            self.queue.schedule(t, Event::SenderTimer(f));
        }
        if let Some(t) = flow.pacing_timer.arm(flow.sender.pacing_deadline()) {
            self.queue.schedule(t, Event::PacingTimer(f));
        }
        if !listed {
            self.connections.track_cwnd(f, now);
            return;
        }
        let snap = flow.snapshot();
        if self.recorder.on_change(f as usize, now, snap) {
            let (cc, tcb) = (flow.sender.controller(), &flow.sender.tcb);
            self.recorder.on_cc_info(f as usize, now, cc, tcb);
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
            match t.target {
                TriggerTarget::Link(l) => {
                    let link = &mut self.links[l];
                    if let Some(effect) = link.impairments.trigger(t.stage, now) {
                        // (packet, refused by the queue) for every packet the stage took.
                        let mut lost: Vec<(Packet, bool)> = Vec::new();
                        if effect.holds {
                            let held = link.hold_queued(now).into_iter();
                            lost.extend(held.map(|(p, o)| (p, o == SendOutcome::DroppedQueue)));
                        }
                        if effect.cuts {
                            let cut = link.drop_in_flight(effect.from, effect.until);
                            lost.extend(cut.into_iter().map(|p| (p, false)));
                        }
                        for (p, queue) in lost {
                            self.count_drop(&p, queue);
                        }
                        // The head may have changed: re-arm the link's arrival event.
                        self.schedule_link(l);
                    }
                }
                TriggerTarget::Channel(c) => {
                    self.channels[c].impairments.trigger(t.stage, now);
                }
            }
        }
    }

    fn send_ack(&mut self, now: SimTime, f: FlowId, ack: TcpAck) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        let (src, dst, header) = (flow.dst, flow.src, flow.header_bytes());
        let size = header + ack.sack.option_bytes();
        let payload = Payload::TcpAck(AckRef::stow(&ack, &mut self.sack_store));
        let packet = self.new_packet(now, f, src, dst, size, payload);
        self.forward(now, src, packet);
    }

    fn arm_receiver_timer(&mut self, f: FlowId) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        if let Some(t) = flow.receiver_timer.arm(flow.receiver.delack_deadline()) {
            self.queue.schedule(t, Event::ReceiverTimer(f));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{build, load};
    use crate::time::SimTime;

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
        let acks_lost = world.links[1].stats.drops_impairment;
        assert!(acks_lost > 20, "{acks_lost} ACKs lost");
        assert_eq!(
            world.flows[0].sender.tcb.snd_una,
            world.flows[0].sender.tcb.snd_nxt
        );
        assert_eq!(world.sack_store.in_use(), 0);
    }
}
