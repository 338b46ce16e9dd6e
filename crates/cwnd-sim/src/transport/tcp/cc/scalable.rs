//! Scalable TCP: Kelly, "Scalable TCP: Improving Performance in Highspeed Wide Area
//! Networks", CCR 33(2), 2003; Linux `net/ipv4/tcp_scalable.c`.
//!
//! Multiplicative increase, multiplicative decrease: the time to recover from a loss
//! is a fixed number of RTTs whatever the window.
//! ```text
//! per ACK in congestion avoidance:  cwnd += a            a = 0.01               (1)
//! on loss:                          cwnd −= b · cwnd     b = 0.125              (2)
//! ```
//! Defaults a = 0.01 and b = 0.125 are Kelly's recommended values (Linux:
//! `TCP_SCALABLE_AI_CNT` 100, `TCP_SCALABLE_MD_SCALE` 3).
//!
//! As in Linux, (1) is counted as one segment per min(cwnd, 1/a) segments
//! acknowledged: below 1/a = 100 segments that is Reno's increase (which is then the
//! larger one); slow start is Reno's. (2) gives ssthresh = max(cwnd − ⌊b·cwnd⌋, 2);
//! the sender brings cwnd to it when recovery ends.
//!
//! Deviations: Kelly's paper switches to standard TCP below a legacy window; Linux,
//! and this file, use Reno's increase below 1/a segments but (2) at every window.
//! Older Linux versions used 1/a = 50 "to account for delayed ack"; this file counts
//! segments acknowledged, so delayed ACKs need no correction.
//!
//! Validation: unit tests below (0.01 per ACK, Reno below 100 segments, the 1/8
//! decrease, other a and b, undo); end to end, regains its window on a 1 Gb/s, 100 ms
//! path much faster than Reno after one loss (tests/cc_loss_based.rs).

use serde::Deserialize;

use super::CongestionControl;
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ScalableConfig {
    /// a of eq. (1), segments added per segment acknowledged. Default 0.01 (Kelly).
    pub a: f64,
    /// b of eq. (2), the fraction of cwnd removed on a loss. Default 0.125 (Kelly).
    pub b: f64,
}

impl Default for ScalableConfig {
    fn default() -> Self {
        ScalableConfig { a: 0.01, b: 0.125 }
    }
}

impl ScalableConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if !(self.a > 0.0 && self.a <= 1.0) {
            return Err(("a".into(), format!("{} is not in (0, 1]", self.a)));
        }
        if !(self.b > 0.0 && self.b < 1.0) {
            return Err(("b".into(), format!("{} is not in (0, 1)", self.b)));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Scalable {
    /// 1/a: segments acknowledged per one-segment increase.
    ai_count: u32,
    b: f64,
}

impl Scalable {
    pub fn new(cfg: ScalableConfig) -> Self {
        Scalable {
            ai_count: ((1.0 / cfg.a).round() as u32).max(1),
            b: cfg.b,
        }
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }

    /// Eq. (2).
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let cut = (self.b * tcb.cwnd as f64) as u32;
        (tcb.cwnd - cut).max(2)
    }

    /// Eq. (1).
    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        let Some(acked) = tcb.slow_start_then(acked) else {
            return;
        };
        let w = tcb.cwnd.min(self.ai_count);
        tcb.cong_avoid_ai(w, acked);
    }

    /// The increase per RTT at the current window: cwnd / min(cwnd, 1/a) segments,
    /// 1 (Reno) up to 1/a segments and a·cwnd above.
    fn info(&self, tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let w = tcb.cwnd.max(1);
        out.push(("increase", f64::from(w) / f64::from(w.min(self.ai_count))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalable() -> Scalable {
        Scalable::new(ScalableConfig::default())
    }

    fn in_avoidance(cwnd: u32) -> Tcb {
        let mut t = Tcb::new(1000, cwnd);
        t.ssthresh = 2;
        t
    }

    #[test]
    fn a_large_window_grows_one_segment_per_hundred_acks() {
        // cwnd 1000: 0.01 per ACK, so 99 ACKs add nothing, the 100th adds one, and
        // one window of 1000 ACKs adds 10 (1 %; Reno: 1).
        let mut t = in_avoidance(1000);
        let mut s = scalable();
        for _ in 0..99 {
            s.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 1000);
        s.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!(t.cwnd, 1001);
        for _ in 0..900 {
            s.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 1010);
    }

    #[test]
    fn below_a_hundred_segments_it_is_reno() {
        let mut t = in_avoidance(50);
        let mut s = scalable();
        for _ in 0..50 {
            s.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 51);
    }

    #[test]
    fn slow_start_is_reno() {
        let mut t = Tcb::new(1000, 10);
        let mut s = scalable();
        for _ in 0..10 {
            s.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 20);
    }

    #[test]
    fn loss_removes_an_eighth() {
        // 1000 − 125 = 875; 20 − ⌊2.5⌋ = 18; 2 − 0 = 2.
        let mut s = scalable();
        assert_eq!(s.ssthresh(&Tcb::new(1000, 1000), SimTime::ZERO), 875);
        assert_eq!(s.ssthresh(&Tcb::new(1000, 20), SimTime::ZERO), 18);
        assert_eq!(s.ssthresh(&Tcb::new(1000, 2), SimTime::ZERO), 2);
    }

    #[test]
    fn other_a_and_b() {
        // a = 0.02: one segment per 50 acknowledged; b = 0.25: 1000 → 750.
        let mut s = Scalable::new(ScalableConfig { a: 0.02, b: 0.25 });
        let mut t = in_avoidance(1000);
        for _ in 0..50 {
            s.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 1001);
        assert_eq!(s.ssthresh(&Tcb::new(1000, 1000), SimTime::ZERO), 750);
        let bad = ScalableConfig { a: 0.0, b: 0.125 };
        assert_eq!(bad.check().unwrap_err().0, "a");
    }

    #[test]
    fn undo_restores_the_window_before_the_cut() {
        let mut s = scalable();
        let mut t = in_avoidance(1000);
        t.prior_cwnd = t.cwnd;
        t.ssthresh = s.ssthresh(&t, SimTime::ZERO);
        t.cwnd = t.ssthresh;
        assert_eq!(s.undo_cwnd(&t), 1000);
    }

    #[test]
    fn info_reports_the_increase_per_rtt() {
        // a = 0.01 (1/a = 100): at cwnd 1000, one segment per 100 ACKs, 1000/100 = 10
        // per RTT; at cwnd 50 (≤ 100), Reno's 50/50 = 1.
        let s = scalable();
        let mut out = Vec::new();
        s.info(&in_avoidance(1000), &mut out);
        s.info(&in_avoidance(50), &mut out);
        assert_eq!(out, vec![("increase", 10.0), ("increase", 1.0)]);
    }
}
