//! When Startup has filled the pipe (draft-ietf-ccwg-bbr-04 §4.3.1.2, Linux v3
//! `bbr_check_full_bw_reached`, `bbr_check_loss_too_high_in_startup`).
//!
//! * Bandwidth plateau: a delivery-rate sample at least 25 % above the reference
//!   `full_bw` resets the reference; each round that ends without one counts; after 3
//!   such rounds (not application-limited) the pipe is full (`full_bw_now`, and
//!   `full_bw_reached` for good). ProbeBW's Up reuses the plateau test.
//! * Loss (v3): at the end of a round of fast recovery in Startup, with at least 6
//!   ACKs that reported losses in the round (`BBRFullLossCnt`) and a sample whose
//!   loss rate is too high (above 2 %, `probe_bw.rs` `is_inflight_too_high`), the
//!   pipe is full and `inflight_hi` = max(BDP, the last round's delivered volume).
//!   Linux counts loss-marking events per lost segment batch; an ACK that reports
//!   losses is that batch here.

use super::{Bbr3, RateSample, BBR_UNIT};
use crate::transport::tcp::cc::bbr3::loss_sample::LossSample;
use crate::transport::tcp::tcb::{CaState, Tcb};

/// Growth that counts as "still filling": 25 %.
const FULL_BW_THRESH: u64 = (BBR_UNIT * 5 / 4) as u64;
/// Rounds without that growth that mean the pipe is full.
const FULL_BW_COUNT: u32 = 3;
/// Loss events in a Startup recovery round that, with a high loss rate, end Startup.
const FULL_LOSS_COUNT: u32 = 6;

impl Bbr3 {
    pub(super) fn reset_full_bw(&mut self) {
        self.full_bw = 0;
        self.full_bw_count = 0;
        self.full_bw_now = false;
    }

    /// The bandwidth plateau (Linux v3 `bbr_check_full_bw_reached`).
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample, sample_bw: u64) {
        if self.full_bw_now || rs.delivery.is_app_limited {
            return;
        }
        if sample_bw >= (self.full_bw * FULL_BW_THRESH) >> 8 {
            self.reset_full_bw();
            self.full_bw = sample_bw;
            return;
        }
        if !self.round_start {
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_now = self.full_bw_count >= FULL_BW_COUNT;
        self.full_bw_reached |= self.full_bw_now;
    }

    /// v3's loss exit from Startup.
    pub(super) fn check_loss_too_high_in_startup(
        &mut self,
        tcb: &Tcb,
        rs: &RateSample,
        loss: &LossSample,
    ) {
        if self.full_bw_reached {
            return;
        }
        if rs.losses > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(0xf);
        }
        if self.loss_round_start
            && tcb.ca_state == CaState::Recovery
            && self.loss_events_in_round >= FULL_LOSS_COUNT
            && self.is_inflight_too_high(loss)
        {
            self.handle_queue_too_high_in_startup(tcb);
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// Linux `bbr_handle_queue_too_high_in_startup`.
    pub(super) fn handle_queue_too_high_in_startup(&mut self, tcb: &Tcb) {
        self.full_bw_reached = true;
        let bdp = self.inflight(tcb, self.max_bw(), BBR_UNIT);
        self.inflight_hi = bdp.max(self.inflight_latest);
    }
}
