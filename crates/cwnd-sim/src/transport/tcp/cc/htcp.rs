//! H-TCP: Leith & Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004; as Linux `net/ipv4/tcp_htcp.c` implements it.
//!
//! The increase grows with the time Δ since the last congestion event; the decrease
//! adapts to the path's buffering:
//! ```text
//! α(Δ) = 1                                  Δ ≤ Δ_L = 1 s
//!      = 1 + 10(Δ − Δ_L) + ((Δ − Δ_L)/2)²   Δ > Δ_L  (whole segments, as Linux)      (1)
//! RTT scaling:  α ← α · RTTmin / 100 ms, the ratio clamped to [0.5, 10]             (2)
//! α ← 2(1 − β)·α     (so that the average window matches AIMD(α, β))                 (3)
//! per ACK in congestion avoidance:  cwnd += α / cwnd                                 (4)
//! β = RTTmin / RTTmax clamped to [0.5, 0.8]; β = 0.5 when the throughput measured
//!     before this congestion event differs from the one before it by more than 20 %  (5)
//! on loss:  ssthresh = max(β · cwnd, 2)                                              (6)
//! ```
//! Linux's rules, followed here (the paper leaves them open):
//! - (1) is evaluated in integers: factor = 1 + ⌊(10·d + (d/2)²/HZ)/HZ⌋ with d = Δ − 1 s
//!   in clock ticks; (2) as `scale = 8·HZ/(10·RTTmin)` clamped to [4, 80], factor =
//!   ⌊8·factor/scale⌋, at least 1. α and β are kept in 1/128. α is recomputed at every
//!   increment and at every congestion event, β only at congestion events.
//! - RTTmin is the smallest RTT sample; RTTmax the largest sample in the `Open` state
//!   that is at most 20 ms above the previous RTTmax (a filter against outliers), and
//!   it fades towards RTTmin by 5 % at each congestion event. β uses RTT scaling only
//!   when RTTmin > 10 ms, and only from the second congestion event on (the first sets
//!   β = 0.5 and arms the mode switch).
//! - The throughput of (5), B, is measured in the `Open` and `Disorder` states as
//!   segments acknowledged per second, once per RTTmin and about a window; it is reset
//!   to the current sample within 3 RTTs of a congestion event and otherwise smoothed
//!   B ← (3B + sample)/4, keeping its maximum: (5) compares that maximum with the one
//!   saved at the previous congestion event, 4/5 to 6/5.
//! - (4) counts ACKs, not segments: one ACK adds the segments it acknowledged only in
//!   `Open` (`pkts_acked`), and the ACK that completes a segment's worth adds nothing.
//!   Slow start is Reno's.
//! - Δ starts with the flow (Linux `htcp_init`) and when a congestion event ends (the
//!   return to `Open`), is set back by a new one (`Recovery`, `Loss`) and restored, with
//!   RTTmax and the saved throughput, when the reduction proves spurious.
//!
//! Linux counts time in jiffies (HZ = 100–1000 ticks per second); here in microseconds,
//! the same integer formulas with HZ = 10⁶ (identical to HZ = 1000 when the times are
//! whole milliseconds). `use_rtt_scaling` and `use_bandwidth_switch` are Linux's module
//! parameters.
//!
//! Validation: unit tests below, with α, β and the increase worked by hand.

use serde::Deserialize;

use super::{AckSample, CaEvent, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};

/// Clock ticks per second (Linux `HZ`): microseconds.
const HZ: u64 = 1_000_000;
/// 1.0 in the fixed point of α and β (Linux `<< 7`).
const UNIT: u64 = 1 << 7;
/// β's bounds: 0.5 and 0.8 (Linux `BETA_MIN`, `BETA_MAX` = 102/128).
const BETA_MIN: u64 = UNIT / 2;
const BETA_MAX: u64 = 102;
/// RTTmax ignores samples more than this above it (Linux `msecs_to_jiffies(20)`).
const MAX_RTT_STEP: u64 = 20_000;
/// β follows the RTTs only above this RTTmin (Linux `msecs_to_jiffies(10)`).
const MIN_RTT_FOR_BETA: u64 = 10_000;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HtcpConfig {
    /// Eq. (2): scale α by RTTmin / 100 ms (Linux `use_rtt_scaling`, default on).
    pub use_rtt_scaling: bool,
    /// Eq. (5)'s throughput test (Linux `use_bandwidth_switch`, default on).
    pub use_bandwidth_switch: bool,
}

impl Default for HtcpConfig {
    fn default() -> Self {
        HtcpConfig {
            use_rtt_scaling: true,
            use_bandwidth_switch: true,
        }
    }
}

/// What a congestion event replaced, for undo (Linux `undo_*`).
#[derive(Clone, Copy, Debug)]
struct Undo {
    last_cong: u64,
    max_rtt: u64,
    old_max_b: u64,
}

#[derive(Clone, Debug)]
pub struct Htcp {
    cfg: HtcpConfig,
    /// Segments per RTT, in 1/128.
    alpha: u64,
    /// Fraction kept on loss, in 1/128.
    beta: u64,
    /// β may follow the RTTs (set at the first congestion event).
    modeswitch: bool,
    /// Segments the latest ACK acknowledged, in `Open`; 1 once counted.
    pkts_acked: u32,
    /// Segments acknowledged since the throughput measurement began.
    packetcount: u64,
    /// RTTmin and RTTmax in µs; 0 before the first sample.
    min_rtt: u64,
    max_rtt: u64,
    /// When the current epoch began (µs): the end of the last congestion event.
    last_cong: u64,
    undo: Option<Undo>,
    /// Throughput in segments per second: smoothed, its extremes, and the maximum
    /// saved at the last congestion event.
    bi: u64,
    min_b: u64,
    max_b: u64,
    old_max_b: u64,
    /// When the current throughput measurement began (µs).
    lasttime: u64,
}

fn micros(t: SimTime) -> u64 {
    t.as_nanos() / 1000
}

impl Htcp {
    pub fn new(cfg: HtcpConfig) -> Self {
        Htcp {
            cfg,
            alpha: UNIT,
            beta: BETA_MIN,
            modeswitch: false,
            pkts_acked: 1,
            packetcount: 0,
            min_rtt: 0,
            max_rtt: 0,
            last_cong: 0,
            undo: None,
            bi: 0,
            min_b: 0,
            max_b: 0,
            old_max_b: 0,
            lasttime: 0,
        }
    }

    /// Δ in µs (Linux `htcp_cong_time`).
    fn cong_time(&self, now: u64) -> u64 {
        now.saturating_sub(self.last_cong)
    }

    fn measure_rtt(&mut self, rtt: u64, state: CaState) {
        if self.min_rtt == 0 || rtt < self.min_rtt {
            self.min_rtt = rtt;
        }
        if state == CaState::Open {
            self.max_rtt = self.max_rtt.max(self.min_rtt);
            if rtt > self.max_rtt && rtt <= self.max_rtt + MAX_RTT_STEP {
                self.max_rtt = rtt;
            }
        }
    }

    /// The throughput measurement (Linux `measure_achieved_throughput`, after its RTT
    /// part).
    fn measure_throughput(&mut self, tcb: &Tcb, now: u64, acked: u32) {
        if !matches!(tcb.ca_state, CaState::Open | CaState::Disorder) {
            self.packetcount = 0;
            self.lasttime = now;
            return;
        }
        self.packetcount += u64::from(acked);
        let increase = (self.alpha / UNIT).max(1);
        let window_acked = u64::from(tcb.cwnd)
            .checked_sub(increase)
            .is_some_and(|w| self.packetcount >= w);
        let elapsed = now - self.lasttime;
        if window_acked && self.min_rtt > 0 && elapsed >= self.min_rtt {
            let sample = self.packetcount * HZ / elapsed;
            if self.cong_time(now) / self.min_rtt <= 3 {
                // Just after a backoff.
                (self.bi, self.min_b, self.max_b) = (sample, sample, sample);
            } else {
                self.bi = (3 * self.bi + sample) / 4;
                self.max_b = self.max_b.max(self.bi);
                self.min_b = self.min_b.min(self.max_b);
            }
            self.packetcount = 0;
            self.lasttime = now;
        }
    }

    /// Eq. (5) (Linux `htcp_beta_update`).
    fn update_beta(&mut self) {
        if self.cfg.use_bandwidth_switch {
            let (max_b, old_max_b) = (self.max_b, self.old_max_b);
            self.old_max_b = max_b;
            if !(4 * old_max_b..=6 * old_max_b).contains(&(5 * max_b)) {
                self.beta = BETA_MIN;
                self.modeswitch = false;
                return;
            }
        }
        if self.modeswitch && self.min_rtt > MIN_RTT_FOR_BETA && self.max_rtt > 0 {
            self.beta = (self.min_rtt * UNIT / self.max_rtt).clamp(BETA_MIN, BETA_MAX);
        } else {
            self.beta = BETA_MIN;
            self.modeswitch = true;
        }
    }

    /// Eqs. (1)–(3) (Linux `htcp_alpha_update`).
    fn update_alpha(&mut self, now: u64) {
        let mut factor = 1;
        let diff = self.cong_time(now);
        if diff > HZ {
            let d = diff - HZ;
            factor = 1 + (10 * d + (d / 2) * (d / 2) / HZ) / HZ;
        }
        if self.cfg.use_rtt_scaling && self.min_rtt > 0 {
            let scale = ((HZ << 3) / (10 * self.min_rtt)).clamp(1 << 2, 10 << 3);
            factor = ((factor << 3) / scale).max(1);
        }
        self.alpha = 2 * factor * (UNIT - self.beta);
    }

    /// At a congestion event (Linux `htcp_param_update`).
    fn update_params(&mut self, now: u64) {
        self.update_beta();
        self.update_alpha(now);
        // Slowly fading memory of RTTmax, for route changes.
        if self.min_rtt > 0 && self.max_rtt > self.min_rtt {
            self.max_rtt = self.min_rtt + (self.max_rtt - self.min_rtt) * 95 / 100;
        }
    }
}

impl CongestionControl for Htcp {
    fn name(&self) -> &'static str {
        "htcp"
    }

    /// Eq. (6), after β and α are updated for the event.
    fn ssthresh(&mut self, tcb: &Tcb, now: SimTime) -> u32 {
        self.update_params(micros(now));
        ((u64::from(tcb.cwnd) * self.beta / UNIT) as u32).max(2)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, now: SimTime, sample: &AckSample) {
        if tcb.ca_state == CaState::Open {
            self.pkts_acked = sample.acked;
        }
        if let Some(rtt) = sample.rtt.map(micros).filter(|&r| r > 0) {
            self.measure_rtt(rtt, tcb.ca_state);
        }
        if self.cfg.use_bandwidth_switch {
            self.measure_throughput(tcb, micros(now), sample.acked);
        }
    }

    fn set_state(&mut self, _tcb: &Tcb, now: SimTime, new: CaState) {
        let now = micros(now);
        match new {
            CaState::Open => {
                if self.undo.take().is_some() {
                    self.last_cong = now;
                }
            }
            // Linux `htcp_state`: CWR (an ECN echo's reduction) resets as a loss does.
            CaState::Cwr | CaState::Recovery | CaState::Loss => {
                self.undo = Some(Undo {
                    last_cong: self.last_cong,
                    max_rtt: self.max_rtt,
                    old_max_b: self.old_max_b,
                });
                self.last_cong = now;
            }
            CaState::Disorder => {}
        }
    }

    /// The first epoch starts with the flow (Linux `htcp_init`: `last_cong = jiffies`).
    fn cwnd_event(&mut self, _tcb: &mut Tcb, now: SimTime, event: CaEvent) {
        if event == CaEvent::TxStart {
            self.last_cong = micros(now);
        }
    }

    fn undo_cwnd(&mut self, tcb: &Tcb) -> u32 {
        if let Some(u) = self.undo.take() {
            self.last_cong = u.last_cong;
            self.max_rtt = u.max_rtt;
            self.old_max_b = u.old_max_b;
        }
        tcb.cwnd.max(tcb.prior_cwnd)
    }

    /// Eq. (4) as Linux counts it.
    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.in_slow_start() {
            tcb.slow_start(acked);
            return;
        }
        if u64::from(tcb.cwnd_cnt) * self.alpha / UNIT >= u64::from(tcb.cwnd) {
            if tcb.cwnd < tcb.cwnd_clamp {
                tcb.cwnd += 1;
            }
            tcb.cwnd_cnt = 0;
            self.update_alpha(micros(now));
        } else {
            tcb.cwnd_cnt += self.pkts_acked;
        }
        self.pkts_acked = 1;
    }

    /// α (segments per RTT) and β, RTTmin and RTTmax (s; NaN before a sample), and the
    /// smoothed throughput B in bit/s of segments.
    fn info(&self, tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let seconds = |us: u64| {
            if us == 0 {
                f64::NAN
            } else {
                us as f64 / 1e6
            }
        };
        out.push(("alpha", self.alpha as f64 / UNIT as f64));
        out.push(("beta", self.beta as f64 / UNIT as f64));
        out.push(("min_rtt", seconds(self.min_rtt)));
        out.push(("max_rtt", seconds(self.max_rtt)));
        out.push(("throughput_bps", (self.bi * u64::from(tcb.mss) * 8) as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn htcp() -> Htcp {
        Htcp::new(HtcpConfig::default())
    }

    fn in_avoidance(cwnd: u32) -> Tcb {
        let mut t = Tcb::new(1000, cwnd);
        t.ssthresh = 2;
        t
    }

    fn rtt_sample(h: &mut Htcp, t: &Tcb, at_ms: u64, rtt_ms: u64) {
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime(rtt_ms * MS)),
            in_flight: t.cwnd,
        };
        h.pkts_acked(t, SimTime(at_ms * MS), &s);
    }

    #[test]
    fn alpha_grows_with_the_time_since_congestion() {
        // β = 0.5, RTTmin 100 ms: scale = 8·10⁶/(10·10⁵) = 8 (ratio 1). Δ = 0.5 s:
        // factor 1, α = 2·1·(128 − 64) = 128 (one segment per RTT). Δ = 3 s: d = 2 s,
        // factor = 1 + (10·2 + (2/2)²) = 22 (the paper's 1 + 10·2 + 1), α = 2·22·64 =
        // 2816, 22 segments per RTT.
        let mut h = htcp();
        h.min_rtt = 100_000;
        h.update_alpha(500_000);
        assert_eq!(h.alpha, 128);
        h.update_alpha(3_000_000);
        assert_eq!(h.alpha, 2816);
    }

    #[test]
    fn the_first_epoch_starts_with_the_flow() {
        // A flow starting at 10 s: at 10.5 s Δ = 0.5 s, so α = 1 (128), not the 20 s
        // of Δ counted from time 0 (factor 1 + 10·9.5 + 4.75² = 118).
        let mut h = htcp();
        let mut t = in_avoidance(10);
        h.cwnd_event(&mut t, SimTime(10_000 * MS), CaEvent::TxStart);
        h.update_alpha(10_500_000);
        assert_eq!(h.alpha, 128);
    }

    #[test]
    fn rtt_scaling_slows_short_paths() {
        // RTTmin 50 ms: scale = 8·10⁶/(10·5·10⁴) = 16 (ratio 1/2); Δ = 3 s: factor 22 →
        // ⌊8·22/16⌋ = 11, α = 2·11·64 = 1408. Without scaling, 22 (α = 2816). RTTmin
        // 5 ms: scale 160, clamped to 80 (ratio 1/10): ⌊8·22/80⌋ = 2, α = 256.
        let mut h = htcp();
        h.min_rtt = 50_000;
        h.update_alpha(3_000_000);
        assert_eq!(h.alpha, 1408);
        h.min_rtt = 5_000;
        h.update_alpha(3_000_000);
        assert_eq!(h.alpha, 256);
        let mut plain = Htcp::new(HtcpConfig {
            use_rtt_scaling: false,
            ..HtcpConfig::default()
        });
        plain.min_rtt = 50_000;
        plain.update_alpha(3_000_000);
        assert_eq!(plain.alpha, 2816);
    }

    #[test]
    fn beta_is_the_rtt_ratio_from_the_second_congestion_event() {
        // RTTmin 60 ms, RTTmax 100 ms, steady throughput. First event: β = 0.5 and the
        // mode switch arms; ssthresh = ⌊100·64/128⌋ = 50. Second: β = ⌊60 000·128/
        // 100 000⌋ = 76 (0.59), ssthresh = ⌊100·76/128⌋ = 59.
        let mut h = Htcp::new(HtcpConfig {
            use_bandwidth_switch: false,
            ..HtcpConfig::default()
        });
        (h.min_rtt, h.max_rtt) = (60_000, 100_000);
        let t = in_avoidance(100);
        assert_eq!(h.ssthresh(&t, SimTime::ZERO), 50);
        assert_eq!(h.beta, 64);
        h.max_rtt = 100_000; // undo the 5 % fading, to keep the numbers round
        assert_eq!(h.ssthresh(&t, SimTime::ZERO), 59);
        assert_eq!(h.beta, 76);
        // RTTmin 90 ms: 115 → clamped to 102 (0.8); RTTmin 8 ms (≤ 10 ms): 64.
        (h.min_rtt, h.max_rtt) = (90_000, 100_000);
        h.update_beta();
        assert_eq!(h.beta, 102);
        (h.min_rtt, h.max_rtt) = (8_000, 100_000);
        h.update_beta();
        assert_eq!(h.beta, 64);
    }

    #[test]
    fn a_throughput_change_of_more_than_a_fifth_halves() {
        // Mode switch armed, RTTs 80/100 ms (β would be 102). max B 1000 segments/s at
        // the last event: now 1150 (5·1150 = 5750 ∈ [4000, 6000]) keeps the RTT rule;
        // then 1400 (7000 > 6·1150 = 6900, against the 1150 just saved) halves and
        // disarms.
        let mut h = htcp();
        (h.min_rtt, h.max_rtt, h.modeswitch) = (80_000, 100_000, true);
        (h.old_max_b, h.max_b) = (1000, 1150);
        h.update_beta();
        assert_eq!((h.beta, h.old_max_b), (102, 1150));
        h.max_b = 1400;
        h.update_beta();
        assert_eq!((h.beta, h.modeswitch), (64, false));
    }

    #[test]
    fn the_increase_counts_acks_as_linux() {
        // α = 22 segments/RTT (2816), cwnd 100: an increment once cnt·22 ≥ 100, i.e.
        // cnt = 5; the ACK that finds cnt = 5 adds the segment and counts nothing, so
        // one segment per 6 ACKs. Δ stays 0 (now = last_cong) so α is recomputed as
        // 2·1·64 = 128 at the increment: then 100 more ACKs for the next (cnt·1 ≥ 100).
        let mut h = htcp();
        h.alpha = 2816;
        let mut t = in_avoidance(100);
        for _ in 0..5 {
            h.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!((t.cwnd, t.cwnd_cnt), (100, 5));
        h.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt, h.alpha), (101, 0, 128));
    }

    #[test]
    fn an_ack_of_several_segments_counts_them_in_open_only() {
        // α = 1 segment/RTT, cwnd 10: an ACK of 4 segments in Open adds 4 to the
        // counter; in Disorder it adds 1 (Linux takes the count in Open only).
        let mut h = htcp();
        let mut t = in_avoidance(10);
        let ack4 = AckSample {
            acked: 4,
            rtt: None,
            in_flight: 10,
        };
        h.pkts_acked(&t, SimTime::ZERO, &ack4);
        h.cong_avoid(&mut t, SimTime::ZERO, 4);
        assert_eq!(t.cwnd_cnt, 4);
        t.ca_state = CaState::Disorder;
        h.pkts_acked(&t, SimTime::ZERO, &ack4);
        h.cong_avoid(&mut t, SimTime::ZERO, 4);
        assert_eq!(t.cwnd_cnt, 5);
    }

    #[test]
    fn rtt_max_ignores_jumps_of_more_than_20_ms() {
        // Samples 50, 65, 90, 80 ms in Open: RTTmax 50 → 65 (within 20 ms) → 65 (90 is
        // 25 above) → 80. A sample outside Open moves only RTTmin.
        let mut h = htcp();
        let t = in_avoidance(10);
        for rtt in [50, 65, 90, 80] {
            rtt_sample(&mut h, &t, 0, rtt);
        }
        assert_eq!((h.min_rtt, h.max_rtt), (50_000, 80_000));
        let mut recovering = in_avoidance(10);
        recovering.ca_state = CaState::Recovery;
        rtt_sample(&mut h, &recovering, 0, 95);
        rtt_sample(&mut h, &recovering, 0, 40);
        assert_eq!((h.min_rtt, h.max_rtt), (40_000, 80_000));
    }

    #[test]
    fn throughput_is_segments_per_second_once_per_window() {
        // cwnd 10, α 1: a sample once 9 segments are acknowledged and RTTmin (100 ms)
        // has passed. 9 ACKs at 0–120 ms after Δ = 5 s (more than 3 RTTs since the
        // congestion event): B = (3·0 + 9·10⁶/120 000)/4 = ⌊75/4⌋ = 18 segments/s, 18 ·
        // 1000 B · 8 = 144 kb/s.
        let mut h = htcp();
        h.min_rtt = 100_000;
        let mut t = in_avoidance(10);
        t.ca_state = CaState::Open;
        h.lasttime = 5_000_000;
        for i in 0..9 {
            let at = 5_000 + i * 15;
            let s = AckSample {
                acked: 1,
                rtt: None,
                in_flight: 10,
            };
            h.pkts_acked(&t, SimTime(at * MS), &s);
        }
        assert_eq!((h.bi, h.max_b, h.packetcount), (18, 18, 0));
        let mut out = Vec::new();
        h.info(&t, &mut out);
        assert_eq!(out[4], ("throughput_bps", 144_000.0));
    }

    #[test]
    fn the_epoch_starts_when_recovery_ends_and_undo_restores_it() {
        // Last congestion at 2 s; recovery from 10 s to 10.3 s: Δ counts from 10.3 s.
        // An undo instead puts Δ back to counting from 2 s.
        let mut h = htcp();
        let t = in_avoidance(10);
        h.last_cong = 2_000_000;
        h.set_state(&t, SimTime(10_000 * MS), CaState::Recovery);
        h.set_state(&t, SimTime(10_300 * MS), CaState::Open);
        assert_eq!(h.last_cong, 10_300_000);
        h.set_state(&t, SimTime(20_000 * MS), CaState::Recovery);
        assert_eq!(h.undo_cwnd(&t), 10);
        h.set_state(&t, SimTime(20_300 * MS), CaState::Open);
        assert_eq!(h.last_cong, 10_300_000);
    }
}
