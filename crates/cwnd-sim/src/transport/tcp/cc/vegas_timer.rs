//! Vegas's fine-grained retransmission (Brakmo & Peterson, "TCP Vegas: End to End
//! Congestion Avoidance on a Global Internet", JSAC 13(8) 1995, §3.1; ns-2
//! `tcp-vegas.cc`, `VegasTcpAgent::recv` and `vegas_expire`).
//!
//! Vegas times each segment with the exact clock and keeps its own timeout from
//! those samples, besides the coarse retransmission timer:
//! * on a duplicate ACK (the first or second, before dupthresh), if the oldest
//!   unacknowledged segment was last sent at least `timeout` ago, it is resent at
//!   once, as a fast retransmit;
//! * on the first and second ACKs of new data after such a retransmission (at most
//!   as many as were outstanding), if the new oldest segment has outlived `timeout`
//!   it is resent too (a second loss in the same window, caught without waiting for
//!   duplicates or the coarse timer); the first one that has not ends the watch.
//!
//! The timeout, as ns-2 computes it (Jacobson's estimator with sa = 8·srtt and
//! sd = 4·mdev): on each RTT sample of a segment sent once,
//! ```text
//! n = rtt − sa/8;  sa += n;  n = |n| − sd/4;  sd += n;
//! timeout = (sa/4 + sd)/2 · (1 + 1/16)       (= (srtt + 2·mdev) · 17/16)
//! ```
//! starting from sa = 8·rtt, sd = rtt at the first sample; a fast retransmit
//! lengthens it by 1/8 (ns-2 doubles it instead when the segment had already been
//! resent; here the 1/8 always, a simplification: the next sample replaces it).
//! A coarse timeout ends the watch (ns-2 `ns_vegas_fix_level_` ≥ 1).

use crate::time::SimTime;

/// Which ACK the sender asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckKind {
    Duplicate,
    New,
}

#[derive(Clone, Debug, Default)]
pub struct FineTimer {
    /// 8 · smoothed RTT, ns.
    sa: i64,
    /// 4 · mean deviation, ns.
    sd: i64,
    /// None before the first sample: nothing expires.
    timeout: Option<SimTime>,
    /// ACKs of new data still to check after a retransmission.
    worried: u32,
}

impl FineTimer {
    /// An RTT sample of a segment transmitted once.
    pub fn sample(&mut self, rtt: SimTime) {
        let rtt = rtt.as_nanos() as i64;
        if self.timeout.is_none() {
            (self.sa, self.sd) = (8 * rtt, rtt);
        }
        let mut n = rtt - self.sa / 8;
        self.sa += n;
        n = n.abs() - self.sd / 4;
        self.sd += n;
        let t = (self.sa / 4 + self.sd) / 2;
        self.timeout = Some(SimTime((t + t / 16).max(0) as u64));
    }

    /// A fast retransmit: watch the next ACKs of new data (at most `outstanding`,
    /// at most two), and lengthen the timeout by 1/8.
    pub fn on_fast_retransmit(&mut self, outstanding: u32) {
        self.worried = outstanding.min(2);
        self.timeout = self.timeout.map(|t| t + SimTime(t.as_nanos() / 8));
    }

    /// A coarse timeout: the watch ends.
    pub fn on_timeout(&mut self) {
        self.worried = 0;
    }

    /// Whether the oldest unacknowledged segment, last sent at `sent`, is to be
    /// resent now, on an ACK of kind `ack`.
    pub fn expired(&mut self, now: SimTime, sent: SimTime, ack: AckKind) -> bool {
        let Some(timeout) = self.timeout else {
            return false;
        };
        let expired = now - sent >= timeout;
        if ack == AckKind::New {
            if self.worried == 0 {
                return false;
            }
            self.worried = if expired { self.worried - 1 } else { 0 };
        }
        expired
    }

    #[cfg(test)]
    pub fn timeout(&self) -> Option<SimTime> {
        self.timeout
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timeout_follows_ns2s_estimator_by_hand() {
        // First sample 100 ms: sa = 800, sd = 100; n = 100 − 100 = 0, sa = 800;
        // n = 0 − 25 = −25, sd = 75; timeout = (200 + 75)/2 = 137.5 ms, plus 1/16:
        // 146.09375 ms. Second sample 120 ms: n = 120 − 100 = 20, sa = 820;
        // n = 20 − 18.75 = 1.25, sd = 76.25; (205 + 76.25)/2 = 140.625 ms, plus 1/16:
        // 149.4140625 ms.
        let mut f = FineTimer::default();
        assert_eq!(f.timeout(), None);
        f.sample(SimTime::from_millis(100));
        assert_eq!(f.timeout(), Some(SimTime(146_093_750)));
        f.sample(SimTime::from_millis(120));
        assert_eq!(f.timeout(), Some(SimTime(149_414_062)));
        // A fast retransmit adds 1/8: 149.414062 + 18.676757 = 168.090819 ms.
        f.on_fast_retransmit(10);
        assert_eq!(f.timeout(), Some(SimTime(168_090_819)));
    }

    #[test]
    fn duplicates_check_always_new_acks_only_after_a_retransmission() {
        let mut f = FineTimer::default();
        f.sample(SimTime::from_millis(100)); // timeout 146.09375 ms
        let sent = SimTime::ZERO;
        let at = |ns| SimTime(ns);
        assert!(!f.expired(at(146_093_749), sent, AckKind::Duplicate));
        assert!(f.expired(at(146_093_750), sent, AckKind::Duplicate));
        // No retransmission yet: new ACKs are not checked.
        assert!(!f.expired(at(500_000_000), sent, AckKind::New));
        // After one, the next two new ACKs are; an unexpired one ends the watch.
        f.on_fast_retransmit(10); // timeout 164.355468 ms
        assert!(f.expired(at(200_000_000), sent, AckKind::New));
        assert!(!f.expired(at(100_000_000), sent, AckKind::New));
        assert!(!f.expired(at(200_000_000), sent, AckKind::New));
        // With one segment outstanding, one ACK is checked; a timeout ends it all.
        f.on_fast_retransmit(1);
        assert!(f.expired(at(400_000_000), sent, AckKind::New));
        assert!(!f.expired(at(400_000_000), sent, AckKind::New));
        f.on_fast_retransmit(10);
        f.on_timeout();
        assert!(!f.expired(at(900_000_000), sent, AckKind::New));
    }
}
