//! CUBIC: RFC 9438 (Xu, Ha, Rhee, Goel, Eggert 2023), in segments as Linux's
//! `net/ipv4/tcp_cubic.c` computes it.
//!
//! ```text
//! on a congestion event:  W_max = cwnd  (fast convergence: if cwnd < W_max,
//!                         W_max = cwnd·(1 + β)/2)                        (§4.7)
//!                         ssthresh = max(cwnd·β, 2)                      (§4.6)
//! K = ∛(W_max·(1 − β)/C)                                                 (Eq. 2)
//! W_cubic(t) = C·(t − K)³ + W_max                                        (Eq. 1)
//! in congestion avoidance, per ACK: cwnd += (W_cubic(t + RTT) − cwnd)/cwnd   (§4.4)
//! Reno-friendly region: W_est grows α_cubic = 3(1 − β)/(1 + β) segments per RTT;
//!                       when W_est > W_cubic, cwnd follows W_est            (Eq. 4, §4.3)
//! ```
//! t is the time since the current congestion-avoidance epoch began (the first ACK
//! after a reduction); C = 0.4, β = 0.7 (RFC 9438 and Linux). Like Linux, the growth is
//! expressed as "one segment per `cnt` segments acknowledged" (`cnt = cwnd /
//! (target − cwnd)`, at least 2), so cwnd never grows by more than half a segment per
//! ACK; when the window is above the target cnt = 100·cwnd (almost flat, §4.5).
//! After a retransmission timeout the epoch and W_max are forgotten (Linux
//! `bictcp_reset` on entering Loss).
//!
//! Slow start: standard by default (RFC 9438 §4.10 allows it); `hystart = "linux"`
//! ends it as Linux's HyStart does, `"rfc9406"` with HyStart++ (`hystart.rs`). Formula evaluation uses f64 (Linux uses fixed
//! point with a 1024 scale; the difference is below one segment).
//!
//! Validation: unit tests below (K, W(t) at 0, K and 2K, fast convergence, the
//! Reno-friendly region); end to end, the cwnd trace after one loss follows W(t)
//! within 5 % (tests/cc_cubic.rs).

use serde::Deserialize;

use super::hystart::{Hystart, HystartMode};
use super::{AckSample, CaEvent, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// C in segments/s³.
    pub c: f64,
    /// Multiplicative decrease factor β.
    pub beta: f64,
    pub fast_convergence: bool,
    /// Use the Reno-friendly region (RFC 9438 §4.3).
    pub tcp_friendliness: bool,
    /// Slow-start exit: "off", "linux" (HyStart) or "rfc9406" (HyStart++).
    pub hystart: HystartMode,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            c: 0.4,
            beta: 0.7,
            fast_convergence: true,
            tcp_friendliness: true,
            hystart: HystartMode::Off,
        }
    }
}

impl CubicConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta".into(), format!("{} is not in (0, 1)", self.beta)));
        }
        if self.c <= 0.0 || !self.c.is_finite() {
            return Err(("c".into(), format!("{} is not positive", self.c)));
        }
        Ok(())
    }
}

/// All mutable state, so that a snapshot can restore it.
#[derive(Clone, Debug, Default)]
struct State {
    epoch_start: Option<SimTime>,
    /// W_max (segments); 0 before the first congestion event.
    w_max: f64,
    /// Where the cubic curve is anchored: W_max, or cwnd if cwnd ≥ W_max at the epoch.
    origin: f64,
    /// K in seconds.
    k: f64,
    /// Segments acknowledged in this epoch, for W_est.
    ack_cnt: u32,
    /// W_est of the Reno-friendly region (segments).
    w_est: u32,
    /// Segments to acknowledge per one-segment increase.
    cnt: u32,
    /// Smallest RTT seen in this epoch's life.
    delay_min: Option<SimTime>,
}

#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    state: State,
    hystart: Hystart,
}

impl Cubic {
    pub fn new(cfg: CubicConfig) -> Self {
        Cubic {
            hystart: Hystart::new(cfg.hystart),
            cfg,
            state: State::default(),
        }
    }

    /// Eq. (1), relative to the current epoch's anchor.
    fn w_cubic(&self, t: f64) -> f64 {
        self.cfg.c * (t - self.state.k).powi(3) + self.state.origin
    }

    fn update(&mut self, tcb: &Tcb, now: SimTime, acked: u32) {
        let cwnd = tcb.cwnd;
        let s = &mut self.state;
        s.ack_cnt += acked;
        let epoch = match s.epoch_start {
            Some(e) => e,
            None => {
                s.ack_cnt = acked;
                s.w_est = cwnd;
                if s.w_max <= cwnd as f64 {
                    s.k = 0.0;
                    s.origin = cwnd as f64;
                } else {
                    s.k = ((s.w_max - cwnd as f64) / self.cfg.c).cbrt();
                    s.origin = s.w_max;
                }
                s.epoch_start = Some(now);
                now
            }
        };
        let rtt = self.state.delay_min.unwrap_or(SimTime::ZERO);
        let t = ((now - epoch) + rtt).as_secs_f64();
        let target = self.w_cubic(t);
        let s = &mut self.state;
        s.cnt = if target > cwnd as f64 {
            ((cwnd as f64 / (target - cwnd as f64)) as u32).max(1)
        } else {
            100 * cwnd
        };
        if self.cfg.tcp_friendliness {
            // W_est + 1 every cwnd/α_cubic segments acknowledged (eq. 4).
            let alpha = 3.0 * (1.0 - self.cfg.beta) / (1.0 + self.cfg.beta);
            let per_segment = ((cwnd as f64 / alpha) as u32).max(1);
            while s.ack_cnt > per_segment {
                s.ack_cnt -= per_segment;
                s.w_est += 1;
            }
            if s.w_est > cwnd {
                let max_cnt = cwnd / (s.w_est - cwnd);
                s.cnt = s.cnt.min(max_cnt);
            }
        }
        s.cnt = s.cnt.max(2);
    }
}

impl CongestionControl for Cubic {
    fn name(&self) -> &'static str {
        "cubic"
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let cwnd = tcb.cwnd as f64;
        self.hystart.on_congestion();
        let s = &mut self.state;
        s.epoch_start = None;
        s.w_max = if cwnd < s.w_max && self.cfg.fast_convergence {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        // The epsilon keeps e.g. 90 · 0.7 = 62.999… from flooring to 62.
        ((cwnd * self.cfg.beta + 1e-9) as u32).max(2)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        let Some(acked) = self.hystart.slow_start(tcb, acked) else {
            return;
        };
        self.update(tcb, now, acked);
        let cnt = self.state.cnt;
        tcb.cong_avoid_ai(cnt, acked);
    }

    fn pkts_acked(&mut self, tcb: &Tcb, now: SimTime, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            let d = &mut self.state.delay_min;
            *d = Some(d.map_or(rtt, |m| m.min(rtt)));
            self.hystart.on_rtt(tcb, now, rtt);
        }
    }

    fn cwnd_event(&mut self, _tcb: &mut Tcb, _now: SimTime, event: CaEvent) {
        match event {
            // A timeout forgets the curve (Linux bictcp_reset on entering Loss).
            CaEvent::Loss => {
                self.state = State::default();
                self.hystart.reset();
            }
            CaEvent::TxStart => self.state.epoch_start = None,
            CaEvent::CompleteRecovery => {}
        }
    }

    /// W_max and K of the current curve (eq. 2, seconds) and the Reno-friendly
    /// W_est (eq. 4); 0 before the first congestion event.
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        out.push(("w_max", self.state.w_max));
        out.push(("k", self.state.k));
        out.push(("w_est", f64::from(self.state.w_est)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cubic() -> Cubic {
        Cubic::new(CubicConfig::default())
    }

    /// A congestion event at cwnd `w`, then the first ACK of the new epoch at t = 0.
    fn after_loss(c: &mut Cubic, w: u32) -> Tcb {
        let mut t = Tcb::new(1000, w);
        t.ssthresh = c.ssthresh(&t, SimTime::ZERO);
        t.cwnd = t.ssthresh;
        c.update(&t, SimTime::ZERO, 1);
        t
    }

    #[test]
    fn loss_sets_ssthresh_to_beta_cwnd_and_k_by_eq_2() {
        // W_max = 100: ssthresh = 70; K = ∛(100·0.3/0.4) = ∛75 = 4.2172 s.
        let mut c = cubic();
        let t = after_loss(&mut c, 100);
        assert_eq!(t.ssthresh, 70);
        assert!((c.state.k - 75f64.cbrt()).abs() < 1e-12);
        assert!((c.state.k - 4.2172).abs() < 1e-4);
    }

    #[test]
    fn w_cubic_at_zero_k_and_two_k() {
        // W(0) = 100 − 0.4·75 = 70; W(K) = 100; W(2K) = 100 + 0.4·75 = 130.
        let mut c = cubic();
        after_loss(&mut c, 100);
        let k = c.state.k;
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
        assert!((c.w_cubic(k) - 100.0).abs() < 1e-9);
        assert!((c.w_cubic(2.0 * k) - 130.0).abs() < 1e-9);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_cwnd_falls_short_of_it() {
        // Second loss at 90 < W_max 100: W_max = 90·1.7/2 = 76.5.
        let mut c = cubic();
        after_loss(&mut c, 100);
        let t = Tcb::new(1000, 90);
        assert_eq!(c.ssthresh(&t, SimTime::ZERO), 63);
        assert!((c.state.w_max - 76.5).abs() < 1e-9);
        let mut plain = Cubic::new(CubicConfig {
            fast_convergence: false,
            ..CubicConfig::default()
        });
        after_loss(&mut plain, 100);
        plain.ssthresh(&t, SimTime::ZERO);
        assert_eq!(plain.state.w_max, 90.0);
    }

    #[test]
    fn below_the_curve_cnt_closes_the_gap_in_one_rtt() {
        // W_max 100, cwnd 70, RTT 1 s: at t = 0 the target is W(1) =
        // 0.4·(1 − 4.2172)³ + 100 = 86.69; cnt = 70 / 16.69 = 4.
        let mut c = cubic();
        let mut t = after_loss(&mut c, 100);
        c.state.delay_min = Some(SimTime::from_secs(1));
        c.update(&t, SimTime::ZERO, 1);
        assert!((c.w_cubic(1.0) - 86.69).abs() < 0.01);
        assert_eq!(c.state.cnt, 4);
        t.cwnd_cnt = 0;
        t.cong_avoid_ai(c.state.cnt, 4);
        assert_eq!(t.cwnd, 71);
    }

    #[test]
    fn reno_friendly_region_takes_over_when_faster() {
        // A tiny W_max (W_max = cwnd = 10, K = 0) and no RTT: the cubic target is
        // ≈ 10 (cnt = 100·cwnd), but W_est grows α = 0.529 per window of ACKs:
        // after 60 ACKs (cwnd/α = 18 per step) W_est = 13 > 10 and cnt = 10/3 = 3.
        let mut c = cubic();
        c.state.w_max = 10.0;
        let t = Tcb::new(1000, 10);
        c.update(&t, SimTime::ZERO, 1);
        for _ in 0..59 {
            c.update(&t, SimTime::ZERO, 1);
        }
        assert_eq!(c.state.w_est, 13);
        assert_eq!(c.state.cnt, 3);
    }

    #[test]
    fn a_timeout_forgets_the_curve() {
        let mut c = cubic();
        let mut t = after_loss(&mut c, 100);
        c.cwnd_event(&mut t, SimTime::ZERO, CaEvent::Loss);
        assert_eq!(c.state.w_max, 0.0);
        assert!(c.state.epoch_start.is_none());
    }

    #[test]
    fn bad_parameters_are_rejected() {
        let bad = CubicConfig {
            beta: 1.2,
            ..CubicConfig::default()
        };
        assert_eq!(bad.check().unwrap_err().0, "beta");
    }

    #[test]
    fn info_reports_w_max_and_k() {
        // Loss at cwnd 100: W_max = 100, cwnd = 70 at the epoch, K = ∛((100 − 70)/0.4)
        // = ∛75 = 4.2172 s; W_est starts at cwnd = 70.
        let mut c = cubic();
        let t = after_loss(&mut c, 100);
        let mut out = Vec::new();
        c.info(&t, &mut out);
        assert_eq!(out[0], ("w_max", 100.0));
        assert_eq!(out[1].0, "k");
        assert!((out[1].1 - 4.2172).abs() < 1e-4, "{out:?}");
        assert_eq!(out[2], ("w_est", 70.0));
    }
}
