//! TCP connections that traffic generators open during a run (`traffic/`), beside
//! the flows the scenario lists.
//!
//! The world asks each generator for its next arrival and schedules one
//! `Event::Connect` for it; at that event it opens the connection (sender and
//! receiver built from the generator's template, the transfer's size as the
//! application's bytes) and asks for the next arrival. When every byte of a
//! connection is acknowledged it retires: its numbers fold into a
//! `ConnectionRecord` and its agents are freed, so the state held is bounded by the
//! connections alive at one time, not by all that ever existed. Connections still
//! alive at the end of the run fold then, marked not completed.
//!
//! Flow ids are never reused (no generation check needed): a connection's id is
//! `CONNECTION_FLAG | generator << 24 | serial`, with its serial number within its
//! generator, so a packet of a retired connection that reaches an endpoint finds no
//! live connection and is dropped and counted (`late_packets` of its generator),
//! never delivered to another connection. The scenario checks keep generators
//! below `MAX_GENERATORS` and their expected connections far below
//! `MAX_CONNECTIONS`; a generator that reached the limit anyway stops opening.
//! Network drops of a retired connection's packets are not counted anywhere: its
//! record is final.

use std::collections::BTreeMap;

use super::{Event, Flow, World};
use crate::packet::{FlowId, NodeId};
use crate::results::{ConnectionRecord, GeneratorRecord};
use crate::rng;
use crate::time::SimTime;
use crate::traffic::{Arrival, Generator};
use crate::transport::tcp::cc::CcConfig;
use crate::transport::tcp::receiver::{ReceiverConfig, TcpReceiver};
use crate::transport::tcp::sender::{SenderConfig, TcpSender};

/// The bit that marks a generator's connection among flow ids (listed flows and
/// SCTP associations count up from 0).
pub const CONNECTION_FLAG: FlowId = 1 << 31;
const GENERATOR_SHIFT: u32 = 24;
/// Generators a world can hold: 7 bits of the flow id.
pub const MAX_GENERATORS: usize = 1 << (31 - GENERATOR_SHIFT);
/// Connections one generator can open in a run: 24 bits of the flow id.
pub const MAX_CONNECTIONS: u32 = 1 << GENERATOR_SHIFT;

/// Bytes one live connection holds (agents, timers, a few segments' records) and
/// one folded record: for the memory budget (`scenario::budget`, `bytes_held`).
pub const LIVE_CONNECTION_BYTES: u64 = 4096;
pub const RECORD_BYTES: u64 = std::mem::size_of::<ConnectionRecord>() as u64 + 32;

/// Whether flow id `f` is a generator's connection.
pub fn is_connection(f: FlowId) -> bool {
    f & CONNECTION_FLAG != 0
}

fn connection_id(generator: usize, serial: u32) -> FlowId {
    CONNECTION_FLAG | (generator as FlowId) << GENERATOR_SHIFT | serial
}

fn generator_of(f: FlowId) -> usize {
    ((f & !CONNECTION_FLAG) >> GENERATOR_SHIFT) as usize
}

/// The agents' configuration every connection of a generator starts from; the
/// transfer's size is set per connection.
pub struct ConnectionTemplate {
    pub sender: SenderConfig,
    pub receiver: ReceiverConfig,
    pub cc: CcConfig,
    pub timestamps: bool,
}

/// A generator as the world holds it: the source of arrivals and what its
/// connections are.
pub struct TrafficGenerator {
    pub name: String,
    pub cc: String,
    pub src: NodeId,
    pub dst: NodeId,
    /// The link whose capacity the target load is a fraction of.
    pub link: String,
    pub capacity_bps: f64,
    pub target_load: f64,
    /// No connection opens before `start` or from `stop` on.
    pub start: SimTime,
    pub stop: SimTime,
    pub source: Generator,
    pub template: ConnectionTemplate,
}

/// A generator and its running counts.
struct GeneratorState {
    spec: TrafficGenerator,
    /// The arrival its scheduled `Event::Connect` will open.
    pending: Option<Arrival>,
    opened: u32,
    completed: u64,
    bytes_offered: u64,
    live: u64,
    peak_live: u64,
    late_packets: u64,
}

/// A live connection: its agents and the integral of its window.
struct Connection {
    flow: Flow,
    generator: usize,
    serial: u32,
    bytes: u64,
    /// ∫ cwnd dt in segment·nanoseconds up to `since`, and the window since then.
    cwnd_area: f64,
    cwnd: u32,
    since: SimTime,
}

/// The generators, their live connections, and the records of the retired ones.
#[derive(Default)]
pub struct Connections {
    generators: Vec<GeneratorState>,
    live: BTreeMap<FlowId, Connection>,
    records: Vec<ConnectionRecord>,
}

/// The agents of flow `f`: a listed flow or a live connection (`None`: a retired
/// connection). A function of the two tables only, so the caller keeps the rest of
/// the world.
pub(super) fn tcp_flow<'a>(
    flows: &'a mut [Flow],
    connections: &'a mut Connections,
    f: FlowId,
) -> Option<&'a mut Flow> {
    if is_connection(f) {
        connections.live.get_mut(&f).map(|c| &mut c.flow)
    } else {
        flows.get_mut(f as usize)
    }
}

impl Connections {
    /// Bytes held by live connections and folded records (`World::bytes_held`).
    pub fn bytes_held(&self) -> u64 {
        self.live.len() as u64 * LIVE_CONNECTION_BYTES + self.records.len() as u64 * RECORD_BYTES
    }

    /// A packet of connection `f` reached an endpoint after `f` retired.
    pub(super) fn count_late(&mut self, f: FlowId) {
        if let Some(g) = self.generators.get_mut(generator_of(f)) {
            g.late_packets += 1;
        }
    }

    /// A packet of connection `f` was lost in the network (not counted once the
    /// connection retired: its record is final).
    pub(super) fn count_drop(&mut self, f: FlowId, queue: bool) {
        if let Some(c) = self.live.get_mut(&f) {
            if queue {
                c.flow.drops_queue += 1;
            } else {
                c.flow.drops_impairment += 1;
            }
        }
    }

    /// Integrates connection `f`'s window up to `now` and notes its new value.
    pub(super) fn track_cwnd(&mut self, f: FlowId, now: SimTime) {
        if let Some(c) = self.live.get_mut(&f) {
            c.cwnd_area += c.cwnd as f64 * (now - c.since).as_nanos() as f64;
            c.cwnd = c.flow.sender.tcb.cwnd;
            c.since = now;
        }
    }

    /// Folds connection `c` into its record, ending at `end`.
    fn fold(&mut self, mut c: Connection, end: SimTime, completed: bool) {
        let g = &mut self.generators[c.generator];
        g.live -= 1;
        g.completed += completed as u64;
        c.cwnd_area += c.cwnd as f64 * (end - c.since).as_nanos() as f64;
        let flow = &c.flow;
        let s = &flow.sender.stats;
        let active = (end - flow.start).as_nanos() as f64;
        let delivered = flow.receiver.stats.bytes_delivered;
        self.records.push(ConnectionRecord {
            generator: g.spec.name.clone(),
            cc: g.spec.cc.clone(),
            connection: c.serial,
            start: flow.start,
            end,
            completed,
            bytes: c.bytes,
            bytes_delivered: delivered,
            goodput_bps: if active > 0.0 {
                delivered as f64 * 8.0 / (active / 1e9)
            } else {
                f64::NAN
            },
            mean_cwnd: if active > 0.0 {
                c.cwnd_area / active
            } else {
                c.cwnd as f64
            },
            mean_rtt: if s.rtt_samples == 0 {
                f64::NAN
            } else {
                s.rtt_sum_ns as f64 / s.rtt_samples as f64 / 1e9
            },
            timeouts: s.timeouts,
            fast_retransmits: s.fast_retransmits,
            segments_sent: s.segments_sent,
            segments_retransmitted: s.segments_retransmitted,
            drops_queue: flow.drops_queue,
            drops_impairment: flow.drops_impairment,
        });
    }

    /// Folds the connections still alive at `end`, and returns every record and
    /// each generator's summary.
    pub(super) fn finish(
        mut self,
        end: SimTime,
        node_names: &[String],
    ) -> (Vec<ConnectionRecord>, Vec<GeneratorRecord>) {
        for c in std::mem::take(&mut self.live).into_values() {
            self.fold(c, end, false);
        }
        let generators = self
            .generators
            .into_iter()
            .map(|g| {
                let s = &g.spec;
                let active = (s.stop.min(end).saturating_sub(s.start)).as_secs_f64();
                GeneratorRecord {
                    name: s.name.clone(),
                    kind: s.source.kind(),
                    cc: s.cc.clone(),
                    from: node_names[s.src as usize].clone(),
                    to: node_names[s.dst as usize].clone(),
                    link: s.link.clone(),
                    target_load: s.target_load,
                    offered_load: g.bytes_offered as f64 * 8.0 / (active * s.capacity_bps),
                    connections_opened: g.opened as u64,
                    connections_completed: g.completed,
                    peak_live: g.peak_live,
                    late_packets: g.late_packets,
                }
            })
            .collect();
        (self.records, generators)
    }
}

impl World {
    /// Generators' connections alive now (their agents held), and records folded.
    pub fn connection_counts(&self) -> (usize, usize) {
        (self.connections.live.len(), self.connections.records.len())
    }

    /// Adds the traffic generators and schedules each one's first connection.
    pub(super) fn add_generators(&mut self, generators: Vec<TrafficGenerator>) {
        for spec in generators {
            let g = self.connections.generators.len();
            self.connections.generators.push(GeneratorState {
                spec,
                pending: None,
                opened: 0,
                completed: 0,
                bytes_offered: 0,
                live: 0,
                peak_live: 0,
                late_packets: 0,
            });
            self.schedule_next_connection(g);
        }
    }

    /// Draws generator `g`'s next arrival and schedules it, unless it falls at or
    /// after the generator's stop or the end of the run.
    fn schedule_next_connection(&mut self, g: usize) {
        let state = &mut self.connections.generators[g];
        let arrival = state.spec.source.next_arrival();
        if arrival.at < state.spec.stop.min(self.end) && state.opened < MAX_CONNECTIONS {
            state.pending = Some(arrival);
            self.queue.schedule(arrival.at, Event::Connect(g as u32));
        }
    }

    /// Generator `g`'s connection opens: its agents are built, it starts sending,
    /// and the generator's next arrival is scheduled.
    pub(super) fn on_connect(&mut self, now: SimTime, g: usize) {
        let Some(arrival) = self.connections.generators[g].pending.take() else {
            return;
        };
        let state = &mut self.connections.generators[g];
        let serial = state.opened;
        state.opened += 1;
        state.bytes_offered += arrival.bytes;
        state.live += 1;
        state.peak_live = state.peak_live.max(state.live);
        let t = &state.spec.template;
        let mut sender_cfg = t.sender.clone();
        sender_cfg.app_bytes = Some(arrival.bytes);
        let stream = rng::stream(
            self.seed,
            &format!("generators[{g}].connections[{serial}].cc"),
        );
        let mut flow = Flow::new(
            String::new(),
            state.spec.cc.clone(),
            state.spec.src,
            state.spec.dst,
            TcpSender::new(sender_cfg, t.cc.build(stream)),
            TcpReceiver::new(t.receiver.clone()),
            now,
            None,
            t.timestamps,
        );
        flow.agree_ecn_without_handshake();
        let id = connection_id(g, serial);
        let cwnd = flow.sender.tcb.cwnd;
        self.connections.live.insert(
            id,
            Connection {
                flow,
                generator: g,
                serial,
                bytes: arrival.bytes,
                cwnd_area: 0.0,
                cwnd,
                since: now,
            },
        );
        let mut out = std::mem::take(&mut self.data_out);
        if let Some(c) = self.connections.live.get_mut(&id) {
            c.flow.sender.start(now, &mut out);
        }
        self.flush_sender(now, id, out);
        self.schedule_next_connection(g);
    }

    /// Retires connection `f` if every byte of it is acknowledged.
    pub(super) fn retire_if_finished(&mut self, f: FlowId) {
        if !is_connection(f) {
            return;
        }
        let done = self
            .connections
            .live
            .get(&f)
            .and_then(|c| c.flow.sender.finished_at());
        if let Some(end) = done {
            if let Some(c) = self.connections.live.remove(&f) {
                self.connections.fold(c, end, true);
            }
        }
    }
}
