//! YeAH-TCP: Baiocchi, Castellani & Vacirca, "YeAH-TCP: Yet Another Highspeed TCP",
//! PFLDnet 2007; as Linux `net/ipv4/tcp_yeah.c` implements it (on Vegas's RTT
//! bookkeeping, `tcp_vegas.c`).
//!
//! Two modes: "fast" grows as Scalable TCP; "slow" grows as Reno. Once per RTT, with
//! RTT_min the smallest RTT of the round and RTT_base the smallest ever:
//! ```text
//! Q = cwnd · (RTT_min − RTT_base) / RTT_min        (this flow's packets queued)   (1)
//! L = (RTT_min − RTT_base) / RTT_base              (queueing delay over the base)
//! Q > α or L > 1/φ  → slow mode; and if Q > α: cwnd −= min(Q/γ, cwnd/2^ε),
//!                     ssthresh = cwnd ("precautionary decongestion")           (2)
//! otherwise         → fast mode
//! fast, per ACK in congestion avoidance:  cwnd += 1 / min(cwnd, 100)             (3)
//! slow:                                   cwnd += 1 / cwnd (Reno)
//! on loss, after fewer than ρ slow rounds:  ssthresh = cwnd − max(min(Q, cwnd/2), cwnd/2^δ)
//!          otherwise (competing with Reno): ssthresh = cwnd/2                    (4)
//! ```
//! α = 80 packets, γ = 1, δ = 3, ε = 1, φ = 8, ρ = 16, ζ = 50 (the paper's, Linux's
//! constants). The decongestion never takes cwnd below `reno_count`, the paper's
//! estimate of a competing Reno flow's window: cwnd/2 at the first slow round, one
//! more per further slow round, halved at each loss, and back to 2 after ζ fast
//! rounds.
//!
//! Linux's rules, followed here: Q is computed once per round and only with more than
//! two RTT samples in it (fewer mean delayed ACKs, Vegas's rule); the round restarts on
//! the return to `Open` and at the first transmission, which also forgets RTT_base
//! (`tcp_vegas_state`, `tcp_vegas_cwnd_event`); RTTs are integer µs with Vegas's +1 µs
//! (so never 0); every division truncates. (3) uses Linux's `tcp_cong_avoid_ai`, so an
//! ACK of n segments counts n. Slow start is Reno's, and the round's decision is taken
//! on the ACK that ends it, after that ACK's growth. ssthresh is at least 2.
//!
//! Validation: unit tests below, with the decongestion, the two loss responses and the
//! mode switches worked by hand.

use serde::Deserialize;

use super::{seconds_or_nan, AckSample, CaEvent, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};

/// Scalable's increase: one segment per this many acknowledged, at most (Linux
/// `TCP_SCALABLE_AI_CNT`).
const SCALABLE_AI_CNT: u32 = 100;
/// Largest count of consecutive slow rounds kept (Linux `0xffffff`).
const SLOW_ROUNDS_MAX: u32 = 0xff_ffff;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct YeahConfig {
    /// α: packets queued above which the flow decongests (80).
    pub alpha: u32,
    /// γ: the decongestion removes Q/γ packets (1).
    pub gamma: u32,
    /// δ: a loss removes at least cwnd/2^δ (3).
    pub delta: u32,
    /// ε: the decongestion removes at most cwnd/2^ε (1).
    pub epsilon: u32,
    /// φ: slow mode when the queueing delay exceeds RTT_base/φ (8).
    pub phy: u32,
    /// ρ: slow rounds after which a loss halves, as for Reno competition (16).
    pub rho: u32,
    /// ζ: fast rounds after which `reno_count` returns to 2 (50).
    pub zeta: u32,
}

impl Default for YeahConfig {
    fn default() -> Self {
        YeahConfig {
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phy: 8,
            rho: 16,
            zeta: 50,
        }
    }
}

impl YeahConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        for (name, value) in [("gamma", self.gamma), ("phy", self.phy)] {
            if value == 0 {
                return Err((name.into(), "0 is not allowed; need at least 1".into()));
            }
        }
        for (name, value) in [("delta", self.delta), ("epsilon", self.epsilon)] {
            if value > 31 {
                return Err((
                    name.into(),
                    format!("{value} is too large; need 0 to 31 (a power of two of the window)"),
                ));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Yeah {
    cfg: YeahConfig,
    /// Smallest RTT ever and smallest of the round, in µs (+1); `u64::MAX` before.
    base_rtt: u64,
    min_rtt: u64,
    /// RTT samples in the round.
    cnt_rtt: u32,
    /// snd_nxt when the round began.
    beg_snd_nxt: u64,
    /// Q of the latest round with enough samples.
    last_q: u32,
    /// Consecutive slow rounds (0: fast mode).
    doing_reno_now: u32,
    /// The window of a competing Reno flow, as estimated.
    reno_count: u32,
    /// Consecutive fast rounds since `reno_count` was last reset.
    fast_count: u32,
}

impl Yeah {
    pub fn new(cfg: YeahConfig) -> Self {
        Yeah {
            cfg,
            base_rtt: u64::MAX,
            min_rtt: u64::MAX,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            last_q: 0,
            doing_reno_now: 0,
            reno_count: 2,
            fast_count: 0,
        }
    }

    /// A new round (Linux `vegas_enable`).
    fn start_round(&mut self, tcb: &Tcb) {
        self.beg_snd_nxt = tcb.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = u64::MAX;
    }

    /// On an ACK past the round's end: decide (with more than two samples), then
    /// start the next round.
    fn round_check(&mut self, tcb: &mut Tcb) {
        if tcb.snd_una <= self.beg_snd_nxt {
            return;
        }
        if self.cnt_rtt > 2 {
            self.end_round(tcb);
        }
        self.start_round(tcb);
    }

    /// The once-per-round decision, eq. (1)–(2).
    fn end_round(&mut self, tcb: &mut Tcb) {
        let (rtt, base) = (self.min_rtt, self.base_rtt);
        let queue = (u64::from(tcb.cwnd) * (rtt - base) / rtt) as u32;
        if queue > self.cfg.alpha || rtt - base > base / u64::from(self.cfg.phy) {
            if queue > self.cfg.alpha && tcb.cwnd > self.reno_count {
                let reduction = (queue / self.cfg.gamma).min(tcb.cwnd >> self.cfg.epsilon);
                tcb.cwnd = (tcb.cwnd - reduction).max(self.reno_count);
                tcb.ssthresh = tcb.cwnd;
            }
            if self.reno_count <= 2 {
                self.reno_count = (tcb.cwnd >> 1).max(2);
            } else {
                self.reno_count += 1;
            }
            self.doing_reno_now = (self.doing_reno_now + 1).min(SLOW_ROUNDS_MAX);
        } else {
            self.fast_count += 1;
            if self.fast_count > self.cfg.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.doing_reno_now = 0;
        }
        self.last_q = queue;
    }
}

impl CongestionControl for Yeah {
    fn name(&self) -> &'static str {
        "yeah"
    }

    /// Eq. (4).
    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        let half = (tcb.cwnd >> 1).max(2);
        let reduction = if self.doing_reno_now < self.cfg.rho {
            self.last_q.min(half).max(tcb.cwnd >> self.cfg.delta)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        tcb.cwnd.saturating_sub(reduction).max(2)
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            let rtt = rtt.as_nanos() / 1000 + 1;
            self.base_rtt = self.base_rtt.min(rtt);
            self.min_rtt = self.min_rtt.min(rtt);
            self.cnt_rtt += 1;
        }
    }

    fn set_state(&mut self, tcb: &Tcb, _now: SimTime, new: CaState) {
        if new == CaState::Open {
            self.start_round(tcb);
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, _now: SimTime, event: CaEvent) {
        if event == CaEvent::TxStart {
            self.base_rtt = u64::MAX;
            self.start_round(tcb);
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, _now: SimTime, acked: u32) {
        let Some(acked) = tcb.slow_start_then(acked) else {
            if tcb.cwnd_limited {
                self.round_check(tcb);
            }
            return;
        };
        let w = if self.doing_reno_now == 0 {
            tcb.cwnd.min(SCALABLE_AI_CNT)
        } else {
            tcb.cwnd
        };
        tcb.cong_avoid_ai(w, acked);
        self.round_check(tcb);
    }

    /// Q of the latest decided round (packets), whether the flow is in slow (Reno)
    /// mode (1) or fast (Scalable) mode (0), `reno_count`, and the base and round RTTs
    /// (s; NaN before a sample).
    fn info(&self, _tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let seconds = |us: u64| seconds_or_nan(SimTime(us.saturating_mul(1000)));
        out.push(("queue", f64::from(self.last_q)));
        out.push(("slow_mode", f64::from(u8::from(self.doing_reno_now > 0))));
        out.push(("reno_count", f64::from(self.reno_count)));
        out.push(("base_rtt", seconds(self.base_rtt)));
        out.push(("min_rtt", seconds(self.min_rtt)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn yeah() -> Yeah {
        Yeah::new(YeahConfig::default())
    }

    /// A flow in congestion avoidance with window `w`, at the start of a round.
    fn in_avoidance(y: &mut Yeah, w: u32) -> Tcb {
        let mut t = Tcb::new(1000, w);
        t.ssthresh = 2;
        t.snd_una = 900_000;
        t.snd_nxt = 1_000_000;
        y.start_round(&t);
        t
    }

    /// Three samples of `rtt_ms` after a base of `base_ms`, then the ACK ending the
    /// round.
    fn round(y: &mut Yeah, t: &mut Tcb, base_ms: u64, rtt_ms: u64) {
        y.base_rtt = base_ms * 1000 + 1;
        for _ in 0..3 {
            let s = AckSample {
                acked: 1,
                rtt: Some(SimTime(rtt_ms * MS)),
                in_flight: t.cwnd,
            };
            y.pkts_acked(t, SimTime::ZERO, &s);
        }
        t.snd_una = t.snd_nxt + 1000;
        t.snd_nxt = t.snd_una + u64::from(t.cwnd) * 1000;
        y.cong_avoid(t, SimTime::ZERO, 1);
    }

    #[test]
    fn a_queue_above_alpha_is_removed_at_once() {
        // Base 100 ms, round minimum 110 ms (µs + 1: 100 001 and 110 001), cwnd 1000
        // in fast mode: the round's ACK first adds 1/100 (cwnd_cnt 1). Q = ⌊1000 ·
        // 10 000/110 001⌋ = 90 > α = 80: cwnd −= min(90/1, 1000/2) → 910, ssthresh 910;
        // reno_count (2) → 910/2 = 455; slow mode.
        let mut y = yeah();
        let mut t = in_avoidance(&mut y, 1000);
        round(&mut y, &mut t, 100, 110);
        assert_eq!((t.cwnd, t.ssthresh, y.last_q), (910, 910, 90));
        assert_eq!((y.reno_count, y.doing_reno_now), (455, 1));
    }

    #[test]
    fn a_loss_after_decongestion_removes_the_queue_or_an_eighth() {
        // From the test above (cwnd 910, Q 90, one slow round < ρ): reduction =
        // max(min(90, 455), 910/8 = 113) = 113: ssthresh 797; reno_count 455/2 = 227.
        let mut y = yeah();
        let mut t = in_avoidance(&mut y, 1000);
        round(&mut y, &mut t, 100, 110);
        assert_eq!(y.ssthresh(&t, SimTime::ZERO), 797);
        assert_eq!(y.reno_count, 227);
        // Small queue: cwnd 400, Q 20 → max(min(20, 200), 50) = 50: ssthresh 350.
        y.last_q = 20;
        t.cwnd = 400;
        assert_eq!(y.ssthresh(&t, SimTime::ZERO), 350);
    }

    #[test]
    fn after_rho_slow_rounds_a_loss_halves() {
        // Sixteen slow rounds (delay 15 ms over a 100 ms base: 15 000 > 100 001/8 =
        // 12 500; cwnd 50: Q = ⌊50·15 000/115 001⌋ = 6 ≤ α, no decongestion) → the
        // loss takes cwnd/2 = 25 of 50 (with fifteen: max(min(6, 25), 6) = 6 → 44).
        let mut y = yeah();
        let mut t = in_avoidance(&mut y, 50);
        for _ in 0..15 {
            round(&mut y, &mut t, 100, 115);
        }
        t.cwnd = 50;
        assert_eq!((y.doing_reno_now, y.last_q), (15, 6));
        assert_eq!(y.clone().ssthresh(&t, SimTime::ZERO), 44);
        round(&mut y, &mut t, 100, 115);
        t.cwnd = 50;
        assert_eq!(y.ssthresh(&t, SimTime::ZERO), 25);
    }

    #[test]
    fn slow_mode_counts_reno_competition() {
        // First slow round at cwnd 50: reno_count = 50/2 = 25; each further slow round
        // adds one (26, 27); a fast round (delay 5 ms < 12.5 ms, Q = ⌊50·5000/105 001⌋
        // = 2) clears the slow count but keeps reno_count until ζ = 50 fast rounds
        // have passed: the 51st resets it to 2.
        let mut y = yeah();
        let mut t = in_avoidance(&mut y, 50);
        for _ in 0..3 {
            round(&mut y, &mut t, 100, 115);
            t.cwnd = 50;
        }
        assert_eq!(y.reno_count, 27);
        round(&mut y, &mut t, 100, 105);
        assert_eq!((y.doing_reno_now, y.reno_count, y.last_q), (0, 27, 2));
        for _ in 0..49 {
            round(&mut y, &mut t, 100, 105);
        }
        assert_eq!(y.reno_count, 27);
        round(&mut y, &mut t, 100, 105);
        assert_eq!((y.reno_count, y.fast_count), (2, 0));
    }

    #[test]
    fn fast_mode_is_scalable_and_slow_mode_reno() {
        // cwnd 200, fast: one segment per min(200, 100) = 100 ACKs; slow (Reno): per
        // cwnd = 201 ACKs.
        let mut y = yeah();
        let mut t = in_avoidance(&mut y, 200);
        t.snd_una = 0; // inside the round
        for _ in 0..100 {
            y.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 201);
        y.doing_reno_now = 1;
        for _ in 0..200 {
            y.cong_avoid(&mut t, SimTime::ZERO, 1);
        }
        assert_eq!(t.cwnd, 201);
        y.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!(t.cwnd, 202);
    }

    #[test]
    fn two_samples_decide_nothing() {
        // Q would be 90 (first test), but with two samples the round only restarts.
        let mut y = yeah();
        let mut t = in_avoidance(&mut y, 1000);
        y.base_rtt = 100_001;
        for _ in 0..2 {
            let s = AckSample {
                acked: 1,
                rtt: Some(SimTime(110 * MS)),
                in_flight: 1000,
            };
            y.pkts_acked(&t, SimTime::ZERO, &s);
        }
        t.snd_una = 1_001_000;
        y.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, y.doing_reno_now, y.cnt_rtt), (1000, 0, 0));
    }

    #[test]
    fn parameters_are_checked() {
        let zero = YeahConfig {
            gamma: 0,
            ..YeahConfig::default()
        };
        assert_eq!(zero.check().unwrap_err().0, "gamma");
        let wide = YeahConfig {
            epsilon: 32,
            ..YeahConfig::default()
        };
        assert_eq!(wide.check().unwrap_err().0, "epsilon");
        assert!(YeahConfig::default().check().is_ok());
    }
}
