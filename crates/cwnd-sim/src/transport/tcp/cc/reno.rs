//! Reno congestion avoidance: AIMD (Jacobson 1988; RFC 5681 §3.1).
//!
//! ```text
//! slow start (cwnd < ssthresh):  cwnd += 1 per segment acknowledged        (RFC 5681 eq. 2)
//! congestion avoidance:          cwnd += 1 per cwnd segments acknowledged  (≈ eq. 3, one SMSS per RTT)
//! on loss:                       ssthresh = max(FlightSize/2, 2)           (eq. 4)
//! ```
//! Counting is in segments with a fractional counter, as Linux's
//! `tcp_reno_cong_avoid`. Slow start grows by at most `tcp.abc_limit` segments per
//! ACK (RFC 3465's L; default 1 as RFC 5681, Linux's `tcp_slow_start` has no limit:
//! see `Tcb::slow_start`).
//! The loss-recovery flavour (Tahoe, Reno, NewReno) is chosen separately.
//!
//! Validation: unit tests below; end-to-end against the PFTK model (tests/).

use super::{reno_ssthresh, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

#[derive(Clone, Debug, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        reno_ssthresh(tcb)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        let Some(acked) = tcb.slow_start_then(acked) else {
            return;
        };
        let w = tcb.cwnd;
        tcb.cong_avoid_ai(w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcb(cwnd: u32, ssthresh: u32) -> Tcb {
        let mut t = Tcb::new(1000, cwnd);
        t.ssthresh = ssthresh;
        t
    }

    /// Acknowledges one full window, one segment per ACK: one RTT of a
    /// window-limited sender without delayed ACKs.
    fn ack_one_window(cc: &mut Reno, t: &mut Tcb) {
        for _ in 0..t.cwnd {
            cc.cong_avoid(t, SimTime::ZERO, 1);
        }
    }

    #[test]
    fn slow_start_doubles_per_rtt() {
        let (mut cc, mut t) = (Reno, tcb(2, 1000));
        let mut windows = vec![t.cwnd];
        for _ in 0..4 {
            ack_one_window(&mut cc, &mut t);
            windows.push(t.cwnd);
        }
        assert_eq!(windows, vec![2, 4, 8, 16, 32]);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_rtt() {
        let (mut cc, mut t) = (Reno, tcb(20, 10));
        for expected in 21..=25 {
            ack_one_window(&mut cc, &mut t);
            assert_eq!(t.cwnd, expected);
        }
    }

    #[test]
    fn slow_start_hands_over_to_avoidance_at_ssthresh() {
        // ssthresh 10: cwnd 8 + 2 in slow start, then the third ACK starts counting.
        let (mut cc, mut t) = (Reno, tcb(8, 10));
        for _ in 0..3 {
            cc.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!((t.cwnd, t.cwnd_cnt), (10, 1));
    }

    #[test]
    fn does_not_grow_when_not_cwnd_limited() {
        let (mut cc, mut t) = (Reno, tcb(10, 5));
        t.cwnd_limited = false;
        ack_one_window(&mut cc, &mut t);
        assert_eq!(t.cwnd, 10);
    }

    #[test]
    fn loss_halves_the_flight_size_with_a_floor_of_two() {
        let mut t = tcb(40, 100);
        t.snd_una = 0;
        t.snd_nxt = 40 * 1000;
        assert_eq!(Reno.ssthresh(&t, SimTime::ZERO), 20);
        t.snd_nxt = 3 * 1000;
        assert_eq!(Reno.ssthresh(&t, SimTime::ZERO), 2);
    }
}
