//! The short-term bounds `bw_lo` and `inflight_lo` and the signals that move them
//! (draft-ietf-ccwg-bbr-04 §4.5.10, "BBR.bw_shortterm" and
//! "BBR.inflight_shortterm"; Linux v3 `bbr_adapt_lower_bounds`).
//!
//! Each round the controller keeps the largest delivery rate and delivered volume it
//! saw (`bw_latest`, `inflight_latest`). At the end of a round with loss, outside
//! bandwidth probing (Startup, Refill, Up), the bounds fall multiplicatively:
//! ```text
//! bw_lo       = max(bw_latest,       (1 − β) × bw_lo)         β = 0.3
//! inflight_lo = max(inflight_latest, (1 − β) × inflight_lo)
//! ```
//! (the first cut starts from max_bw and cwnd), and with ECN marks in the round
//! `inflight_lo` = (1 − ecn_factor × ecn_alpha) × inflight_lo, ecn_factor = 1/3.
//! `ecn_alpha` is the EWMA of the marked fraction, gain 1/16, starting at 1
//! (Linux `bbr_update_ecn_alpha`): `α ← (1 − g) α + g × CE/delivered` once a
//! round. Refill forgets both bounds: the next probe starts from the long-term
//! model.

use super::{Bbr3, RateSample, BBR_UNIT, UNBOUNDED};
use crate::transport::tcp::tcb::Tcb;

/// β: the loss response cuts the bounds to 70 % (Linux `bbr_beta`, draft `BBRBeta`
/// 0.7 as the factor kept).
pub(super) const BETA: u32 = BBR_UNIT * 30 / 100;
/// EWMA gain of the marked fraction, 1/16.
const ECN_ALPHA_GAIN: u32 = BBR_UNIT / 16;
/// ecn_alpha at the start: 1, a quick response if the path is congested already.
pub const ECN_ALPHA_INIT: u32 = BBR_UNIT;
/// Share of ecn_alpha cut from inflight_lo: 1/3.
const ECN_FACTOR: u32 = BBR_UNIT / 3;
/// Marked fraction that ends Startup after 2 rounds (and ends probing): 1/2.
const ECN_THRESH: u32 = BBR_UNIT / 2;
/// Startup rounds above `ECN_THRESH` that mean the queue is too high.
const FULL_ECN_COUNT: u32 = 2;

/// One round's update of ecn_alpha (BBR_UNIT = 1) from `delivered` segments of
/// which `delivered_ce` were CE-marked: (new alpha, the round's marked fraction),
/// Linux's integer arithmetic. `None` when nothing was delivered.
pub fn ecn_alpha_update(alpha: u32, delivered: u64, delivered_ce: u64) -> Option<(u32, u32)> {
    if delivered == 0 {
        return None;
    }
    let ce_ratio = ((delivered_ce << 8) / delivered) as u32;
    let alpha = (((BBR_UNIT - ECN_ALPHA_GAIN) * alpha) >> 8) + ((ECN_ALPHA_GAIN * ce_ratio) >> 8);
    Some((alpha.min(BBR_UNIT), ce_ratio))
}

impl Bbr3 {
    /// The ECN signal of one round (Linux v3 `bbr_update_ecn_alpha` and
    /// `ecn_in_round`): updates ecn_alpha, notes marks for the round's lower-bound
    /// update, and in Startup counts rounds marked above half, 2 of which end it.
    /// To be called by the trait's ECN callback once ECN reaches controllers.
    pub fn on_ecn_round(&mut self, tcb: &Tcb, delivered: u64, delivered_ce: u64) {
        let Some((alpha, ce_ratio)) = ecn_alpha_update(self.ecn_alpha, delivered, delivered_ce)
        else {
            return;
        };
        self.ecn_alpha = alpha;
        self.ecn_in_round |= delivered_ce > 0;
        if self.full_bw_reached {
            return;
        }
        if ce_ratio >= ECN_THRESH {
            self.startup_ecn_rounds += 1;
        } else {
            self.startup_ecn_rounds = 0;
        }
        if self.startup_ecn_rounds >= FULL_ECN_COUNT {
            self.handle_queue_too_high_in_startup(tcb);
        }
    }

    /// 1 − ecn_factor × ecn_alpha (Linux `bbr_ecn_cut`).
    fn ecn_cut(&self) -> u32 {
        BBR_UNIT - ((self.ecn_alpha * ECN_FACTOR) >> 8)
    }

    /// The round's delivery and the start of a loss round (Linux v3
    /// `bbr_update_latest_delivery_signals`).
    pub(super) fn update_latest_delivery_signals(
        &mut self,
        tcb: &Tcb,
        rs: &RateSample,
        sample_bw: u64,
    ) {
        self.loss_round_start = false;
        if rs.delivery.interval.is_none() || rs.delivery.acked_sacked == 0 {
            return;
        }
        self.bw_latest = self.bw_latest.max(sample_bw);
        self.inflight_latest = self.inflight_latest.max(rs.delivery.delivered as u32);
        if rs.delivery.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = tcb.delivered;
            self.loss_round_start = true;
        }
    }

    /// Once per loss round, the latest delivery restarts from this sample.
    pub(super) fn advance_latest_delivery_signals(&mut self, rs: &RateSample, sample_bw: u64) {
        if self.loss_round_start {
            self.bw_latest = sample_bw;
            self.inflight_latest = rs.delivery.delivered as u32;
        }
    }

    /// The max-bandwidth sample, loss in the round, and once a round the
    /// lower bounds (Linux v3 `bbr_update_congestion_signals`).
    pub(super) fn update_congestion_signals(&mut self, tcb: &Tcb, rs: &RateSample, sample_bw: u64) {
        if rs.delivery.interval.is_none() || rs.delivery.acked_sacked == 0 {
            return;
        }
        if !rs.delivery.is_app_limited || sample_bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(sample_bw);
        }
        self.loss_in_round |= rs.losses > 0;
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(tcb);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// Linux v3 `bbr_adapt_lower_bounds`.
    pub(super) fn adapt_lower_bounds(&mut self, tcb: &Tcb) {
        if self.is_probing_bandwidth() {
            return;
        }
        let mut ecn_inflight_lo = UNBOUNDED;
        if self.ecn_in_round {
            self.init_lower_bounds(tcb, false);
            ecn_inflight_lo =
                ((u64::from(self.inflight_lo) * u64::from(self.ecn_cut())) >> 8) as u32;
        }
        if self.loss_in_round {
            self.init_lower_bounds(tcb, true);
            let kept = u64::from(BBR_UNIT - BETA);
            self.bw_lo = self.bw_latest.max((self.bw_lo * kept) >> 8);
            let cut = ((u64::from(self.inflight_lo) * kept) >> 8) as u32;
            self.inflight_lo = self.inflight_latest.max(cut);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
        self.bw_lo = self.bw_lo.max(1);
    }

    fn init_lower_bounds(&mut self, tcb: &Tcb, init_bw: bool) {
        if init_bw && self.bw_lo == u64::MAX {
            self.bw_lo = self.max_bw();
        }
        if self.inflight_lo == UNBOUNDED {
            self.inflight_lo = tcb.cwnd;
        }
    }

    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = u64::MAX;
        self.inflight_lo = UNBOUNDED;
    }

    /// After probing, before a phase that adapts the lower bounds.
    pub(super) fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.bw_latest = 0;
        self.inflight_latest = 0;
    }
}
