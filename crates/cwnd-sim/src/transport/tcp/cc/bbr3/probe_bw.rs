//! ProbeBW's phases and the long-term bound `inflight_hi` (draft-ietf-ccwg-bbr-04
//! §4.3.3, §4.5.10.2 "BBR.inflight_longterm"; Linux v3 `bbr_update_cycle_phase`,
//! `bbr_adapt_upper_bounds`).
//!
//! ```text
//! Down  (pacing 0.90) ─ in flight ≤ min(BDP, inflight_hi − 15 %) ─▶ Cruise
//! Cruise (1.0) ─ probe_wait (2–3 s) or min(63, BDP) rounds since the probe ─▶ Refill
//! Down also goes to Refill at that time, without passing Cruise
//! Refill (1.0, bounds lo forgotten) ─ one round ─▶ Up
//! Up (1.25, cwnd gain 2.25) ─ bandwidth plateau (3 rounds < +25 %), or in flight
//!     reaches inflight_hi after a probe that went too high, or loss > 2 % ─▶ Down
//! ```
//! In Up, while cwnd-limited at inflight_hi, inflight_hi grows by 1 per
//! `cnt` segments acknowledged, `cnt` = cwnd / 2^k in the k-th round: the growth
//! doubles each round. Each cycle, at the first round after Up's feedback, the
//! max-bandwidth filter moves to a new window (max_bw is over 1–2 cycles).
//!
//! Loss too high (Linux `bbr_is_inflight_too_high`): the sample's `lost` above 2 %
//! (`BBRLossThresh`, 5/256 in Linux's fixed point) of its `tx_in_flight`
//! (`loss_sample.rs`). While samples reflect probing (from Refill's first round to
//! the round after Up), that cuts `inflight_hi` to max(tx_in_flight, 0.7 × target
//! in flight) and Up ends; otherwise a sample in flight above inflight_hi without
//! such loss raises it. The wait before the next probe draws from the flow's own
//! random stream: 0–1 extra rounds and 2 s + U[0, 1 s) (Linux `bbr_pick_probe_wait`).

use rand::RngExt;

use super::loss_sample::LossSample;
use super::lower_bounds::BETA;
use super::{Bbr3, Mode, RateSample, BBR_UNIT, MIN_PIPE_CWND, UNBOUNDED};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

/// Loss rate that ends probing: 2 % (Linux `BBR_UNIT * 2 / 100` = 5/256).
pub(super) const LOSS_THRESH: u32 = BBR_UNIT * 2 / 100;
/// Headroom left below inflight_hi when cruising: 15 %.
const INFLIGHT_HEADROOM: u32 = BBR_UNIT * 15 / 100;
/// Most rounds between probes (Reno coexistence at a 25 Mb/s × 30 ms BDP).
const BW_PROBE_MAX_ROUNDS: u32 = 63;
/// Random extra rounds: 0 or 1.
const BW_PROBE_RAND_ROUNDS: u32 = 2;
/// Wall-clock wait between probes: 2 s + U[0, 1 s).
const BW_PROBE_BASE: SimTime = SimTime::from_secs(2);
const BW_PROBE_RAND_NS: u64 = 1_000_000_000;

/// ProbeBW's phases, in Linux's order (`enum bbr_pacing_gain_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Up = 0,
    Down = 1,
    Cruise = 2,
    Refill = 3,
}

impl Phase {
    /// Up 5/4, Down 0.90 (the draft; Linux v3 has 0.91), Cruise and Refill 1.
    pub fn pacing_gain(self) -> u32 {
        match self {
            Phase::Up => BBR_UNIT * 5 / 4,
            Phase::Down => BBR_UNIT * 90 / 100,
            Phase::Cruise | Phase::Refill => BBR_UNIT,
        }
    }
}

/// What the ACKs arriving now say about probing (Linux `enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

impl Bbr3 {
    /// Down: drain what Up queued; draws the wait before the next probe.
    pub(super) fn start_probe_down(&mut self, tcb: &Tcb, now: SimTime) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = UNBOUNDED;
        self.rounds_since_probe = self.rng.random_range(0..BW_PROBE_RAND_ROUNDS);
        self.probe_wait = BW_PROBE_BASE + SimTime(self.rng.random_range(0..BW_PROBE_RAND_NS));
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.next_round_delivered = tcb.delivered;
        self.phase = Phase::Down;
    }

    pub(super) fn start_probe_cruise(&mut self) {
        if self.inflight_lo != UNBOUNDED {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.phase = Phase::Cruise;
    }

    /// Refill: pace at the estimate for a round, the short-term bounds forgotten.
    fn start_probe_refill(&mut self, tcb: &Tcb) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.next_round_delivered = tcb.delivered;
        self.phase = Phase::Refill;
    }

    fn start_probe_up(&mut self, tcb: &Tcb, now: SimTime, sample_bw: u64) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.next_round_delivered = tcb.delivered;
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = sample_bw;
        self.phase = Phase::Up;
        self.raise_inflight_hi_slope(tcb);
    }

    /// Up's growth per round doubles: 1 segment of inflight_hi per cwnd / 2^k
    /// acknowledged in the k-th round.
    fn raise_inflight_hi_slope(&mut self, tcb: &Tcb) {
        let growth_this_round = 1u32 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (tcb.cwnd / growth_this_round).max(1);
    }

    /// Raises inflight_hi while it limits cwnd (Linux `bbr_probe_inflight_hi_upward`).
    fn probe_inflight_hi_upward(&mut self, tcb: &Tcb, rs: &RateSample) {
        if !tcb.cwnd_limited || tcb.cwnd < self.inflight_hi {
            return;
        }
        self.bw_probe_up_acks += rs.delivery.acked_sacked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi += delta;
        }
        if self.round_start {
            self.raise_inflight_hi_slope(tcb);
        }
    }

    /// The sample's loss rate is above 2 % of what was in flight.
    pub(super) fn is_inflight_too_high(&self, loss: &LossSample) -> bool {
        loss.lost > 0
            && loss.tx_in_flight > 0
            && loss.lost > ((u64::from(loss.tx_in_flight) * u64::from(LOSS_THRESH)) >> 8) as u32
    }

    /// Linux `bbr_handle_inflight_too_high`: cut inflight_hi (once per probe).
    fn handle_inflight_too_high(
        &mut self,
        tcb: &Tcb,
        now: SimTime,
        rs: &RateSample,
        loss: &LossSample,
    ) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false;
        if !rs.delivery.is_app_limited {
            let kept = u64::from(BBR_UNIT - BETA);
            let cut = ((u64::from(self.target_inflight(tcb)) * kept) >> 8) as u32;
            self.inflight_hi = loss.tx_in_flight.max(cut);
        }
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.start_probe_down(tcb, now);
        }
    }

    /// inflight_hi less 15 % (at least 1 segment), at least 4.
    pub(super) fn inflight_with_headroom(&self) -> u32 {
        if self.inflight_hi == UNBOUNDED {
            return UNBOUNDED;
        }
        let headroom = ((u64::from(self.inflight_hi) * u64::from(INFLIGHT_HEADROOM)) >> 8) as u32;
        (self.inflight_hi - headroom.max(1).min(self.inflight_hi)).max(MIN_PIPE_CWND)
    }

    /// Linux `bbr_adapt_upper_bounds`; true if it decided a phase change.
    fn adapt_upper_bounds(
        &mut self,
        tcb: &Tcb,
        now: SimTime,
        rs: &RateSample,
        loss: &LossSample,
    ) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            if self.mode == Mode::ProbeBw && !rs.delivery.is_app_limited {
                self.advance_max_bw_filter();
            }
            if self.mode == Mode::ProbeBw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_probe_refill(tcb);
                return true;
            }
        }
        if self.is_inflight_too_high(loss) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(tcb, now, rs, loss);
            }
            return false;
        }
        if self.inflight_hi == UNBOUNDED {
            return false;
        }
        self.inflight_hi = self.inflight_hi.max(loss.tx_in_flight);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            self.probe_inflight_hi_upward(tcb, rs);
        }
        false
    }

    /// Keep the max of the last 1–2 cycles (Linux `bbr_advance_max_bw_filter`).
    fn advance_max_bw_filter(&mut self) {
        if self.bw_hi[1] == 0 {
            return;
        }
        self.bw_hi = [self.bw_hi[1], 0];
    }

    /// Time to probe: the wall-clock wait, or as many rounds as a Reno flow with
    /// this BDP would wait between losses (at most 63).
    fn check_time_to_probe_bw(&mut self, tcb: &Tcb, now: SimTime) -> bool {
        let rounds = BW_PROBE_MAX_ROUNDS.min(self.target_inflight(tcb));
        if now > self.cycle_stamp + self.probe_wait || self.rounds_since_probe >= rounds {
            self.start_probe_refill(tcb);
            return true;
        }
        false
    }

    /// Down ends when in flight is at most the BDP and leaves the headroom.
    fn check_time_to_cruise(&self, tcb: &Tcb, inflight: u32) -> bool {
        inflight <= self.inflight_with_headroom()
            && inflight <= self.inflight(tcb, self.max_bw(), BBR_UNIT)
    }

    /// Linux v3 `bbr_update_cycle_phase` (with in flight before the ACK: no EDT).
    pub(super) fn update_cycle_phase(
        &mut self,
        tcb: &Tcb,
        now: SimTime,
        rs: &RateSample,
        loss: &LossSample,
        sample_bw: u64,
    ) {
        if !self.full_bw_reached || self.adapt_upper_bounds(tcb, now, rs, loss) {
            return;
        }
        if self.mode != Mode::ProbeBw {
            return;
        }
        let inflight = rs.prior_in_flight;
        match self.phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(tcb, now);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(tcb, now, sample_bw);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if tcb.cwnd_limited && tcb.cwnd >= self.inflight_hi {
                    // inflight_hi is what limits growth: the plateau test restarts.
                    self.reset_full_bw();
                    self.full_bw = sample_bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(tcb, now);
                }
            }
            Phase::Down => {
                if !self.check_time_to_probe_bw(tcb, now)
                    && self.check_time_to_cruise(tcb, inflight)
                {
                    self.start_probe_cruise();
                }
            }
        }
    }
}
