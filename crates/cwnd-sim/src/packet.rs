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

/// A pure ACK from the receiver to the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpAck {
    /// Next byte expected (cumulative acknowledgement).
    pub ack: u64,
    /// Advertised receive window in bytes.
    pub window: u64,
    /// TSecr (RFC 7323): the TSval echoed back, when timestamps are on.
    pub ts_ecr: Option<SimTime>,
}

/// What a packet carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Payload {
    TcpData(TcpData),
    TcpAck(TcpAck),
}

/// Which packets an impairment applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketClass {
    /// Segments carrying payload.
    Data,
    /// Pure acknowledgements.
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
            Payload::TcpAck(_) => PacketClass::Ack,
        }
    }
}
