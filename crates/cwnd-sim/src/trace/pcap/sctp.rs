//! SCTP packets in a capture, laid out from the chunks the simulator moves
//! (`transport::sctp::chunk`) as RFC 9260 §3 puts them on the wire, so that Wireshark
//! and tshark dissect them.
//!
//! What is written, and what is made up because the simulator does not model it:
//! * Common header (§3.1): port 49152 + flow id for the data sender A (as TCP
//!   senders) and 5001 for the receiver Z. Verification tag: 0 on INIT, Z's Initiate
//!   Tag on every other packet to Z, A's on packets to A (§8.5). The model has no
//!   tags: A's is 0xa0000000 + flow id, Z's 0xb0000000 + flow id (never 0, §3.3.2).
//!   Checksum: CRC32c (§6.8, Appendix B) over the whole packet, the user data taken as
//!   zeros (the simulator has none).
//! * DATA (§3.3.1): flags U, B, E; length 16 + user data (the padding after it is not
//!   counted, §3.2); TSN (its low 32 bits: the model counts TSNs from 1 in 64 bits),
//!   stream, SSN (its low 16 bits), PPID 0 (unspecified); user data and padding zeros.
//! * SACK (§3.3.4): cumulative TSN ack, a_rwnd (clipped to 32 bits), gap ack blocks as
//!   16-bit offsets from the cumulative TSN ack (clipped to 65535: the model does not
//!   bound them), duplicate TSNs.
//! * INIT and INIT ACK (§3.3.2, §3.3.3): Initiate Tag, a_rwnd = Z's receive buffer
//!   (in both: A receives no data, so its buffer is not modelled), outbound and
//!   inbound streams = the association's streams, initial TSN 1; INIT ACK then the
//!   State Cookie parameter (32 zero bytes); then an IPv4 Address parameter per
//!   address when the endpoint is multihomed, in the scenario's order.
//! * COOKIE ECHO: the same 32 bytes. HEARTBEAT and HEARTBEAT ACK: a Heartbeat Info
//!   parameter (§3.3.5) with the sending time in nanoseconds (8 bytes), the path index
//!   and 7 zero bytes. SHUTDOWN: the cumulative TSN ack. COOKIE ACK, SHUTDOWN ACK and
//!   SHUTDOWN COMPLETE (T bit clear) are their 4-byte header. The model sends no
//!   ABORT or ERROR chunk (a failed association stops without telling its peer).
//!
//! Captured bytes: the whole packet, user data written as zeros (1514 bytes for a
//! full-sized DATA packet at MTU 1500, plus the 16-byte record header), unlike TCP's
//! headers-only records: the CRC32c covers every byte of the packet, so a decoder can
//! only verify it on a whole one.

use crc::{Crc, Table, CRC_32_ISCSI};

use super::RECEIVER_PORT;
use super::{encode_ethernet, encode_ipv4, sender_port, ETHERNET_HEADER, IPV4_HEADER};
use crate::packet::{NodeId, Packet, SctpRef};
use crate::transport::sctp::chunk::{
    Control, DataChunk, SctpPacket, COOKIE, DATA_CHUNK_HEADER, HEARTBEAT_INFO,
};

const IPPROTO_SCTP: u8 = 132;

/// CRC32c (Castagnoli polynomial 0x1EDC6F41, reflected, initial value and final XOR
/// 0xFFFFFFFF): the algorithm of RFC 9260 Appendix B, catalogued as CRC-32/ISCSI.
static CRC32C: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);

/// Chunk types (§3.2).
const DATA: u8 = 0;
const INIT: u8 = 1;
const INIT_ACK: u8 = 2;
const SACK: u8 = 3;
const HEARTBEAT: u8 = 4;
const HEARTBEAT_ACK: u8 = 5;
const SHUTDOWN: u8 = 7;
const SHUTDOWN_ACK: u8 = 8;
const COOKIE_ECHO: u8 = 10;
const COOKIE_ACK: u8 = 11;
const SHUTDOWN_COMPLETE: u8 = 14;

/// Parameter types (§3.3.2.1, §3.3.3.1, §3.3.5).
const HEARTBEAT_INFO_PARAMETER: u16 = 1;
const IPV4_ADDRESS_PARAMETER: u16 = 5;
const STATE_COOKIE_PARAMETER: u16 = 7;

/// DATA chunk flags (§3.3.1).
const FLAG_UNORDERED: u8 = 0x04;
const FLAG_BEGIN: u8 = 0x02;
const FLAG_END: u8 = 0x01;

/// What a capture needs to know about an association beyond its packets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssociationWire {
    /// A's addresses, then Z's, in the scenario's order.
    pub sender: Vec<NodeId>,
    pub receiver: Vec<NodeId>,
    /// Streams each way.
    pub streams: u16,
    /// Z's receive buffer (bytes), advertised in INIT and INIT ACK.
    pub a_rwnd: u64,
}

/// Initiate Tags of A and Z for association flow `flow`.
fn tags(flow: u32) -> (u32, u32) {
    (0xa000_0000 | flow, 0xb000_0000 | flow)
}

/// Lays out the Ethernet, IPv4 and SCTP headers and chunks of `packet` (whose chunks
/// are `body`) into `frame`, as much as is captured.
pub(super) fn encode_frame(
    packet: &Packet,
    r: SctpRef,
    body: &SctpPacket,
    wire: &AssociationWire,
    frame: &mut Vec<u8>,
) {
    frame.clear();
    frame.resize(ETHERNET_HEADER + IPV4_HEADER, 0);
    encode_ethernet(packet, frame);
    let start = frame.len();
    let (tag_a, tag_z) = tags(packet.flow);
    let a_port = sender_port(packet);
    let (src_port, dst_port, tag) = if r.to_sender {
        (RECEIVER_PORT, a_port, tag_a)
    } else if matches!(body.control.first(), Some(Control::Init { .. })) {
        (a_port, RECEIVER_PORT, 0)
    } else {
        (a_port, RECEIVER_PORT, tag_z)
    };
    frame.extend_from_slice(&src_port.to_be_bytes());
    frame.extend_from_slice(&dst_port.to_be_bytes());
    frame.extend_from_slice(&tag.to_be_bytes());
    frame.extend_from_slice(&[0; 4]); // checksum, computed last
    for &c in &body.control {
        write_control(c, wire, (tag_a, tag_z), frame);
    }
    if let Some(sack) = body.sack {
        write_sack(sack.cumulative_tsn, sack.a_rwnd, body, frame);
    }
    for d in &body.data {
        write_data_header(d, frame);
        // User data and padding (§3.2), as zeros.
        let rest = (d.wire_size() - DATA_CHUNK_HEADER) as usize;
        frame.resize(frame.len() + rest, 0);
    }
    debug_assert_eq!(
        IPV4_HEADER + frame.len() - start,
        packet.size as usize,
        "the layout must add up to the simulated size"
    );
    let checksum = CRC32C.checksum(&frame[start..]);
    // The reflected CRC goes least significant byte first (Appendix B; Linux writes
    // cpu_to_le32(crc)).
    frame[start + 8..start + 12].copy_from_slice(&checksum.to_le_bytes());
    encode_ipv4(packet, IPPROTO_SCTP, &mut frame[ETHERNET_HEADER..]);
}

/// Type, flags and length: the 4 bytes every chunk starts with (§3.2).
fn chunk_header(kind: u8, flags: u8, len: u32, frame: &mut Vec<u8>) {
    frame.push(kind);
    frame.push(flags);
    frame.extend_from_slice(&(len as u16).to_be_bytes());
}

fn write_data_header(d: &DataChunk, frame: &mut Vec<u8>) {
    let mut flags = 0;
    if d.unordered {
        flags |= FLAG_UNORDERED;
    }
    if d.begin {
        flags |= FLAG_BEGIN;
    }
    if d.end {
        flags |= FLAG_END;
    }
    chunk_header(DATA, flags, DATA_CHUNK_HEADER + d.len, frame);
    frame.extend_from_slice(&(d.tsn as u32).to_be_bytes());
    frame.extend_from_slice(&d.stream.to_be_bytes());
    frame.extend_from_slice(&(d.ssn as u16).to_be_bytes());
    frame.extend_from_slice(&0u32.to_be_bytes()); // PPID
}

fn write_sack(cumulative_tsn: u64, a_rwnd: u64, body: &SctpPacket, frame: &mut Vec<u8>) {
    let entries = body.gaps.len() + body.duplicates.len();
    chunk_header(SACK, 0, 16 + 4 * entries as u32, frame);
    frame.extend_from_slice(&(cumulative_tsn as u32).to_be_bytes());
    frame.extend_from_slice(&(a_rwnd.min(u32::MAX as u64) as u32).to_be_bytes());
    frame.extend_from_slice(&(body.gaps.len() as u16).to_be_bytes());
    frame.extend_from_slice(&(body.duplicates.len() as u16).to_be_bytes());
    let offset = |tsn: u64| (tsn - cumulative_tsn).min(u16::MAX as u64) as u16;
    for &(start, end) in &body.gaps {
        frame.extend_from_slice(&offset(start).to_be_bytes());
        frame.extend_from_slice(&offset(end).to_be_bytes());
    }
    for &tsn in &body.duplicates {
        frame.extend_from_slice(&(tsn as u32).to_be_bytes());
    }
}

fn write_control(
    c: Control,
    wire: &AssociationWire,
    (tag_a, tag_z): (u32, u32),
    out: &mut Vec<u8>,
) {
    let len = c.wire_size();
    match c {
        Control::Init { addresses } => {
            chunk_header(INIT, 0, len, out);
            write_init_fields(tag_a, wire, out);
            write_addresses(&wire.sender[..addresses as usize], out);
        }
        Control::InitAck { addresses } => {
            chunk_header(INIT_ACK, 0, len, out);
            write_init_fields(tag_z, wire, out);
            write_state_cookie(out);
            write_addresses(&wire.receiver[..addresses as usize], out);
        }
        Control::CookieEcho => {
            // The chunk's value is the cookie itself (§3.3.11): no parameter header.
            chunk_header(COOKIE_ECHO, 0, len, out);
            out.resize(out.len() + COOKIE as usize, 0);
        }
        Control::Heartbeat { path, sent } | Control::HeartbeatAck { path, sent } => {
            let kind = if matches!(c, Control::Heartbeat { .. }) {
                HEARTBEAT
            } else {
                HEARTBEAT_ACK
            };
            chunk_header(kind, 0, len, out);
            out.extend_from_slice(&HEARTBEAT_INFO_PARAMETER.to_be_bytes());
            out.extend_from_slice(&(4 + HEARTBEAT_INFO as u16).to_be_bytes());
            out.extend_from_slice(&sent.as_nanos().to_be_bytes());
            out.push(path);
            out.resize(out.len() + HEARTBEAT_INFO as usize - 9, 0);
        }
        Control::Shutdown { cumulative_tsn } => {
            chunk_header(SHUTDOWN, 0, len, out);
            out.extend_from_slice(&(cumulative_tsn as u32).to_be_bytes());
        }
        Control::CookieAck => chunk_header(COOKIE_ACK, 0, len, out),
        Control::ShutdownAck => chunk_header(SHUTDOWN_ACK, 0, len, out),
        Control::ShutdownComplete => chunk_header(SHUTDOWN_COMPLETE, 0, len, out),
    }
}

/// Initiate Tag, a_rwnd, outbound and inbound streams, initial TSN (§3.3.2).
fn write_init_fields(tag: u32, wire: &AssociationWire, out: &mut Vec<u8>) {
    out.extend_from_slice(&tag.to_be_bytes());
    out.extend_from_slice(&(wire.a_rwnd.min(u32::MAX as u64) as u32).to_be_bytes());
    out.extend_from_slice(&wire.streams.to_be_bytes());
    out.extend_from_slice(&wire.streams.to_be_bytes());
    out.extend_from_slice(&1u32.to_be_bytes());
}

/// A State Cookie parameter of COOKIE zero bytes (§3.3.3.1).
fn write_state_cookie(out: &mut Vec<u8>) {
    out.extend_from_slice(&STATE_COOKIE_PARAMETER.to_be_bytes());
    out.extend_from_slice(&(4 + COOKIE as u16).to_be_bytes());
    out.resize(out.len() + COOKIE as usize, 0);
}

/// One IPv4 Address parameter per node (§3.3.2.1).
fn write_addresses(nodes: &[NodeId], out: &mut Vec<u8>) {
    for &n in nodes {
        out.extend_from_slice(&IPV4_ADDRESS_PARAMETER.to_be_bytes());
        out.extend_from_slice(&8u16.to_be_bytes());
        out.extend_from_slice(&super::ipv4_address(n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Payload;
    use crate::time::SimTime;
    use crate::transport::sctp::chunk::Sack;

    /// Bit-at-a-time CRC32c, written from the definition (reflected polynomial
    /// 0x82F63B78, register preset to all ones, result complemented): an independent
    /// check of the table-driven crate.
    fn crc32c_bitwise(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= b as u32;
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0x82f6_3b78
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    fn wire() -> AssociationWire {
        AssociationWire {
            sender: vec![0, 2],
            receiver: vec![1, 3],
            streams: 2,
            a_rwnd: 65536,
        }
    }

    /// Association flow 2 from node 0 (A) to node 1 (Z), sized as the simulator does.
    fn packet(body: &SctpPacket, to_sender: bool) -> (Packet, SctpRef) {
        let r = SctpRef {
            body: 0,
            to_sender,
            data: body.has_data(),
        };
        let (src, dst) = if to_sender { (1, 0) } else { (0, 1) };
        let p = Packet {
            uid: 9,
            flow: 2,
            src,
            dst,
            size: body.wire_size(),
            created: SimTime::ZERO,
            payload: Payload::Sctp(r),
        };
        (p, r)
    }

    fn frame_of(body: &SctpPacket, to_sender: bool) -> Vec<u8> {
        let (p, r) = packet(body, to_sender);
        let mut frame = Vec::new();
        encode_frame(&p, r, body, &wire(), &mut frame);
        frame
    }

    fn data(tsn: u64, len: u32) -> DataChunk {
        DataChunk {
            tsn,
            stream: 1,
            ssn: 3,
            len,
            unordered: false,
            begin: true,
            end: true,
            copy: 0,
        }
    }

    /// The checksum field read back, and the CRC32c of the SCTP packet with the field
    /// zeroed, bit by bit.
    fn checksums(frame: &[u8]) -> (u32, u32) {
        let mut sctp = frame[34..].to_vec();
        let stored = u32::from_le_bytes(sctp[8..12].try_into().unwrap());
        sctp[8..12].fill(0);
        (stored, crc32c_bitwise(&sctp))
    }

    #[test]
    fn crc32c_check_values() {
        // The catalogue's check value: CRC32c("123456789") = 0xE3069283.
        assert_eq!(CRC32C.checksum(b"123456789"), 0xe306_9283);
        assert_eq!(crc32c_bitwise(b"123456789"), 0xe306_9283);
        // RFC 3720 §B.4 (iSCSI uses the same CRC and byte order): 32 bytes of zeros
        // give the bytes aa 36 91 8a, 32 bytes of 0xff give 43 ab a8 62.
        assert_eq!(
            CRC32C.checksum(&[0; 32]).to_le_bytes(),
            [0xaa, 0x36, 0x91, 0x8a]
        );
        assert_eq!(
            crc32c_bitwise(&[0; 32]).to_le_bytes(),
            [0xaa, 0x36, 0x91, 0x8a]
        );
        assert_eq!(
            CRC32C.checksum(&[0xff; 32]).to_le_bytes(),
            [0x43, 0xab, 0xa8, 0x62]
        );
        // 32 bytes counting up 00, 01, … 1f give 4e 79 dd 46.
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(
            CRC32C.checksum(&ascending).to_le_bytes(),
            [0x4e, 0x79, 0xdd, 0x46]
        );
        assert_eq!(
            crc32c_bitwise(&ascending).to_le_bytes(),
            [0x4e, 0x79, 0xdd, 0x46]
        );
    }

    #[test]
    fn data_packet_headers_and_checksum() {
        let body = SctpPacket {
            data: vec![data(5, 1000)],
            ..SctpPacket::default()
        };
        let f = frame_of(&body, false);
        // Whole: Ethernet 14 + IPv4 20 + common header 12 + DATA header 16 + 1000.
        assert_eq!(f.len(), 1062);
        // IPv4: total length 20 + 12 + 16 + 1000 = 1048 = 0x0418; protocol 132.
        assert_eq!(&f[16..18], &[0x04, 0x18]);
        assert_eq!(f[23], 132);
        // Ports 49152 + 2 = 0xc002 → 5001 = 0x1389; Z's tag 0xb0000002.
        assert_eq!(&f[34..42], &[0xc0, 0x02, 0x13, 0x89, 0xb0, 0, 0, 2]);
        // DATA: type 0, flags B|E = 3, length 16 + 1000 = 0x03f8, TSN 5, stream 1,
        // SSN 3, PPID 0; then 1000 zero bytes (1016 is a multiple of 4: no padding).
        assert_eq!(&f[46..50], &[0, 3, 0x03, 0xf8]);
        assert_eq!(&f[50..62], &[0, 0, 0, 5, 0, 1, 0, 3, 0, 0, 0, 0]);
        assert!(f[62..].iter().all(|&b| b == 0));
        let (stored, computed) = checksums(&f);
        assert_eq!(stored, computed);
    }

    #[test]
    fn bundled_data_chunks_are_padded_to_four_bytes() {
        // Two 5-byte chunks: 21 B each, padded to 24, so the second header is at 24.
        let mut second = data(6, 5);
        second.unordered = true;
        second.end = false;
        let body = SctpPacket {
            data: vec![data(5, 5), second],
            ..SctpPacket::default()
        };
        let f = frame_of(&body, false);
        assert_eq!(f.len(), 14 + 20 + 12 + 24 + 24);
        assert_eq!(&f[46..50], &[0, 3, 0, 21]);
        assert_eq!(&f[62..70], &[0; 8]);
        // U|B = 0x06; length 21; TSN 6; its 5 user bytes and 3 padding bytes.
        assert_eq!(&f[70..78], &[0, 0x06, 0, 21, 0, 0, 0, 6]);
        assert_eq!(&f[86..94], &[0; 8]);
        // The IP total length is the simulated size: 32 + 2 × 24 = 80 = 0x50.
        assert_eq!(&f[16..18], &[0, 80]);
        let (stored, computed) = checksums(&f);
        assert_eq!(stored, computed);
    }

    #[test]
    fn sack_with_gap_blocks_and_duplicates() {
        let body = SctpPacket {
            sack: Some(Sack {
                cumulative_tsn: 10,
                a_rwnd: 65536,
            }),
            gaps: vec![(12, 13), (15, 15)],
            duplicates: vec![3, 4, 4],
            ..SctpPacket::default()
        };
        let f = frame_of(&body, true);
        // Whole: 14 + 20 + 12 + 16 + 5 × 4 = 82 bytes.
        assert_eq!(f.len(), 82);
        // Z → A: 5001 → 49154, A's tag 0xa0000002.
        assert_eq!(&f[34..42], &[0x13, 0x89, 0xc0, 0x02, 0xa0, 0, 0, 2]);
        let sack = &f[46..];
        // Type 3, length 36 = 0x24; cumulative TSN 10; a_rwnd 65536 = 0x00010000;
        // 2 gap blocks, 3 duplicates.
        assert_eq!(&sack[..4], &[3, 0, 0, 0x24]);
        assert_eq!(&sack[4..16], &[0, 0, 0, 10, 0, 1, 0, 0, 0, 2, 0, 3]);
        // Blocks as offsets from 10: 12–13 → 2..3, 15 → 5..5.
        assert_eq!(&sack[16..24], &[0, 2, 0, 3, 0, 5, 0, 5]);
        assert_eq!(&sack[24..36], &[0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 4]);
        let (stored, computed) = checksums(&f);
        assert_eq!(stored, computed);
    }

    #[test]
    fn init_and_init_ack_of_multihomed_endpoints() {
        let init = SctpPacket {
            control: vec![Control::Init { addresses: 2 }],
            ..SctpPacket::default()
        };
        let f = frame_of(&init, false);
        assert_eq!(f.len(), 14 + 20 + 12 + 36);
        // INIT carries verification tag 0 (§8.5.1).
        assert_eq!(&f[38..42], &[0, 0, 0, 0]);
        let c = &f[46..];
        // Type 1, length 20 + 2 × 8 = 36; A's tag; a_rwnd 65536; 2 and 2 streams;
        // initial TSN 1; A's addresses 10.0.0.1 and 10.0.0.3 (nodes 0 and 2).
        assert_eq!(&c[..8], &[1, 0, 0, 36, 0xa0, 0, 0, 2]);
        assert_eq!(&c[8..20], &[0, 1, 0, 0, 0, 2, 0, 2, 0, 0, 0, 1]);
        assert_eq!(&c[20..28], &[0, 5, 0, 8, 10, 0, 0, 1]);
        assert_eq!(&c[28..36], &[0, 5, 0, 8, 10, 0, 0, 3]);
        let (stored, computed) = checksums(&f);
        assert_eq!(stored, computed);

        let ack = SctpPacket {
            control: vec![Control::InitAck { addresses: 2 }],
            ..SctpPacket::default()
        };
        let f = frame_of(&ack, true);
        // Sent with the INIT's Initiate Tag (A's); type 2, length 72; Z's tag.
        assert_eq!(&f[38..42], &[0xa0, 0, 0, 2]);
        let c = &f[46..];
        assert_eq!(c.len(), 72);
        assert_eq!(&c[..8], &[2, 0, 0, 72, 0xb0, 0, 0, 2]);
        // State Cookie: type 7, length 36, then Z's addresses 10.0.0.2 and 10.0.0.4.
        assert_eq!(&c[20..24], &[0, 7, 0, 36]);
        assert_eq!(&c[56..64], &[0, 5, 0, 8, 10, 0, 0, 2]);
        assert_eq!(&c[64..72], &[0, 5, 0, 8, 10, 0, 0, 4]);
    }

    #[test]
    fn single_homed_init_lists_no_address() {
        let init = SctpPacket {
            control: vec![Control::Init { addresses: 0 }],
            ..SctpPacket::default()
        };
        let f = frame_of(&init, false);
        assert_eq!(&f[46..50], &[1, 0, 0, 20]);
        assert_eq!(f.len(), 14 + 20 + 12 + 20);
    }

    #[test]
    fn cookie_heartbeat_and_shutdown_chunks() {
        let body = SctpPacket {
            control: vec![
                Control::CookieEcho,
                Control::Heartbeat {
                    path: 1,
                    sent: SimTime::from_nanos(0x0102),
                },
                Control::Shutdown { cumulative_tsn: 7 },
                Control::ShutdownComplete,
            ],
            ..SctpPacket::default()
        };
        let f = frame_of(&body, false);
        let c = &f[46..];
        // COOKIE ECHO: type 10, length 36, the 32 cookie bytes.
        assert_eq!(&c[..4], &[10, 0, 0, 36]);
        assert_eq!(&c[4..36], &[0; 32]);
        // HEARTBEAT: type 4, length 24; Heartbeat Info type 1, length 20; time 0x0102
        // ns in 8 bytes; path 1; 7 zeros.
        let hb = &c[36..60];
        assert_eq!(&hb[..8], &[4, 0, 0, 24, 0, 1, 0, 20]);
        assert_eq!(&hb[8..17], &[0, 0, 0, 0, 0, 0, 1, 2, 1]);
        assert_eq!(&hb[17..24], &[0; 7]);
        // SHUTDOWN: type 7, length 8, cumulative TSN ack 7; SHUTDOWN COMPLETE: 14.
        assert_eq!(&c[60..72], &[7, 0, 0, 8, 0, 0, 0, 7, 14, 0, 0, 4]);
        assert_eq!(c.len(), 72);
        let (stored, computed) = checksums(&f);
        assert_eq!(stored, computed);
    }
}
