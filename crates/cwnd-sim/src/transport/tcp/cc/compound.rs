//! Compound TCP: Tan, Song, Zhang & Sridharan, "A Compound TCP Approach for
//! High-speed and Long Distance Networks", INFOCOM 2006.
//!
//! The window is the sum of a loss-based part (Reno) and a delay-based part:
//! ```text
//! win = cwnd + dwnd                                                            (1)
//! per ACK:  cwnd += 1/win                                                       (2)
//! per RTT:  diff = (win/baseRTT − win/RTT) · baseRTT                            (3)
//!   diff < γ:  dwnd = dwnd + (α·win^k − 1)⁺                                      (4)
//!   diff ≥ γ:  dwnd = (dwnd − ζ·diff)⁺                                           (5)
//! on loss:   dwnd = (win·(1 − β) − cwnd/2)⁺,  cwnd = cwnd/2                     (6)
//!            so that win becomes win·(1 − β) when dwnd does not hit zero
//! ```
//! α = 1/8, β = 1/2, k = 0.75, ζ = 1, γ = 30 packets (the paper's values). baseRTT is
//! the smallest RTT ever seen; RTT the smallest of the last RTT. dwnd is zero in slow
//! start (the paper: the delay component starts in congestion avoidance) and after a
//! timeout. With two or fewer RTT samples in an RTT, dwnd is left as it is.
//!
//! Deviations: the paper's implementation measures per-RTT with Vegas-style sequence
//! marks, as cwnd does; the γ auto-tuning of the paper's later section is not modelled
//! (γ is a parameter).
//!
//! Validation: unit tests below (dwnd growth and back-off, the loss rule, win = cwnd +
//! dwnd).

use serde::Deserialize;

use super::{seconds_or_nan, AckSample, CaEvent, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CompoundConfig {
    pub alpha: f64,
    pub beta: f64,
    pub k: f64,
    pub zeta: f64,
    pub gamma: f64,
}

impl Default for CompoundConfig {
    fn default() -> Self {
        CompoundConfig {
            alpha: 0.125,
            beta: 0.5,
            k: 0.75,
            zeta: 1.0,
            gamma: 30.0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Compound {
    cfg: CompoundConfig,
    /// Loss-based part (segments, with its fraction).
    cwnd: f64,
    /// Delay-based part (segments).
    dwnd: f64,
    base_rtt: SimTime,
    min_rtt: SimTime,
    samples: u32,
    beg_snd_nxt: u64,
}

impl Compound {
    pub fn new(cfg: CompoundConfig) -> Self {
        Compound {
            cfg,
            cwnd: 0.0,
            dwnd: 0.0,
            base_rtt: SimTime::MAX,
            min_rtt: SimTime::MAX,
            samples: 0,
            beg_snd_nxt: 0,
        }
    }

    fn win(&self) -> f64 {
        self.cwnd + self.dwnd
    }

    /// Eqs. (3)–(5), once per RTT.
    fn update_dwnd(&mut self) {
        if self.samples <= 2 || self.min_rtt == SimTime::MAX {
            return;
        }
        let (rtt, base) = (self.min_rtt.as_secs_f64(), self.base_rtt.as_secs_f64());
        let win = self.win();
        let diff = (win / base - win / rtt) * base;
        self.dwnd = if diff < self.cfg.gamma {
            self.dwnd + (self.cfg.alpha * win.powf(self.cfg.k) - 1.0).max(0.0)
        } else {
            (self.dwnd - self.cfg.zeta * diff).max(0.0)
        };
    }

    fn publish(&self, tcb: &mut Tcb) {
        tcb.cwnd = (self.win() as u32).clamp(1, tcb.cwnd_clamp);
    }
}

impl CongestionControl for Compound {
    fn name(&self) -> &'static str {
        "compound"
    }

    /// Eq. (6).
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let win = (tcb.cwnd as f64).max(self.win());
        let cwnd = if self.cwnd > 0.0 { self.cwnd } else { win };
        self.dwnd = (win * (1.0 - self.cfg.beta) - cwnd / 2.0).max(0.0);
        self.cwnd = (cwnd / 2.0).max(1.0);
        (self.win() as u32).max(2)
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            self.base_rtt = self.base_rtt.min(rtt);
            self.min_rtt = self.min_rtt.min(rtt);
            self.samples += 1;
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, _now: SimTime, event: CaEvent) {
        match event {
            // After a timeout the window restarts from 1: the delay part too.
            CaEvent::Loss => {
                self.cwnd = 1.0;
                self.dwnd = 0.0;
            }
            CaEvent::TxStart => self.beg_snd_nxt = tcb.snd_nxt,
            CaEvent::CompleteRecovery => {}
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.in_slow_start() {
            tcb.slow_start(acked);
            self.cwnd = tcb.cwnd as f64;
            self.dwnd = 0.0;
            return;
        }
        if self.cwnd <= 0.0 {
            self.cwnd = tcb.cwnd as f64; // first ACK in congestion avoidance
        }
        // The sender may have set cwnd (end of recovery): keep the parts in step.
        if (tcb.cwnd as f64 - self.win()).abs() >= 1.0 {
            self.cwnd = (tcb.cwnd as f64 - self.dwnd).max(1.0);
        }
        self.cwnd += acked as f64 / self.win(); // eq. (2)
        if tcb.snd_una > self.beg_snd_nxt {
            self.update_dwnd();
            self.beg_snd_nxt = tcb.snd_nxt;
            self.min_rtt = SimTime::MAX;
            self.samples = 0;
        }
        self.publish(tcb);
    }

    /// BaseRTT and the two windows the sender's is the sum of: the loss-based
    /// `cwnd` and the delay-based `dwnd` (segments).
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        out.push(("base_rtt", seconds_or_nan(self.base_rtt)));
        out.push(("cwnd", self.cwnd));
        out.push(("dwnd", self.dwnd));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctcp(cwnd: f64, dwnd: f64, base_ms: u64, rtt_ms: u64) -> Compound {
        let mut c = Compound::new(CompoundConfig::default());
        c.cwnd = cwnd;
        c.dwnd = dwnd;
        c.base_rtt = SimTime::from_millis(base_ms);
        c.min_rtt = SimTime::from_millis(rtt_ms);
        c.samples = 3;
        c
    }

    #[test]
    fn below_gamma_dwnd_grows_by_alpha_win_to_the_k_minus_one() {
        // win = 100 + 156 = 256, no queueing (diff 0): dwnd += 256^0.75/8 − 1
        // = 64/8 − 1 = 7 → 163.
        let mut c = ctcp(100.0, 156.0, 100, 100);
        c.update_dwnd();
        assert!((c.dwnd - 163.0).abs() < 1e-9, "{}", c.dwnd);
    }

    #[test]
    fn above_gamma_dwnd_backs_off_by_the_backlog() {
        // win 300, RTT 125 vs base 100: diff = 300·(1 − 100/125) = 60 ≥ 30 →
        // dwnd = 200 − 60 = 140.
        let mut c = ctcp(100.0, 200.0, 100, 125);
        c.update_dwnd();
        assert!((c.dwnd - 140.0).abs() < 1e-9, "{}", c.dwnd);
        // …and never below zero.
        let mut d = ctcp(250.0, 50.0, 100, 125);
        d.update_dwnd();
        assert_eq!(d.dwnd, 0.0);
    }

    #[test]
    fn loss_halves_the_window_through_both_parts() {
        // win = 100 + 100: dwnd = 200·0.5 − 50 = 50, cwnd = 50, win = 100.
        let mut c = ctcp(100.0, 100.0, 100, 100);
        let t = Tcb::new(1000, 200);
        assert_eq!(c.ssthresh(&t, SimTime::ZERO), 100);
        assert_eq!((c.cwnd, c.dwnd), (50.0, 50.0));
        // Without a delay part it is Reno: win 100 → 50.
        let mut r = ctcp(100.0, 0.0, 100, 100);
        assert_eq!(r.ssthresh(&Tcb::new(1000, 100), SimTime::ZERO), 50);
    }

    #[test]
    fn the_window_is_the_sum_of_both_parts() {
        let c = ctcp(40.0, 25.5, 100, 100);
        let mut t = Tcb::new(1000, 10);
        c.publish(&mut t);
        assert_eq!(t.cwnd, 65);
    }

    #[test]
    fn info_reports_the_two_windows() {
        // Before any sample: BaseRTT unknown (NaN), both windows 0. Then a loss-based
        // window of 30.5 and a delay-based one of 12.25: the sender's is 42.
        let mut c = Compound::new(CompoundConfig::default());
        let mut t = Tcb::new(1000, 10);
        let mut out = Vec::new();
        c.info(&t, &mut out);
        assert!(out[0].1.is_nan());
        assert_eq!(&out[1..], &[("cwnd", 0.0), ("dwnd", 0.0)]);
        (c.cwnd, c.dwnd, c.base_rtt) = (30.5, 12.25, SimTime::from_millis(100));
        c.publish(&mut t);
        out.clear();
        c.info(&t, &mut out);
        assert_eq!(
            out,
            vec![("base_rtt", 0.1), ("cwnd", 30.5), ("dwnd", 12.25)]
        );
        assert_eq!(t.cwnd, 42);
    }
}
