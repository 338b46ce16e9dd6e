//! TCP Vegas: Brakmo, O'Malley & Peterson, "TCP Vegas: New Techniques for
//! Congestion Detection and Avoidance", SIGCOMM 1994; Brakmo & Peterson, JSAC 1995.
//! Implementation structure after Linux `net/ipv4/tcp_vegas.c`.
//!
//! Once per RTT (when the ACK passes the `snd_nxt` recorded at the start of the RTT):
//! ```text
//! Expected = cwnd / BaseRTT                                   (1)
//! Actual   = cwnd / RTT            (RTT = smallest sample of the last RTT)
//! diff     = (Expected − Actual) · BaseRTT = cwnd · (RTT − BaseRTT) / RTT     (2)
//!            — the packets this flow keeps queued in the network
//! congestion avoidance:  diff < α → cwnd + 1;  diff > β → cwnd − 1;  else hold   (3)
//! slow start:            cwnd doubles every other RTT (one segment per ACK in the
//!                        growing RTT, constant in the next, so that RTT is measured
//!                        at a fixed window); leave it when diff > γ:
//!                        cwnd = min(cwnd, cwnd·BaseRTT/RTT + 1), ssthresh = cwnd − 1   (4)
//! ```
//! BaseRTT is the smallest RTT ever measured, never raised (the paper;
//! `tcp_vegas_rtt_calc` in Linux 2.6.20). Where the RTT stays flat until the link is
//! full (two 5 ms frames over an 802.16 cell), diff then weighs how far the luckiest
//! sample lies below it, not a queue, and the window settles where that luck puts it
//! (docs/studies.md, "Vegas at 256 B"). With two or fewer samples in an RTT (delayed
//! ACKs leave too few to trust), the RTT behaves as Reno.
//!
//! Parameters and defaults: α = 2, β = 4, γ = 1 packets (Linux; ns-2 and the studies use
//! α = 1, β = 3). On loss, `loss_reduction = "reno"` halves (Linux) and `"vegas"`
//! keeps 3/4 of the window after a fast retransmit, as the original Arizona Vegas and
//! ns-2's agent do (`tcp-vegas.cc`: `win -= win >> 2`; the "ns2" profile sets it),
//! and halves after a timeout (ns-2 `VegasTcpAgent::timeout`:
//! `slowdown(CLOSE_SSTHRESH_HALF)`, ssthresh = window/2; the coarse timeout was
//! Reno's), applied on the timeout's `cwnd_event(Loss)`, the hook Linux Westwood sets
//! its ssthresh from. The halved value is computed with the 3/4 one, from the flight
//! the sender passes to `ssthresh` (on a timeout with SACK the data actually in
//! flight, `Tcb::flight_size`): by the Loss event the sender has dropped that figure
//! and only snd_nxt − snd_una, SACKed data included, is left. ns-2 then restarts at cwnd = 2 (`v_slowstart_`); here at 1, as
//! every controller.
//!
//! The thresholds are compared exactly, in integers: diff < α ⟺ cwnd·(RTT − BaseRTT) <
//! α·RTT (RTTs in ns), and likewise for β and γ — the paper's real-valued diff without
//! floating-point rounding. Linux instead truncates diff to whole packets before
//! comparing (`u32` division), so its window shrinks only once diff reaches β + 1: a
//! flow that leaves slow start above β then settles just below β + 1 (with truncation
//! here, the α = 1, β = 3 scenario of tests/cc_vegas.rs holds a mean queue of 3.96
//! packets, outside the paper's [α, β]); ns-2 rounds diff to the nearest packet.
//!
//! Deviations from Linux, towards the paper and ns-2: diff divides by RTT, as eq. (2),
//! the 1999 Linux Vegas and a 2025 netdev patch restoring it (Agarwal, agreed by
//! Cardwell) do; `tcp_vegas.c` since 2008 divides by BaseRTT, which overstates the
//! backlog by RTT/BaseRTT. Slow start doubles every other RTT (Linux grows on every
//! ACK between its per-RTT checks, which overshoots by up to a window and leaves a
//! standing queue that later flows mistake for their BaseRTT). Vegas is switched off
//! outside the Open state and re-armed when it returns (Linux `tcp_vegas_state`).
//!
//! `fine_grained_retransmission = true` adds Brakmo & Peterson's fine-grained
//! retransmission, as ns-2's agent has it (`vegas_timer.rs`; Linux has none, hence
//! off by default); the sender asks through `fine_grained_expired` and only
//! without SACK (ns-2's Vegas has none).
//!
//! Validation: unit tests below (increase/hold/decrease around α and β, the γ exit,
//! BaseRTT tracking, the two loss reductions); end to end, the bottleneck backlog stays
//! between α and β (tests/cc_vegas.rs).

use std::cmp::Ordering;

use serde::Deserialize;

use super::vegas_timer::{AckKind, FineTimer};
use super::{reno_ssthresh, seconds_or_nan, AckSample, CaEvent, CongestionControl};
use crate::time::SimTime;
use crate::transport::tcp::tcb::{CaState, Tcb};

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LossReduction {
    /// ssthresh = max(FlightSize/2, 2): Linux's Vegas (Reno's response).
    Reno,
    /// ssthresh = 3/4 of cwnd: the original Vegas.
    Vegas,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VegasConfig {
    pub alpha: u32,
    pub beta: u32,
    pub gamma: u32,
    pub loss_reduction: LossReduction,
    /// Brakmo & Peterson's fine-grained retransmission (ns-2's agent; not Linux).
    pub fine_grained_retransmission: bool,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig {
            alpha: 2,
            beta: 4,
            gamma: 1,
            loss_reduction: LossReduction::Reno,
            fine_grained_retransmission: false,
        }
    }
}

impl VegasConfig {
    pub fn check(&self) -> Result<(), (String, String)> {
        if self.alpha > self.beta {
            return Err((
                "alpha".into(),
                format!(
                    "{} is larger than beta ({}); need alpha ≤ beta",
                    self.alpha, self.beta
                ),
            ));
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    cfg: VegasConfig,
    /// Smallest RTT ever seen.
    base_rtt: SimTime,
    /// `ssthresh` just applied the 3/4 reduction: a timeout that follows at once
    /// (`cwnd_event(Loss)`) replaces it by this, Reno's halving of the same flight.
    halving_on_timeout: Option<u32>,
    /// Smallest RTT in the current RTT.
    min_rtt: SimTime,
    /// Samples in the current RTT.
    cnt_rtt: u32,
    /// snd_nxt when the current RTT began.
    beg_snd_nxt: u64,
    enabled: bool,
    /// Slow start grows in alternate RTTs: true in a growing one.
    ss_growing: bool,
    /// The fine-grained timer, when `fine_grained_retransmission` is on.
    fine: Option<FineTimer>,
}

impl Vegas {
    pub fn new(cfg: VegasConfig) -> Self {
        Vegas {
            base_rtt: SimTime::MAX,
            halving_on_timeout: None,
            min_rtt: SimTime::MAX,
            cnt_rtt: 0,
            beg_snd_nxt: 0,
            enabled: true,
            ss_growing: true,
            fine: cfg.fine_grained_retransmission.then(FineTimer::default),
            cfg,
        }
    }

    fn start_rtt(&mut self, tcb: &Tcb) {
        self.beg_snd_nxt = tcb.snd_nxt;
        self.cnt_rtt = 0;
        self.min_rtt = SimTime::MAX;
    }

    /// Eq. (2) against `k` packets, exactly: the ordering of diff and k, from
    /// cwnd·(RTT − BaseRTT) against k·RTT.
    fn diff_vs(&self, cwnd: u32, rtt: SimTime, k: u32) -> Ordering {
        let rtt = u128::from(rtt.as_nanos());
        let queued = rtt.saturating_sub(u128::from(self.base_rtt.as_nanos()));
        (u128::from(cwnd) * queued).cmp(&(u128::from(k) * rtt))
    }

    /// Reno's growth at the ACK's time `now` (Linux `tcp_vegas_cong_avoid` calls
    /// `tcp_reno_cong_avoid` with the ACK it was given).
    fn reno(tcb: &mut Tcb, now: SimTime, acked: u32) {
        super::Reno.cong_avoid(tcb, now, acked);
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }

    fn ssthresh(&mut self, tcb: &Tcb, _now: SimTime) -> u32 {
        match self.cfg.loss_reduction {
            LossReduction::Reno => reno_ssthresh(tcb),
            LossReduction::Vegas => {
                self.halving_on_timeout = Some(reno_ssthresh(tcb));
                (tcb.cwnd * 3 / 4).max(2)
            }
        }
    }

    fn pkts_acked(&mut self, _tcb: &Tcb, _now: SimTime, sample: &AckSample) {
        if let Some(rtt) = sample.rtt {
            // Linux adds 1 µs so that a zero RTT still counts as a sample.
            let rtt = rtt.max(SimTime(1));
            self.base_rtt = self.base_rtt.min(rtt);
            self.min_rtt = self.min_rtt.min(rtt);
            self.cnt_rtt += 1;
            if let Some(fine) = &mut self.fine {
                fine.sample(rtt);
            }
        }
    }

    fn fine_grained_expired(&mut self, now: SimTime, sent: SimTime, ack: AckKind) -> bool {
        self.fine
            .as_mut()
            .is_some_and(|fine| fine.expired(now, sent, ack))
    }

    fn set_state(&mut self, tcb: &Tcb, _now: SimTime, new: CaState) {
        if new != CaState::Loss {
            self.halving_on_timeout = None;
        }
        if new == CaState::Open {
            self.enabled = true;
            self.start_rtt(tcb);
        } else {
            self.enabled = false;
        }
        if let Some(fine) = &mut self.fine {
            match new {
                CaState::Recovery => fine.on_fast_retransmit(tcb.flight_segments()),
                CaState::Loss => fine.on_timeout(),
                CaState::Open | CaState::Disorder | CaState::Cwr => {}
            }
        }
    }

    fn cwnd_event(&mut self, tcb: &mut Tcb, _now: SimTime, event: CaEvent) {
        match event {
            CaEvent::TxStart => {
                self.enabled = true;
                self.start_rtt(tcb);
            }
            CaEvent::Loss => {
                // A coarse timeout: Reno's halving, if this timeout just reduced.
                if let Some(halved) = self.halving_on_timeout.take() {
                    tcb.ssthresh = halved;
                }
            }
            _ => {}
        }
    }

    fn cong_avoid(&mut self, tcb: &mut Tcb, now: SimTime, acked: u32) {
        if !self.enabled {
            Self::reno(tcb, now, acked);
            return;
        }
        if tcb.snd_una <= self.beg_snd_nxt {
            // Within an RTT: only slow start moves, in its growing RTTs.
            if tcb.in_slow_start() && self.ss_growing {
                tcb.slow_start(acked);
            }
            return;
        }
        // One RTT has passed: decide.
        if self.cnt_rtt <= 2 {
            Self::reno(tcb, now, acked);
        } else {
            let rtt = self.min_rtt;
            let cwnd = tcb.cwnd;
            let diff_vs = |k| self.diff_vs(cwnd, rtt, k);
            if tcb.in_slow_start() {
                if diff_vs(self.cfg.gamma).is_gt() {
                    // Eq. (4): leave slow start at the window the path holds.
                    let target = tcb.cwnd as u64 * self.base_rtt.as_nanos() / rtt.as_nanos();
                    tcb.cwnd = tcb.cwnd.min(target as u32 + 1);
                    tcb.ssthresh = tcb.cwnd.saturating_sub(1).max(2);
                } else {
                    self.ss_growing = !self.ss_growing;
                    if self.ss_growing {
                        tcb.slow_start(acked);
                    }
                }
            } else if diff_vs(self.cfg.beta).is_gt() {
                tcb.cwnd -= 1;
                tcb.ssthresh = tcb.ssthresh.min(tcb.cwnd.saturating_sub(1)).max(2);
            } else if diff_vs(self.cfg.alpha).is_lt() {
                tcb.cwnd += 1;
            }
            tcb.cwnd = tcb.cwnd.clamp(2, tcb.cwnd_clamp);
        }
        self.start_rtt(tcb);
    }

    /// BaseRTT, the smallest RTT of the current round so far (Linux reports both,
    /// `tcpv_rtt` and `tcpv_minrtt`) and eq. (2)'s diff at the current window
    /// against it: the backlog the round's decision will weigh (NaN before a sample).
    fn info(&self, tcb: &Tcb, out: &mut Vec<(&'static str, f64)>) {
        let base = seconds_or_nan(self.base_rtt);
        let rtt = seconds_or_nan(self.min_rtt);
        out.push(("base_rtt", base));
        out.push(("min_rtt", rtt));
        out.push(("diff", f64::from(tcb.cwnd) * (rtt - base) / rtt));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// A Vegas flow in congestion avoidance with cwnd `w`, BaseRTT 100 ms, at the
    /// start of an RTT (snd_nxt = 1000 segments of 1000 B).
    fn setup(w: u32, cfg: VegasConfig) -> (Vegas, Tcb) {
        let mut v = Vegas::new(cfg);
        let mut t = Tcb::new(1000, w);
        t.ssthresh = 2; // not in slow start
        t.snd_una = 900_000;
        t.snd_nxt = 1_000_000;
        v.base_rtt = SimTime(100 * MS);
        v.start_rtt(&t);
        (v, t)
    }

    /// Feeds three RTT samples of `rtt_ms`, then an ACK past the RTT boundary.
    fn one_rtt(v: &mut Vegas, t: &mut Tcb, rtt_ms: u64) {
        one_rtt_ns(v, t, rtt_ms * MS);
    }

    fn one_rtt_ns(v: &mut Vegas, t: &mut Tcb, rtt_ns: u64) {
        for _ in 0..3 {
            let s = AckSample {
                acked: 1,
                rtt: Some(SimTime(rtt_ns)),
                in_flight: t.cwnd,
            };
            v.pkts_acked(t, SimTime::ZERO, &s);
        }
        t.snd_una = 1_001_000;
        v.cong_avoid(t, SimTime::ZERO, 1);
    }

    fn cfg(alpha: u32, beta: u32) -> VegasConfig {
        VegasConfig {
            alpha,
            beta,
            ..VegasConfig::default()
        }
    }

    #[test]
    fn below_alpha_the_window_grows_by_one() {
        // cwnd 20, RTT 105 ms: diff = 20·5/105 = 0.95 < α = 1 → 21.
        let (mut v, mut t) = setup(20, cfg(1, 3));
        one_rtt(&mut v, &mut t, 105);
        assert_eq!(t.cwnd, 21);
    }

    #[test]
    fn between_alpha_and_beta_the_window_holds() {
        // RTT 110 ms: diff = 20·10/110 = 1.82 ∈ [α, β] = [1, 3] → 20.
        let (mut v, mut t) = setup(20, cfg(1, 3));
        one_rtt(&mut v, &mut t, 110);
        assert_eq!(t.cwnd, 20);
    }

    #[test]
    fn thresholds_are_exact() {
        // BaseRTT 100 ms, cwnd 20. RTT 124 ms: diff = 20·24/124 = 3.87 > β = 3:
        // shrink to 19 (Linux's truncated diff, 3, would hold). BaseRTT 85 ms, RTT
        // 100 ms: diff = 20·15/100 = 3 exactly = β: hold; one nanosecond more and
        // diff > 3: shrink. RTT 105.2 ms (BaseRTT 100): diff = 20·5.2/105.2 = 0.989 < α:
        // grow; RTT 105.3 ms: 20·5.3/105.3 = 1.007 ≥ α: hold.
        for (base_ms, rtt_ns, expected) in [
            (100, 124_000_000, 19),
            (85, 100_000_000, 20),
            (85, 100_000_001, 19),
            (100, 105_200_000, 21),
            (100, 105_300_000, 20),
        ] {
            let (mut v, mut t) = setup(20, cfg(1, 3));
            v.base_rtt = SimTime(base_ms * MS);
            for _ in 0..3 {
                let s = AckSample {
                    acked: 1,
                    rtt: Some(SimTime(rtt_ns)),
                    in_flight: 20,
                };
                v.pkts_acked(&t, SimTime::ZERO, &s);
            }
            t.snd_una = 1_001_000;
            v.cong_avoid(&mut t, SimTime::ZERO, 1);
            assert_eq!(t.cwnd, expected, "BaseRTT {base_ms} ms, RTT {rtt_ns} ns");
        }
    }

    #[test]
    fn above_beta_the_window_shrinks_by_one() {
        // RTT 125 ms: diff = 20·25/125 = 4 > β = 3 → 19.
        let (mut v, mut t) = setup(20, cfg(1, 3));
        one_rtt(&mut v, &mut t, 125);
        assert_eq!(t.cwnd, 19);
    }

    #[test]
    fn base_rtt_is_the_minimum_ever_seen() {
        let (mut v, mut t) = setup(20, VegasConfig::default());
        v.base_rtt = SimTime::MAX;
        one_rtt(&mut v, &mut t, 90);
        one_rtt(&mut v, &mut t, 120);
        assert_eq!(v.base_rtt, SimTime(90 * MS));
    }

    #[test]
    fn a_lucky_sample_lowers_the_window_for_good() {
        // docs/studies.md, "Vegas at 256 B" (wimax, seed 2): the RTT is two 5 ms frames,
        // 10 ms, whatever the window. BaseRTT 9.652 ms, cwnd 100: diff = 100·0.348/10 =
        // 3.48 ∈ [α, β] = [2, 4]: hold. A round with one 9.115 ms sample: BaseRTT 9.115,
        // that round's diff 0 < α: 101. Then 10 ms again: diff = 0.0885·cwnd, above β
        // down to cwnd 46 (4.071), so one less per round, 55 rounds to 46 and one more
        // to 45 (3.98, in [α, β]), where it stays: no queue was ever there.
        let (mut v, mut t) = setup(100, VegasConfig::default());
        v.base_rtt = SimTime(9_652_000);
        one_rtt_ns(&mut v, &mut t, 10_000_000);
        assert_eq!(t.cwnd, 100);
        one_rtt_ns(&mut v, &mut t, 9_115_000);
        assert_eq!((t.cwnd, v.base_rtt), (101, SimTime(9_115_000)));
        let mut windows = Vec::new();
        for _ in 0..100 {
            one_rtt_ns(&mut v, &mut t, 10_000_000);
            windows.push(t.cwnd);
        }
        assert_eq!((windows[54], windows[55], windows[99]), (46, 45, 45));
    }

    #[test]
    fn slow_start_ends_when_diff_exceeds_gamma() {
        // cwnd 32 in slow start, RTT 125 ms: diff = 32·25/125 = 6.4 > γ = 1;
        // target = 32·100/125 = 25.6 → 25; cwnd = min(32, 26) = 26, ssthresh 25.
        let (mut v, mut t) = setup(32, VegasConfig::default());
        t.ssthresh = u32::MAX / 2;
        one_rtt(&mut v, &mut t, 125);
        assert_eq!((t.cwnd, t.ssthresh), (26, 25));
        assert!(!t.in_slow_start());
    }

    #[test]
    fn slow_start_grows_in_alternate_rtts() {
        // RTT = BaseRTT (diff 0, never exits). A window-limited sender: after each
        // ACK snd_nxt = snd_una + cwnd. The window at the end of each RTT doubles
        // in one RTT and holds in the next (8, 8, 16, 16, 32).
        let (mut v, mut t) = setup(4, VegasConfig::default());
        t.ssthresh = u32::MAX / 2;
        t.snd_una = 1_000_000;
        t.snd_nxt = t.snd_una + 4_000;
        v.start_rtt(&t);
        let mut at_boundaries = Vec::new();
        for _ in 0..200 {
            let (before, cwnd) = (v.beg_snd_nxt, t.cwnd);
            t.snd_una += 1000;
            let s = AckSample {
                acked: 1,
                rtt: Some(SimTime(100 * MS)),
                in_flight: t.cwnd,
            };
            v.pkts_acked(&t, SimTime::ZERO, &s);
            v.cong_avoid(&mut t, SimTime::ZERO, 1);
            t.snd_nxt = t.snd_una + t.cwnd as u64 * 1000;
            if v.beg_snd_nxt != before {
                at_boundaries.push(cwnd);
            }
        }
        assert_eq!(at_boundaries[..5], [8, 8, 16, 16, 32]);
    }

    #[test]
    fn few_samples_fall_back_to_reno() {
        // Two samples only: Reno's additive increase (cwnd_cnt grows by 1).
        let (mut v, mut t) = setup(20, cfg(1, 3));
        let s = AckSample {
            acked: 1,
            rtt: Some(SimTime(125 * MS)),
            in_flight: 20,
        };
        v.pkts_acked(&t, SimTime::ZERO, &s);
        v.pkts_acked(&t, SimTime::ZERO, &s);
        t.snd_una = 1_001_000;
        v.cong_avoid(&mut t, SimTime::ZERO, 1);
        assert_eq!((t.cwnd, t.cwnd_cnt), (20, 1));
    }

    #[test]
    fn loss_halves_or_keeps_three_quarters() {
        let (mut v, mut t) = setup(40, VegasConfig::default());
        t.snd_una = 0;
        t.snd_nxt = 40_000;
        assert_eq!(v.ssthresh(&t, SimTime::ZERO), 20);
        let mut orig = Vegas::new(VegasConfig {
            loss_reduction: LossReduction::Vegas,
            ..VegasConfig::default()
        });
        assert_eq!(orig.ssthresh(&t, SimTime::ZERO), 30);
        // A fast retransmit keeps the 3/4 (recovery starts, no Loss event).
        orig.set_state(&t, SimTime::ZERO, CaState::Recovery);
        t.ssthresh = 30;
        orig.cwnd_event(&mut t, SimTime::ZERO, CaEvent::Loss);
        assert_eq!(t.ssthresh, 30);
    }

    #[test]
    fn original_vegas_halves_after_a_timeout() {
        // loss_reduction = "vegas": the timeout's ssthresh call gives 3/4 of cwnd 40
        // (30), then its Loss event replaces it by Reno's FlightSize/2 = 20.
        let mut v = Vegas::new(VegasConfig {
            loss_reduction: LossReduction::Vegas,
            ..VegasConfig::default()
        });
        let mut t = Tcb::new(1000, 40);
        t.snd_nxt = 40_000;
        t.ssthresh = v.ssthresh(&t, SimTime::ZERO);
        assert_eq!(t.ssthresh, 30);
        v.set_state(&t, SimTime::ZERO, CaState::Loss);
        t.cwnd = 1;
        v.cwnd_event(&mut t, SimTime::ZERO, CaEvent::Loss);
        assert_eq!(t.ssthresh, 20);
        // A repeated timeout (no new ssthresh call) changes nothing.
        t.ssthresh = 7;
        v.cwnd_event(&mut t, SimTime::ZERO, CaEvent::Loss);
        assert_eq!(t.ssthresh, 7);
    }

    #[test]
    fn the_timeout_halving_takes_the_flight_given_to_ssthresh() {
        // A timeout with SACK: 100 segments between snd_una and snd_nxt, most of them
        // SACKed; 20 actually in flight (`loss_flight`, set by the sender for its
        // ssthresh call and cleared after it). cwnd 40: 3/4 gives 30, then the Loss
        // event halves the flight: 20/2 = 10, not (100 segments)/2 = 50.
        let mut v = Vegas::new(VegasConfig {
            loss_reduction: LossReduction::Vegas,
            ..VegasConfig::default()
        });
        let mut t = Tcb::new(1000, 40);
        t.snd_nxt = 100_000;
        t.loss_flight = Some(20);
        t.ssthresh = v.ssthresh(&t, SimTime::ZERO);
        assert_eq!(t.ssthresh, 30);
        t.loss_flight = None;
        v.set_state(&t, SimTime::ZERO, CaState::Loss);
        t.cwnd = 1;
        v.cwnd_event(&mut t, SimTime::ZERO, CaEvent::Loss);
        assert_eq!(t.ssthresh, 10);
    }

    #[test]
    fn fine_grained_retransmission_is_asked_for() {
        // One 100 ms sample: fine-grained timeout 146.09375 ms (vegas_timer.rs). A
        // duplicate 150 ms after the oldest segment was sent: resend, if asked for.
        let sample = AckSample {
            acked: 1,
            rtt: Some(SimTime(100 * MS)),
            in_flight: 10,
        };
        let t = Tcb::new(1000, 10);
        for (on, expected) in [(false, false), (true, true)] {
            let mut v = Vegas::new(VegasConfig {
                fine_grained_retransmission: on,
                ..VegasConfig::default()
            });
            v.pkts_acked(&t, SimTime::ZERO, &sample);
            let dup = v.fine_grained_expired(SimTime(150 * MS), SimTime::ZERO, AckKind::Duplicate);
            assert_eq!(dup, expected);
        }
    }

    #[test]
    fn outside_open_state_vegas_is_reno() {
        let (mut v, mut t) = setup(20, cfg(1, 3));
        v.set_state(&t, SimTime::ZERO, CaState::Loss);
        one_rtt(&mut v, &mut t, 125); // would shrink if Vegas were on
        assert_eq!((t.cwnd, t.cwnd_cnt), (20, 1));
    }

    #[test]
    fn alpha_above_beta_is_rejected() {
        assert!(cfg(4, 2).check().is_err());
        assert!(cfg(2, 2).check().is_ok());
    }

    #[test]
    fn info_reports_eq_2_diff_against_base_rtt() {
        // BaseRTT 100 ms (first round); this round's samples 125 and 130 ms, cwnd 20:
        // diff = 20 · (0.125 − 0.100) / 0.125 = 20 · 0.2 = 4 packets.
        let mut v = Vegas::new(VegasConfig::default());
        let mut t = Tcb::new(1000, 20);
        let sample = |ms: u64| AckSample {
            acked: 1,
            rtt: Some(SimTime(ms * MS)),
            in_flight: 20,
        };
        v.pkts_acked(&t, SimTime::ZERO, &sample(100));
        t.snd_nxt = 20_000;
        v.start_rtt(&t);
        v.pkts_acked(&t, SimTime::ZERO, &sample(125));
        v.pkts_acked(&t, SimTime::ZERO, &sample(130));
        let mut out = Vec::new();
        v.info(&t, &mut out);
        assert_eq!(out[0], ("base_rtt", 0.100));
        assert_eq!(out[1], ("min_rtt", 0.125));
        assert_eq!(out[2].0, "diff");
        assert!((out[2].1 - 4.0).abs() < 1e-12, "{out:?}");
    }
}
