//! The few IPv4, TCP and UDP header fields the relay needs to map a packet to its
//! scenario flow or its 5-tuple (RFC 791 §3.1, RFC 9293 §3.1, RFC 768).

use cwnd_sim::packet::{ipv4_ecn, Ecn};

/// IANA protocol numbers of ICMP, TCP and UDP.
pub const PROTO_ICMP: u8 = 1;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
/// The SYN bit of the TCP flags byte (RFC 9293 §3.1).
const SYN: u8 = 0x02;

/// What the relay reads from a packet's headers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    pub protocol: u8,
    /// Total length of the datagram (the size the model moves).
    pub total_len: u16,
    /// TCP or UDP ports, when the datagram is not a later fragment.
    pub ports: Option<(u16, u16)>,
    /// The packet is of the data class impairments see: a TCP segment that
    /// carries payload bytes (not a pure ACK), or any other protocol's datagram
    /// (UDP, ICMP: they have no acknowledgement class).
    pub data: bool,
    /// TCP sequence number, SYN flag and payload length (0 for anything else).
    pub seq: u32,
    pub syn: bool,
    pub payload: u32,
    /// The ECN field (RFC 3168 §5): what the kernel sent, which a marking queue
    /// in the world may turn CE.
    pub ecn: Ecn,
}

/// Parses an IPv4 datagram; `None` for anything else or a truncated header.
pub fn parse(packet: &[u8]) -> Option<Header> {
    if packet.len() < 20 || packet[0] >> 4 != 4 {
        return None;
    }
    let ihl = (packet[0] & 0x0f) as usize * 4;
    let total_len = u16::from_be_bytes([packet[2], packet[3]]);
    if ihl < 20 || packet.len() < ihl || (total_len as usize) < ihl {
        return None;
    }
    let protocol = packet[9];
    let src = [packet[12], packet[13], packet[14], packet[15]];
    let dst = [packet[16], packet[17], packet[18], packet[19]];
    // A non-first fragment (offset ≠ 0) has no TCP or UDP header.
    let fragment_offset = u16::from_be_bytes([packet[6], packet[7]]) & 0x1fff;
    let transport = &packet[ihl..];
    let header_len = match protocol {
        PROTO_TCP => 20,
        PROTO_UDP => 8,
        _ => usize::MAX, // no ports
    };
    let (mut ports, mut seq, mut syn, mut payload) = (None, 0, false, 0);
    if fragment_offset == 0 && transport.len() >= header_len {
        ports = Some((
            u16::from_be_bytes([transport[0], transport[1]]),
            u16::from_be_bytes([transport[2], transport[3]]),
        ));
    }
    if protocol == PROTO_TCP && ports.is_some() {
        let tcp = transport;
        seq = u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]);
        syn = tcp[13] & SYN != 0;
        // Data offset: header length in 32-bit words (RFC 9293 §3.1).
        let tcp_header = (tcp[12] >> 4) as usize * 4;
        payload = (total_len as usize).saturating_sub(ihl + tcp_header) as u32;
    }
    Some(Header {
        src,
        dst,
        protocol,
        total_len,
        ports,
        data: protocol != PROTO_TCP || payload > 0,
        seq,
        syn,
        payload,
        ecn: ipv4_ecn(packet),
    })
}

/// A protocol's name as tables show it: "tcp", "udp", "icmp", else its number.
pub fn protocol_name(protocol: u8) -> String {
    match protocol {
        PROTO_TCP => "tcp".into(),
        PROTO_UDP => "udp".into(),
        PROTO_ICMP => "icmp".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20-byte IPv4 header and a 20-byte TCP header (+ options) from 10.0.0.1:40000
    /// to 10.0.0.2:5000 with `payload` bytes after them.
    fn segment(tcp_header: usize, payload: usize) -> Vec<u8> {
        let total = 20 + tcp_header + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = PROTO_TCP;
        p[12..16].copy_from_slice(&[10, 0, 0, 1]);
        p[16..20].copy_from_slice(&[10, 0, 0, 2]);
        p[20..22].copy_from_slice(&40000u16.to_be_bytes());
        p[22..24].copy_from_slice(&5000u16.to_be_bytes());
        p[32] = ((tcp_header / 4) as u8) << 4;
        p
    }

    #[test]
    fn a_data_segment_with_timestamps() {
        // 20 (IP) + 32 (TCP with the 12-byte timestamps option) + 1448 = 1500.
        let h = parse(&segment(32, 1448)).unwrap();
        assert_eq!(h.total_len, 1500);
        assert_eq!(h.src, [10, 0, 0, 1]);
        assert_eq!(h.dst, [10, 0, 0, 2]);
        assert_eq!(h.ports, Some((40000, 5000)));
        assert!(h.data);
    }

    #[test]
    fn sequence_number_syn_and_payload_length() {
        let mut p = segment(32, 1448);
        p[24..28].copy_from_slice(&0xdead_beefu32.to_be_bytes());
        let h = parse(&p).unwrap();
        assert_eq!((h.seq, h.syn, h.payload), (0xdead_beef, false, 1448));
        let mut syn = segment(40, 0);
        syn[33] = SYN;
        assert!(parse(&syn).unwrap().syn);
    }

    #[test]
    fn the_ecn_field_is_read() {
        // The low two bits of the second byte (RFC 3168 §5): 0x02 is ECT(0) as a
        // kernel with ECN agreed sends data; 0xb9 is DSCP EF (0xb8) with ECT(1).
        let mut p = segment(20, 100);
        assert_eq!(parse(&p).unwrap().ecn, Ecn::NotEct);
        p[1] = 0x02;
        assert_eq!(parse(&p).unwrap().ecn, Ecn::Ect0);
        p[1] = 0xb9;
        assert_eq!(parse(&p).unwrap().ecn, Ecn::Ect1);
    }

    #[test]
    fn a_pure_ack_has_no_data() {
        // 20 + 32 = 52 bytes: headers only.
        let h = parse(&segment(32, 0)).unwrap();
        assert_eq!(h.total_len, 52);
        assert!(!h.data);
    }

    #[test]
    fn ipv6_and_truncated_packets_are_not_parsed() {
        let mut v6 = segment(20, 0);
        v6[0] = 0x60;
        assert_eq!(parse(&v6), None);
        assert_eq!(parse(&segment(20, 0)[..19]), None);
    }

    #[test]
    fn a_udp_datagram_has_ports_and_is_data() {
        // 20 (IP) + 8 (UDP: ports 5353 → 53) + 4 bytes; protocol 17.
        let mut p = segment(20, 0);
        p.truncate(32);
        p[2..4].copy_from_slice(&32u16.to_be_bytes());
        p[9] = PROTO_UDP;
        p[20..22].copy_from_slice(&5353u16.to_be_bytes());
        p[22..24].copy_from_slice(&53u16.to_be_bytes());
        let h = parse(&p).unwrap();
        assert_eq!((h.ports, h.data, h.payload), (Some((5353, 53)), true, 0));
        assert_eq!(protocol_name(h.protocol), "udp");
    }

    #[test]
    fn an_icmp_packet_has_no_ports_and_is_data() {
        let mut p = segment(20, 0);
        p[9] = PROTO_ICMP;
        let h = parse(&p).unwrap();
        assert_eq!((h.ports, h.data), (None, true));
        assert_eq!(protocol_name(h.protocol), "icmp");
        assert_eq!(protocol_name(47), "47");
    }

    #[test]
    fn a_later_fragment_has_no_ports() {
        let mut p = segment(20, 100);
        p[7] = 10; // fragment offset 10 × 8 bytes
        assert_eq!(parse(&p).unwrap().ports, None);
    }
}
