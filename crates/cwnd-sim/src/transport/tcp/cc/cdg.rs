//! CDG, CAIA Delay-Gradient: Hayes & Armitage, "Revisiting TCP congestion control
//! using delay gradients", IFIP Networking 2011; as Linux `net/ipv4/tcp_cdg.c`
//! implements it (Linux's departures from the paper, listed at the top of that file,
//! are followed: HyStart, a backoff factor in place of the paper's G, the shadow window
//! capped, sums in place of smoothed gradients).
//!
//! Once per RTT, from the smallest and largest RTT of the round (τ_min, τ_max) and of the
//! round before:
//! ```text
//! g_min = τ_min − τ_min,prev,   g_max = τ_max − τ_max,prev                         (1)
//! ḡ = Σ of the last `window` rounds' g (the paper's moving average times `window`;
//!     while fewer rounds are in, the sum scaled up to `window` of them)           (2)
//! g = ḡ_min if ḡ_min > 0, else ḡ_max
//! g > 0: back off with probability P = 1 − exp(−g · backoff_factor / 10⁶), g in µs   (3)
//!        (the paper's 1 − e^(−g/G), G = 10⁶ / (backoff_factor · window))
//! backoff:  ssthresh = cwnd = max(2, cwnd · β), β = 0.7071                        (4)
//! otherwise Reno's growth; on loss ssthresh = max(2, cwnd/2, shadow/2)             (5)
//! ```
//! The shadow window keeps what a backoff gave away, so that a loss after delay-based
//! backoffs (competing with loss-based flows) is no deeper than Reno's: it grows with
//! cwnd, is raised to cwnd at each backoff, is lowered to cwnd while the flow is not
//! window-limited, and is min(shadow/2, cwnd) after a loss.
//!
//! Linux's rules, followed here:
//! - RTTs are integer µs. An ACK with `Open` state (no SACKed segment; Linux tests
//!   `sacked_out == 0`) is filtered as a delayed ACK (Hayes, CAIA TR 100219A): after
//!   ACKs of several segments, up to 5 following ACKs of one segment may only lower the
//!   round's minimum below an existing one.
//! - Ineffectual backoff (`use_ineff` = 5): after that many backoffs in a row without
//!   the RTT falling (a gradient sum ≤ −32 µs resets the count), CDG stops backing off
//!   — the delay does not come from this flow's queue.
//! - `use_tolerance` (off): the paper's loss tolerance, ssthresh = cwnd when the
//!   gradients say the queue is not full (g_min, g_max rounded to 64 µs: g_min > 0
//!   with g_max ≤ 0 is full; both > 0 or g_max < 0 is not).
//! - Slow start ends by HyStart (`hystart_detect`): an ACK train (ACKs less than 3 ms
//!   apart) lasting over max(delay_min/2, 125 µs) from the round's first ACK, or after 8
//!   ACKs a round minimum above max(delay_min·9/8, 125 µs); delay_min is the smallest
//!   round minimum seen.
//! - The random draw of (3) comes from the flow's own stream (`flows[i].cc`); Linux
//!   compares a uniform 32-bit draw with exp(−x)·(2³² − 1), which it approximates with a
//!   table, here computed exactly.
//!
//! Simplified: Linux backs off through the CWR state, where proportional rate
//! reduction (RFC 6937) takes cwnd down to ssthresh over the following RTT, during
//! which the window does not grow and no gradient is taken; at its end
//! (`CA_EVENT_COMPLETE_CWR`) a new round starts. This sender has no CWR state, so the
//! backoff sets cwnd = ssthresh at once (as the sender's own response to a loss a tail
//! probe repaired does) and the rest is kept: no growth and no round until the ACK
//! passes the snd_nxt of the backoff, then the new round. A backoff outside `Open` and
//! `Disorder` changes no window (Linux enters CWR only from those). The end of fast
//! recovery starts a new round too (Linux sends the same event then).
//!
//! Validation: unit tests below, with the gradients, the backoff, the windows and
//! HyStart worked by hand.

use rand::RngExt;
use serde::Deserialize;

use super::{AckSample, CaEvent, CongestionControl, Reno};
use crate::rng::RngStream;
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};

/// A gradient sum at or below this (µs) shows a backoff worked.
const EFFECTUAL: i64 = -32;
/// ACKs of one segment after ACKs of several that the delayed-ACK filter watches.
const DELACK_MAX: u32 = 5;
/// HyStart: ACKs closer than this (µs) form a train; the floor of its thresholds (µs);
/// the ACKs in a round before the delay test.
const ACK_TRAIN_GAP: u64 = 3000;
const HYSTART_FLOOR: i64 = 125;
const HYSTART_MIN_SAMPLES: u32 = 8;

/// Which HyStart tests end slow start (Linux `hystart_detect`, a bit mask 0–3).
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CdgHystart {
    Off,
    AckTrain,
    Delay,
    Both,
}

impl CdgHystart {
    fn ack_train(self) -> bool {
        matches!(self, CdgHystart::AckTrain | CdgHystart::Both)
    }

    fn delay(self) -> bool {
        matches!(self, CdgHystart::Delay | CdgHystart::Both)
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CdgConfig {
    /// Rounds in the gradient sum, a power of two up to 256 (Linux `window`, 8).
    pub window: u32,
    /// Fraction of cwnd kept by a backoff (Linux `backoff_beta` = 0.7071 · 1024 = 724).
    pub backoff_beta: f64,
    /// Scale of the backoff probability, per µs of gradient (Linux `backoff_factor`, 42).
    pub backoff_factor: u32,
    /// Slow-start exit (Linux `hystart_detect`, both).
    pub hystart_detect: CdgHystart,
    /// Backoffs in a row without effect after which CDG stops; 0: never stops (5).
    pub use_ineff: u32,
    /// Keep the shadow window (true).
    pub use_shadow: bool,
    /// The paper's loss tolerance (false).
    pub use_tolerance: bool,
}

impl Default for CdgConfig {
    fn default() -> Self {
        CdgConfig {
            window: 8,
            // √½; Linux writes 0.7071, and both are 724 in its 1/1024.
            backoff_beta: std::f64::consts::FRAC_1_SQRT_2,
            backoff_factor: 42,
            hystart_detect: CdgHystart::Both,
            use_ineff: 5,
            use_shadow: true,
            use_tolerance: false,
        }
    }
}

impl CdgConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if !(1..=256).contains(&self.window) || !self.window.is_power_of_two() {
            return Err((
                "window".into(),
                format!("{} is not a power of two from 1 to 256", self.window),
            ));
        }
        if !(self.backoff_beta > 0.0 && self.backoff_beta <= 1.0) {
            return Err((
                "backoff_beta".into(),
                format!("{} is not in (0, 1]", self.backoff_beta),
            ));
        }
        Ok(())
    }
}

/// The smallest and largest RTT of a round (µs); 0 for none yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MinMax {
    min: i64,
    max: i64,
}

impl MinMax {
    fn is_empty(self) -> bool {
        self.min == 0 && self.max == 0
    }
}

/// Linux `enum cdg_state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Unknown,
    NonFull,
    Full,
    Backoff,
}

#[derive(Clone, Debug)]
pub struct Cdg {
    cfg: CdgConfig,
    rng: RngStream,
    /// β in 1/1024, as Linux.
    beta: u64,
    /// This round's and the previous round's RTTs.
    rtt: MinMax,
    rtt_prev: MinMax,
    /// The last `window` rounds' gradients (empty when `window` = 1), their sum, the
    /// next slot, and whether all slots have been written.
    gradients: Vec<MinMax>,
    gsum: MinMax,
    tail: usize,
    gfilled: bool,
    state: State,
    /// The delayed-ACK filter's count.
    delack: u32,
    /// snd_nxt when the round began.
    rtt_seq: u64,
    /// cwnd when ssthresh was last asked, for undo.
    undo_cwnd: u32,
    shadow_wnd: u32,
    /// Backoffs since one last worked.
    backoff_cnt: u32,
    /// HyStart: ACKs in this round, smallest round minimum, the train's last ACK and
    /// its start.
    sample_cnt: u32,
    delay_min: i64,
    last_ack: Option<SimTime>,
    round_start: SimTime,
    /// The emulated CWR: until the ACK passes this snd_nxt.
    cwr_high: Option<u64>,
    /// The latest gradient (µs), for `info`.
    last_grad: Option<i64>,
}

fn micros(t: SimTime) -> i64 {
    (t.as_nanos() / 1000) as i64
}

/// The smaller of two values, a 0 counting as none (Linux `min_not_zero`).
fn min_not_zero(a: i64, b: i64) -> i64 {
    match (a, b) {
        (0, b) => b,
        (a, 0) => a,
        (a, b) => a.min(b),
    }
}

/// `x / d` rounded to the nearest integer, halves away from zero (Linux
/// `DIV_ROUND_CLOSEST`).
fn div_round_closest(x: i64, d: i64) -> i64 {
    if x >= 0 {
        (x + d / 2) / d
    } else {
        (x - d / 2) / d
    }
}

/// The largest 32-bit draw that means "no backoff": exp(−x·10⁻⁶)·(2³² − 1) (Linux
/// `nexp_u32`).
fn no_backoff_below(x: u64) -> u32 {
    ((-(x as f64) * 1e-6).exp() * f64::from(u32::MAX)) as u32
}

impl Cdg {
    pub fn new(cfg: CdgConfig, rng: RngStream) -> Self {
        let slots = if cfg.window > 1 {
            cfg.window as usize
        } else {
            0
        };
        Cdg {
            beta: (cfg.backoff_beta * 1024.0) as u64,
            rng,
            rtt: MinMax::default(),
            rtt_prev: MinMax::default(),
            gradients: vec![MinMax::default(); slots],
            gsum: MinMax::default(),
            tail: 0,
            gfilled: false,
            state: State::Unknown,
            delack: 0,
            rtt_seq: 0,
            undo_cwnd: 0,
            shadow_wnd: 0,
            backoff_cnt: 0,
            sample_cnt: 0,
            delay_min: 0,
            last_ack: None,
            round_start: SimTime::ZERO,
            cwr_high: None,
            last_grad: None,
            cfg,
        }
    }

    /// Eqs. (1)–(2) at the end of a round (Linux `tcp_cdg_grad`).
    fn grad(&mut self) -> i64 {
        let mut gmin = self.rtt.min - self.rtt_prev.min;
        let mut gmax = self.rtt.max - self.rtt_prev.max;
        let window = i64::from(self.cfg.window);
        if !self.gradients.is_empty() {
            let old = self.gradients[self.tail];
            self.gsum.min += gmin - old.min;
            self.gsum.max += gmax - old.max;
            self.gradients[self.tail] = MinMax {
                min: gmin,
                max: gmax,
            };
            self.tail = (self.tail + 1) % self.gradients.len();
            (gmin, gmax) = (self.gsum.min, self.gsum.max);
        }
        let mut grad = if gmin > 0 { gmin } else { gmax };
        if !self.gfilled {
            if self.tail == 0 {
                self.gfilled = true;
            } else {
                grad = grad * window / self.tail as i64;
            }
        }
        if gmin <= EFFECTUAL || gmax <= EFFECTUAL {
            self.backoff_cnt = 0;
        }
        if self.cfg.use_tolerance {
            let (gmin, gmax) = (div_round_closest(gmin, 64), div_round_closest(gmax, 64));
            if gmin > 0 && gmax <= 0 {
                self.state = State::Full;
            } else if (gmin > 0 && gmax > 0) || gmax < 0 {
                self.state = State::NonFull;
            }
        }
        grad
    }

    /// Eq. (3); on a backoff, eq. (4) (Linux `tcp_cdg_backoff`).
    fn backoff(&mut self, tcb: &mut Tcb, grad: i64) -> bool {
        let x = grad as u64 * u64::from(self.cfg.backoff_factor);
        if self.rng.random::<u32>() <= no_backoff_below(x) {
            return false;
        }
        if self.cfg.use_ineff > 0 {
            self.backoff_cnt += 1;
            if self.backoff_cnt > self.cfg.use_ineff {
                return false;
            }
        }
        self.shadow_wnd = self.shadow_wnd.max(tcb.cwnd);
        self.state = State::Backoff;
        if matches!(tcb.ca_state, CaState::Open | CaState::Disorder) {
            tcb.ssthresh = self.reduced(tcb.cwnd);
            tcb.cwnd = tcb.ssthresh;
            tcb.cwnd_cnt = 0;
            self.cwr_high = Some(tcb.snd_nxt);
        }
        true
    }

    /// The new ssthresh, eqs. (4)–(5) (Linux `tcp_cdg_ssthresh`).
    fn reduced(&mut self, cwnd: u32) -> u32 {
        self.undo_cwnd = cwnd;
        if self.state == State::Backoff {
            return ((u64::from(cwnd) * self.beta) >> 10).max(2) as u32;
        }
        if self.state == State::NonFull && self.cfg.use_tolerance {
            return cwnd;
        }
        self.shadow_wnd = (self.shadow_wnd >> 1).min(cwnd);
        if self.cfg.use_shadow {
            self.shadow_wnd.max(cwnd >> 1).max(2)
        } else {
            (cwnd >> 1).max(2)
        }
    }

    /// A reduction is over (Linux `CA_EVENT_COMPLETE_CWR`): a new round.
    fn complete_reduction(&mut self, tcb: &Tcb) {
        self.state = State::Unknown;
        self.rtt_seq = tcb.snd_nxt;
        self.rtt_prev = self.rtt;
        self.rtt = MinMax::default();
    }

    /// Slow-start exit (Linux `tcp_cdg_hystart_update`).
    fn hystart_update(&mut self, tcb: &mut Tcb, now: SimTime) {
        self.delay_min = min_not_zero(self.delay_min, self.rtt.min);
        if self.delay_min == 0 {
            return;
        }
        let detect = self.cfg.hystart_detect;
        if detect.ack_train() {
            match self.last_ack {
                Some(last) if tcb.cwnd_limited => {
                    if now < last + SimTime::from_micros(ACK_TRAIN_GAP) {
                        let base_owd = (self.delay_min / 2).max(HYSTART_FLOOR) as u64;
                        self.last_ack = Some(now);
                        if now > self.round_start + SimTime::from_micros(base_owd) {
                            tcb.ssthresh = tcb.cwnd;
                            return;
                        }
                    }
                }
                _ => {
                    self.last_ack = Some(now);
                    self.round_start = now;
                }
            }
        }
        if detect.delay() {
            if self.sample_cnt < HYSTART_MIN_SAMPLES {
                self.sample_cnt += 1;
            } else {
                let thresh = (self.delay_min + self.delay_min / 8).max(HYSTART_FLOOR);
                if self.rtt.min > thresh {
                    tcb.ssthresh = tcb.cwnd;
                }
            }
        }
    }
}

impl CongestionControl for Cdg {
    fn name(&self) -> &'static str {
        "cdg"
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        self.reduced(tcb.cwnd)
    }

    fn undo_cwnd(&mut self, tcb: &Tcb) -> u32 {
        tcb.cwnd.max(self.undo_cwnd)
    }

    fn pkts_acked(&mut self, tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        let Some(rtt) = sample.rtt.map(micros).filter(|&r| r > 0) else {
            return;
        };
        if tcb.ca_state == CaState::Open {
            if sample.acked == 1 && self.delack > 0 {
                // A delayed ACK only lowers an existing minimum.
                self.rtt.min = self.rtt.min.min(rtt);
                self.delack -= 1;
                return;
            } else if sample.acked > 1 && self.delack < DELACK_MAX {
                self.delack += 1;
            }
        }
        self.rtt.min = min_not_zero(self.rtt.min, rtt);
        self.rtt.max = self.rtt.max.max(rtt);
    }

    fn set_state(&mut self, _tcb: &Tcb, _now: SimTime, new: CaState) {
        if matches!(new, CaState::Recovery | CaState::Loss) {
            // Loss recovery takes over the reduction (Linux leaves CWR for it).
            self.cwr_high = None;
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, _now: SimTime, event: CaEvent) {
        match event {
            CaEvent::TxStart => {
                self.rtt_seq = tcb.snd_nxt;
                self.shadow_wnd = tcb.cwnd;
            }
            CaEvent::CompleteRecovery => self.complete_reduction(tcb),
            CaEvent::Loss => {}
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        if let Some(high) = self.cwr_high {
            if tcb.snd_una <= high {
                return;
            }
            self.cwr_high = None;
            self.complete_reduction(tcb);
        }
        if tcb.in_slow_start() && self.cfg.hystart_detect != CdgHystart::Off {
            self.hystart_update(tcb, now);
        }
        if tcb.snd_una > self.rtt_seq && !self.rtt.is_empty() {
            let grad = if self.rtt_prev.is_empty() {
                0
            } else {
                self.grad()
            };
            self.last_grad = Some(grad);
            self.rtt_seq = tcb.snd_nxt;
            self.rtt_prev = self.rtt;
            self.rtt = MinMax::default();
            self.last_ack = None;
            self.sample_cnt = 0;
            if grad > 0 && self.backoff(tcb, grad) {
                return;
            }
        }
        if !tcb.cwnd_limited {
            self.shadow_wnd = self.shadow_wnd.min(tcb.cwnd);
            return;
        }
        let prior = tcb.cwnd;
        Reno.cong_avoid(tcb, now, acked);
        self.shadow_wnd = self.shadow_wnd.saturating_add(tcb.cwnd - prior);
    }

    /// The latest round's gradient g (s, NaN before the second round), the state (0
    /// unknown, 1 queue not full, 2 full, 3 backing off), the shadow window, and the
    /// backoffs since one last lowered the RTT.
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let grad = self.last_grad.map_or(f64::NAN, |g| g as f64 / 1e6);
        out.push(("gradient", grad));
        out.push(("state", self.state as u8 as f64));
        out.push(("shadow_wnd", f64::from(self.shadow_wnd)));
        out.push(("backoffs", f64::from(self.backoff_cnt)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    const MS: u64 = 1_000_000;

    fn cdg(cfg: CdgConfig) -> Cdg {
        Cdg::new(cfg, rng::stream(1, "flows[0].cc"))
    }

    fn round_rtts(c: &mut Cdg, min: i64, max: i64) -> i64 {
        c.rtt = MinMax { min, max };
        let g = c.grad();
        c.rtt_prev = c.rtt;
        g
    }

    #[test]
    fn the_gradient_is_the_window_sum_extrapolated_until_full() {
        // Window 8. Round minima/maxima (µs): 100 000/110 000, then 102 000/111 000:
        // g_min = 2000 > 0 → g = 2000; one round in: 2000·8/1 = 16 000. Next 101 000/
        // 113 000: g_min = −1000, g_max = 2000; sums 1000 and 3000: g = 1000, two rounds
        // in: 1000·8/2 = 4000. Six more rounds of +10 µs each fill the window: sums
        // 1060/3060, g = 1060 unscaled. The ninth replaces the first (2000/1000):
        // +10 → sum min 1060 − 2000 + 10 = −930 ≤ 0, so g = g_max sum 3060 − 1000 + 10 =
        // 2070.
        let mut c = cdg(CdgConfig::default());
        c.rtt_prev = MinMax {
            min: 100_000,
            max: 110_000,
        };
        assert_eq!(round_rtts(&mut c, 102_000, 111_000), 16_000);
        assert_eq!(round_rtts(&mut c, 101_000, 113_000), 4000);
        let mut g = 0;
        for i in 1..=6 {
            g = round_rtts(&mut c, 101_000 + 10 * i, 113_000 + 10 * i);
        }
        assert!(c.gfilled);
        assert_eq!(g, 1060);
        assert_eq!(round_rtts(&mut c, 101_070, 113_070), 2070);
    }

    #[test]
    fn a_large_gradient_always_backs_off_to_beta() {
        // g = 1 s: P(no backoff) = exp(−10⁶·42·10⁻⁶) = e⁻⁴² ≈ 6·10⁻¹⁹: the threshold is
        // 0, and only a draw of 0 (the stream's first draw is not) would spare it.
        // cwnd 100: ssthresh = cwnd = ⌊100·724/1024⌋ = 70 (β = ⌊√½·1024⌋ = 724);
        // the shadow window keeps 100.
        assert_eq!(no_backoff_below(1_000_000 * 42), 0);
        assert_ne!(rng::stream(1, "flows[0].cc").random::<u32>(), 0);
        let mut c = cdg(CdgConfig::default());
        let mut t = Tcb::new(1000, 100);
        t.snd_nxt = 100_000;
        assert!(c.backoff(&mut t, 1_000_000));
        assert_eq!((t.cwnd, t.ssthresh, c.shadow_wnd), (70, 70, 100));
        assert_eq!((c.state, c.cwr_high), (State::Backoff, Some(100_000)));
    }

    #[test]
    fn the_backoff_probability_is_one_minus_exp() {
        // g = 16 504 µs: g·42 = 693 168 ≈ 10⁶·ln 2, P = 1 − e^(−0.693168) = 0.50001.
        // Over 10 000 draws the count of backoffs has standard deviation 50: expect
        // 5000 ± 200 (4σ). With g = 1 µs, P = 1 − e^(−0.000042) = 4.2·10⁻⁵: expect
        // 0.42, at most a few.
        let mut c = cdg(CdgConfig {
            use_ineff: 0,
            ..CdgConfig::default()
        });
        let mut t = Tcb::new(1000, 100);
        t.ca_state = CaState::Loss; // no window change, only the draw
        let half = (0..10_000).filter(|_| c.backoff(&mut t, 16_504)).count();
        assert!((4800..=5200).contains(&half), "{half}");
        let rare = (0..10_000).filter(|_| c.backoff(&mut t, 1)).count();
        assert!(rare <= 4, "{rare}");
    }

    #[test]
    fn ineffectual_backoffs_stop_after_five() {
        // Five backoffs in a row without the RTT falling; the sixth is refused. A
        // round whose gradient sum is ≤ −32 µs shows a backoff worked: counting
        // restarts.
        let mut c = cdg(CdgConfig::default());
        let mut t = Tcb::new(1000, 100);
        t.ca_state = CaState::Loss;
        for _ in 0..5 {
            assert!(c.backoff(&mut t, 1_000_000));
        }
        assert!(!c.backoff(&mut t, 1_000_000));
        c.rtt_prev = MinMax {
            min: 100_000,
            max: 110_000,
        };
        round_rtts(&mut c, 99_000, 109_000);
        assert_eq!(c.backoff_cnt, 0);
        assert!(c.backoff(&mut t, 1_000_000));
    }

    #[test]
    fn loss_keeps_half_of_the_shadow_window() {
        // cwnd 100, shadow 180: shadow = min(180/2, 100) = 90; ssthresh = max(2, 90,
        // 50) = 90. Without the shadow, 50. Backing off: ⌊100·724/1024⌋ = 70. Undo
        // gives back the cwnd ssthresh saw.
        let t = Tcb::new(1000, 100);
        let mut c = cdg(CdgConfig::default());
        c.shadow_wnd = 180;
        assert_eq!(c.ssthresh(&t, SimTime::ZERO), 90);
        let mut plain = cdg(CdgConfig {
            use_shadow: false,
            ..CdgConfig::default()
        });
        plain.shadow_wnd = 180;
        assert_eq!(plain.ssthresh(&t, SimTime::ZERO), 50);
        c.state = State::Backoff;
        assert_eq!(c.ssthresh(&t, SimTime::ZERO), 70);
        let mut after = t.clone();
        after.cwnd = 70;
        assert_eq!(c.undo_cwnd(&after), 100);
    }

    #[test]
    fn loss_tolerance_keeps_the_window_when_the_queue_is_not_full() {
        // use_tolerance: gradient sums 640 and 640 µs (both > 0, rounded to 64 µs: 10
        // and 10) → queue not full: a loss keeps ssthresh = cwnd = 100.
        let mut c = cdg(CdgConfig {
            use_tolerance: true,
            window: 1,
            ..CdgConfig::default()
        });
        c.rtt_prev = MinMax {
            min: 100_000,
            max: 110_000,
        };
        round_rtts(&mut c, 100_640, 110_640);
        assert_eq!(c.state, State::NonFull);
        assert_eq!(c.ssthresh(&Tcb::new(1000, 100), SimTime::ZERO), 100);
    }

    #[test]
    fn the_backoff_holds_the_window_for_a_round_then_starts_a_new_one() {
        // Backoff at snd_nxt 100 000: ACKs up to it neither grow cwnd (70) nor end a
        // round; the ACK past it starts a new round (the RTTs taken meanwhile become
        // the previous round's) and Reno grows again (cwnd_cnt 1).
        let mut c = cdg(CdgConfig::default());
        let mut t = Tcb::new(1000, 100);
        t.ssthresh = 2;
        t.snd_nxt = 100_000;
        c.backoff(&mut t, 1_000_000);
        c.rtt = MinMax {
            min: 120_000,
            max: 130_000,
        };
        t.snd_una = 100_000;
        t.snd_nxt = 170_000;
        c.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt, c.cwr_high), (70, 0, Some(100_000)));
        t.snd_una = 101_000;
        c.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt, c.cwr_high), (70, 1, None));
        assert_eq!((c.state, c.rtt_seq), (State::Unknown, 170_000));
        assert!(c.rtt.is_empty());
        assert_eq!(c.rtt_prev.min, 120_000);
    }

    #[test]
    fn delayed_acks_only_lower_an_existing_minimum() {
        // Two ACKs of 2 segments (105, 106 ms) count and arm the filter twice; then
        // ACKs of one segment: 103 ms lowers the minimum, 130 ms does not raise the
        // maximum; the filter spent, the next 130 ms counts.
        let mut c = cdg(CdgConfig::default());
        let t = Tcb::new(1000, 10);
        let ack = |c: &mut Cdg, acked: u32, ms: u64| {
            let s = AckSample {
                acked,
                rtt: Some(SimTime(ms * MS)),
                in_flight: 10,
            };
            c.pkts_acked(&t, SimTime::ZERO, &s);
        };
        ack(&mut c, 2, 105);
        ack(&mut c, 2, 106);
        assert_eq!(c.delack, 2);
        ack(&mut c, 1, 103);
        ack(&mut c, 1, 130);
        let (min, max) = (103_000, 106_000);
        assert_eq!((c.rtt, c.delack), (MinMax { min, max }, 0));
        ack(&mut c, 1, 130);
        assert_eq!(c.rtt.max, 130_000);
    }

    #[test]
    fn hystart_ends_slow_start_on_a_delay_increase() {
        // delay_min 100 ms from an earlier round; this round's minimum 113 ms > 100 +
        // 100/8 = 112.5 ms: after 8 ACKs (the 9th checks), ssthresh = cwnd. Train test
        // off, to see the delay test alone.
        let mut c = cdg(CdgConfig {
            hystart_detect: CdgHystart::Delay,
            ..CdgConfig::default()
        });
        let mut t = Tcb::new(1000, 40);
        c.delay_min = 100_000;
        c.rtt = MinMax {
            min: 113_000,
            max: 113_000,
        };
        for _ in 0..8 {
            c.hystart_update(&mut t, SimTime::ZERO);
        }
        assert!(t.in_slow_start());
        c.hystart_update(&mut t, SimTime::ZERO);
        assert_eq!(t.ssthresh, 40);
    }

    #[test]
    fn hystart_ends_slow_start_on_a_long_ack_train() {
        // delay_min 40 ms: base_owd = 20 ms. ACKs every 2 ms (< 3 ms) from 0: the
        // train passes 20 ms at the ACK at 22 ms (20 ms is not "after").
        let mut c = cdg(CdgConfig {
            hystart_detect: CdgHystart::AckTrain,
            ..CdgConfig::default()
        });
        let mut t = Tcb::new(1000, 40);
        c.rtt = MinMax {
            min: 40_000,
            max: 40_000,
        };
        for ms in (0..=20).step_by(2) {
            c.hystart_update(&mut t, SimTime(ms * MS));
        }
        assert!(t.in_slow_start());
        c.hystart_update(&mut t, SimTime(22 * MS));
        assert_eq!(t.ssthresh, 40);
    }

    #[test]
    fn the_shadow_window_follows_growth_and_application_limits() {
        // TxStart: shadow = cwnd 10. Slow start +1: cwnd and shadow 11. Not
        // window-limited: a shadow of 30 drops to cwnd, 11.
        let mut c = cdg(CdgConfig::default());
        let mut t = Tcb::new(1000, 10);
        c.cwnd_event(&mut t, SimTime::ZERO, CaEvent::TxStart);
        c.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, c.shadow_wnd), (11, 11));
        c.shadow_wnd = 30;
        t.cwnd_limited = false;
        c.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, c.shadow_wnd), (11, 11));
    }

    #[test]
    fn parameters_are_checked() {
        let bad = CdgConfig {
            window: 6,
            ..CdgConfig::default()
        };
        assert_eq!(bad.check().unwrap_err().0, "window");
        let bad = CdgConfig {
            backoff_beta: 1.5,
            ..CdgConfig::default()
        };
        assert_eq!(bad.check().unwrap_err().0, "backoff_beta");
        assert!(CdgConfig::default().check().is_ok());
    }
}
