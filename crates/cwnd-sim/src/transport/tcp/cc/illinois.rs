//! TCP-Illinois: Liu, Başar & Srikant, "TCP-Illinois: A loss- and delay-based
//! congestion control algorithm for high-speed networks", Performance Evaluation
//! 65(6–7), 2008 (VALUETOOLS 2006); as Linux `net/ipv4/tcp_illinois.c` implements it.
//!
//! Loss decides when to cut, queueing delay how much to add and to cut. Once per RTT,
//! from the average RTT of the round (d_a = avg − base) and the largest queueing delay
//! ever seen (d_m = max − base):
//! ```text
//! α = α_max                        d_a ≤ d_1 = d_m/100                             (1)
//!   = κ1 / (κ2 + d_a)              otherwise, κ1, κ2 such that α(d_1) = α_max and
//!                                  α(d_m) = α_min: with D = d_m − d_1, x = d_a − d_1,
//!                                  α = D·α_max / (D + x·(α_max − α_min)/α_min)
//! β = β_min                        d_a ≤ d_2 = d_m/10                                (2)
//!   = linear to β_max              d_2 < d_a < d_3 = 8·d_m/10
//!   = β_max                        d_a ≥ d_3
//! per ACK in congestion avoidance:  cwnd += α / cwnd                                (3)
//! on loss:                          ssthresh = max(cwnd − β·cwnd, 2)                 (4)
//! ```
//! α_max = 10, α_min = 0.3, β_min = 1/8, β_max = 1/2 (the paper's and Linux's).
//!
//! Linux's rules, followed here:
//! - Below `win_thresh` = 15 segments α = 1 and β = 1/2 (Reno). After d_a has been
//!   above d_1, α returns to α_max only after `theta` = 5 consecutive rounds below it
//!   (meanwhile it keeps its value).
//! - Fixed point: α in 1/128 (so α_min = ⌊0.3·128⌋/128 = 38/128), β in 1/64; RTTs in
//!   integer µs, each sample capped at 3.3 s (`RTT_MAX`); every division truncates.
//! - A round ends when the ACK passes the snd_nxt recorded at its start; its samples
//!   (their sum and count) are then cleared. The base RTT is the smallest sample ever,
//!   the maximum the largest ever (Linux does not age it).
//! - (3) counts ACKs: each adds the segments it acknowledged, and when α·count/cwnd
//!   reaches a whole segment, cwnd grows by that many segments and the count restarts.
//!   Slow start is Reno's.
//! - A timeout (`Loss`) resets α = 1, β = 1/2 and the round.
//!
//! Validation: unit tests below, α, β, the growth and the cut worked by hand.

use serde::Deserialize;

use super::{AckSample, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};

/// α's fixed point (Linux `ALPHA_SHIFT` 7) and its bounds.
const ALPHA_SHIFT: u32 = 7;
const ALPHA_SCALE: u64 = 1 << ALPHA_SHIFT;
const ALPHA_MIN: u64 = 3 * ALPHA_SCALE / 10;
const ALPHA_MAX: u64 = 10 * ALPHA_SCALE;
/// β's fixed point (Linux `BETA_SHIFT` 6) and its bounds.
const BETA_SHIFT: u32 = 6;
const BETA_SCALE: u64 = 1 << BETA_SHIFT;
const BETA_MIN: u64 = BETA_SCALE / 8;
const BETA_MAX: u64 = BETA_SCALE / 2;
/// Largest RTT sample in µs (Linux `RTT_MAX` = U32_MAX / ALPHA_MAX, 3.3 s).
const RTT_MAX: u64 = u32::MAX as u64 / ALPHA_MAX;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IllinoisConfig {
    /// Below this window (segments) α = 1, β = 1/2 (Linux `win_thresh`, 15).
    pub win_thresh: u32,
    /// Rounds with little delay before α returns to α_max (Linux `theta`, 5).
    pub theta: u32,
}

impl Default for IllinoisConfig {
    fn default() -> Self {
        IllinoisConfig {
            win_thresh: 15,
            theta: 5,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Illinois {
    cfg: IllinoisConfig,
    /// Sum and count of this round's RTT samples (µs).
    sum_rtt: u64,
    cnt_rtt: u32,
    /// Smallest and largest RTT ever (µs); `u64::MAX` and 0 before a sample.
    base_rtt: u64,
    max_rtt: u64,
    /// snd_nxt when the round began.
    end_seq: u64,
    /// Segments per RTT, in 1/128.
    alpha: u64,
    /// Fraction of cwnd cut on loss, in 1/64.
    beta: u64,
    /// Segments the latest ACK acknowledged; 1 once counted.
    acked: u32,
    /// The average delay has been above d_1 since α was last at its maximum.
    rtt_above: bool,
    /// Consecutive rounds below d_1 since then.
    rtt_low: u32,
}

impl Illinois {
    pub fn new(cfg: IllinoisConfig) -> Self {
        Illinois {
            cfg,
            sum_rtt: 0,
            cnt_rtt: 0,
            base_rtt: u64::MAX,
            max_rtt: 0,
            end_seq: 0,
            alpha: ALPHA_MAX,
            beta: BETA_MAX,
            acked: 0,
            rtt_above: false,
            rtt_low: 0,
        }
    }

    fn start_round(&mut self, tcb: &Tcb) {
        self.end_seq = tcb.snd_nxt;
        self.cnt_rtt = 0;
        self.sum_rtt = 0;
    }

    /// Eq. (1) with Linux's patience of `theta` rounds (`alpha()`).
    fn alpha_for(&mut self, da: u64, dm: u64) -> u64 {
        let d1 = dm / 100;
        if da <= d1 {
            if !self.rtt_above {
                return ALPHA_MAX;
            }
            self.rtt_low += 1;
            if self.rtt_low < self.cfg.theta {
                return self.alpha;
            }
            self.rtt_low = 0;
            self.rtt_above = false;
            return ALPHA_MAX;
        }
        self.rtt_above = true;
        let (dm, da) = (dm - d1, da - d1);
        dm * ALPHA_MAX / (dm + da * (ALPHA_MAX - ALPHA_MIN) / ALPHA_MIN)
    }

    /// Eq. (2) (Linux `beta()`).
    fn beta_for(da: u64, dm: u64) -> u64 {
        let d2 = dm / 10;
        if da <= d2 {
            return BETA_MIN;
        }
        let d3 = 8 * dm / 10;
        if da >= d3 || d3 <= d2 {
            return BETA_MAX;
        }
        (BETA_MIN * d3 - BETA_MAX * d2 + (BETA_MAX - BETA_MIN) * da) / (d3 - d2)
    }

    /// Once per round (Linux `update_params`).
    fn update_params(&mut self, tcb: &Tcb) {
        if tcb.cwnd < self.cfg.win_thresh {
            self.alpha = ALPHA_SCALE;
            self.beta = BETA_MAX;
        } else if self.cnt_rtt > 0 {
            let dm = self.max_rtt - self.base_rtt;
            let da = self.sum_rtt / u64::from(self.cnt_rtt) - self.base_rtt;
            self.alpha = self.alpha_for(da, dm);
            self.beta = Self::beta_for(da, dm);
        }
        self.start_round(tcb);
    }
}

impl CongestionControl for Illinois {
    fn name(&self) -> &'static str {
        "illinois"
    }

    /// Eq. (4).
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let cwnd = u64::from(tcb.cwnd);
        ((cwnd - ((cwnd * self.beta) >> BETA_SHIFT)) as u32).max(2)
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        self.acked = sample.acked;
        let Some(rtt) = sample.rtt else {
            return;
        };
        let rtt = (rtt.as_nanos() / 1000).min(RTT_MAX);
        self.base_rtt = self.base_rtt.min(rtt);
        self.max_rtt = self.max_rtt.max(rtt);
        self.cnt_rtt += 1;
        self.sum_rtt += rtt;
    }

    fn set_state(&mut self, tcb: &Tcb, _now: SimTime, new: CaState) {
        if new == CaState::Loss {
            self.alpha = ALPHA_SCALE;
            self.beta = BETA_MAX;
            self.rtt_low = 0;
            self.rtt_above = false;
            self.start_round(tcb);
        }
    }

    /// Eq. (3) as Linux counts it, after the round's update.
    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        if tcb.snd_una > self.end_seq {
            self.update_params(tcb);
        }
        if !tcb.cwnd_limited {
            return;
        }
        if tcb.in_slow_start() {
            tcb.slow_start(acked);
            return;
        }
        tcb.cwnd_cnt += self.acked;
        self.acked = 1;
        let delta = ((u64::from(tcb.cwnd_cnt) * self.alpha) >> ALPHA_SHIFT) as u32;
        if delta >= tcb.cwnd {
            tcb.cwnd = (tcb.cwnd + delta / tcb.cwnd).min(tcb.cwnd_clamp);
            tcb.cwnd_cnt = 0;
        }
    }

    /// α (segments per RTT) and β (fraction cut on loss), the base and largest RTT
    /// (s), and the current round's average RTT (s; NaN before a sample).
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let seconds = |us: u64| us as f64 / 1e6;
        let known = |us: u64, yes: bool| if yes { seconds(us) } else { f64::NAN };
        let sampled = self.max_rtt > 0;
        out.push(("alpha", self.alpha as f64 / ALPHA_SCALE as f64));
        out.push(("beta", self.beta as f64 / BETA_SCALE as f64));
        out.push(("base_rtt", known(self.base_rtt, sampled)));
        out.push(("max_rtt", known(self.max_rtt, sampled)));
        let avg = self.sum_rtt.checked_div(u64::from(self.cnt_rtt));
        out.push(("avg_rtt", avg.map_or(f64::NAN, seconds)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn illinois() -> Illinois {
        Illinois::new(IllinoisConfig::default())
    }

    /// A flow in congestion avoidance with window `w` at the start of a round.
    fn in_avoidance(w: u32) -> Tcb {
        let mut t = Tcb::new(1000, w);
        t.ssthresh = 2;
        t.snd_una = 900_000;
        t.snd_nxt = 1_000_000;
        t
    }

    fn sample(c: &mut Illinois, t: &Tcb, rtt_ms: u64) {
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime(rtt_ms * MS)),
            in_flight: t.cwnd,
        };
        c.pkts_acked(t, SimTime::ZERO, &s);
    }

    /// One round: samples of `rtts` ms, then the ACK that ends it.
    fn round(c: &mut Illinois, t: &mut Tcb, rtts: &[u64]) {
        c.start_round(t);
        for &r in rtts {
            sample(c, t, r);
        }
        t.snd_una = t.snd_nxt + 1000;
        t.snd_nxt += u64::from(t.cwnd) * 1000;
        c.cong_avoid(t, SimTime::ZERO, 1);
    }

    #[test]
    fn alpha_and_beta_follow_the_average_delay() {
        // Base 100 ms, max 200 ms: d_m = 100 000 µs; this round averages 150 ms:
        // d_a = 50 000. α: d_1 = 1000, D = 99 000, x = 49 000, x·(1280 − 38)/38 =
        // ⌊60 858 000/38⌋ = 1 601 526; α = ⌊99 000·1280/(99 000 + 1 601 526)⌋ =
        // ⌊126 720 000/1 700 526⌋ = 74 (0.578; the paper's real-valued κ1/(κ2 + d_a)
        // with α_min = 0.3: 0.588). β: d_2 = 10 000, d_3 = 80 000; ⌊(8·80 000 −
        // 32·10 000 + 24·50 000)/70 000⌋ = ⌊1 520 000/70 000⌋ = 21 (0.328; the paper's
        // 1/8 + 3/8·40/70 = 0.339). ssthresh of 100: 100 − ⌊100·21/64⌋ = 100 − 32 = 68.
        let mut c = illinois();
        let mut t = in_avoidance(100);
        round(&mut c, &mut t, &[100, 200]);
        round(&mut c, &mut t, &[140, 150, 160]);
        assert_eq!((c.alpha, c.beta), (74, 21));
        assert_eq!(c.ssthresh(&t, SimTime::ZERO), 68);
    }

    #[test]
    fn little_delay_gives_alpha_max_and_beta_min() {
        // Base 100, max 200 ms; a round averaging 100.5 ms: d_a = 500 ≤ d_1 = 1000:
        // α = 10 (1280), β = 1/8 (8): ssthresh of 100 = 100 − ⌊800/64⌋ = 88.
        let mut c = illinois();
        let mut t = in_avoidance(100);
        (c.base_rtt, c.max_rtt) = (100_000, 200_000);
        round(&mut c, &mut t, &[100, 101]);
        assert_eq!((c.alpha, c.beta), (1280, 8));
        assert_eq!(c.ssthresh(&t, SimTime::ZERO), 88);
    }

    #[test]
    fn alpha_max_returns_after_theta_quiet_rounds() {
        // After a round at d_a = 50 ms (α = 74), rounds at d_a ≤ d_1 keep α = 74 for
        // θ − 1 = 4 rounds, and the 5th brings back 1280.
        let mut c = illinois();
        let mut t = in_avoidance(100);
        round(&mut c, &mut t, &[100, 200]);
        round(&mut c, &mut t, &[150]);
        let mut alphas = Vec::new();
        for _ in 0..5 {
            round(&mut c, &mut t, &[100]);
            alphas.push(c.alpha);
        }
        assert_eq!(alphas, vec![74, 74, 74, 74, 1280]);
    }

    #[test]
    fn small_windows_are_reno() {
        // cwnd 14 < win_thresh 15: α = 1, β = 1/2 whatever the delay; 14 − 7 = 7.
        let mut c = illinois();
        let mut t = in_avoidance(14);
        round(&mut c, &mut t, &[100, 200]);
        round(&mut c, &mut t, &[100]);
        assert_eq!((c.alpha, c.beta), (128, 32));
        assert_eq!(c.ssthresh(&t, SimTime::ZERO), 7);
    }

    #[test]
    fn growth_is_alpha_segments_per_window_of_acks() {
        // α = 10, cwnd 100: at the 10th ACK ⌊10·1280/128⌋ = 100 ≥ cwnd: +1 segment and
        // the count restarts; from cwnd 101 to 110 it takes 11 ACKs (110 ≥ cwnd). So
        // increments at ACKs 10, 21, 32, …, 98: 9 segments in 100 ACKs, count 2. α =
        // 74/128: ⌊n·74/128⌋ ≥ 100 first at n = 173 (⌊172·74/128⌋ = 99, then 100).
        let mut c = illinois();
        let mut t = in_avoidance(100);
        t.snd_una = 0; // within the round: no update
        (c.alpha, c.acked) = (ALPHA_MAX, 1);
        for _ in 0..100 {
            c.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!((t.cwnd, t.cwnd_cnt), (109, 2));
        let mut t = in_avoidance(100);
        t.snd_una = 0;
        c.alpha = 74;
        for _ in 0..172 {
            c.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!((t.cwnd, t.cwnd_cnt), (100, 172));
        c.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt), (101, 0));
    }

    #[test]
    fn a_timeout_resets_to_reno() {
        let mut c = illinois();
        let t = in_avoidance(100);
        (c.alpha, c.beta) = (1280, 8);
        c.set_state(&t, SimTime::ZERO, CaState::Loss);
        assert_eq!((c.alpha, c.beta, c.end_seq), (128, 32, 1_000_000));
    }

    #[test]
    fn info_reports_alpha_beta_and_the_rtts() {
        // After the round of the first test: α = 74/128, β = 21/64; base 0.1 s, max
        // 0.2 s; the new round has no sample yet (avg NaN), then one of 120 ms.
        let mut c = illinois();
        let mut t = in_avoidance(100);
        round(&mut c, &mut t, &[100, 200]);
        round(&mut c, &mut t, &[140, 150, 160]);
        let mut out = Vec::new();
        c.info(&t, &mut out);
        assert_eq!(
            out[..4],
            [
                ("alpha", 74.0 / 128.0),
                ("beta", 21.0 / 64.0),
                ("base_rtt", 0.1),
                ("max_rtt", 0.2)
            ]
        );
        assert!(out[4].1.is_nan());
        sample(&mut c, &t, 120);
        out.clear();
        c.info(&t, &mut out);
        assert_eq!(out[4], ("avg_rtt", 0.12));
    }
}
