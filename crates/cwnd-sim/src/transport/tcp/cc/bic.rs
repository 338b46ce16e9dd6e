//! BIC TCP: Xu, Harfoush & Rhee, "Binary Increase Congestion Control (BIC) for Fast
//! Long-Distance Networks", INFOCOM 2004; Linux `net/ipv4/tcp_bic.c`.
//!
//! Below W_max BIC searches for it by halving the distance each RTT; above it, it
//! probes slowly, then faster:
//! ```text
//! cwnd ≤ low_window (14):           Reno
//! cwnd < W_max (binary search):     dist = (W_max − cwnd)/B, B = 4
//!     dist > S_max (16):            +S_max per RTT         (additive increase)
//!     dist ≤ 1:                     +B/smooth_part per RTT (smooth_part = 20)
//!     else:                         +dist per RTT
//! cwnd ≥ W_max (max probing):       below W_max + B:        +B/smooth_part per RTT
//!                                   below W_max + S_max·(B−1): +(cwnd − W_max)/(B−1) per RTT
//!                                   else:                   +S_max per RTT
//! before any loss (W_max = 0): at least one segment per 20 acknowledged
//! on loss: W_max = cwnd (fast convergence: cwnd·(1 + β)/2 when cwnd < W_max),
//!          ssthresh = β·cwnd with β = 819/1024 ≈ 0.8 (cwnd/2 at or below low_window)
//! ```
//! Written as Linux does, "one segment per `cnt` segments acknowledged".
//!
//! Deviations: Linux scales cnt by a delayed-ACK ratio estimate; cwnd's receivers ACK
//! every segment unless delayed ACKs are on, so the ratio is taken as 1.
//!
//! Validation: unit tests below (each region's cnt by hand, the reductions).

use super::CongestionControl;
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

const BETA_SCALE: u32 = 1024;
const BETA: u32 = 819;
const B: u32 = 4;
const MAX_INCREMENT: u32 = 16;
const LOW_WINDOW: u32 = 14;
const SMOOTH_PART: u32 = 20;

#[derive(Clone, Debug, Default)]
pub struct Bic {
    last_max_cwnd: u32,
    cnt: u32,
}

impl Bic {
    /// Segments to acknowledge per one-segment increase at window `cwnd`.
    fn update(&mut self, cwnd: u32) {
        let w_max = self.last_max_cwnd;
        self.cnt = if cwnd <= LOW_WINDOW {
            cwnd
        } else if cwnd < w_max {
            let dist = (w_max - cwnd) / B;
            if dist > MAX_INCREMENT {
                cwnd / MAX_INCREMENT
            } else if dist <= 1 {
                cwnd * SMOOTH_PART / B
            } else {
                cwnd / dist
            }
        } else if cwnd < w_max + B {
            cwnd * SMOOTH_PART / B
        } else if cwnd < w_max + MAX_INCREMENT * (B - 1) {
            cwnd * (B - 1) / (cwnd - w_max)
        } else {
            cwnd / MAX_INCREMENT
        };
        if w_max == 0 && cwnd > LOW_WINDOW {
            self.cnt = self.cnt.min(20);
        }
        self.cnt = self.cnt.max(1);
    }
}

impl CongestionControl for Bic {
    fn name(&self) -> &'static str {
        "bic"
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let cwnd = tcb.cwnd;
        self.last_max_cwnd = if cwnd < self.last_max_cwnd {
            cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)
        } else {
            cwnd
        };
        if cwnd <= LOW_WINDOW {
            (cwnd / 2).max(2)
        } else {
            (cwnd * BETA / BETA_SCALE).max(2)
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.in_slow_start() {
            tcb.slow_start(acked);
            return;
        }
        self.update(tcb.cwnd);
        let cnt = self.cnt;
        tcb.cong_avoid_ai(cnt, acked);
    }

    fn cwnd_event(&mut self, _tcb: &mut Tcb, _now: SimTime, event: super::CaEvent) {
        if event == super::CaEvent::Loss {
            *self = Bic::default(); // Linux bictcp_reset on entering Loss
        }
    }

    /// W_max (`last_max_cwnd`, the window of the last loss, 0 before one) and the
    /// segments acknowledged per one-segment increase (`cnt`).
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        out.push(("w_max", f64::from(self.last_max_cwnd)));
        out.push(("cnt", f64::from(self.cnt)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cnt(w_max: u32, cwnd: u32) -> u32 {
        let mut b = Bic {
            last_max_cwnd: w_max,
            cnt: 0,
        };
        b.update(cwnd);
        b.cnt
    }

    #[test]
    fn binary_search_below_w_max() {
        // W_max 200, cwnd 100: dist = 100/4 = 25 > 16 → +16 per RTT: cnt = 100/16 = 6.
        assert_eq!(cnt(200, 100), 6);
        // cwnd 160: dist = 40/4 = 10 → +10 per RTT: cnt = 160/10 = 16.
        assert_eq!(cnt(200, 160), 16);
        // cwnd 197: dist = 3/4 = 0 ≤ 1 → +0.2 per RTT: cnt = 197·20/4 = 985.
        assert_eq!(cnt(200, 197), 985);
    }

    #[test]
    fn max_probing_above_w_max() {
        // cwnd 202 < W_max + 4: cnt = 202·20/4 = 1010 (slow start of probing).
        assert_eq!(cnt(200, 202), 1010);
        // cwnd 230 < W_max + 48: cnt = 230·3/30 = 23.
        assert_eq!(cnt(200, 230), 23);
        // cwnd 300: +16 per RTT: cnt = 300/16 = 18.
        assert_eq!(cnt(200, 300), 18);
    }

    #[test]
    fn low_window_is_reno_and_first_epoch_is_capped() {
        assert_eq!(cnt(200, 10), 10);
        // No loss yet: at most one segment per 20 acknowledged.
        assert_eq!(cnt(0, 1000), 20);
    }

    #[test]
    fn loss_reduces_to_eight_tenths_and_remembers_w_max() {
        // cwnd 100: ssthresh = 100·819/1024 = 79; W_max = 100. A second loss at
        // 90 < 100: W_max = 90·1843/2048 = 80 (fast convergence).
        let mut b = Bic::default();
        assert_eq!(b.ssthresh(&Tcb::new(1000, 100), SimTime::ZERO), 79);
        assert_eq!(b.last_max_cwnd, 100);
        b.ssthresh(&Tcb::new(1000, 90), SimTime::ZERO);
        assert_eq!(b.last_max_cwnd, 80);
        assert_eq!(b.ssthresh(&Tcb::new(1000, 10), SimTime::ZERO), 5);
    }

    #[test]
    fn info_reports_w_max_and_cnt() {
        // A loss at cwnd 100 sets W_max = 100; at cwnd 80 the distance is
        // (100 − 80)/B = 5 ≤ 16, so cnt = 80/5 = 16 ACKs per segment.
        let mut b = Bic::default();
        b.ssthresh(&Tcb::new(1000, 100), SimTime::ZERO);
        b.update(80);
        let mut out = Vec::new();
        b.info(&Tcb::new(1000, 80), &mut out);
        assert_eq!(out, vec![("w_max", 100.0), ("cnt", 16.0)]);
    }
}
