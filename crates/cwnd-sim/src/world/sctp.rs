//! SCTP associations in the world: their events, packets, drops and traces (what
//! `world/tcp.rs` does for TCP flows). Association `k` has flow id `flows.len() + k`,
//! so that impairments, triggers and drop counters see one id space.
//!
//! An association's packets carry the index of their body in the world's packet
//! store; the body is returned to the store when the packet is delivered or dropped.

use super::World;
use crate::packet::{FlowId, NodeId, Payload, SctpRef};
use crate::time::SimTime;
use crate::timer::LazyTimer;
use crate::trace::pcap::AssociationWire;
use crate::trace::sctp::{AssociationSnapshot, PathSnapshot};
use crate::transport::sctp::association::Association;
use crate::transport::sctp::sender::Outgoing;

/// An association and its bookkeeping.
pub struct SctpFlow {
    pub name: String,
    /// Address (node) names of the data sender and of the receiver.
    pub from: Vec<String>,
    pub to: Vec<String>,
    /// The data sender's address nodes: packets to them are bound for the sender.
    sender_nodes: Vec<NodeId>,
    pub association: Association,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    pub drops_queue: u64,
    pub drops_impairment: u64,
    timer: LazyTimer,
}

impl SctpFlow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        from: Vec<String>,
        to: Vec<String>,
        sender_nodes: Vec<NodeId>,
        association: Association,
        start: SimTime,
        stop: Option<SimTime>,
    ) -> Self {
        SctpFlow {
            name,
            from,
            to,
            sender_nodes,
            association,
            start,
            stop,
            drops_queue: 0,
            drops_impairment: 0,
            timer: LazyTimer::default(),
        }
    }

    /// What a pcap capture needs to lay out the association's packets.
    fn wire(&self) -> AssociationWire {
        let a = &self.association;
        AssociationWire {
            sender: self.sender_nodes.clone(),
            receiver: a.sender.paths.iter().map(|p| p.dst).collect(),
            streams: a.sender.cfg.streams,
            a_rwnd: a.receiver.initial_window(),
        }
    }
}

impl World {
    /// Adds the SCTP associations (after the TCP flows) and schedules their start
    /// and stop.
    pub(super) fn add_associations(&mut self, associations: Vec<SctpFlow>) {
        for (k, a) in associations.iter().enumerate() {
            self.queue
                .schedule(a.start, super::Event::AssociationStart(k as u32));
            if let Some(stop) = a.stop {
                self.queue
                    .schedule(stop, super::Event::AssociationStop(k as u32));
            }
        }
        self.recorder.add_associations(associations.len());
        let wires = associations.iter().map(SctpFlow::wire).collect();
        self.captures
            .add_associations(self.flows.len() as FlowId, wires);
        self.associations = associations;
    }

    fn association_flow(&self, k: usize) -> FlowId {
        (self.flows.len() + k) as FlowId
    }

    pub(super) fn on_association_start(&mut self, now: SimTime, k: usize) {
        let mut out = std::mem::take(&mut self.sctp_out);
        self.associations[k]
            .association
            .start(now, &mut self.sctp_store, &mut out);
        self.flush_association(now, k, out);
    }

    pub(super) fn on_association_stop(&mut self, now: SimTime, k: usize) {
        let mut out = std::mem::take(&mut self.sctp_out);
        self.associations[k]
            .association
            .stop(now, &mut self.sctp_store, &mut out);
        self.flush_association(now, k, out);
    }

    pub(super) fn on_association_timer(&mut self, now: SimTime, k: usize) {
        if !self.associations[k].timer.fire(now) {
            return;
        }
        let mut out = std::mem::take(&mut self.sctp_out);
        self.associations[k]
            .association
            .on_timer(now, &mut self.sctp_store, &mut out);
        self.flush_association(now, k, out);
    }

    /// An SCTP packet of flow `f` from `from` reaches its destination `at`.
    pub(super) fn on_sctp_packet(
        &mut self,
        now: SimTime,
        at: NodeId,
        from: NodeId,
        f: FlowId,
        r: SctpRef,
    ) {
        let k = f as usize - self.flows.len();
        let body = self.sctp_store.take(r.body);
        let mut out = std::mem::take(&mut self.sctp_out);
        let delivered = self.associations[k].association.on_packet(
            now,
            r.to_sender,
            at,
            from,
            &body,
            &mut self.sctp_store,
            &mut out,
        );
        self.sctp_store.put_back(r.body, body);
        if delivered > 0 {
            self.recorder.associations[k].delivered.add(now, delivered);
        }
        self.flush_association(now, k, out);
    }

    /// A packet of association flow `f` was lost; its body goes back to the store.
    pub(super) fn on_sctp_drop(&mut self, f: FlowId, body: Option<u32>, queue: bool) {
        let a = &mut self.associations[f as usize - self.flows.len()];
        if queue {
            a.drops_queue += 1;
        } else {
            a.drops_impairment += 1;
        }
        if let Some(body) = body {
            self.sctp_store.release(body);
        }
    }

    /// Puts an association's packets on the network, records its DATA chunks and
    /// state, and re-arms its timer.
    fn flush_association(&mut self, now: SimTime, k: usize, mut out: Vec<Outgoing>) {
        let f = self.association_flow(k);
        self.associations[k]
            .association
            .note_sent(&self.sctp_store, &out);
        for o in out.drain(..) {
            let body = self.sctp_store.get(o.body);
            let (size, data) = (body.wire_size(), body.has_data());
            let trace = &mut self.recorder.associations[k];
            for c in &body.data {
                trace.sent.add(now, c.len as u64);
                if let Some(chunks) = &mut trace.chunks {
                    chunks.push(now, c.tsn, o.path, c.len, c.copy);
                }
            }
            if data && !self.triggers.is_empty() {
                let firsts: Vec<u64> = body
                    .data
                    .iter()
                    .filter(|c| c.copy == 0)
                    .map(|c| c.tsn)
                    .collect();
                for tsn in firsts {
                    self.fire_triggers(now, f, tsn..=tsn);
                }
            }
            let to_sender = self.associations[k].sender_nodes.contains(&o.dst);
            let r = SctpRef {
                body: o.body,
                to_sender,
                data,
            };
            let packet = self.new_packet(now, f, o.src, o.dst, size, Payload::Sctp(r));
            self.forward(now, o.src, packet);
        }
        self.sctp_out = out;
        let a = &mut self.associations[k];
        if let Some(t) = a.timer.arm(a.association.deadline()) {
            self.queue
                .schedule(t, super::Event::AssociationTimer(k as u32));
        }
        if self.recorder.sampling == crate::trace::Sampling::Change {
            self.record_association(now, k, true);
        }
    }

    /// Records association `k`'s state (every row, or only changes).
    pub(super) fn record_association(&mut self, now: SimTime, k: usize, only_changes: bool) {
        let a = &self.associations[k].association;
        let s = &a.sender;
        let snap = AssociationSnapshot {
            cumulative_tsn: s.cumulative_tsn(),
            highest_tsn: s.highest_tsn_sent(),
            delivered: a.receiver.stats.bytes_delivered,
            dupthresh: s.dupthresh(),
            fast_recovery: s.in_fast_recovery(),
        };
        self.path_snapshots.clear();
        self.path_snapshots
            .extend(s.paths.iter().map(|p| PathSnapshot {
                cwnd: p.cwnd,
                ssthresh: p.ssthresh,
                flight: p.flight,
                srtt: p.rto.srtt().unwrap_or(SimTime::MAX),
                rto: p.rto.rto(),
                active: p.active,
            }));
        self.recorder.associations[k].record(now, snap, &self.path_snapshots, only_changes);
    }
}
