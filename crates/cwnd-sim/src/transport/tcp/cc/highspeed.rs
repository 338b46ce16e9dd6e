//! HighSpeed TCP: RFC 3649 (Floyd 2003). The response function is written as a
//! window-dependent increase a(w) and decrease b(w) (RFC 3649 §5); Linux
//! `net/ipv4/tcp_highspeed.c` tabulates the same functions (RFC 3649 Appendix B).
//!
//! ```text
//! w ≤ Low_Window:  a(w) = 1,  b(w) = 0.5  (Standard TCP)                          (1)
//! above, with x = (ln w − ln Low_Window) / (ln High_Window − ln Low_Window):
//!   b(w) = (High_Decrease − 0.5)·x + 0.5                                          (2)
//!   p(w) = exp(ln Low_P + x·(ln High_P − ln Low_P))                                (3)
//!   a(w) = w² · p(w) · 2·b(w) / (2 − b(w))                                         (4)
//! per ACK in congestion avoidance:  cwnd += a(w) / cwnd                            (5)
//! on loss:                          cwnd = (1 − b(w)) · cwnd                       (6)
//! ```
//! (3) is the HighSpeed response function w = Low_Window·(p/Low_P)^S of RFC 3649 §5
//! solved for p: a straight line in log-log coordinates from (Low_Window, Low_P) to
//! (High_Window, High_P). (4) is the AIMD window that has that response function.
//!
//! Defaults (RFC 3649 §5): Low_Window = 38, High_Window = 83 000, High_P = 10⁻⁷,
//! High_Decrease = 0.1; Low_P = 1.5/Low_Window², Standard TCP's loss rate at
//! Low_Window, as in Floyd's ns-2 implementation (`hstcp_.low_p`); it makes
//! a(Low_Window) = 1 exactly. Slow start is Reno's.
//!
//! Counting: (5) is kept in `Tcb::cwnd_cnt` as credits of a(w)·256 per segment
//! acknowledged, one segment per cwnd·256 credits, with a(w) evaluated at the current
//! cwnd (Linux counts a(w) credits against cwnd the same way, with integer a). Below
//! Low_Window that is exactly Reno's one segment per cwnd acknowledged; (6) there is
//! Reno's ssthresh = FlightSize/2.
//!
//! Deviations: Linux steps through its 73-row table, taking for every w the integer a
//! and the b of the first row at or above w (so a(w) jumps by 1 at each row); here
//! (2)–(4) are evaluated directly, as ns-2 does, so a(w) is real-valued (to 1/256)
//! and continuous. Above High_Window a and b stay at their High_Window values (the
//! table's last row; the formulas would drive b below zero). Limited Slow-Start
//! (RFC 3742), which RFC 3649 recommends alongside, is not part of this controller.
//!
//! Validation: unit tests below (a, b at table points, the per-ACK increase at
//! w = 1058, the decrease, Reno below Low_Window, undo); end to end, regains its window
//! on a 1 Gb/s, 100 ms path much faster than Reno after one loss
//! (tests/cc_loss_based.rs).

use serde::Deserialize;

use super::{reno_ssthresh, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

/// Fixed-point scale of a(w) in the increase counter.
const A_SCALE: f64 = 256.0;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HighSpeedConfig {
    /// Low_Window (segments): at or below it, Standard TCP. Default 38 (RFC 3649).
    pub low_window: u32,
    /// High_Window (segments), reached at loss rate High_P. Default 83 000 (RFC 3649).
    pub high_window: u32,
    /// High_P, the loss rate that sustains High_Window. Default 10⁻⁷ (RFC 3649).
    pub high_p: f64,
    /// High_Decrease, b(High_Window). Default 0.1 (RFC 3649).
    pub high_decrease: f64,
}

impl Default for HighSpeedConfig {
    fn default() -> Self {
        HighSpeedConfig {
            low_window: 38,
            high_window: 83_000,
            high_p: 1e-7,
            high_decrease: 0.1,
        }
    }
}

impl HighSpeedConfig {
    /// Low_P = 1.5/Low_Window².
    fn low_p(&self) -> f64 {
        1.5 / (self.low_window as f64).powi(2)
    }

    pub fn check(&self) -> Result<(), (String, String)> {
        if self.low_window < 2 {
            return Err(("low_window".into(), "must be at least 2".into()));
        }
        if self.high_window <= self.low_window {
            return Err((
                "high_window".into(),
                format!("{} is not above low_window", self.high_window),
            ));
        }
        if !(self.high_p > 0.0 && self.high_p < self.low_p()) {
            return Err((
                "high_p".into(),
                format!(
                    "{} is not in (0, {:e}), Standard TCP's loss rate at low_window",
                    self.high_p,
                    self.low_p()
                ),
            ));
        }
        if !(self.high_decrease > 0.0 && self.high_decrease < 0.5) {
            return Err((
                "high_decrease".into(),
                format!("{} is not in (0, 0.5)", self.high_decrease),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct HighSpeed {
    low_window: f64,
    high_window: f64,
    high_decrease: f64,
    ln_low_window: f64,
    /// ln High_Window − ln Low_Window.
    ln_window_span: f64,
    ln_low_p: f64,
    /// ln High_P − ln Low_P.
    ln_p_span: f64,
}

impl HighSpeed {
    pub fn new(cfg: HighSpeedConfig) -> Self {
        let low_window = cfg.low_window as f64;
        let high_window = cfg.high_window as f64;
        HighSpeed {
            low_window,
            high_window,
            high_decrease: cfg.high_decrease,
            ln_low_window: low_window.ln(),
            ln_window_span: high_window.ln() - low_window.ln(),
            ln_low_p: cfg.low_p().ln(),
            ln_p_span: cfg.high_p.ln() - cfg.low_p().ln(),
        }
    }

    /// x of (2)/(3) for Low_Window < w ≤ High_Window.
    fn position(&self, w: f64) -> f64 {
        (w.min(self.high_window).ln() - self.ln_low_window) / self.ln_window_span
    }

    /// b(w), eqs. (1)/(2).
    pub fn decrease(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 0.5;
        }
        (self.high_decrease - 0.5) * self.position(w) + 0.5
    }

    /// a(w) in segments per RTT, eqs. (1), (3), (4).
    pub fn increase(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return 1.0;
        }
        let p = (self.ln_low_p + self.position(w) * self.ln_p_span).exp();
        let b = self.decrease(w);
        let w = w.min(self.high_window);
        w * w * p * 2.0 * b / (2.0 - b)
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    /// Eq. (6); Reno's at or below Low_Window.
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let w = tcb.cwnd as f64;
        if w <= self.low_window {
            return reno_ssthresh(tcb);
        }
        (((1.0 - self.decrease(w)) * w) as u32).max(2)
    }

    /// Eq. (5) after Reno's slow start.
    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        let Some(acked) = tcb.slow_start_then(acked) else {
            return;
        };
        let per_segment = (self.increase(tcb.cwnd as f64) * A_SCALE).round() as u64;
        let mut credits = tcb.cwnd_cnt as u64 + per_segment * acked as u64;
        let mut cwnd = tcb.cwnd as u64;
        let scale = A_SCALE as u64;
        while credits >= cwnd * scale {
            credits -= cwnd * scale;
            cwnd += 1;
        }
        tcb.cwnd = cwnd.min(tcb.cwnd_clamp as u64) as u32;
        tcb.cwnd_cnt = u32::try_from(credits).unwrap_or(u32::MAX);
    }

    /// a(w) (segments per RTT) and b(w) at the current window: the increase and
    /// the decrease a loss would apply now.
    fn info(&self, tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let w = f64::from(tcb.cwnd);
        out.push(("a", self.increase(w)));
        out.push(("b", self.decrease(w)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn highspeed() -> HighSpeed {
        HighSpeed::new(HighSpeedConfig::default())
    }

    fn in_avoidance(cwnd: u32) -> Tcb {
        let mut t = Tcb::new(1000, cwnd);
        t.ssthresh = 2;
        t
    }

    #[test]
    fn rfc_3649_table_points() {
        // At Low_Window: Low_P = 1.5/38², a = 38²·(1.5/38²)·2·0.5/1.5 = 1, b = 0.5.
        // At High_Window: x = 1, b = High_Decrease = 0.1, and
        // a = 83 000²·10⁻⁷·0.2/1.9 = 72.516.
        // Rows of RFC 3649 Appendix B (in Linux's table, a is the row index + 1):
        // w = 118 → a 2, b 0.44; 221 → 3, 0.41; 1058 → 8, 0.33; 5036 → 20, 0.25.
        // The table's a is the formula's, rounded down: a(118) = 2.094,
        // a(221) = 3.133, a(1058) = 8.314, a(5036) = 20.68.
        let hs = highspeed();
        assert!((hs.increase(38.0) - 1.0).abs() < 1e-12);
        assert_eq!(hs.decrease(38.0), 0.5);
        assert!((hs.decrease(83_000.0) - 0.1).abs() < 1e-12);
        assert!((hs.increase(83_000.0) - 72.515_789).abs() < 1e-5);
        for (w, a, b) in [
            (118.0, 2.0, 0.44),
            (221.0, 3.0, 0.41),
            (1058.0, 8.0, 0.33),
            (5036.0, 20.0, 0.25),
        ] {
            assert_eq!(hs.increase(w).floor(), a, "a({w}) = {}", hs.increase(w));
            assert!(
                (hs.decrease(w) - b).abs() < 0.005,
                "b({w}) = {}",
                hs.decrease(w)
            );
        }
        assert!((hs.increase(1058.0) - 8.313_687).abs() < 1e-5);
    }

    #[test]
    fn beyond_high_window_a_and_b_stay_at_their_last_values() {
        let hs = highspeed();
        assert_eq!(hs.increase(500_000.0), hs.increase(83_000.0));
        assert_eq!(hs.decrease(500_000.0), hs.decrease(83_000.0));
    }

    #[test]
    fn at_1058_segments_eight_segments_per_window_of_acks() {
        // a(1058) = 8.3137 → 2128 credits of 1/256 per ACK; a segment costs
        // cwnd·256 = 270 848 credits: 127 ACKs bring 270 256, the 128th crosses.
        // A whole window of 1058 ACKs buys ⌊1058·8.31/1058⌋ = 8 segments (the later
        // ones cost a little more as cwnd grows): cwnd 1066. Reno would add 1.
        let mut hs = highspeed();
        let mut t = in_avoidance(1058);
        for _ in 0..127 {
            hs.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!((t.cwnd, t.cwnd_cnt), (1058, 127 * 2128));
        hs.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt), (1059, 128 * 2128 - 270_848));
        for _ in 128..1058 {
            hs.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 1066);
    }

    #[test]
    fn loss_keeps_one_minus_b_of_the_window() {
        // b(1058) = 0.32695: (1 − 0.32695)·1058 = 712.09 → 712;
        // b(118) = 0.44105: 0.55895·118 = 65.96 → 65.
        let mut hs = highspeed();
        assert_eq!(hs.ssthresh(&Tcb::new(1000, 1058), SimTime::ZERO), 712);
        assert_eq!(hs.ssthresh(&Tcb::new(1000, 118), SimTime::ZERO), 65);
    }

    #[test]
    fn at_or_below_low_window_it_is_reno() {
        // 30 ACKs at cwnd 30 add one segment; ssthresh is FlightSize/2.
        let mut hs = highspeed();
        let mut t = in_avoidance(30);
        for _ in 0..29 {
            hs.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 30);
        hs.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!(t.cwnd, 31);
        t.snd_nxt = 38_000;
        t.cwnd = 38;
        assert_eq!(hs.ssthresh(&t, SimTime::ZERO), 19);
    }

    #[test]
    fn slow_start_is_reno() {
        let mut hs = highspeed();
        let mut t = Tcb::new(1000, 100);
        for _ in 0..100 {
            hs.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 200);
    }

    #[test]
    fn undo_restores_the_window_before_the_cut() {
        let mut hs = highspeed();
        let mut t = in_avoidance(1058);
        t.prior_cwnd = t.cwnd;
        t.ssthresh = hs.ssthresh(&t, SimTime::ZERO);
        t.cwnd = t.ssthresh;
        assert_eq!(hs.undo_cwnd(&t), 1058);
    }

    #[test]
    fn parameters_are_checked() {
        let cfg = HighSpeedConfig {
            high_p: 0.01,
            ..HighSpeedConfig::default()
        };
        assert_eq!(cfg.check().unwrap_err().0, "high_p");
        assert!(HighSpeedConfig::default().check().is_ok());
    }

    #[test]
    fn info_reports_a_and_b_at_the_window() {
        // At Low_Window 38: Reno's a = 1, b = 0.5. At High_Window 83 000: b = 0.1 and
        // a = w²·p·2b/(2 − b) = 6.889e9 · 1e-7 · 0.2/1.9 = 72.5158 (RFC 3649 §5: 72).
        let h = highspeed();
        let mut out = Vec::new();
        h.info(&Tcb::new(1000, 38), &mut out);
        assert_eq!(out, vec![("a", 1.0), ("b", 0.5)]);
        out.clear();
        h.info(&Tcb::new(1000, 83_000), &mut out);
        assert!((out[0].1 - 72.5158).abs() < 1e-4, "{out:?}");
        assert!((out[1].1 - 0.1).abs() < 1e-12, "{out:?}");
    }
}
