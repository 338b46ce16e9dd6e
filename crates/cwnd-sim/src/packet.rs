//! Packets as the simulator moves them: a small fixed-size value with the fields
//! of the headers that matter to the protocols, plus the size it occupies on the wire.
//!
//! Packets are moved by value through queues and links (no heap allocation per
//! packet). `size` is the IP datagram size (IP + transport headers + payload); a
//! link adds its own link-layer overhead when it computes serialization time.

use crate::time::SimTime;

pub mod sack_store;
use sack_store::{SackId, SackStore};

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

/// The ECN field of the IP header (RFC 3168 §5): its two bits, as the header
/// carries them. A sender of an ECN-capable transport marks its packets ECT(0) (or
/// ECT(1)); a queue that would drop an ECT packet for congestion may mark it CE
/// instead (`Packet::mark_ce`); a Not-ECT packet is never marked, only dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Ecn {
    #[default]
    NotEct = 0b00,
    Ect1 = 0b01,
    Ect0 = 0b10,
    Ce = 0b11,
}

impl Ecn {
    /// ECT(0), ECT(1) or CE: the packet's transport takes part in ECN.
    pub fn ecn_capable(self) -> bool {
        self != Ecn::NotEct
    }
}

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
    /// The IP header's ECN field (RFC 3168 §5).
    pub ecn: Ecn,
    /// TCP's CWR flag (RFC 3168 §6.1.2): the sender reduced its window since the
    /// receiver's last ECE.
    pub cwr: bool,
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

/// A pure ACK from the receiver to the sender, as the agents build and read it.
/// On the network it travels as an `AckRef`.
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
    /// The IP header's ECN field (RFC 3168 §6.1.4: Not-ECT, unless the receiver's
    /// controller needs ECN; `transport::tcp::ecn`).
    pub ecn: Ecn,
    /// TCP's ECE flag (RFC 3168 §6.1.3): the receiver echoes a CE mark.
    pub ece: bool,
}

/// A pure ACK as a packet carries it: its SACK blocks, if any, wait in the world's
/// `SackStore`, so that every packet stays 72 B instead of 136 B (the store's
/// doc comment). The timestamp echo is kept as a time and a flag rather than an
/// `Option` (16 B), so that this payload is no larger than a data segment's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRef {
    pub ack: u64,
    pub window: u64,
    ts_ecr: SimTime,
    has_ts_ecr: bool,
    /// Slot of the SACK blocks in the store; `NO_SACK` when there are none.
    sack: SackId,
    pub ecn: Ecn,
    pub ece: bool,
}

const NO_SACK: SackId = SackId::MAX;

impl AckRef {
    /// The packet form of `ack`; its SACK blocks, if any, go into `store`.
    pub fn stow(ack: &TcpAck, store: &mut SackStore) -> AckRef {
        AckRef {
            ack: ack.ack,
            window: ack.window,
            ts_ecr: ack.ts_ecr.unwrap_or(SimTime::ZERO),
            has_ts_ecr: ack.ts_ecr.is_some(),
            sack: if ack.sack.is_empty() {
                NO_SACK
            } else {
                store.put(ack.sack)
            },
            ecn: ack.ecn,
            ece: ack.ece,
        }
    }

    fn with_sack(&self, sack: SackBlocks) -> TcpAck {
        TcpAck {
            ack: self.ack,
            window: self.window,
            ts_ecr: self.has_ts_ecr.then_some(self.ts_ecr),
            sack,
            ecn: self.ecn,
            ece: self.ece,
        }
    }

    /// The ACK, leaving its blocks in the store (a capture reads a packet on its way).
    pub fn view(&self, store: &SackStore) -> TcpAck {
        match self.sack {
            NO_SACK => self.with_sack(SackBlocks::default()),
            id => self.with_sack(store.get(id)),
        }
    }

    /// The ACK, its blocks taken out of the store (it reached its sender).
    pub fn unstow(&self, store: &mut SackStore) -> TcpAck {
        match self.sack {
            NO_SACK => self.with_sack(SackBlocks::default()),
            id => self.with_sack(store.take(id)),
        }
    }

    /// Frees the blocks' slot (the ACK was lost on the way).
    pub fn release(&self, store: &mut SackStore) {
        if self.sack != NO_SACK {
            store.release(self.sack);
        }
    }
}

/// A SYN (from the sender) or SYN-ACK (from the receiver) of a connection that
/// opens with a handshake (`transport::tcp::handshake`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSyn {
    pub syn_ack: bool,
    /// Carries the timestamps option (RFC 7323 §3.2: negotiated on the SYN).
    pub timestamps: bool,
    /// TCP's ECE and CWR flags: both on an ECN-setup SYN, ECE alone on an
    /// ECN-setup SYN-ACK (RFC 3168 §6.1.1). A SYN is always Not-ECT.
    pub ece: bool,
    pub cwr: bool,
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
/// this reference, the packet's real IP size and its ECN field (`world::external`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExternalRef {
    /// Opaque to the world: handed back unchanged on delivery.
    pub handle: u64,
    /// Carries transport payload (impairments see it as a data packet).
    pub data: bool,
    /// The real IP header's ECN field when the packet entered; a queue's CE mark
    /// changes it here, and whoever holds the bytes writes it into them
    /// (`set_ipv4_ecn`).
    pub ecn: Ecn,
}

/// Writes `ecn` into the ECN field of the IPv4 header that begins `ip` (the low
/// two bits of its second byte, RFC 3168 §5) and updates the header checksum for
/// the changed 16-bit word as RFC 1624 eqn. 3 does: HC' = ~(~HC + ~m + m'), in
/// ones' complement. Nothing is written to a header shorter than 20 bytes.
pub fn set_ipv4_ecn(ip: &mut [u8], ecn: Ecn) {
    if ip.len() < 20 {
        return;
    }
    let old_word = u16::from_be_bytes([ip[0], ip[1]]);
    ip[1] = (ip[1] & !0b11) | ecn as u8;
    let new_word = u16::from_be_bytes([ip[0], ip[1]]);
    let checksum = u16::from_be_bytes([ip[10], ip[11]]);
    let mut sum = u32::from(!checksum) + u32::from(!old_word) + u32::from(new_word);
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    ip[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

/// The IPv4 header of the usual checksum example, 4500 0073 0000 4000 4011 b861
/// c0a8 0001 c0a8 00c7, with `first_word` (version, IHL, DS byte) and `checksum`
/// in place of its first word and checksum: the tests' real header.
#[cfg(test)]
pub(crate) fn example_ipv4_header(first_word: u16, checksum: u16) -> Vec<u8> {
    [
        first_word, 0x0073, 0x0000, 0x4000, 0x4011, checksum, 0xc0a8, 0x0001, 0xc0a8, 0x00c7,
    ]
    .iter()
    .flat_map(|w| w.to_be_bytes())
    .collect()
}

/// The ECN field of the IPv4 header that begins `ip` (RFC 3168 §5); Not-ECT for
/// anything shorter than a header.
pub fn ipv4_ecn(ip: &[u8]) -> Ecn {
    match ip.get(1).map(|tos| tos & 0b11) {
        Some(0b01) => Ecn::Ect1,
        Some(0b10) => Ecn::Ect0,
        Some(0b11) => Ecn::Ce,
        _ => Ecn::NotEct,
    }
}

/// What a packet carries. The tag is a whole word (`repr(u64)`), which keeps the
/// size at 40 B: left to itself the compiler put a one-byte tag in the middle of the
/// packet, every payload field after it at an odd offset, and the copy of a delivered
/// packet then went in unaligned pieces that a later 8-byte load spanned (a failed
/// store-to-load forward on every hop: 6 % of the 10-flow dumbbell, BENCHMARKS.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Payload {
    TcpData(TcpData),
    TcpAck(AckRef),
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

    /// The IP header's ECN field. TCP data and ACKs, and live mode's packets (their
    /// real header's field), take part in ECN here: SYNs are Not-ECT (RFC 3168
    /// §6.1.1), SCTP's ECN (RFC 9260 Appendix A) and UDP sources' are not modelled.
    pub fn ecn(&self) -> Ecn {
        match self.payload {
            Payload::TcpData(d) => d.ecn,
            Payload::TcpAck(a) => a.ecn,
            Payload::External(x) => x.ecn,
            _ => Ecn::NotEct,
        }
    }

    /// A queue's congestion mark (RFC 3168 §5): an ECT packet becomes CE and true is
    /// returned; a Not-ECT packet is left as it is (false: the queue drops it
    /// instead, §5's "the router drops the packet"). A CE packet stays CE.
    pub fn mark_ce(&mut self) -> bool {
        match &mut self.payload {
            Payload::TcpData(d) if d.ecn.ecn_capable() => d.ecn = Ecn::Ce,
            Payload::TcpAck(a) if a.ecn.ecn_capable() => a.ecn = Ecn::Ce,
            Payload::External(x) if x.ecn.ecn_capable() => x.ecn = Ecn::Ce,
            _ => return false,
        }
        true
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

    #[test]
    fn packets_are_small() {
        // Header fields 32 B (uid 8, flow/src/dst/size 4 × 4, created 8); the
        // largest payload, a data segment (seq 8, ts_val 16, len 4, retransmission,
        // ECN field and CWR 1 each: 31 B, padded to 32) or an ACK (ack 8, window 8,
        // ts_ecr 8, SACK slot 4, timestamp flag, ECN field and ECE 1 each: 31 B, padded
        // to 32), plus the variant's tag padded to 8: 40 B. 32 + 40 = 72 B: ECN fits
        // in the payloads' padding.
        assert_eq!(std::mem::size_of::<Payload>(), 40);
        assert_eq!(std::mem::size_of::<Packet>(), 72);
    }

    fn packet(payload: Payload) -> Packet {
        Packet {
            uid: 1,
            flow: 0,
            src: 0,
            dst: 1,
            size: 1040,
            created: SimTime::ZERO,
            payload,
        }
    }

    fn data(ecn: Ecn) -> Packet {
        packet(Payload::TcpData(TcpData {
            seq: 0,
            len: 1000,
            ts_val: None,
            retransmission: false,
            ecn,
            cwr: false,
        }))
    }

    #[test]
    fn a_queue_marks_ect_packets_and_never_a_not_ect_one() {
        // RFC 3168 §5: ECT(0) and ECT(1) become CE; CE stays CE; Not-ECT is left
        // unmarked (the queue must drop it instead).
        for (before, marked, after) in [
            (Ecn::Ect0, true, Ecn::Ce),
            (Ecn::Ect1, true, Ecn::Ce),
            (Ecn::Ce, true, Ecn::Ce),
            (Ecn::NotEct, false, Ecn::NotEct),
        ] {
            let mut p = data(before);
            assert_eq!((p.mark_ce(), p.ecn()), (marked, after), "{before:?}");
        }
        // An ACK is marked like data when it is ECT; a SYN or a UDP datagram never.
        let mut store = SackStore::default();
        let ack = TcpAck {
            ack: 0,
            window: 0,
            ts_ecr: None,
            sack: SackBlocks::default(),
            ecn: Ecn::Ect0,
            ece: false,
        };
        let mut a = packet(Payload::TcpAck(AckRef::stow(&ack, &mut store)));
        assert!(a.mark_ce());
        assert_eq!(a.ecn(), Ecn::Ce);
        let syn = TcpSyn {
            syn_ack: false,
            timestamps: false,
            ece: true,
            cwr: true,
        };
        for payload in [Payload::TcpSyn(syn), Payload::Udp(UdpDatagram { seq: 0 })] {
            let mut p = packet(payload);
            assert!(!p.mark_ce());
            assert_eq!(p.ecn(), Ecn::NotEct);
        }
    }

    #[test]
    fn an_external_packet_is_marked_by_its_real_field() {
        // Live mode's packets carry the ECN field their real header had: an ECT(0)
        // one is marked, a Not-ECT one (a kernel with tcp_ecn off) is not.
        let external = |ecn| {
            packet(Payload::External(ExternalRef {
                handle: 3,
                data: true,
                ecn,
            }))
        };
        let mut ect = external(Ecn::Ect0);
        assert!(ect.mark_ce());
        assert_eq!(ect.ecn(), Ecn::Ce);
        let mut not_ect = external(Ecn::NotEct);
        assert!(!not_ect.mark_ce());
        assert_eq!(not_ect.ecn(), Ecn::NotEct);
    }

    #[test]
    fn ce_written_into_a_real_header_keeps_its_checksum_right() {
        // The IPv4 header of the usual checksum example: 4500 0073 0000 4000 4011
        // [b861] c0a8 0001 c0a8 00c7. Its words sum to 0x2479c, folded 0x479e,
        // complemented 0xb861. With ECN = CE the first word is 0x4503: the sum grows
        // by 3 to 0x47a1, so the checksum is 0xb85e. RFC 1624's update gives the
        // same: ~0xb861 + ~0x4500 + 0x4503 = 0x479e + 0xbaff + 0x4503 = 0x147a0,
        // folded 0x47a1, complemented 0xb85e.
        let mut ip = example_ipv4_header(0x4500, 0xb861);
        assert_eq!(ipv4_ecn(&ip), Ecn::NotEct);
        set_ipv4_ecn(&mut ip, Ecn::Ce);
        assert_eq!((ip[1], ipv4_ecn(&ip)), (0x03, Ecn::Ce));
        assert_eq!(&ip[10..12], &[0xb8, 0x5e]);
        // Back to Not-ECT: the original header, checksum 0xb861.
        set_ipv4_ecn(&mut ip, Ecn::NotEct);
        assert_eq!((ip[1], &ip[10..12]), (0x00, &[0xb8u8, 0x61][..]));
        // A DSCP in the byte's upper six bits stays: 0xb8 (EF) with ECT(0) is 0xba.
        ip[1] = 0xba;
        assert_eq!(ipv4_ecn(&ip), Ecn::Ect0);
        set_ipv4_ecn(&mut ip, Ecn::Ce);
        assert_eq!(ip[1], 0xbb);
    }

    #[test]
    fn the_ecn_field_keeps_rfc_3168_bit_values() {
        // RFC 3168 §5, Figure 1: Not-ECT 00, ECT(1) 01, ECT(0) 10, CE 11.
        let bits = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce].map(|e| e as u8);
        assert_eq!(bits, [0b00, 0b01, 0b10, 0b11]);
    }

    #[test]
    fn an_ack_travels_without_its_blocks_and_gets_them_back() {
        let mut store = SackStore::default();
        let mut sack = SackBlocks::default();
        sack.push(3000, 4500);
        sack.push(6000, 7500);
        let ack = TcpAck {
            ack: 1500,
            window: 65_535,
            ts_ecr: Some(SimTime(42)),
            sack,
            ecn: Ecn::Ect0,
            ece: true,
        };
        let r = AckRef::stow(&ack, &mut store);
        assert_eq!(store.in_use(), 1);
        assert_eq!(r.view(&store), ack);
        assert_eq!(r.unstow(&mut store), ack);
        assert_eq!(store.in_use(), 0);
        // Without blocks or timestamps, nothing is stored and nothing is lost:
        // an echo of time 0 stays distinct from no echo.
        for ts_ecr in [None, Some(SimTime::ZERO)] {
            let plain = TcpAck {
                ts_ecr,
                sack: SackBlocks::default(),
                ..ack
            };
            let r = AckRef::stow(&plain, &mut store);
            assert_eq!(store.in_use(), 0);
            assert_eq!(r.unstow(&mut store), plain);
        }
        let dropped = AckRef::stow(&ack, &mut store);
        dropped.release(&mut store);
        assert_eq!(store.in_use(), 0);
    }
}
