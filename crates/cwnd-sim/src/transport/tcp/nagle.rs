//! Nagle's algorithm as Linux implements it (TCP_NODELAY off, the default).
//!
//! RFC 896 holds a segment smaller than the MSS while any data is unacknowledged;
//! RFC 1122 §4.2.3.4 makes that the sender's SWS avoidance. Linux uses Minshall's
//! variant (`tcp_output.c`, `tcp_nagle_check`, `tcp_minshall_check`): a sub-MSS
//! segment waits only while a previously sent *sub-MSS* segment is
//! unacknowledged (`snd_sml`, the end of the last small segment sent, is above
//! `snd_una`), so full segments never make a small one wait. It applies to the
//! last segment of the send queue only (the others are full), and not when the
//! segment carries a FIN (`tcp_nagle_test`): here, once the application has
//! written all it will write. A writer that blocks on a full send buffer pushes
//! with Nagle off (`tcp_sendmsg`, `wait_for_sndbuf`: `TCP_NAGLE_PUSH`), but it
//! blocks only when it needs a new segment, its last one being full: Nagle would
//! hold nothing there, so the model pushes with the rule on.

/// Whether the algorithm is on (TCP_NODELAY off), and Minshall's state: the end of
/// the last sub-MSS segment sent (`tp->snd_sml`).
#[derive(Clone, Copy, Debug)]
pub struct Nagle {
    on: bool,
    snd_sml: u64,
}

impl Nagle {
    pub fn new(on: bool) -> Self {
        Nagle { on, snd_sml: 0 }
    }

    /// Whether a new segment of `len` bytes must wait (`tcp_nagle_test`): the
    /// algorithm is on, the segment carries no FIN (`fin`: the application has
    /// written all it will), and `tcp_nagle_check` with `nonagle` = 0 holds: it is
    /// smaller than `mss`, data is outstanding (`packets_out`), and the last small
    /// segment sent is not yet acknowledged.
    pub fn holds(&self, len: u32, mss: u32, snd_una: u64, high_water: u64, fin: bool) -> bool {
        self.on && !fin && len < mss && high_water > snd_una && self.snd_sml > snd_una
    }

    /// A new segment [seq, seq + len) left (`tcp_minshall_update`).
    pub fn on_sent(&mut self, seq: u64, len: u32, mss: u32) {
        if len < mss {
            self.snd_sml = seq + u64::from(len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_segment_waits_for_the_previous_small_one() {
        let mss = 1460;
        let mut n = Nagle::new(true);
        // Nothing outstanding: a 100 B segment goes.
        assert!(!n.holds(100, mss, 0, 0, false));
        n.on_sent(0, 100, mss);
        // [0, 100) unacknowledged: the next 100 B waits; a full segment does not,
        // nor one with the FIN, nor any with the algorithm off (TCP_NODELAY).
        assert!(n.holds(100, mss, 0, 100, false));
        assert!(!n.holds(1460, mss, 0, 100, false));
        assert!(!n.holds(100, mss, 0, 100, true));
        let mut nodelay = Nagle::new(false);
        nodelay.on_sent(0, 100, mss);
        assert!(!nodelay.holds(100, mss, 0, 100, false));
        // ACK 100 acknowledges the small segment: the next may go.
        assert!(!n.holds(100, mss, 100, 100, false));
    }

    #[test]
    fn full_segments_outstanding_do_not_hold_a_small_one() {
        // Minshall: [0, 2920) is two full segments, unacknowledged, and no small
        // segment was ever sent; RFC 896 would hold the 500 B, Linux sends it.
        let mss = 1460;
        let mut n = Nagle::new(true);
        n.on_sent(0, 1460, mss);
        n.on_sent(1460, 1460, mss);
        assert!(!n.holds(500, mss, 0, 2920, false));
        n.on_sent(2920, 500, mss);
        // Now [2920, 3420) is small and outstanding until ACK 3420.
        assert!(n.holds(500, mss, 2920, 3420, false));
        assert!(!n.holds(500, mss, 3420, 3420, false));
    }
}
