//! TCP flows in the world: their events, segments, ACKs and traces (what
//! `world/sctp.rs` does for SCTP associations). A flow id names a listed flow
//! (`World::flows`) or a generator's live connection (`world::connections`);
//! `tcp_flow` finds either. The handshake is in `world/handshake.rs`.

use super::connections::{is_connection, tcp_flow};
use super::{Event, World};
use crate::packet::{
    AckRef, FlowId, NodeId, Payload, TcpAck, TcpData, TCP_IP_HEADER, TCP_TIMESTAMP_OPTION,
};
use crate::time::SimTime;
use crate::timer::LazyTimer;
use crate::trace::FlowSnapshot;
use crate::transport::tcp::handshake::Handshake;
use crate::transport::tcp::receiver::TcpReceiver;
use crate::transport::tcp::sender::TcpSender;

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
    pub(super) sender_timer: LazyTimer,
    pub(super) pacing_timer: LazyTimer,
    pub(super) receiver_timer: LazyTimer,
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

    pub(super) fn header_bytes(&self) -> u32 {
        TCP_IP_HEADER
            + if self.timestamps {
                TCP_TIMESTAMP_OPTION
            } else {
                0
            }
    }

    /// Without a handshake, the two ends agree on ECN at the start as a first SYN
    /// and its SYN-ACK, neither lost, would have them agree
    /// (`transport::tcp::ecn`). Once per flow: out of line.
    #[inline(never)]
    pub(super) fn agree_ecn_without_handshake(&mut self) {
        let syn = self.sender.ecn_syn(true);
        let answer = self.receiver.on_syn(syn);
        self.sender.ecn_syn_ack(answer);
    }

    pub(super) fn snapshot(&self) -> FlowSnapshot {
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

impl World {
    pub(super) fn on_sender_timer(&mut self, now: SimTime, f: FlowId) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        if flow.sender_timer.fire(now) {
            let mut out = std::mem::take(&mut self.data_out);
            flow.sender.on_timer(now, &mut out);
            self.flush_sender(now, f, out);
        }
    }

    pub(super) fn on_pacing_timer(&mut self, now: SimTime, f: FlowId) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        if flow.pacing_timer.fire(now) {
            let mut out = std::mem::take(&mut self.data_out);
            flow.sender.on_pacing_timer(now, &mut out);
            self.flush_sender(now, f, out);
        }
    }

    pub(super) fn on_receiver_timer(&mut self, now: SimTime, f: FlowId) {
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

    /// Flow `f` starts sending (with no handshake, or once it is open).
    pub(super) fn on_flow_start(&mut self, now: SimTime, f: FlowId) {
        let mut out = std::mem::take(&mut self.data_out);
        let flow = &mut self.flows[f as usize];
        flow.agree_ecn_without_handshake();
        flow.sender.start(now, &mut out);
        self.flush_sender(now, f, out);
    }

    /// A data segment of flow `f` reaches its receiver.
    pub(super) fn on_tcp_data(&mut self, now: SimTime, f: FlowId, seg: &TcpData) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            self.connections.count_late(f);
            return;
        };
        let (ack, delivered) = flow.receiver.on_segment(now, seg);
        let ack_before = flow.receiver.take_ack_before();
        if !is_connection(f) {
            self.recorder.on_delivered(f as usize, now, delivered);
        }
        if let Some(before) = ack_before {
            self.send_ack_before(now, f, before);
        }
        if let Some(ack) = ack {
            self.send_ack(now, f, ack);
        }
        self.arm_receiver_timer(f);
    }

    /// An ACK of flow `f` reaches its sender.
    pub(super) fn on_tcp_ack(&mut self, now: SimTime, f: FlowId, ack: &TcpAck) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            self.connections.count_late(f);
            return;
        };
        let mut out = std::mem::take(&mut self.data_out);
        flow.sender.on_ack(now, ack, &mut out);
        self.flush_sender(now, f, out);
        self.retire_if_finished(f);
    }

    /// Interval sampling: the state of every listed flow that has started.
    pub(super) fn sample_tcp_flows(&mut self, now: SimTime) {
        for (i, flow) in self.flows.iter().enumerate() {
            if flow.start <= now {
                self.recorder.on_sample(i, now, flow.snapshot());
                let (cc, tcb) = (flow.sender.controller(), &flow.sender.tcb);
                self.recorder.on_cc_info(i, now, cc, tcb);
            }
        }
    }

    /// Puts the segments a sender produced on the network, re-arms its timers (RTO,
    /// and pacing when the gate held segments back) and traces its state.
    pub(super) fn flush_sender(&mut self, now: SimTime, f: FlowId, mut out: Vec<TcpData>) {
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

    pub(super) fn send_ack(&mut self, now: SimTime, f: FlowId, ack: TcpAck) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        let (src, dst, header) = (flow.dst, flow.src, flow.header_bytes());
        let size = header + ack.sack.option_bytes();
        let payload = Payload::TcpAck(AckRef::stow(&ack, &mut self.sack_store));
        let packet = self.new_packet(now, f, src, dst, size, payload);
        self.forward(now, src, packet);
    }

    /// DCTCP's ACK of the data before a change of the CE state (RFC 8257 §3.2).
    /// Out of line and cold, so that the data path of every other receiver, into
    /// which `send_ack` is inlined, stays as small as it was.
    #[cold]
    #[inline(never)]
    fn send_ack_before(&mut self, now: SimTime, f: FlowId, ack: TcpAck) {
        self.send_ack(now, f, ack);
    }

    pub(super) fn arm_receiver_timer(&mut self, f: FlowId) {
        let Some(flow) = tcp_flow(&mut self.flows, &mut self.connections, f) else {
            return;
        };
        if let Some(t) = flow.receiver_timer.arm(flow.receiver.delack_deadline()) {
            self.queue.schedule(t, Event::ReceiverTimer(f));
        }
    }
}
