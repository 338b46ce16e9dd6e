//! Spurious retransmissions: detection and undo.
//!
//! * D-SACK (RFC 3708 §3, after Linux `tcp_try_undo_dsack`): retransmissions since the
//!   loss episode began are counted; each D-SACK for data at or above where the
//!   episode began discounts the segments it covers; when none remain, every
//!   retransmission was unnecessary.
//! * Eifel detection (RFC 3522, needs timestamps): the TSval of the first
//!   retransmission of an episode is remembered; if the first ACK that acknowledges
//!   the retransmitted data echoes an older TSval, the original transmission was
//!   acknowledged, not the retransmission: the episode was spurious.
//! * F-RTO (RFC 5682 §2.1, the basic algorithm): after a timeout only the first
//!   unacknowledged segment is retransmitted. If the first ACK then acknowledges new
//!   data (but not everything), two new segments are sent; if the second ACK also
//!   acknowledges new data, the timeout was spurious. A duplicate ACK at either step
//!   reverts to conventional recovery (go-back-N slow start; cwnd ≤ 3 at step 3).
//!
//! Response (RFC 4015 semantics, as Linux `tcp_undo_cwnd_reduction`): cwnd from the
//! controller's `undo_cwnd` (Reno: the cwnd before the reduction), ssthresh back to at
//! least its prior value; after a spurious timeout, go-back-N stops and transmission
//! resumes with new data (RFC 4015 §3). Each is off by default (`tcp.dsack_undo`,
//! `tcp.eifel`).

use super::sender::TcpSender;
use super::tcb::CaState;
use crate::packet::{TcpAck, TcpData};
use crate::time::SimTime;

/// Where F-RTO stands after a timeout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Frto {
    Off,
    /// Waiting for the first ACK after the timeout (RFC 5682 step 2).
    FirstAck,
    /// Two new segments sent; waiting for the second ACK (step 3).
    SecondAck,
}

impl TcpSender {
    pub(super) fn on_dsack(&mut self, start: u64, end: u64) {
        let Some(marker) = self.undo_marker else {
            return;
        };
        if start < marker || self.undo_retrans == 0 {
            return;
        }
        let segments = (end - start).div_ceil(self.cfg.mss as u64) as u32;
        self.undo_retrans = self.undo_retrans.saturating_sub(segments);
        if self.undo_retrans == 0 && self.cfg.dsack_undo {
            self.undo_reduction();
        }
    }

    /// Restores cwnd and ssthresh from before the episode (RFC 4015 §3 response).
    pub(super) fn undo_reduction(&mut self) {
        self.tcb.cwnd = self.cc.undo_cwnd(&self.tcb).max(1);
        self.tcb.ssthresh = self.tcb.ssthresh.max(self.tcb.prior_ssthresh);
        self.undo_marker = None;
        self.stats.spurious_undone += 1;
    }

    /// Starts counting retransmissions for undo (Linux `tcp_init_undo`).
    pub(super) fn init_undo(&mut self) {
        self.undo_marker = Some(self.tcb.snd_una);
        self.undo_retrans = 0;
    }

    /// Eifel: remembers the TSval of an episode's first retransmission.
    pub(super) fn arm_eifel(&mut self, now: SimTime) {
        if self.cfg.eifel && self.eifel_ts.is_none() {
            self.eifel_ts = Some(now);
        }
    }

    /// Eifel, on an ACK of new data: an echo older than the retransmission means
    /// the original was acknowledged.
    pub(super) fn check_eifel(&mut self, now: SimTime, ack: &TcpAck) {
        let Some(retransmitted_at) = self.eifel_ts.take() else {
            return;
        };
        if ack.ts_ecr.is_some_and(|echo| echo < retransmitted_at) {
            self.undo_reduction();
            let was_loss = self.tcb.ca_state == CaState::Loss;
            self.set_ca_state(now, CaState::Open);
            self.dupacks = 0;
            self.consecutive_timeouts = 0;
            if was_loss {
                // Stop go-back-N: what was sent once is presumed on its way.
                self.tcb.snd_nxt = self.high_water();
            }
        }
    }

    /// F-RTO's handling of an ACK after a timeout. Returns true when the ACK has
    /// been fully processed here.
    pub(super) fn frto_ack(&mut self, now: SimTime, ack: &TcpAck, out: &mut Vec<TcpData>) -> bool {
        let new_data = ack.ack > self.tcb.snd_una;
        let all = self.recover.is_some_and(|r| ack.ack >= r);
        match self.frto {
            Frto::FirstAck if new_data && !all => {
                // Step 2b: two new segments probe whether the timeout was spurious.
                self.on_new_ack(now, ack, out);
                for _ in 0..2 {
                    let Some(len) = self.new_data_len() else {
                        break;
                    };
                    let seq = self.high_water();
                    self.send_segment(now, seq, len, out);
                    self.tcb.snd_nxt = self.high_water();
                }
                self.frto = Frto::SecondAck;
                true
            }
            Frto::SecondAck if new_data => {
                // Step 3b: spurious timeout.
                self.frto = Frto::Off;
                self.undo_reduction();
                self.set_ca_state(now, CaState::Open);
                self.consecutive_timeouts = 0;
                false
            }
            Frto::SecondAck => {
                // Step 3a: a real loss; conventional recovery with cwnd ≤ 3.
                self.frto = Frto::Off;
                self.tcb.cwnd = self.tcb.cwnd.min(3);
                self.tcb.snd_nxt = self.tcb.snd_una;
                self.transmit(now, out);
                false
            }
            _ => {
                // Step 2a: duplicate ACK or everything acknowledged: conventional.
                self.frto = Frto::Off;
                if !all {
                    self.tcb.snd_nxt = self.tcb.snd_una;
                }
                false
            }
        }
    }
}
