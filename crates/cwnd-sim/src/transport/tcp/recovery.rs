//! Loss recovery: what the sender does on duplicate ACKs, on partial ACKs during
//! recovery, and when the retransmission timer expires. Separate from congestion
//! control (as in Linux): the controller says how far ssthresh falls; this file
//! decides when, what is retransmitted, and how cwnd moves during recovery.
//!
//! * **Tahoe** (Jacobson 1988; as simulated by Fall & Floyd 1996 and ns-2): after
//!   `dupthresh` duplicate ACKs, ssthresh = controller's value, cwnd = 1 and
//!   slow start from the first unacknowledged segment, go-back-N (segments the
//!   receiver already holds are sent again). No fast recovery.
//! * **Reno** (RFC 5681 §3.2): fast retransmit, then fast recovery with window
//!   inflation: cwnd = ssthresh + dupthresh, +1 per further duplicate ACK; the
//!   first ACK of new data deflates cwnd to ssthresh and ends recovery. A second
//!   loss in the same window waits for the timer (see below).
//! * **NewReno** (RFC 6582 §3.2): as Reno, but recovery lasts until the ACK covers
//!   `recover` (everything outstanding when it began). A partial ACK retransmits
//!   the next hole, deflates cwnd by the segments it acknowledged and adds one
//!   back; the first partial ACK restarts the timer ("Impatient" variant). A full
//!   ACK sets cwnd = ssthresh (option 2 of step 3, as ns-2 and Reno do, so that
//!   with one loss NewReno and Reno behave identically). Option 1,
//!   min(ssthresh, FlightSize + 1), avoids a burst but falls back to slow start
//!   whenever the window was receiver-limited during recovery.
//!
//! For all three, fast retransmit is entered only when the duplicate ACKs are for
//! data sent after the previous episode began (snd_una > `recover`; RFC 6582
//! §3.2 step 2, as ns-2's `bug_fix_`, on by default there, applies it to Tahoe,
//! Reno and NewReno alike). Without it, the duplicates that go-back-N provokes
//! would start false fast retransmits, and Reno would halve twice for one window.
//!
//! Timeout (RFC 5681 §3.1, RFC 6298 §5): ssthresh from the controller on the
//! first expiry for a segment only (repeated expiries only back off) and not when
//! the timeout interrupts fast recovery of the same losses (as Linux), cwnd = 1,
//! go-back-N from snd_una, state `Loss` until everything outstanding at the
//! timeout is acknowledged. Duplicate ACKs in `Loss` are ignored, which keeps
//! go-back-N from triggering false fast retransmits (as Linux does).
//!
//! Counting is in segments (see `tcb.rs`); "one SMSS" is one segment.

use super::cc::CaEvent;
use super::sender::TcpSender;
use super::spurious::Frto;
use super::tcb::CaState;
use crate::packet::TcpData;
use crate::time::SimTime;

/// The loss-recovery algorithm of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    Tahoe,
    Reno,
    NewReno,
    /// RFC 6675 SACK-based recovery (needs `tcp.sack`); see `sack.rs`.
    Sack,
}

impl Recovery {
    /// The recovery a congestion-control name implies when none is given:
    /// "tahoe" → Tahoe, "reno" → Reno, anything else → NewReno.
    pub fn default_for(cc: &str) -> Recovery {
        match cc {
            "tahoe" => Recovery::Tahoe,
            "reno" => Recovery::Reno,
            _ => Recovery::NewReno,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

impl TcpSender {
    pub(super) fn set_ca_state(&mut self, now: SimTime, state: CaState) {
        if self.tcb.ca_state != state {
            self.cc.set_state(&self.tcb, now, state);
            self.tcb.ca_state = state;
        }
    }

    /// Saves cwnd/ssthresh for undo and asks the controller for the new ssthresh.
    fn reduce_ssthresh(&mut self, now: SimTime) {
        self.tcb.prior_cwnd = self.tcb.cwnd;
        self.tcb.prior_ssthresh = self.tcb.ssthresh;
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, now).max(2);
    }

    fn retransmit_first_unacked(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if let Some(head) = self.sent.front().copied() {
            self.send_segment(now, head.seq, head.len, out);
        }
    }

    pub(super) fn on_dup_ack(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.dupacks += 1;
        match self.tcb.ca_state {
            CaState::Open | CaState::Disorder => {
                let sack_lost = self.cfg.recovery == Recovery::Sack && self.head_is_lost();
                if self.dupacks < self.cfg.dupthresh && !sack_lost {
                    self.set_ca_state(now, CaState::Disorder);
                    return;
                }
                // Only duplicates for data sent after the last episode began start
                // a new one (RFC 6582 §3.2 step 2, with ns-2's `bug_fix_` reading:
                // the ACK must cover a segment beyond `recover`).
                if self.recover.is_some_and(|r| self.tcb.snd_una <= r) {
                    return;
                }
                // SACK: a hole whose retransmission is still in flight from the last
                // episode is being repaired; it does not start a new one (Linux only
                // enters recovery for lost segments not yet retransmitted).
                let repairing = self.sent.front().is_some_and(|s| s.rexmit_in_recovery);
                if self.cfg.recovery == Recovery::Sack && repairing {
                    return;
                }
                if self.dupacks == self.cfg.dupthresh || sack_lost {
                    self.enter_fast_retransmit(now, out);
                }
            }
            CaState::Recovery => {
                // RFC 5681 §3.2 step 4: each further duplicate ACK means a segment
                // has left the network; inflate cwnd and send if allowed. (SACK
                // recovery counts pipe instead of inflating.)
                if self.cfg.recovery != Recovery::Sack {
                    self.tcb.cwnd += 1;
                }
                self.transmit(now, out);
            }
            CaState::Loss => {}
        }
    }

    fn enter_fast_retransmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.stats.fast_retransmits += 1;
        self.recover = Some(self.high_water());
        self.init_undo();
        self.arm_eifel(now);
        match self.cfg.recovery {
            Recovery::Tahoe => {
                self.set_ca_state(now, CaState::Loss);
                self.reduce_ssthresh(now);
                self.tcb.cwnd = 1;
                self.tcb.cwnd_cnt = 0;
                self.tcb.snd_nxt = self.tcb.snd_una;
            }
            Recovery::Reno | Recovery::NewReno => {
                self.set_ca_state(now, CaState::Recovery);
                self.reduce_ssthresh(now);
                self.tcb.cwnd = self.tcb.ssthresh + self.cfg.dupthresh;
                self.partial_ack_seen = false;
                self.retransmit_first_unacked(now, out);
            }
            Recovery::Sack => {
                self.set_ca_state(now, CaState::Recovery);
                self.reduce_ssthresh(now);
                self.tcb.cwnd = self.tcb.ssthresh;
                self.start_sack_recovery();
                // RFC 6675 §5 (4.3): the first segment presumed lost goes at once.
                self.retransmit_first_unacked(now, out);
            }
        }
        self.transmit(now, out);
    }

    /// Recovery processing of an ACK of new data (`acked` segments, up to `ack`).
    /// Returns whether the retransmission timer is to be restarted.
    pub(super) fn on_recovery_ack(
        &mut self,
        now: SimTime,
        ack: u64,
        acked: u32,
        out: &mut Vec<TcpData>,
    ) -> bool {
        self.consecutive_timeouts = 0;
        match self.tcb.ca_state {
            CaState::Recovery => {
                let full = self.recover.is_none_or(|r| ack >= r);
                if self.cfg.recovery == Recovery::Sack && !full {
                    // RFC 6675: a partial ACK just updates the scoreboard; the
                    // sender's transmit() then sends by pipe.
                    return true;
                }
                if self.cfg.recovery == Recovery::NewReno && !full {
                    // RFC 6582 step 5: partial ACK.
                    self.retransmit_first_unacked(now, out);
                    self.tcb.cwnd = self.tcb.cwnd.saturating_sub(acked) + 1;
                    let restart = !self.partial_ack_seen;
                    self.partial_ack_seen = true;
                    return restart;
                }
                self.tcb.cwnd = self.tcb.ssthresh;
                self.tcb.cwnd_cnt = 0;
                self.dupacks = 0;
                self.set_ca_state(now, CaState::Open);
                self.cc
                    .cwnd_event(&mut self.tcb, now, CaEvent::CompleteRecovery);
            }
            CaState::Loss => {
                self.dupacks = 0;
                if self.recover.is_none_or(|r| ack >= r) {
                    self.set_ca_state(now, CaState::Open);
                }
            }
            CaState::Disorder | CaState::Open => {
                self.dupacks = 0;
                self.set_ca_state(now, CaState::Open);
            }
        }
        true
    }

    pub(super) fn on_retransmission_timeout(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.stats.timeouts += 1;
        // Reduce once per loss episode: not again on a repeated expiry, nor when
        // fast recovery already reduced for the same losses (Linux
        // `tcp_enter_loss`; recomputing from FlightSize there would *raise*
        // ssthresh, since window inflation has grown the flight).
        let first_expiry = self.consecutive_timeouts == 0;
        let same_episode = self.tcb.ca_state == CaState::Recovery;
        self.consecutive_timeouts += 1;
        self.set_ca_state(now, CaState::Loss);
        if first_expiry && !same_episode {
            self.init_undo();
            self.reduce_ssthresh(now);
        }
        if first_expiry {
            self.arm_eifel(now);
        }
        self.tcb.cwnd = 1;
        self.tcb.cwnd_cnt = 0;
        self.cc.cwnd_event(&mut self.tcb, now, CaEvent::Loss);
        self.recover = Some(self.high_water());
        self.dupacks = 0;
        self.rto.back_off();
        if self.cfg.frto && first_expiry {
            // F-RTO (RFC 5682 step 1): only the first segment, then watch the ACKs.
            self.frto = Frto::FirstAck;
            self.retransmit_first_unacked(now, out);
            return;
        }
        // Go-back-N: everything after snd_una will be sent again.
        self.tcb.snd_nxt = self.tcb.snd_una;
        self.transmit(now, out);
    }
}
