//! Captures of simulated packets in the classic libpcap file format, so that
//! Wireshark, tshark and tcptrace read a run as if it had been captured with tcpdump
//! on the nodes named in `trace.pcap`.
//!
//! Format (pcap-savefile(5), https://www.tcpdump.org/manpages/pcap-savefile.5.txt):
//! a 24-byte global header (magic 0xa1b2c3d4, version 2.4, microsecond timestamps,
//! LINKTYPE_ETHERNET), then per packet a 16-byte record header (seconds,
//! microseconds, captured length, original length) and the bytes.
//!
//! What is written, and what is made up because the simulator does not model it:
//! * Ethernet II (IEEE 802.3): made-up locally administered addresses
//!   02:00:00:00:hh:ll from the IP source and destination nodes (not the hop's), type
//!   IPv4.
//! * IPv4 (RFC 791): version 4, IHL 5, the DS field's ECN bits (RFC 3168 §5: the
//!   packet's codepoint, DSCP 0), total length = the simulated datagram size, ID
//!   = low 16 bits of the packet's uid, DF, TTL 64, protocol 6, header checksum;
//!   addresses 10.0.0.0 + node index + 1 (node 0 is 10.0.0.1).
//! * TCP (RFC 9293): ports 49152 + flow index (sender) and 5001 (receiver).
//!   Sequence numbers are those of a connection whose SYN took ISN 0 (the SYN and
//!   SYN-ACK of `tcp.handshake` carry seq 0, the SYN-ACK ack 1; without it no
//!   handshake is simulated): byte k of the stream has sequence number k + 1, in both directions
//!   (the receiver sends no data: its segments carry sequence number 1). Data
//!   segments carry ACK|PSH and acknowledge 1; ACKs carry ACK; CWR on data and ECE
//!   on ACKs, SYN and SYN-ACK as the segment has them (RFC 3168 §6.1). Window: the ACK's
//!   advertised window, clipped to 65535 (no window scaling without a SYN); data
//!   segments advertise 65535. Options as Linux lays them out: NOP, NOP, timestamps
//!   (RFC 7323: TSval the sender's clock in ms; the data segments' TSecr is not
//!   modelled and is 0), then NOP, NOP, SACK (RFC 2018). The checksum is computed
//!   over the whole segment as if its payload were zeros.
//! * SCTP (RFC 9260): `sctp` lays out the common header and every chunk, with the
//!   CRC32c checksum; the IPv4 protocol is then 132.
//! * UDP (RFC 768): ports as TCP's, length, and the checksum over the pseudo-header
//!   and a payload of zeros (0xffff for a sum of zero); the IPv4 protocol is 17.
//! * TCP and UDP payload bytes are not captured (the simulator has none): each TCP record
//!   holds the headers only, with the original length set to the full frame, as
//!   `tcpdump -s` with a short snap length writes them. An SCTP record holds the
//!   whole packet, user data as zeros, so that its CRC32c can be verified (see `sctp`).

mod sctp;

pub use sctp::AssociationWire;

use crate::packet::sack_store::SackStore;
use crate::packet::{
    ipv4_ecn, set_ipv4_ecn, Ecn, FlowId, NodeId, Packet, Payload, TcpAck, TcpData, TcpSyn,
};
use crate::time::SimTime;
use crate::transport::sctp::store::PacketStore;

const LINKTYPE_ETHERNET: u32 = 1;
const ETHERTYPE_IPV4: u16 = 0x0800;
const IPPROTO_TCP: u8 = 6;
const IPPROTO_UDP: u8 = 17;
const UDP_HEADER: usize = 8;
const ETHERNET_HEADER: usize = 14;
const IPV4_HEADER: usize = 20;
const TCP_HEADER: usize = 20;
/// Largest TCP headers a record holds: Ethernet + IPv4 + TCP with 40 option bytes.
const TCP_SNAP: usize = ETHERNET_HEADER + IPV4_HEADER + TCP_HEADER + 40;
/// The file's snap length: the largest frame a record may hold (SCTP records are
/// whole frames).
const SNAPLEN: u32 = 65535;
/// Port of every receiver; senders use 49152 + flow index (wrapping in the
/// dynamic range).
pub const RECEIVER_PORT: u16 = 5001;

/// The pcap file of one node: every packet it sends or receives.
pub struct PcapFile {
    pub node: NodeId,
    pub bytes: Vec<u8>,
}

impl PcapFile {
    pub fn new(node: NodeId) -> Self {
        let mut bytes = Vec::with_capacity(1 << 16);
        bytes.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        bytes.extend_from_slice(&2u16.to_le_bytes());
        bytes.extend_from_slice(&4u16.to_le_bytes());
        bytes.extend_from_slice(&0i32.to_le_bytes()); // thiszone: UTC
        bytes.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        bytes.extend_from_slice(&SNAPLEN.to_le_bytes());
        bytes.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        PcapFile { node, bytes }
    }

    /// Appends one record seen at `now`: the captured bytes of a frame whose full
    /// length is `original`.
    fn append(&mut self, now: SimTime, frame: &[u8], original: u32) {
        let micros = now.as_nanos() / 1_000;
        self.bytes
            .extend_from_slice(&((micros / 1_000_000) as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&((micros % 1_000_000) as u32).to_le_bytes());
        self.bytes
            .extend_from_slice(&(frame.len() as u32).to_le_bytes());
        self.bytes.extend_from_slice(&original.to_le_bytes());
        self.bytes.extend_from_slice(frame);
    }
}

/// The pcap files of a run, by node: empty when nothing is captured, so that the
/// per-packet check is one bounds test.
#[derive(Default)]
pub struct Captures {
    by_node: Vec<Option<PcapFile>>,
    /// Flow id of the first SCTP association (they follow the TCP flows).
    first_association: FlowId,
    /// What the SCTP layout needs beyond the packets, by association.
    associations: Vec<AssociationWire>,
    /// The frame being laid out (kept to reuse its buffer).
    frame: Vec<u8>,
    /// Live mode's packets seen at captured nodes, waiting for their bytes
    /// (`write_external`).
    external: Vec<ExternalCapture>,
}

/// A packet from outside the world seen at a captured node: its bytes are the
/// driver's (live mode's relay), which hands them over with `write_external`.
#[derive(Clone, Copy, Debug)]
struct ExternalCapture {
    time: SimTime,
    node: NodeId,
    src: NodeId,
    dst: NodeId,
    handle: u64,
    /// The ECN field here: a queue before this node may have marked it CE, which
    /// the real bytes do not show yet.
    ecn: Ecn,
}

impl Captures {
    pub fn new(nodes: usize, captured: &[NodeId]) -> Self {
        if captured.is_empty() {
            return Captures::default();
        }
        let mut by_node: Vec<Option<PcapFile>> = (0..nodes).map(|_| None).collect();
        for &n in captured {
            by_node[n as usize] = Some(PcapFile::new(n));
        }
        Captures {
            by_node,
            ..Captures::default()
        }
    }

    /// Declares the SCTP associations, whose flow ids start at `first`.
    pub fn add_associations(&mut self, first: FlowId, wires: Vec<AssociationWire>) {
        self.first_association = first;
        self.associations = wires;
    }

    /// Records `packet` if node `at` is captured; an SCTP packet's chunks are read
    /// from `store`, an ACK's SACK blocks from `sacks`. Called twice per hop: with
    /// capture off (no node captured) it is one inlined test, the encoding kept out
    /// of the packet path.
    #[inline]
    pub fn record(
        &mut self,
        now: SimTime,
        at: NodeId,
        packet: &Packet,
        store: &PacketStore,
        sacks: &SackStore,
    ) {
        if !self.by_node.is_empty() {
            self.record_at(now, at, packet, store, sacks);
        }
    }

    #[inline(never)]
    fn record_at(
        &mut self,
        now: SimTime,
        at: NodeId,
        packet: &Packet,
        store: &PacketStore,
        sacks: &SackStore,
    ) {
        if let Some(Some(file)) = self.by_node.get_mut(at as usize) {
            let frame = &mut self.frame;
            match packet.payload {
                Payload::Sctp(r) => {
                    let k = (packet.flow - self.first_association) as usize;
                    let body = store.get(r.body);
                    sctp::encode_frame(packet, r, body, &self.associations[k], frame);
                }
                // Its bytes are outside the world: recorded when the driver
                // hands them over.
                Payload::External(x) => {
                    self.external.push(ExternalCapture {
                        time: now,
                        node: at,
                        src: packet.src,
                        dst: packet.dst,
                        handle: x.handle,
                        ecn: x.ecn,
                    });
                    return;
                }
                Payload::Udp(_) => {
                    frame.resize(ETHERNET_HEADER + IPV4_HEADER + UDP_HEADER, 0);
                    encode_udp_frame(packet, frame);
                }
                Payload::TcpData(_) | Payload::TcpAck(_) | Payload::TcpSyn(_) => {
                    frame.resize(TCP_SNAP, 0);
                    let captured = encode_frame(packet, sacks, frame);
                    frame.truncate(captured);
                }
            }
            file.append(now, frame, ETHERNET_HEADER as u32 + packet.size);
        }
    }

    /// Writes the external packets recorded since the last call, with their real
    /// IP bytes as `bytes_of(handle)` gives them (after a made-up Ethernet header,
    /// as for simulated packets), with a CE mark the packet had at the node and its
    /// bytes do not carry yet written in; returns how many had no bytes any more.
    pub fn write_external<'a>(&mut self, bytes_of: impl Fn(u64) -> Option<&'a [u8]>) -> u64 {
        let mut missing = 0;
        for c in self.external.drain(..) {
            let (Some(Some(file)), Some(ip)) =
                (self.by_node.get_mut(c.node as usize), bytes_of(c.handle))
            else {
                missing += 1;
                continue;
            };
            let frame = &mut self.frame;
            frame.clear();
            frame.extend_from_slice(&ethernet_header(c.src, c.dst));
            frame.extend_from_slice(ip);
            if c.ecn == Ecn::Ce && ipv4_ecn(ip) != Ecn::Ce {
                set_ipv4_ecn(&mut frame[ETHERNET_HEADER..], Ecn::Ce);
            }
            file.append(c.time, frame, frame.len() as u32);
        }
        missing
    }

    /// Bytes of the captures written so far.
    pub fn bytes_held(&self) -> u64 {
        self.by_node
            .iter()
            .flatten()
            .map(|f| f.bytes.capacity() as u64)
            .sum()
    }

    pub fn into_files(self) -> impl Iterator<Item = PcapFile> {
        self.by_node.into_iter().flatten()
    }
}

/// Writes the Ethernet, IPv4 and TCP headers of `packet` into `out`; returns their
/// length.
fn encode_frame(packet: &Packet, sacks: &SackStore, out: &mut [u8]) -> usize {
    encode_ethernet(packet, out);
    let ip = &mut out[ETHERNET_HEADER..];
    let tcp_len = match packet.payload {
        Payload::TcpData(d) => encode_data(packet, &d, &mut ip[IPV4_HEADER..]),
        Payload::TcpAck(a) => encode_ack(packet, &a.view(sacks), &mut ip[IPV4_HEADER..]),
        Payload::TcpSyn(s) => encode_syn(packet, &s, &mut ip[IPV4_HEADER..]),
        Payload::Sctp(_) | Payload::External(_) | Payload::Udp(_) => {
            unreachable!("Captures::record lays out SCTP and UDP apart and skips external packets")
        }
    };
    encode_ipv4(packet, IPPROTO_TCP, ip);
    let segment_len = packet.size as usize - IPV4_HEADER;
    let header = &ip[IPV4_HEADER..IPV4_HEADER + tcp_len];
    let checksum = transport_checksum(packet, IPPROTO_TCP, header, segment_len);
    ip[IPV4_HEADER + 16..IPV4_HEADER + 18].copy_from_slice(&checksum.to_be_bytes());
    ETHERNET_HEADER + IPV4_HEADER + tcp_len
}

/// Writes the Ethernet, IPv4 and UDP headers of a datagram into `out` (their
/// length exactly).
fn encode_udp_frame(packet: &Packet, out: &mut [u8]) {
    encode_ethernet(packet, out);
    let ip = &mut out[ETHERNET_HEADER..];
    encode_ipv4(packet, IPPROTO_UDP, ip);
    let length = (packet.size as usize - IPV4_HEADER) as u16;
    let udp = &mut ip[IPV4_HEADER..IPV4_HEADER + UDP_HEADER];
    udp[0..2].copy_from_slice(&sender_port(packet).to_be_bytes());
    udp[2..4].copy_from_slice(&RECEIVER_PORT.to_be_bytes());
    udp[4..6].copy_from_slice(&length.to_be_bytes());
    udp[6..8].fill(0);
    let checksum = match transport_checksum(packet, IPPROTO_UDP, udp, length as usize) {
        // RFC 768: a computed zero is sent as all ones (zero means "no checksum").
        0 => 0xffff,
        c => c,
    };
    udp[6..8].copy_from_slice(&checksum.to_be_bytes());
}

/// Ethernet II header: made-up addresses of the IP source and destination nodes.
fn ethernet_header(src: NodeId, dst: NodeId) -> [u8; ETHERNET_HEADER] {
    let mut h = [0u8; ETHERNET_HEADER];
    h[0..6].copy_from_slice(&mac(dst));
    h[6..12].copy_from_slice(&mac(src));
    h[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
    h
}

fn encode_ethernet(packet: &Packet, out: &mut [u8]) {
    out[..ETHERNET_HEADER].copy_from_slice(&ethernet_header(packet.src, packet.dst));
}

fn mac(node: NodeId) -> [u8; 6] {
    [0x02, 0, 0, 0, (node >> 8) as u8, node as u8]
}

/// 10.0.0.0 + node + 1.
pub fn ipv4_address(node: NodeId) -> [u8; 4] {
    let a = 0x0a00_0000u32 + node + 1;
    a.to_be_bytes()
}

fn encode_ipv4(packet: &Packet, protocol: u8, ip: &mut [u8]) {
    ip[0] = 0x45;
    ip[1] = packet.ecn() as u8;
    ip[2..4].copy_from_slice(&(packet.size as u16).to_be_bytes());
    ip[4..6].copy_from_slice(&(packet.uid as u16).to_be_bytes());
    ip[6..8].copy_from_slice(&0x4000u16.to_be_bytes()); // DF
    ip[8] = 64;
    ip[9] = protocol;
    ip[10..12].fill(0);
    ip[12..16].copy_from_slice(&ipv4_address(packet.src));
    ip[16..20].copy_from_slice(&ipv4_address(packet.dst));
    let checksum = internet_checksum(sum_words(0, &ip[..IPV4_HEADER]));
    ip[10..12].copy_from_slice(&checksum.to_be_bytes());
}

fn sender_port(packet: &Packet) -> u16 {
    49152 + (packet.flow % 16384) as u16
}

fn encode_data(packet: &Packet, d: &TcpData, tcp: &mut [u8]) -> usize {
    let mut options = Options::new();
    if let Some(ts) = d.ts_val {
        options.timestamps(millis(ts), 0);
    }
    let header = TcpHeader {
        src_port: sender_port(packet),
        dst_port: RECEIVER_PORT,
        seq: d.seq.wrapping_add(1) as u32,
        ack: 1,
        flags: FLAG_ACK | FLAG_PSH | if d.cwr { FLAG_CWR } else { 0 },
        window: u16::MAX,
    };
    header.write(&options, tcp)
}

fn encode_ack(packet: &Packet, a: &TcpAck, tcp: &mut [u8]) -> usize {
    let mut options = Options::new();
    if let Some(ecr) = a.ts_ecr {
        options.timestamps(millis(packet.created), millis(ecr));
    }
    if !a.sack.is_empty() {
        options.sack(a.sack.as_slice());
    }
    let header = TcpHeader {
        src_port: RECEIVER_PORT,
        dst_port: sender_port(packet),
        seq: 1,
        ack: a.ack.wrapping_add(1) as u32,
        flags: FLAG_ACK | if a.ece { FLAG_ECE } else { 0 },
        window: a.window.min(u16::MAX as u64) as u16,
    };
    header.write(&options, tcp)
}

/// A SYN (ISN 0) or SYN-ACK (ISN 0, acknowledging the SYN): the sequence numbers
/// the data segments' k + 1 presume.
fn encode_syn(packet: &Packet, s: &TcpSyn, tcp: &mut [u8]) -> usize {
    let mut options = Options::new();
    if s.timestamps {
        options.timestamps(millis(packet.created), 0);
    }
    let (src_port, dst_port) = if s.syn_ack {
        (RECEIVER_PORT, sender_port(packet))
    } else {
        (sender_port(packet), RECEIVER_PORT)
    };
    let header = TcpHeader {
        src_port,
        dst_port,
        seq: 0,
        ack: if s.syn_ack { 1 } else { 0 },
        flags: if s.syn_ack {
            FLAG_SYN | FLAG_ACK
        } else {
            FLAG_SYN
        } | if s.ece { FLAG_ECE } else { 0 }
            | if s.cwr { FLAG_CWR } else { 0 },
        window: u16::MAX,
    };
    header.write(&options, tcp)
}

fn millis(t: SimTime) -> u32 {
    (t.as_nanos() / 1_000_000) as u32
}

const FLAG_SYN: u8 = 0x02;
const FLAG_PSH: u8 = 0x08;
const FLAG_ACK: u8 = 0x10;
/// RFC 3168 §6.1: ECN-Echo and Congestion Window Reduced, bits 9 and 8 of the
/// header's flags (byte 13's two high bits).
const FLAG_ECE: u8 = 0x40;
const FLAG_CWR: u8 = 0x80;

struct TcpHeader {
    src_port: u16,
    dst_port: u16,
    seq: u32,
    ack: u32,
    flags: u8,
    window: u16,
}

impl TcpHeader {
    /// Writes the header and its options (checksum left 0); returns the length.
    fn write(&self, options: &Options, tcp: &mut [u8]) -> usize {
        let len = TCP_HEADER + options.len;
        tcp[0..2].copy_from_slice(&self.src_port.to_be_bytes());
        tcp[2..4].copy_from_slice(&self.dst_port.to_be_bytes());
        tcp[4..8].copy_from_slice(&self.seq.to_be_bytes());
        tcp[8..12].copy_from_slice(&self.ack.to_be_bytes());
        tcp[12] = ((len / 4) as u8) << 4;
        tcp[13] = self.flags;
        tcp[14..16].copy_from_slice(&self.window.to_be_bytes());
        tcp[16..20].fill(0);
        tcp[TCP_HEADER..len].copy_from_slice(&options.bytes[..options.len]);
        len
    }
}

/// TCP options, each padded with leading NOPs to a 4-byte boundary as Linux does.
struct Options {
    bytes: [u8; 40],
    len: usize,
}

impl Options {
    fn new() -> Self {
        Options {
            bytes: [0; 40],
            len: 0,
        }
    }

    /// NOP, NOP, kind 8, length 10, TSval, TSecr (RFC 7323 §3).
    fn timestamps(&mut self, ts_val: u32, ts_ecr: u32) {
        let b = &mut self.bytes[self.len..self.len + 12];
        b[..4].copy_from_slice(&[1, 1, 8, 10]);
        b[4..8].copy_from_slice(&ts_val.to_be_bytes());
        b[8..12].copy_from_slice(&ts_ecr.to_be_bytes());
        self.len += 12;
    }

    /// NOP, NOP, kind 5, length 2 + 8n, then each block's left and right edges
    /// (RFC 2018 §3), in sequence-number space (byte k is k + 1).
    fn sack(&mut self, blocks: &[(u64, u64)]) {
        let len = 2 + 8 * blocks.len();
        self.bytes[self.len..self.len + 4].copy_from_slice(&[1, 1, 5, len as u8]);
        let mut at = self.len + 4;
        for &(start, end) in blocks {
            self.bytes[at..at + 4].copy_from_slice(&(start.wrapping_add(1) as u32).to_be_bytes());
            self.bytes[at + 4..at + 8].copy_from_slice(&(end.wrapping_add(1) as u32).to_be_bytes());
            at += 8;
        }
        self.len = at;
    }
}

/// TCP checksum (RFC 9293 §3.1): over the pseudo-header and the segment, whose
/// payload (`segment_len` minus the header) is taken as zeros, which add nothing.
fn transport_checksum(packet: &Packet, protocol: u8, header: &[u8], segment_len: usize) -> u16 {
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&ipv4_address(packet.src));
    pseudo[4..8].copy_from_slice(&ipv4_address(packet.dst));
    pseudo[9] = protocol;
    pseudo[10..12].copy_from_slice(&(segment_len as u16).to_be_bytes());
    internet_checksum(sum_words(sum_words(0, &pseudo), header))
}

/// Adds `bytes` as big-endian 16-bit words (an odd last byte padded with zero).
fn sum_words(mut sum: u32, bytes: &[u8]) -> u32 {
    let mut chunks = bytes.chunks_exact(2);
    for w in &mut chunks {
        sum += u16::from_be_bytes([w[0], w[1]]) as u32;
    }
    if let [last] = chunks.remainder() {
        sum += (*last as u32) << 8;
    }
    sum
}

/// The ones' complement of the ones' complement sum (RFC 1071).
fn internet_checksum(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{example_ipv4_header, AckRef, ExternalRef, SackBlocks};

    fn data_packet() -> Packet {
        Packet {
            uid: 7,
            flow: 0,
            src: 0,
            dst: 1,
            size: 40 + 1000,
            created: SimTime::ZERO,
            payload: Payload::TcpData(TcpData {
                seq: 0,
                len: 1000,
                ts_val: None,
                retransmission: false,
                ecn: Default::default(),
                cwr: false,
            }),
        }
    }

    #[test]
    fn rfc1071_checksum_example() {
        // RFC 1071 §3: the words 0001 f203 f4f5 f6f7 sum to 2ddf0 → ddf2 after the
        // end-around carry; the checksum is its complement, 220d.
        let bytes = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(sum_words(0, &bytes), 0x2ddf0);
        assert_eq!(internet_checksum(sum_words(0, &bytes)), 0x220d);
    }

    #[test]
    fn syn_and_syn_ack_carry_isn_0_and_their_flags() {
        // SYN: 49152 → 5001, seq 0, ack 0, flags 0x02; SYN-ACK: 5001 → 49152, seq 0,
        // ack 1, flags 0x12. 40 B: a 20 B TCP header, no options.
        for (syn_ack, ports, ack, flags) in [
            (false, (49152, 5001), 0, 0x02),
            (true, (5001, 49152), 1, 0x12),
        ] {
            let mut p = data_packet();
            p.size = 40;
            p.payload = Payload::TcpSyn(TcpSyn {
                syn_ack,
                timestamps: false,
                ece: false,
                cwr: false,
            });
            let mut frame = [0u8; TCP_SNAP];
            let no_sacks = SackStore::default();
            assert_eq!(encode_frame(&p, &no_sacks, &mut frame), 14 + 20 + 20);
            let tcp = &frame[34..];
            assert_eq!(u16::from_be_bytes([tcp[0], tcp[1]]), ports.0);
            assert_eq!(u16::from_be_bytes([tcp[2], tcp[3]]), ports.1);
            assert_eq!(u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]), 0);
            assert_eq!(u32::from_be_bytes([tcp[8], tcp[9], tcp[10], tcp[11]]), ack);
            assert_eq!(tcp[13], flags);
        }
    }

    #[test]
    fn udp_header_carries_ports_length_and_a_checksum_that_verifies() {
        // A 500 B datagram: UDP length 500 − 20 = 480. A receiver sums the
        // pseudo-header (10.0.0.1, 10.0.0.2, 17, 480) with the UDP header and the
        // zero payload: the result must be 0xffff (RFC 768, RFC 1071).
        let mut p = data_packet();
        p.size = 500;
        p.payload = Payload::Udp(crate::packet::UdpDatagram { seq: 3 });
        let mut frame = [0u8; 14 + 20 + 8];
        encode_udp_frame(&p, &mut frame);
        assert_eq!(frame[14 + 9], 17);
        let udp = &frame[34..];
        assert_eq!(u16::from_be_bytes([udp[0], udp[1]]), 49152);
        assert_eq!(u16::from_be_bytes([udp[2], udp[3]]), RECEIVER_PORT);
        assert_eq!(u16::from_be_bytes([udp[4], udp[5]]), 480);
        let pseudo = [
            10,
            0,
            0,
            1,
            10,
            0,
            0,
            2,
            0,
            17,
            480u16.to_be_bytes()[0],
            480u16.to_be_bytes()[1],
        ];
        let mut sum = sum_words(sum_words(0, &pseudo), udp);
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        assert_eq!(sum, 0xffff);
    }

    #[test]
    fn ipv4_header_checksum_verifies_to_zero() {
        // A receiver sums the header with its checksum: the result must be 0xffff.
        let mut frame = [0u8; TCP_SNAP];
        let n = encode_frame(&data_packet(), &SackStore::default(), &mut frame);
        assert_eq!(n, 14 + 20 + 20);
        let ip = &frame[14..34];
        assert_eq!(internet_checksum(sum_words(0, ip)), 0);
        // Hand-computed fields: total length 1040 = 0x0410, ID 7, 10.0.0.1 → 10.0.0.2.
        assert_eq!(&ip[..4], &[0x45, 0, 0x04, 0x10]);
        assert_eq!(&ip[4..6], &[0, 7]);
        assert_eq!(&ip[12..20], &[10, 0, 0, 1, 10, 0, 0, 2]);
    }

    #[test]
    fn tcp_header_of_a_data_segment() {
        let mut frame = [0u8; TCP_SNAP];
        encode_frame(&data_packet(), &SackStore::default(), &mut frame);
        let tcp = &frame[34..54];
        // Ports 49152 = 0xc000 and 5001 = 0x1389; byte 0 has sequence number 1.
        assert_eq!(&tcp[..4], &[0xc0, 0x00, 0x13, 0x89]);
        assert_eq!(&tcp[4..8], &[0, 0, 0, 1]);
        assert_eq!(tcp[12], 5 << 4);
        assert_eq!(tcp[13], FLAG_ACK | FLAG_PSH);
        // The checksum with 1000 zero payload bytes verifies: pseudo-header + header.
        let mut pseudo = [0u8; 12];
        pseudo[..8].copy_from_slice(&[10, 0, 0, 1, 10, 0, 0, 2]);
        pseudo[9] = 6;
        pseudo[10..].copy_from_slice(&1020u16.to_be_bytes());
        assert_eq!(internet_checksum(sum_words(sum_words(0, &pseudo), tcp)), 0);
    }

    #[test]
    fn ack_options_follow_linux_layout_and_the_packet_size() {
        let mut sack = SackBlocks::default();
        sack.push(2000, 3000);
        sack.push(4000, 5000);
        let mut sacks = SackStore::default();
        let tcp_ack = TcpAck {
            ack: 1000,
            window: 1 << 20,
            ts_ecr: Some(SimTime::from_millis(5)),
            sack,
            ecn: Default::default(),
            ece: false,
        };
        let ack = Packet {
            size: 40 + 12 + sack.option_bytes(),
            payload: Payload::TcpAck(AckRef::stow(&tcp_ack, &mut sacks)),
            created: SimTime::from_millis(9),
            src: 1,
            dst: 0,
            ..data_packet()
        };
        let mut frame = [0u8; TCP_SNAP];
        let n = encode_frame(&ack, &sacks, &mut frame);
        // The record holds exactly the datagram's headers: 14 + 20 + 20 + 12 + 20.
        assert_eq!(n, 14 + ack.size as usize);
        let tcp = &frame[34..n];
        assert_eq!(&tcp[8..12], &1001u32.to_be_bytes());
        assert_eq!(&tcp[14..16], &[0xff, 0xff]); // 1 MiB clipped to 65535
        assert_eq!(&tcp[20..24], &[1, 1, 8, 10]);
        assert_eq!(&tcp[24..28], &9u32.to_be_bytes()); // TSval: created, in ms
        assert_eq!(&tcp[28..32], &5u32.to_be_bytes()); // TSecr
        assert_eq!(&tcp[32..36], &[1, 1, 5, 18]);
        assert_eq!(&tcp[36..40], &2001u32.to_be_bytes());
        assert_eq!(&tcp[40..44], &3001u32.to_be_bytes());
    }

    /// A data segment, an ACK, a SYN and a SYN-ACK with ECN's marks: (packet,
    /// IP ECN bits, TCP flags byte) as RFC 791's DS byte and RFC 3168 §6.1 lay them
    /// out. Data ECT(0) with CWR: 0b10, ACK|PSH|CWR = 0x10 | 0x08 | 0x80 = 0x98;
    /// data CE: 0b11, 0x18; an ACK echoing CE: 0b00, ACK|ECE = 0x50; an ECN-setup
    /// SYN: SYN|ECE|CWR = 0x02 | 0x40 | 0x80 = 0xc2; its SYN-ACK: SYN|ACK|ECE = 0x52.
    fn ecn_packets(sacks: &mut SackStore) -> Vec<(Packet, u8, u8)> {
        let data = |ecn, cwr| Packet {
            payload: Payload::TcpData(TcpData {
                seq: 0,
                len: 1000,
                ts_val: None,
                retransmission: false,
                ecn,
                cwr,
            }),
            ..data_packet()
        };
        let ack = TcpAck {
            ack: 1000,
            window: 65_535,
            ts_ecr: None,
            sack: SackBlocks::default(),
            ecn: Ecn::NotEct,
            ece: true,
        };
        let syn = |syn_ack, ece, cwr| Packet {
            size: 40,
            payload: Payload::TcpSyn(TcpSyn {
                syn_ack,
                timestamps: false,
                ece,
                cwr,
            }),
            ..data_packet()
        };
        vec![
            (data(Ecn::Ect0, true), 0b10, 0x98),
            (data(Ecn::Ce, false), 0b11, 0x18),
            (
                Packet {
                    size: 40,
                    src: 1,
                    dst: 0,
                    payload: Payload::TcpAck(AckRef::stow(&ack, sacks)),
                    ..data_packet()
                },
                0b00,
                0x50,
            ),
            (syn(false, true, true), 0b00, 0xc2),
            (syn(true, true, false), 0b00, 0x52),
        ]
    }

    #[test]
    fn the_ecn_field_and_flags_are_in_the_headers() {
        let mut sacks = SackStore::default();
        for (p, ecn, flags) in ecn_packets(&mut sacks) {
            let mut frame = [0u8; TCP_SNAP];
            encode_frame(&p, &sacks, &mut frame);
            let ip = &frame[14..34];
            assert_eq!((ip[1], frame[34 + 13]), (ecn, flags), "{:?}", p.payload);
            // The DS byte is under the header checksum: it still verifies.
            assert_eq!(internet_checksum(sum_words(0, ip)), 0);
        }
    }

    #[test]
    fn tshark_reads_the_ecn_field_and_flags() {
        // Where tshark is installed (.ci/run installs it), it decodes what the test
        // above checks byte by byte: ip.dsfield.ecn 2, 3, 0, 0, 0; ECE on the ACK,
        // the SYN and the SYN-ACK; CWR on the first data segment and the SYN.
        if std::process::Command::new("tshark")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("tshark is not installed: not checked");
            return;
        }
        let mut sacks = SackStore::default();
        let packets = ecn_packets(&mut sacks);
        let mut c = Captures::new(2, &[0]);
        let store = PacketStore::default();
        for (i, (p, _, _)) in packets.iter().enumerate() {
            c.record(SimTime::from_millis(i as u64), 0, p, &store, &sacks);
        }
        let bytes = c.into_files().next().unwrap().bytes;
        let path = std::env::temp_dir().join(format!("cwnd-ecn-{}.pcap", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let out = std::process::Command::new("tshark")
            .args(["-n", "-r"])
            .arg(&path)
            .args(["-T", "fields", "-E", "separator=,"])
            .args([
                "-e",
                "ip.dsfield.ecn",
                "-e",
                "tcp.flags.ece",
                "-e",
                "tcp.flags.cwr",
            ])
            .output()
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(
            rows,
            ["2,0,1", "3,0,0", "0,1,0", "0,1,1", "0,1,0"],
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn an_external_packet_marked_ce_is_captured_with_the_mark() {
        // A live packet sent ECT(0) (DS byte 0x02, header checksum 0xb85f: the
        // example header 4500 0073 0000 4000 4011 b861 c0a8 0001 c0a8 00c7 with its
        // first word 0x4502, sum 0x47a0, complemented 0xb85f), seen at node 0 before
        // a queue marked it and at node 1 after (CE): the first record keeps its
        // bytes, the second has DS byte 0x03 and checksum 0xb85e. A Not-ECT packet is
        // never CE in the world, so only a mark is ever written.
        let mut ip = example_ipv4_header(0x4502, 0xb85f);
        ip.resize(0x73, 0);
        let external = |ecn| Packet {
            payload: Payload::External(ExternalRef {
                handle: 9,
                data: true,
                ecn,
            }),
            size: 0x73,
            ..data_packet()
        };
        let mut c = Captures::new(2, &[0, 1]);
        let (store, sacks) = (PacketStore::default(), SackStore::default());
        c.record(SimTime::ZERO, 0, &external(Ecn::Ect0), &store, &sacks);
        c.record(SimTime::ZERO, 1, &external(Ecn::Ce), &store, &sacks);
        assert_eq!(c.write_external(|h| (h == 9).then_some(ip.as_slice())), 0);
        let files: Vec<PcapFile> = c.into_files().collect();
        // 24-byte file header, 16-byte record header, 14-byte Ethernet header.
        let header = |f: &PcapFile| f.bytes[54..74].to_vec();
        assert_eq!(header(&files[0]), ip[..20]);
        let marked = header(&files[1]);
        assert_eq!((marked[1], &marked[10..12]), (0x03, &[0xb8u8, 0x5e][..]));
        assert_eq!(internet_checksum(sum_words(0, &marked)), 0);
    }

    #[test]
    fn file_and_record_headers() {
        let mut c = Captures::new(1, &[0]);
        let store = PacketStore::default();
        c.record(
            SimTime::from_nanos(2_500_001_999),
            0,
            &data_packet(),
            &store,
            &SackStore::default(),
        );
        let f = c.into_files().next().unwrap();
        assert_eq!(&f.bytes[..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(&f.bytes[16..20], &65535u32.to_le_bytes()); // snap length
        let rec = &f.bytes[24..40];
        assert_eq!(&rec[0..4], &2u32.to_le_bytes()); // seconds
        assert_eq!(&rec[4..8], &500_001u32.to_le_bytes()); // microseconds, truncated
        assert_eq!(&rec[8..12], &54u32.to_le_bytes()); // headers captured
        assert_eq!(&rec[12..16], &1054u32.to_le_bytes()); // the whole frame
        assert_eq!(f.bytes.len(), 24 + 16 + 54);
    }
}
