//! SCTP packets as the simulator moves them: the common header and the chunks it
//! bundles (RFC 9260 §3), with the size each takes on the wire.
//!
//! Sizes (IPv4, no IP options):
//! * IP header 20 B + SCTP common header 12 B (§3.1);
//! * DATA: 16 B header + user data, padded to a multiple of 4 (§3.3.1);
//! * SACK: 16 B + 4 B per gap ack block + 4 B per duplicate TSN (§3.3.4);
//! * INIT and INIT ACK: 20 B, plus an 8-byte IPv4 address parameter per address when
//!   the endpoint is multihomed (a single-homed endpoint lists none: its address is the
//!   packet's source, §5.1.2); INIT ACK adds the State Cookie parameter (4 B + cookie);
//! * COOKIE ECHO: 4 B + cookie; COOKIE ACK, SHUTDOWN ACK, SHUTDOWN COMPLETE: 4 B;
//!   SHUTDOWN: 8 B (cumulative TSN ack); HEARTBEAT and HEARTBEAT ACK: 4 B + the
//!   Heartbeat Info parameter (4 B + HEARTBEAT_INFO bytes, echoed unchanged).
//!
//! The cookie is taken to be 32 B (a 20-byte HMAC-SHA1 signature and a 12-byte
//! lifespan and tie-tags; real stacks also copy the INIT into it and send a few
//! hundred bytes) and the heartbeat information 16 B (the sending time and the path):
//! a simplification that only changes the size of set-up and heartbeat packets.
//!
//! TSNs are 64-bit here, counted from 1 in the order of first transmission (no
//! wrap-around in a run; 32 bits on the wire). Gap ack blocks are carried as absolute
//! inclusive TSN ranges (16-bit offsets from the cumulative TSN ack on the wire).

use crate::time::SimTime;

/// IPv4 header without options (RFC 791).
pub const IPV4_HEADER: u32 = 20;
/// SCTP common header: ports, verification tag, checksum (§3.1).
pub const COMMON_HEADER: u32 = 12;
/// DATA chunk header: type, flags, length, TSN, stream, SSN, PPID (§3.3.1).
pub const DATA_CHUNK_HEADER: u32 = 16;
/// SACK chunk without blocks: header, cumulative TSN ack, a_rwnd, counts (§3.3.4).
pub const SACK_CHUNK_HEADER: u32 = 16;
/// One gap ack block (two 16-bit offsets) or one duplicate TSN.
pub const SACK_ENTRY: u32 = 4;
/// INIT / INIT ACK fixed part (§3.3.2, §3.3.3).
pub const INIT_CHUNK: u32 = 20;
/// IPv4 Address parameter (§3.3.2.1).
pub const IPV4_ADDRESS_PARAMETER: u32 = 8;
/// State cookie size assumed (see the module doc).
pub const COOKIE: u32 = 32;
/// Heartbeat information assumed (see the module doc).
pub const HEARTBEAT_INFO: u32 = 16;

/// Rounds a chunk length up to the 4-byte boundary chunks are padded to (§3.2).
pub fn padded(len: u32) -> u32 {
    len.div_ceil(4) * 4
}

/// A DATA chunk (§3.3.1) as sent; `copy` is simulator truth, not on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk {
    pub tsn: u64,
    pub stream: u16,
    /// Stream sequence number of the message (meaningless when unordered).
    pub ssn: u32,
    /// User data bytes.
    pub len: u32,
    /// U bit: deliver as soon as the message is complete.
    pub unordered: bool,
    /// B bit: first fragment of a message.
    pub begin: bool,
    /// E bit: last fragment of a message.
    pub end: bool,
    /// Which transmission of the TSN this is: 0 for the original, 1 for the first
    /// retransmission... (ground truth for detection statistics and traces).
    pub copy: u8,
}

impl DataChunk {
    /// Bytes on the wire, padding included.
    pub fn wire_size(&self) -> u32 {
        padded(DATA_CHUNK_HEADER + self.len)
    }
}

/// Control chunks other than SACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// `addresses`: how many the endpoint lists (0 when single-homed).
    Init {
        addresses: u8,
    },
    InitAck {
        addresses: u8,
    },
    CookieEcho,
    CookieAck,
    /// Probe of path `path`, carrying its sending time (echoed by the ACK).
    Heartbeat {
        path: u8,
        sent: SimTime,
    },
    HeartbeatAck {
        path: u8,
        sent: SimTime,
    },
    Shutdown {
        cumulative_tsn: u64,
    },
    ShutdownAck,
    ShutdownComplete,
}

impl Control {
    pub fn wire_size(&self) -> u32 {
        match *self {
            Control::Init { addresses } => INIT_CHUNK + IPV4_ADDRESS_PARAMETER * addresses as u32,
            Control::InitAck { addresses } => {
                INIT_CHUNK + IPV4_ADDRESS_PARAMETER * addresses as u32 + 4 + COOKIE
            }
            Control::CookieEcho => 4 + COOKIE,
            Control::Heartbeat { .. } | Control::HeartbeatAck { .. } => 4 + 4 + HEARTBEAT_INFO,
            Control::Shutdown { .. } => 8,
            Control::CookieAck | Control::ShutdownAck | Control::ShutdownComplete => 4,
        }
    }
}

/// The fixed fields of a SACK chunk (§3.3.4); its blocks and duplicates are in the
/// packet's `gaps` and `duplicates`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sack {
    pub cumulative_tsn: u64,
    /// Advertised receiver window credit: free receive buffer, in user-data bytes.
    pub a_rwnd: u64,
}

/// One SCTP packet: control chunks first, then at most one SACK, then DATA chunks
/// (§6.10: control chunks come before DATA in a bundle). The vectors keep their
/// capacity when the packet is recycled by the `PacketStore`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SctpPacket {
    pub control: Vec<Control>,
    pub sack: Option<Sack>,
    /// Gap ack blocks of the SACK: inclusive TSN ranges above the cumulative ack,
    /// in increasing order.
    pub gaps: Vec<(u64, u64)>,
    /// Duplicate TSNs reported by the SACK (each duplicate arrival once).
    pub duplicates: Vec<u64>,
    pub data: Vec<DataChunk>,
}

impl SctpPacket {
    /// Empties the packet, keeping its buffers.
    pub fn clear(&mut self) {
        self.control.clear();
        self.sack = None;
        self.gaps.clear();
        self.duplicates.clear();
        self.data.clear();
    }

    /// IP datagram size: headers plus every chunk.
    pub fn wire_size(&self) -> u32 {
        let control: u32 = self.control.iter().map(Control::wire_size).sum();
        let sack = if self.sack.is_some() {
            SACK_CHUNK_HEADER + SACK_ENTRY * (self.gaps.len() + self.duplicates.len()) as u32
        } else {
            0
        };
        let data: u32 = self.data.iter().map(DataChunk::wire_size).sum();
        IPV4_HEADER + COMMON_HEADER + control + sack + data
    }

    pub fn has_data(&self) -> bool {
        !self.data.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(len: u32) -> DataChunk {
        DataChunk {
            tsn: 1,
            stream: 0,
            ssn: 0,
            len,
            unordered: false,
            begin: true,
            end: true,
            copy: 0,
        }
    }

    #[test]
    fn a_full_data_packet_fills_a_1500_byte_mtu() {
        // 20 (IP) + 12 (common) + 16 (DATA header) + 1452 user bytes = 1500.
        let mut p = SctpPacket::default();
        p.data.push(chunk(1452));
        assert_eq!(p.wire_size(), 1500);
    }

    #[test]
    fn data_chunks_are_padded_to_four_bytes() {
        // 16 + 5 = 21 B, padded to 24; two of them after 32 B of headers: 80 B.
        assert_eq!(chunk(5).wire_size(), 24);
        let mut p = SctpPacket::default();
        p.data.push(chunk(5));
        p.data.push(chunk(5));
        assert_eq!(p.wire_size(), 80);
    }

    #[test]
    fn sack_size_counts_blocks_and_duplicates() {
        // 32 B headers + 16 B SACK + 2 blocks × 4 + 3 duplicates × 4 = 68 B.
        let p = SctpPacket {
            sack: Some(Sack {
                cumulative_tsn: 10,
                a_rwnd: 65536,
            }),
            gaps: vec![(12, 13), (15, 15)],
            duplicates: vec![3, 4, 4],
            ..SctpPacket::default()
        };
        assert_eq!(p.wire_size(), 68);
    }

    #[test]
    fn control_chunk_sizes() {
        // INIT of a two-address endpoint: 20 + 2 × 8 = 36; INIT ACK adds the cookie
        // parameter (4 + 32): 72; COOKIE ECHO 4 + 32 = 36; HEARTBEAT 4 + 4 + 16 = 24.
        assert_eq!(Control::Init { addresses: 2 }.wire_size(), 36);
        assert_eq!(Control::InitAck { addresses: 2 }.wire_size(), 72);
        assert_eq!(Control::CookieEcho.wire_size(), 36);
        let hb = Control::Heartbeat {
            path: 0,
            sent: SimTime::ZERO,
        };
        assert_eq!(hb.wire_size(), 24);
        assert_eq!(Control::Shutdown { cumulative_tsn: 9 }.wire_size(), 8);
    }
}
