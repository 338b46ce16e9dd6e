//! Scalable TCP: Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", CCR 33(2), 2003; Linux `net/ipv4/tcp_scalable.c`.
//!
//! ```text
//! per ACK in congestion avoidance:  cwnd += a,  a = 0.01  (one segment per 100 acked)   (1)
//! on loss:                          cwnd −= b·cwnd,  b = 0.125                          (2)
//! ```
//! As in Linux, the increase is one segment per min(cwnd, 100) acknowledged, so below
//! 100 segments Scalable grows as Reno (Kelly's "legacy window"); slow start is Reno's.
//!
//! Validation: unit tests below; end to end, faster recovery than Reno on a 1 Gb/s,
//! 100 ms path (tests/cc_high_speed.rs).

use super::CongestionControl;
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

/// Segments acknowledged per one-segment increase (1/a).
const AI_COUNT: u32 = 100;

#[derive(Clone, Debug, Default)]
pub struct Scalable;

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    /// Eq. (2): cwnd − cwnd/8.
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        (tcb.cwnd - (tcb.cwnd >> 3)).max(2)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        let Some(acked) = tcb.slow_start_then(acked) else {
            return;
        };
        let w = tcb.cwnd.min(AI_COUNT);
        tcb.cong_avoid_ai(w, acked);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_large_window_grows_one_segment_per_hundred_acks() {
        // cwnd 1000: 0.01 per ACK → +10 after 1000 ACKs (one RTT), not +1 as Reno.
        let mut t = Tcb::new(1000, 1000);
        t.ssthresh = 2;
        for _ in 0..1000 {
            Scalable.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 1010);
    }

    #[test]
    fn below_a_hundred_segments_it_is_reno() {
        let mut t = Tcb::new(1000, 50);
        t.ssthresh = 2;
        for _ in 0..50 {
            Scalable.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 51);
    }

    #[test]
    fn loss_removes_an_eighth() {
        // 1000 − 125 = 875; 20 − 2 = 18.
        assert_eq!(Scalable.ssthresh(&Tcb::new(1000, 1000), SimTime::ZERO), 875);
        assert_eq!(Scalable.ssthresh(&Tcb::new(1000, 20), SimTime::ZERO), 18);
    }
}
