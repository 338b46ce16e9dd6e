//! TCP connection set-up in the world (`tcp.handshake = true`): the SYN leaves at
//! the flow's start and again on its timer (`transport::tcp::handshake`), the
//! receiver's node answers each SYN with a SYN-ACK, and the SYN-ACK opens the
//! sender. SYN and SYN-ACK are packets like any other: queues and impairments see
//! them (as acknowledgements, `PacketClass::Ack`: they carry no data) and may drop
//! them. Their size is the flow's TCP/IP header (40 B, 52 B with timestamps). They
//! carry ECN's set-up flags (`transport::tcp::ecn`): the sender's on each SYN, the
//! receiver's answer on each SYN-ACK, the first SYN-ACK's read by the sender.

use super::{Event, Flow, World};
use crate::packet::{FlowId, Payload, TcpSyn};
use crate::time::SimTime;
use crate::transport::tcp::ecn::SynFlags;
use crate::transport::tcp::handshake::Handshake;

impl Flow {
    /// The flow opens its connection with a handshake first.
    pub fn with_handshake(mut self, handshake: Handshake) -> Self {
        self.handshake = Some(handshake);
        self
    }
}

impl World {
    /// Flow `f` is still opening its connection: its start and timer are the
    /// handshake's. A generator's connection (`world::connections`, not in the flow
    /// table) opens without one.
    pub(super) fn opening(&self, f: FlowId) -> bool {
        self.flows
            .get(f as usize)
            .and_then(|flow| flow.handshake.as_ref())
            .is_some_and(Handshake::pending)
    }

    /// Flow `f` starts: its first SYN.
    pub(super) fn on_open_start(&mut self, now: SimTime, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        if let Some(h) = &mut flow.handshake {
            h.start(now);
        }
        let flags = flow.sender.ecn_syn(true);
        self.send_syn(now, f, false, flags);
        self.arm_syn_timer(f);
    }

    /// The SYN's timer of flow `f` fired.
    pub(super) fn on_syn_timer(&mut self, now: SimTime, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        if !flow.sender_timer.fire(now) {
            return;
        }
        if flow.handshake.as_mut().is_some_and(|h| h.on_timer(now)) {
            let flags = flow.sender.ecn_syn(false);
            self.send_syn(now, f, false, flags);
        }
        self.arm_syn_timer(f);
    }

    /// A SYN reached the receiver (it answers), or a SYN-ACK the sender (it opens).
    pub(super) fn on_syn_segment(&mut self, now: SimTime, f: FlowId, syn: TcpSyn) {
        let flow = &mut self.flows[f as usize];
        let flags = SynFlags {
            ece: syn.ece,
            cwr: syn.cwr,
        };
        if !syn.syn_ack {
            let answer = flow.receiver.on_syn(flags);
            self.send_syn(now, f, true, answer);
            return;
        }
        let Some(opened) = flow.handshake.as_mut().and_then(|h| h.on_syn_ack(now)) else {
            return;
        };
        flow.sender.ecn_syn_ack(flags);
        let mut out = std::mem::take(&mut self.data_out);
        flow.sender.open(now, opened, &mut out);
        self.flush_sender(now, f, out);
    }

    /// A SYN from the sender, or a SYN-ACK from the receiver, with ECN's `flags`.
    fn send_syn(&mut self, now: SimTime, f: FlowId, syn_ack: bool, flags: SynFlags) {
        let flow = &self.flows[f as usize];
        let (from, to) = if syn_ack {
            (flow.dst, flow.src)
        } else {
            (flow.src, flow.dst)
        };
        let syn = TcpSyn {
            syn_ack,
            timestamps: flow.timestamps,
            ece: flags.ece,
            cwr: flags.cwr,
        };
        let size = flow.header_bytes();
        let packet = self.new_packet(now, f, from, to, size, Payload::TcpSyn(syn));
        self.forward(now, from, packet);
    }

    fn arm_syn_timer(&mut self, f: FlowId) {
        let flow = &mut self.flows[f as usize];
        let deadline = flow
            .handshake
            .as_ref()
            .map_or(SimTime::MAX, Handshake::deadline);
        if let Some(t) = flow.sender_timer.arm(deadline) {
            self.queue.schedule(t, Event::SenderTimer(f));
        }
    }
}
