//! HighSpeed TCP: RFC 3649 (Floyd 2003), the response function written as the
//! window-dependent increase a(w) and decrease b(w); structure after Linux
//! `net/ipv4/tcp_highspeed.c`.
//!
//! ```text
//! w ≤ Low_Window:  a = 1, b = 0.5 (standard TCP)
//! b(w) = (High_Decrease − 0.5)·(ln w − ln Low_Window)/(ln High_Window − ln Low_Window) + 0.5
//! p(w) = exp((ln w − ln Low_Window)/(ln High_Window − ln Low_Window)
//!            · (ln High_P − ln Low_P) + ln Low_P)
//! a(w) = w² · p(w) · 2 · b(w) / (2 − b(w))                                   (RFC 3649 §5)
//! per ACK: cwnd += a(w)/cwnd;   on loss: cwnd = (1 − b(w))·cwnd
//! ```
//! Low_Window = 38, High_Window = 83 000, High_P = 10⁻⁷, High_Decrease = 0.1,
//! Low_P = 1.5/Low_Window² (the standard-TCP loss rate at Low_Window).
//!
//! Deviations: Linux tabulates a (as integers) and b at 73 window values; cwnd
//! evaluates the RFC's formulas and rounds a(w) to the nearest integer (≥ 1), which
//! reproduces the RFC's table (w = 118 → a = 2, b = 0.44; w = 83 000 → b = 0.10).
//!
//! Validation: unit tests at the RFC's table points; end to end, faster recovery
//! than Reno on a 1 Gb/s, 100 ms path (tests/cc_high_speed.rs).

use super::{reno_ssthresh, CongestionControl, Reno};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

const LOW_WINDOW: f64 = 38.0;
const HIGH_WINDOW: f64 = 83_000.0;
const HIGH_P: f64 = 1e-7;
const HIGH_DECREASE: f64 = 0.1;

/// How far w is along the log scale from Low_Window (0) to High_Window (1).
fn position(w: f64) -> f64 {
    (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln())
}

/// b(w), the decrease factor.
pub fn decrease(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    (HIGH_DECREASE - 0.5) * position(w) + 0.5
}

/// a(w), the increase in segments per RTT (real-valued).
pub fn increase(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let low_p = 1.5 / (LOW_WINDOW * LOW_WINDOW);
    let p = (position(w) * (HIGH_P.ln() - low_p.ln()) + low_p.ln()).exp();
    let b = decrease(w);
    w * w * p * 2.0 * b / (2.0 - b)
}

#[derive(Clone, Debug, Default)]
pub struct HighSpeed;

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let w = tcb.cwnd as f64;
        if w <= LOW_WINDOW {
            return reno_ssthresh(tcb);
        }
        (((1.0 - decrease(w)) * w) as u32).max(2)
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        if tcb.in_slow_start() || (tcb.cwnd as f64) <= LOW_WINDOW {
            Reno.cong_avoid(tcb, now, acked);
            return;
        }
        if !tcb.cwnd_limited {
            return;
        }
        // cwnd += a(w)/cwnd per ACK: a(w) credits per ACK, one segment per cwnd.
        let a = (increase(tcb.cwnd as f64).round() as u32).max(1);
        tcb.cwnd_cnt += a * acked;
        while tcb.cwnd_cnt >= tcb.cwnd {
            tcb.cwnd_cnt -= tcb.cwnd;
            tcb.cwnd = (tcb.cwnd + 1).min(tcb.cwnd_clamp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_3649_table_points() {
        // RFC 3649 Appendix B: w = 38 → a 1, b 0.50; 118 → 2, 0.44; 221 → 3, 0.41;
        // 83 000 → b 0.10.
        for (w, a, b) in [(38.0, 1.0, 0.50), (118.0, 2.0, 0.44), (221.0, 3.0, 0.41)] {
            assert_eq!(increase(w).round(), a, "a({w}) = {}", increase(w));
            assert!((decrease(w) - b).abs() < 0.005, "b({w}) = {}", decrease(w));
        }
        assert!((decrease(83_000.0) - 0.10).abs() < 1e-9);
    }

    #[test]
    fn below_low_window_it_is_reno() {
        let mut t = Tcb::new(1000, 30);
        t.ssthresh = 2;
        for _ in 0..30 {
            HighSpeed.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 31);
        t.snd_nxt = 30_000;
        assert_eq!(HighSpeed.ssthresh(&t, SimTime::ZERO), 15);
    }

    #[test]
    fn at_118_segments_two_per_rtt_and_a_44_percent_cut() {
        // a(118) = 2 credits per ACK: 59 ACKs reach 118 → cwnd 119; 60 more reach
        // 120 ≥ 119 → cwnd 120: two segments for about one window of ACKs (Reno: one).
        // b(118) = 0.441: 118·0.559 = 65.9 → 65.
        let mut t = Tcb::new(1000, 118);
        t.ssthresh = 2;
        for _ in 0..119 {
            HighSpeed.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 120);
        assert_eq!(HighSpeed.ssthresh(&Tcb::new(1000, 118), SimTime::ZERO), 65);
    }
}
