//! min_rtt and v3's ProbeRTT (draft-ietf-ccwg-bbr-04 §4.3.4, Linux v3
//! `bbr_update_min_rtt`).
//!
//! Two filters: `probe_rtt_min`, the least RTT over the last 5 s
//! (`ProbeRTTInterval`), and `min_rtt`, over 10 s, which takes `probe_rtt_min`
//! whenever it is lower or its own sample has expired. When the 5 s filter expires
//! (and the flow is not restarting from idle), BBR enters ProbeRTT: cwnd =
//! max(4, BDP/2) (`BBRProbeRTTCwndGain` 0.5, v1 held 4 segments) until in flight
//! has been at most that for 200 ms and a round; then the 5 s filter's time is
//! renewed, the saved cwnd comes back, the short-term bounds are forgotten and BBR
//! cruises in ProbeBW (or restarts Startup if the pipe was never full). Linux skips
//! delayed ACKs' samples when the filter expires (`is_ack_delayed`); the sender
//! does not tell controllers which ACK was delayed, so every sample counts.

use super::probe_bw::AckPhase;
use super::{Bbr3, Mode, RateSample, MIN_PIPE_CWND, PROBE_RTT_CWND_GAIN};
use crate::time::SimTime;
use crate::transport::tcp::rate::mark_app_limited;
use crate::transport::tcp::tcb::Tcb;

impl Bbr3 {
    /// ProbeRTT's window (Linux `bbr_probe_rtt_cwnd`).
    pub(super) fn probe_rtt_cwnd(&self) -> u32 {
        self.bdp(self.bw(), PROBE_RTT_CWND_GAIN).max(MIN_PIPE_CWND)
    }
    /// Leaves ProbeRTT after its 200 ms (Linux `bbr_check_probe_rtt_done`).
    pub(super) fn check_probe_rtt_done(&mut self, tcb: &mut Tcb, now: SimTime) {
        if self.probe_rtt_done.is_none_or(|done| now <= done) {
            return;
        }
        self.probe_rtt_min_stamp = now;
        tcb.cwnd = tcb.cwnd.max(self.prior_cwnd);
        self.reset_lower_bounds();
        if self.full_bw_reached {
            self.mode = Mode::ProbeBw;
            self.start_probe_down(tcb, now);
            self.start_probe_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }
    /// The two min-RTT filters and ProbeRTT (Linux v3 `bbr_update_min_rtt`).
    pub(super) fn update_min_rtt(&mut self, tcb: &mut Tcb, now: SimTime, rs: &RateSample) {
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + self.probe_rtt_interval;
        if let Some(rtt) = rs.rtt {
            if rtt < self.probe_rtt_min || probe_rtt_expired {
                self.probe_rtt_min = rtt;
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + self.min_rtt_window;
        if self.probe_rtt_min <= self.min_rtt || min_rtt_expired {
            self.min_rtt = self.probe_rtt_min;
            self.min_rtt_stamp = self.probe_rtt_min_stamp;
        }
        if probe_rtt_expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(tcb);
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.next_round_delivered = tcb.delivered;
        }
        if self.mode == Mode::ProbeRtt {
            // Samples taken while the window is held down are not the path's rate.
            mark_app_limited(tcb, rs.in_flight);
            if self.probe_rtt_done.is_none() && rs.in_flight <= self.probe_rtt_cwnd() {
                self.probe_rtt_done = Some(now + self.probe_rtt_duration);
                self.probe_rtt_round_done = false;
                self.next_round_delivered = tcb.delivered;
            } else if self.probe_rtt_done.is_some() {
                self.probe_rtt_round_done |= self.round_start;
                if self.probe_rtt_round_done {
                    self.check_probe_rtt_done(tcb, now);
                }
            }
        }
        if rs.delivery.delivered > 0 {
            self.idle_restart = false;
        }
    }
}
