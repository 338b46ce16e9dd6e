//! UDP flows in the world: their send events, datagrams, drops and throughput bins
//! (what `world.rs` does for TCP flows). UDP flow `k` has flow id `flows.len() +
//! associations.len() + k`, after the TCP flows and the SCTP associations, so that
//! impairments, triggers and drop counters see one id space.

use super::{Event, World};
use crate::packet::{FlowId, NodeId, Payload, UdpDatagram};
use crate::time::SimTime;
use crate::timer::LazyTimer;
use crate::trace::Bins;
use crate::transport::udp::sender::UdpSender;
use crate::transport::udp::sink::UdpSink;

/// A UDP flow: its sender and sink and their bookkeeping.
pub struct UdpFlow {
    pub name: String,
    /// The source's kind ("cbr", "exponential", "pareto"), shown in the `cc` column.
    pub source: &'static str,
    pub src: NodeId,
    pub dst: NodeId,
    pub sender: UdpSender,
    pub sink: UdpSink,
    pub start: SimTime,
    /// When the source stops: its own stop, else the end of the run.
    pub stop: SimTime,
    pub drops_queue: u64,
    pub drops_impairment: u64,
    /// Bytes sent and delivered per throughput bin.
    pub sent_bins: Bins,
    pub delivered_bins: Bins,
    timer: LazyTimer,
    /// Reused buffer of the datagrams due.
    out: Vec<UdpDatagram>,
}

impl UdpFlow {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        source: &'static str,
        src: NodeId,
        dst: NodeId,
        sender: UdpSender,
        start: SimTime,
        stop: SimTime,
        throughput_bin: SimTime,
    ) -> Self {
        UdpFlow {
            name,
            source,
            src,
            dst,
            sender,
            sink: UdpSink::default(),
            start,
            stop,
            drops_queue: 0,
            drops_impairment: 0,
            sent_bins: Bins::new(throughput_bin),
            delivered_bins: Bins::new(throughput_bin),
            timer: LazyTimer::default(),
            out: Vec::new(),
        }
    }
}

impl World {
    /// Adds the UDP flows (after the TCP flows and SCTP associations) and schedules
    /// their first datagrams.
    pub(super) fn add_udp_flows(&mut self, udp: Vec<UdpFlow>) {
        self.udp = udp;
        for k in 0..self.udp.len() {
            self.arm_udp_timer(k);
        }
    }

    fn first_udp_flow(&self) -> usize {
        self.flows.len() + self.associations.len()
    }

    /// The UDP flow index of flow id `f`, if it is one.
    pub(super) fn udp_index(&self, f: FlowId) -> Option<usize> {
        (f as usize).checked_sub(self.first_udp_flow())
    }

    /// UDP flow `k`'s datagrams due now go out.
    pub(super) fn on_udp_send(&mut self, now: SimTime, k: usize) {
        if !self.udp[k].timer.fire(now) {
            return;
        }
        let mut out = std::mem::take(&mut self.udp[k].out);
        self.udp[k].sender.on_timer(now, &mut out);
        let f = (self.first_udp_flow() + k) as FlowId;
        let (src, dst, size) = {
            let u = &self.udp[k];
            (u.src, u.dst, u.sender.packet_size())
        };
        for d in out.drain(..) {
            self.udp[k].sent_bins.add(now, size as u64);
            if !self.triggers.is_empty() {
                self.fire_triggers(now, f, d.seq + 1..=d.seq + 1);
            }
            let packet = self.new_packet(now, f, src, dst, size, Payload::Udp(d));
            self.forward(now, src, packet);
        }
        self.udp[k].out = out;
        self.arm_udp_timer(k);
    }

    fn arm_udp_timer(&mut self, k: usize) {
        let u = &mut self.udp[k];
        if let Some(t) = u.timer.arm(u.sender.deadline()) {
            self.queue.schedule(t, Event::UdpSend(k as u32));
        }
    }

    /// A datagram of UDP flow `k` reaches its destination.
    pub(super) fn on_udp_datagram(
        &mut self,
        now: SimTime,
        k: usize,
        size: u32,
        sent: SimTime,
        d: UdpDatagram,
    ) {
        let u = &mut self.udp[k];
        u.sink.on_datagram(now, sent, size, &d);
        u.delivered_bins.add(now, size as u64);
    }

    /// A datagram of UDP flow `k` was dropped by a full queue or an impairment.
    pub(super) fn on_udp_drop(&mut self, k: usize, queue: bool) {
        let u = &mut self.udp[k];
        if queue {
            u.drops_queue += 1;
        } else {
            u.drops_impairment += 1;
        }
    }
}
