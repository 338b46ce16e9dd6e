//! Duplicate ACKs as SACKs for a sender without SACK: Linux's `sacked_out`
//! emulation (`tcp_add_reno_sack`, `tcp_remove_reno_sacks`, `tcp_reset_reno_sack`
//! in net/ipv4/tcp_input.c).
//!
//! Each duplicate ACK stands for one segment that reached the receiver out of
//! order: it has left the network (out of the in-flight count that PRR and
//! model-based controllers are given) and is delivered (counted once, for
//! delivery-rate estimation: draft-cheng-iccrg-delivery-rate-estimation §3). At
//! most all but the missing segment are counted. The cumulative ACK that covers
//! them takes them back, all but the one it was waiting for.
//!
//! Two counts, because they forget differently: the segments out of flight are
//! forgotten when the sender returns to `Open` and on a timeout (which marks
//! everything lost); the segments counted delivered are not, so that the
//! cumulative ACK that later covers them does not count them again.

/// The segments duplicate ACKs announced, out of flight and delivered.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RenoSacks {
    /// Linux's emulated `sacked_out`.
    sacked: u32,
    /// Segments above snd_una already counted delivered from duplicate ACKs.
    delivered: u32,
}

impl RenoSacks {
    /// Segments duplicate ACKs took out of flight.
    pub fn sacked(&self) -> u32 {
        self.sacked
    }

    /// A duplicate ACK with `outstanding` segments sent and not acknowledged.
    /// Returns whether it delivered one more segment.
    pub fn on_dupack(&mut self, outstanding: u32) -> bool {
        let most = outstanding.saturating_sub(1);
        if self.sacked < most {
            self.sacked += 1;
        }
        if self.delivered < most {
            self.delivered += 1;
            return true;
        }
        false
    }

    /// A cumulative ACK of `acked` (≥ 1) segments: the segments it delivers that
    /// no duplicate counted (at least the one it was waiting for).
    pub fn on_cumulative_ack(&mut self, acked: u32) -> u32 {
        let delivered = acked.saturating_sub(self.delivered).max(1);
        self.sacked -= self.sacked.min(acked - 1);
        self.delivered -= self.delivered.min(acked - 1);
        delivered
    }

    /// Back to `Open`, or a timeout: no duplicate stands for a segment out of
    /// flight any more (the delivered count stays).
    pub fn reset(&mut self) {
        self.sacked = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_count_all_but_the_missing_segment() {
        // 4 segments outstanding, the first lost: at most 4 − 1 = 3 duplicates
        // stand for segments that arrived; a fourth (a copy) adds nothing.
        let mut r = RenoSacks::default();
        let newly: Vec<bool> = (0..4).map(|_| r.on_dupack(4)).collect();
        assert_eq!(newly, [true, true, true, false]);
        assert_eq!(r.sacked(), 3);
    }

    #[test]
    fn the_cumulative_ack_delivers_only_what_duplicates_did_not() {
        // Three duplicates for segments 1..3, then the ACK of 0..4 (5 segments):
        // 5 − 3 = 2 newly delivered (0 and 4); sacked 3 − min(3, 5 − 1) = 0.
        let mut r = RenoSacks::default();
        for _ in 0..3 {
            r.on_dupack(10);
        }
        assert_eq!(r.on_cumulative_ack(5), 2);
        assert_eq!(r.sacked(), 0);
        // A partial ACK of 1 segment after 3 duplicates: it delivers its one
        // segment (max(1 − 3, 1)) and takes none of the duplicates back (1 − 1).
        let mut p = RenoSacks::default();
        for _ in 0..3 {
            p.on_dupack(10);
        }
        assert_eq!(p.on_cumulative_ack(1), 1);
        assert_eq!(p.sacked(), 3);
    }

    #[test]
    fn a_reset_keeps_the_delivered_count() {
        // Two duplicates, then a timeout: out of flight 0, but the ACK of 3
        // segments delivers 3 − 2 = 1, not 3.
        let mut r = RenoSacks::default();
        r.on_dupack(10);
        r.on_dupack(10);
        r.reset();
        assert_eq!(r.sacked(), 0);
        assert_eq!(r.on_cumulative_ack(3), 1);
    }
}
