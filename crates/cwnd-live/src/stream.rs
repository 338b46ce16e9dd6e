//! Where a kernel connection's data packet sits in its byte stream, so that
//! impairment triggers (`start_on = { flow, segment }`) fire in live mode as they
//! do in a simulated run. The sender's SYN gives the initial sequence number
//! (RFC 9293 §3.4: the SYN occupies one sequence number, data begins at ISN + 1);
//! 32-bit sequence numbers are unwrapped against the furthest byte seen
//! (RFC 9293 §3.4.1's modular comparison).

/// One connection's stream, as its sender's packets show it.
#[derive(Clone, Copy, Debug, Default)]
pub struct StreamPosition {
    isn: Option<u32>,
    /// One past the furthest payload byte seen, counted from 0.
    high: u64,
}

impl StreamPosition {
    /// Notes a packet from the connection's sender; returns the stream bytes
    /// [start, end) its payload carries (none for a SYN, a pure ACK, or data
    /// before any SYN was seen).
    pub fn on_sender_packet(&mut self, syn: bool, seq: u32, payload: u32) -> Option<(u64, u64)> {
        if syn {
            *self = StreamPosition {
                isn: Some(seq),
                high: 0,
            };
            return None;
        }
        let isn = self.isn?;
        if payload == 0 {
            return None;
        }
        let start = unwrap(self.high, seq.wrapping_sub(isn).wrapping_sub(1));
        let end = start + u64::from(payload);
        self.high = self.high.max(end);
        Some((start, end))
    }
}

/// The offset whose low 32 bits are `low` nearest to `near` (never below 0).
fn unwrap(near: u64, low: u32) -> u64 {
    let distance = i64::from(low.wrapping_sub(near as u32) as i32);
    (near as i64 + distance).max(0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_after_the_syn_counts_from_byte_zero() {
        let mut s = StreamPosition::default();
        assert_eq!(
            s.on_sender_packet(false, 1000, 100),
            None,
            "no SYN seen yet"
        );
        assert_eq!(s.on_sender_packet(true, 1000, 0), None);
        // ISN 1000: the first data byte has sequence number 1001.
        assert_eq!(s.on_sender_packet(false, 1001, 1448), Some((0, 1448)));
        assert_eq!(s.on_sender_packet(false, 2449, 1448), Some((1448, 2896)));
        assert_eq!(s.on_sender_packet(false, 2449, 0), None, "a pure ACK");
        // A retransmission of the first segment is placed where it belongs.
        assert_eq!(s.on_sender_packet(false, 1001, 1448), Some((0, 1448)));
    }

    #[test]
    fn sequence_numbers_wrap_past_two_to_the_32() {
        let mut s = StreamPosition::default();
        s.on_sender_packet(true, u32::MAX - 99, 0);
        // Data starts at ISN + 1 = 2³² − 99: bytes 0..1000 end at sequence 901.
        assert_eq!(
            s.on_sender_packet(false, u32::MAX - 98, 1000),
            Some((0, 1000))
        );
        assert_eq!(s.on_sender_packet(false, 901, 1000), Some((1000, 2000)));
        // 5 · 2³² bytes later the low 32 bits are the same as at byte 2000.
        s.high = (5 << 32) + 2000;
        assert_eq!(
            s.on_sender_packet(false, 1901, 1000),
            Some(((5 << 32) + 2000, (5 << 32) + 3000))
        );
    }
}
