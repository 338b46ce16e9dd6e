//! Packets as the simulator moves them: a small fixed-size value with the fields
//! of the headers that matter to the protocols, plus the size it occupies on the wire.
//!
//! Packets are moved by value through queues and links (no heap allocation per
//! packet). `size` is the IP datagram size (IP + transport headers + payload); a
//! link adds its own link-layer overhead when it computes serialization time.

use crate::time::SimTime;

/// Index of a node in the world's node table.
pub type NodeId = u32;
/// Index of a flow in the scenario's flow list.
pub type FlowId = u32;

/// IPv4 (20 B) + TCP (20 B) headers without options (RFC 791, RFC 9293).
pub const TCP_IP_HEADER: u32 = 40;
/// The TCP timestamps option with its padding (RFC 7323 §3: 10 B + 2 NOPs).
pub const TCP_TIMESTAMP_OPTION: u32 = 12;

/// IPv4 (20 B) + UDP (8 B) headers (RFC 791, RFC 768).
pub const UDP_IP_HEADER: u32 = 28;

/// A TCP segment carrying data from the sender to the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpData {
    /// Sequence number of the first payload byte (64-bit: no wrap-around in a run).
    pub seq: u64,
    pub len: u32,
    /// TSval (RFC 7323) when timestamps are on: the sender's clock at transmission.
    pub ts_val: Option<SimTime>,
    /// True when this transmission repeats bytes sent before (ground truth for traces).
    pub retransmission: bool,
}

/// Most SACK blocks an ACK carries (RFC 2018 §3: 4 fit in the 40 option bytes).
pub const MAX_SACK_BLOCKS: usize = 4;
/// Most SACK blocks beside the timestamps option (RFC 2018 §3: 12 + 28 = 40 bytes).
pub const MAX_SACK_BLOCKS_WITH_TIMESTAMPS: usize = 3;

/// The SACK option of an ACK (RFC 2018): byte ranges [start, end) received out of
/// order. The first block may be a D-SACK block (RFC 2883) reporting a duplicate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u64, u64); MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    /// Appends a block if there is room; returns false when full.
    pub fn push(&mut self, start: u64, end: u64) -> bool {
        if self.len as usize == MAX_SACK_BLOCKS {
            return false;
        }
        self.blocks[self.len as usize] = (start, end);
        self.len += 1;
        true
    }

    pub fn as_slice(&self) -> &[(u64, u64)] {
        &self.blocks[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes the option takes in the TCP header: kind and length (2 B) plus 8 B per
    /// block, padded to a multiple of 4 with NOPs (RFC 2018 §3).
    pub fn option_bytes(&self) -> u32 {
        if self.len == 0 {
            0
        } else {
            (2 + 8 * self.len as u32).div_ceil(4) * 4
        }
    }
}

/// A pure ACK from the receiver to the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpAck {
    /// Next byte expected (cumulative acknowledgement).
    pub ack: u64,
    /// Advertised receive window in bytes.
    pub window: u64,
    /// TSecr (RFC 7323): the TSval echoed back, when timestamps are on.
    pub ts_ecr: Option<SimTime>,
    /// SACK blocks, when SACK is on (empty otherwise).
    pub sack: SackBlocks,
}

/// A SYN (from the sender) or SYN-ACK (from the receiver) of a connection that
/// opens with a handshake (`transport::tcp::handshake`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSyn {
    pub syn_ack: bool,
    /// Carries the timestamps option (RFC 7323 §3.2: negotiated on the SYN).
    pub timestamps: bool,
}

/// A UDP datagram (`transport::udp`): its number in the flow, from 0 (not on the
/// wire: UDP has no sequence numbers; the simulator uses it to name datagrams).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpDatagram {
    pub seq: u64,
}

/// An SCTP packet: its chunks wait in the world's packet store
/// (`transport::sctp::store`), so that packets stay small fixed-size values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SctpRef {
    /// Index of the packet's body in the store.
    pub body: u32,
    /// Bound for the association's data sender (else for its data receiver).
    pub to_sender: bool,
    /// Carries DATA chunks (impairments see it as a data packet).
    pub data: bool,
}

/// A packet that came from outside the world (live mode's real kernel packets):
/// its bytes stay with whoever injected it, under `handle`; the world moves only
/// this reference and the packet's real IP size (`world::external`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExternalRef {
    /// Opaque to the world: handed back unchanged on delivery.
    pub handle: u64,
    /// Carries transport payload (impairments see it as a data packet).
    pub data: bool,
}

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    TcpData(TcpData),
    TcpAck(TcpAck),
    TcpSyn(TcpSyn),
    Sctp(SctpRef),
    External(ExternalRef),
    Udp(UdpDatagram),
}

/// Which packets an impairment applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketClass {
    /// Segments carrying payload (SCTP: packets with DATA chunks).
    Data,
    /// Pure acknowledgements (SCTP: packets without DATA — SACK, set-up, heartbeat).
    Ack,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packet {
    /// Unique per run, in order of creation.
    pub uid: u64,
    pub flow: FlowId,
    pub src: NodeId,
    pub dst: NodeId,
    /// IP datagram size in bytes.
    pub size: u32,
    /// When the transport agent emitted it.
    pub created: SimTime,
    pub payload: Payload,
}

impl Packet {
    pub fn class(&self) -> PacketClass {
        match self.payload {
            Payload::TcpData(_) => PacketClass::Data,
            Payload::TcpAck(_) | Payload::TcpSyn(_) => PacketClass::Ack,
            Payload::Sctp(r) if r.data => PacketClass::Data,
            Payload::Sctp(_) => PacketClass::Ack,
            Payload::External(x) if x.data => PacketClass::Data,
            Payload::External(_) => PacketClass::Ack,
            Payload::Udp(_) => PacketClass::Data,
        }
    }

    /// The body of an SCTP packet in the packet store.
    pub fn sctp_body(&self) -> Option<u32> {
        match self.payload {
            Payload::Sctp(r) => Some(r.body),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_option_sizes_follow_rfc_2018() {
        // 2 + 8n bytes padded to 4: 1 block 12 B, 2 blocks 20 B, 3 blocks 28 B, 4 → 36 B.
        let mut s = SackBlocks::default();
        assert_eq!(s.option_bytes(), 0);
        let sizes: Vec<u32> = (0..4)
            .map(|i| {
                s.push(i * 10, i * 10 + 5);
                s.option_bytes()
            })
            .collect();
        assert_eq!(sizes, vec![12, 20, 28, 36]);
        assert!(!s.push(100, 200));
    }
}
