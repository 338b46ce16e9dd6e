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
//! Written as Linux does, "one segment per `cnt` ACKs": in congestion avoidance each
//! ACK counts one, whatever it covers (`tcp_cong_avoid_ai(tp, ca->cnt, 1)`), and above
//! low_window cnt is divided by an estimate of the segments per ACK, `delayed_ack`
//! (scaled by 2^4: `cnt = (cnt << 4) / delayed_ack`), which `bictcp_acked` updates
//! in `Open` as delayed_ack += acked − delayed_ack/16 and `bictcp_reset` (at start
//! and on entering `Loss`) sets to 2·16. In integers the estimate never leaves 31 or
//! 32 for one or two segments per ACK (it moves only while delayed_ack/16 differs
//! from the segments acknowledged), so Linux's BIC divides cnt by about 2 either
//! way: with delayed ACKs it grows by one segment per cnt segments, with an ACK per
//! segment twice as fast. At or below low_window cnt = cwnd is not scaled: one
//! segment per cwnd ACKs, half of Reno's per-RTT growth with delayed ACKs.
//!
//! Not modelled: the cache that skips the recomputation of cnt within HZ/32 of the
//! last one at the same cwnd (it only saves work; cnt depends on cwnd and the
//! estimate, which moves by at most one unit per ACK).
//!
//! Validation: unit tests below (each region's cnt by hand, the reductions).

use super::{AckSample, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};

const BETA_SCALE: u32 = 1024;
const BETA: u32 = 819;
const B: u32 = 4;
const MAX_INCREMENT: u32 = 16;
const LOW_WINDOW: u32 = 14;
const SMOOTH_PART: u32 = 20;
/// Linux `ACK_RATIO_SHIFT`: `delayed_ack` is segments per ACK × 16.
const ACK_RATIO_SHIFT: u32 = 4;

#[derive(Clone, Debug)]
pub struct Bic {
    last_max_cwnd: u32,
    cnt: u32,
    /// Segments per ACK, scaled by 2^ACK_RATIO_SHIFT (Linux `delayed_ack`).
    delayed_ack: u32,
}

impl Default for Bic {
    /// Linux `bictcp_reset`: the ratio starts at 2.
    fn default() -> Self {
        Bic {
            last_max_cwnd: 0,
            cnt: 0,
            delayed_ack: 2 << ACK_RATIO_SHIFT,
        }
    }
}

impl Bic {
    /// ACKs per one-segment increase at window `cwnd` (Linux `bictcp_update`).
    fn update(&mut self, cwnd: u32) {
        if cwnd <= LOW_WINDOW {
            self.cnt = cwnd;
            return;
        }
        let w_max = self.last_max_cwnd;
        self.cnt = if cwnd < w_max {
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
        if w_max == 0 {
            self.cnt = self.cnt.min(20);
        }
        self.cnt = ((self.cnt << ACK_RATIO_SHIFT) / self.delayed_ack).max(1);
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
        tcb.cong_avoid_ai(cnt, 1);
    }

    /// Linux `bictcp_acked`: the segments-per-ACK estimate, in `Open` only.
    fn pkts_acked(&mut self, tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        if tcb.ca_state == CaState::Open {
            self.delayed_ack += sample.acked - (self.delayed_ack >> ACK_RATIO_SHIFT);
        }
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

    /// cnt before Linux's delayed-ACK scaling: the estimate at 16 (one segment per ACK).
    fn cnt(w_max: u32, cwnd: u32) -> u32 {
        let mut b = Bic {
            last_max_cwnd: w_max,
            cnt: 0,
            delayed_ack: 1 << ACK_RATIO_SHIFT,
        };
        b.update(cwnd);
        b.cnt
    }

    /// A BIC in congestion avoidance at `cwnd` with W_max 200, fed `acks` ACKs of
    /// `per_ack` segments each in `Open`; returns cwnd.
    fn grow(cwnd: u32, acks: u32, per_ack: u32) -> u32 {
        let mut b = Bic {
            last_max_cwnd: 200,
            ..Bic::default()
        };
        let mut t = Tcb::new(1000, cwnd);
        t.ssthresh = 2;
        let sample = AckSample {
            acked: per_ack,
            rtt: None,
            in_flight: cwnd,
        };
        for _ in 0..acks {
            b.pkts_acked(&t, SimTime::ZERO, &sample);
            b.cong_avoid(&mut t, SimTime::ZERO, per_ack);
        }
        t.cwnd
    }

    #[test]
    fn linux_counts_acks_and_scales_cnt_by_its_delayed_ack_estimate() {
        // One segment per ACK. The estimate starts at 32 (ratio 2); the first ACK
        // makes it 32 + 1 − 32/16 = 31, after which 31 + 1 − 31/16 = 31: it stays.
        // cwnd 100..111, W_max 200: dist ≥ (200 − 111)/4 = 22 > 16, cnt = cwnd/16
        // = 6, scaled 6·16/31 = 3 (96/31): one segment per 3 ACKs. 30 ACKs: cwnd
        // 100 + 10 = 110 (unscaled, one per 6 segments: 105).
        assert_eq!(grow(100, 30, 1), 110);
        // Two segments per ACK (delayed ACKs): 32 + 2 − 2 = 32 stays, cnt = 6·16/32
        // = 3, and each ACK counts one: 15 ACKs (30 segments) → 100 + 5 = 105, one
        // segment per 6 segments acknowledged.
        assert_eq!(grow(100, 15, 2), 105);
    }

    #[test]
    fn at_or_below_low_window_linux_adds_one_segment_per_cwnd_acks() {
        // cwnd 10 ≤ 14: cnt = cwnd, not scaled, one count per ACK. Delayed ACKs, 20
        // ACKs of 2 segments: 10 ACKs take cwnd to 11, the next 10 leave it one ACK
        // short of 12. Counting segments (40) would give 10 → 11 → 12 → 13 (+10,
        // +11, +12 segments), 7 left over.
        assert_eq!(grow(10, 20, 2), 11);
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
        // (100 − 80)/B = 5 ≤ 16, so cnt = 80/5 = 16, scaled by Linux's delayed-ACK
        // estimate at its initial 2 segments per ACK: 16·16/32 = 8 ACKs per segment.
        let mut b = Bic::default();
        b.ssthresh(&Tcb::new(1000, 100), SimTime::ZERO);
        b.update(80);
        let mut out = Vec::new();
        b.info(&Tcb::new(1000, 80), &mut out);
        assert_eq!(out, vec![("w_max", 100.0), ("cnt", 8.0)]);
    }
}
