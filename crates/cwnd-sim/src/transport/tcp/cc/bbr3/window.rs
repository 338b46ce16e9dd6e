//! The window (draft-ietf-ccwg-bbr-04 §4.6.4, Linux v3 `bbr_set_cwnd`,
//! `bbr_bound_cwnd_for_inflight_model`).
//!
//! ```text
//! BDP        = ceil(bw × min_rtt × gain)        (the initial window before any RTT)
//! inflight   = max(BDP, 3 send quanta, 4) (+2 in ProbeBW's Up)
//! cwnd       → grows by the segments delivered toward inflight(cwnd_gain); once the
//!              pipe has been full it is also cut down to it; at least 4
//! cwnd      ≤ inflight_hi (probing), inflight_hi − 15 % (Cruise, ProbeRTT),
//!             inflight_lo (always), ProbeRTT's window in ProbeRTT
//! ```
//! The send quantum is the draft's §4.2.2 (1 segment below 1.2 Mb/s, 2 below 24
//! Mb/s, else 1 ms of data up to 64 KB): no TSO here, so it only sizes cwnd.

use super::super::bbr_units;
use super::probe_bw::Phase;
use super::{Bbr3, Mode, RateSample, BBR_UNIT, BW_UNIT, MIN_PIPE_CWND, UNBOUNDED};
use crate::time::SimTime;
use crate::transport::tcp::tcb::Tcb;

impl Bbr3 {
    /// ceil(bw × min_rtt × gain) (Linux `bbr_bdp`); the initial window before any
    /// RTT sample.
    pub(super) fn bdp(&self, bw: u64, gain: u32) -> u32 {
        if self.min_rtt == SimTime::MAX {
            return self.initial_cwnd;
        }
        let w = u128::from(bw) * u128::from(self.min_rtt.as_nanos());
        ((w * u128::from(gain)) >> 8).div_ceil(BW_UNIT * 1000) as u32
    }
    /// Room for 3 send quanta, at least 4, 2 more in Up (Linux
    /// `bbr_quantization_budget`).
    pub(super) fn quantization_budget(&self, tcb: &Tcb, cwnd: u32) -> u32 {
        let mut cwnd = cwnd
            .max(3 * bbr_units::send_quantum(self.pacing_rate, tcb.mss))
            .max(MIN_PIPE_CWND);
        if self.mode == Mode::ProbeBw && self.phase == Phase::Up {
            cwnd += 2;
        }
        cwnd
    }
    /// The BDP at `gain` with its quantization budget (Linux `bbr_inflight`).
    pub(super) fn inflight(&self, tcb: &Tcb, bw: u64, gain: u32) -> u32 {
        self.quantization_budget(tcb, self.bdp(bw, gain))
    }
    /// What BBR wants in flight: the BDP unless congestion cut cwnd below it.
    pub(super) fn target_inflight(&self, tcb: &Tcb) -> u32 {
        self.inflight(tcb, self.bw(), BBR_UNIT).min(tcb.cwnd)
    }
    /// Linux `bbr_set_cwnd`: toward the target, cut to it once the pipe was full.
    pub(super) fn set_cwnd(&mut self, tcb: &mut Tcb, rs: &RateSample, bw: u64) {
        let acked = rs.delivery.acked_sacked;
        let mut cwnd = tcb.cwnd;
        if self.restore_cwnd {
            cwnd = cwnd.max(self.prior_cwnd);
            self.restore_cwnd = false;
        }
        if acked > 0 {
            let target = self.quantization_budget(tcb, self.bdp(bw, self.cwnd_gain));
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || cwnd < 2 * self.initial_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(MIN_PIPE_CWND);
        }
        tcb.cwnd = cwnd.min(tcb.cwnd_clamp);
        if self.mode == Mode::ProbeRtt {
            tcb.cwnd = tcb.cwnd.min(self.probe_rtt_cwnd());
        }
    }
    /// Caps cwnd by the model (Linux `bbr_bound_cwnd_for_inflight_model`):
    /// inflight_hi while probing, with 15 % headroom when cruising or in ProbeRTT,
    /// and always inflight_lo.
    pub(super) fn bound_cwnd_for_inflight_model(&self, tcb: &mut Tcb) {
        let mut cap = UNBOUNDED;
        if self.mode == Mode::ProbeBw && self.phase != Phase::Cruise {
            cap = self.inflight_hi;
        } else if self.mode == Mode::ProbeRtt
            || (self.mode == Mode::ProbeBw && self.phase == Phase::Cruise)
        {
            cap = self.inflight_with_headroom();
        }
        let cap = cap.min(self.inflight_lo).max(MIN_PIPE_CWND);
        tcb.cwnd = tcb.cwnd.min(cap);
    }
}
