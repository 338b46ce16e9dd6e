//! The responses to spurious retransmissions (Linux `tcp_try_undo_*`,
//! `tcp_process_loss`): the detectors and F-RTO's steps are `spurious.rs`'s; this
//! file feeds them and, on their verdicts, undoes the reduction or falls back to
//! conventional recovery.

use super::TcpSender;
use crate::packet::{TcpAck, TcpData};
use crate::time::SimTime;
use crate::transport::tcp::recovery::Recovery;
use crate::transport::tcp::sack::SackUpdate;
use crate::transport::tcp::spurious::{FrtoAck, FrtoStep};
use crate::transport::tcp::tcb::CaState;

impl TcpSender {
    /// A loss episode begins: the detectors remember where (`UndoState::on_episode`).
    pub(super) fn init_undo(&mut self) {
        let in_flight = self.scoreboard.retransmissions_in_flight();
        self.undo.on_episode(self.tcb.snd_una, in_flight);
    }

    /// A D-SACK block [start, end) arrived (snd_una not yet advanced by this ACK):
    /// RR-TCP's samples, then RFC 3708's detector; an episode found spurious is
    /// counted, and undone with `tcp.dsack_undo`.
    pub(super) fn on_dsack(&mut self, now: SimTime, start: u64, end: u64) {
        self.dupthresh.on_dsack(start, end);
        let (snd_una, mss) = (self.tcb.snd_una, self.tcb.mss);
        if !self
            .undo
            .on_dsack(start, end, snd_una, mss, &mut self.scoreboard)
        {
            return;
        }
        self.stats.spurious_dsack += 1;
        let cost = self.cost_of_loss(self.tcb.prior_cwnd);
        self.dupthresh.on_spurious(cost);
        if self.undo.dsack_undo() {
            self.undo_reduction(now);
        }
    }

    /// Eifel, steps 3–6, on an ACK that advances the window.
    pub(super) fn check_eifel(&mut self, now: SimTime, ack: &TcpAck) {
        if self.undo.eifel_spurious(ack.ack, ack.ts_ecr) {
            self.stats.spurious_eifel += 1;
            self.undo_reduction(now);
        }
    }

    /// The response: undo the reduction (see `spurious.rs`). Not the window of one
    /// an ECN echo proved (`prior_ssthresh` 0, Linux `tcp_undo_cwnd_reduction`).
    fn undo_reduction(&mut self, now: SimTime) {
        let recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        let inflated = matches!(self.recovery.flavour(), Recovery::Reno | Recovery::NewReno);
        if inflated && self.tcb.ca_state == CaState::Recovery && !self.model_based {
            self.tcb.cwnd = self.tcb.ssthresh;
        }
        if self.tcb.prior_ssthresh != 0 {
            self.tcb.cwnd = self.cc.undo_cwnd(&self.tcb).max(1);
            if self.tcb.prior_ssthresh > self.tcb.ssthresh {
                self.tcb.ssthresh = self.tcb.prior_ssthresh;
                self.ecn.withdraw_cwr();
            }
        }
        self.stats.spurious_undone += 1;
        self.undo.on_undo();
        if recovering {
            self.scoreboard.clear_lost();
            self.tcb.snd_nxt = self.high_water();
            self.recovery.on_undo();
            self.set_ca_state(now, CaState::Open);
        }
    }

    /// F-RTO step 1 (RFC 5682 §2.1/§3.1): only the first unacknowledged segment is
    /// resent; nothing else goes until the next ACKs decide.
    pub(super) fn start_frto(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        let head_end = self.scoreboard.first_unacked().map_or(0, |s| s.end());
        self.undo.start_frto(head_end);
        self.retransmit_first_unacked(now, out);
    }

    /// F-RTO's handling of an ACK after the timeout (steps 2 and 3). Returns true when
    /// the ACK has been fully processed here.
    pub(super) fn frto_ack(
        &mut self,
        now: SimTime,
        ack: &TcpAck,
        sack: SackUpdate,
        window_changed: bool,
        out: &mut Vec<TcpData>,
    ) -> bool {
        let step = self.undo.frto_on_ack(FrtoAck {
            ack: ack.ack,
            snd_una: self.tcb.snd_una,
            high_water: self.high_water(),
            window_changed,
            newly_sacked: sack.newly_sacked,
            enhanced: self.recovery.flavour() == Recovery::Sack,
        });
        match step {
            FrtoStep::Pass => {}
            FrtoStep::Conventional { cap_cwnd } => {
                if cap_cwnd {
                    // 3a: "set the congestion window to no more than 3 * MSS".
                    self.tcb.cwnd = self.tcb.cwnd.min(3);
                }
                self.frto_conventional(now, out);
            }
            FrtoStep::Ended { go_back_n } => {
                if go_back_n {
                    self.tcb.snd_nxt = self.tcb.snd_una;
                }
            }
            FrtoStep::Probe => {
                self.on_new_ack(now, ack, sack, sack.is_dupack(), out);
                if !self.frto_probe(now, out) {
                    // No new data to send: skip step 3, conventional recovery.
                    self.undo.end_frto();
                    self.frto_conventional(now, out);
                }
                return true;
            }
            FrtoStep::Spurious => {
                // 3b.
                self.stats.spurious_frto += 1;
                self.undo_reduction(now);
            }
        }
        false
    }

    /// Step 2b's probe: up to two new segments. Returns whether any went.
    fn frto_probe(&mut self, now: SimTime, out: &mut Vec<TcpData>) -> bool {
        let mut sent = 0;
        while sent < 2 {
            let Some(len) = self.new_data_len() else {
                break;
            };
            self.send_new_data(now, len, out);
            sent += 1;
        }
        sent > 0
    }

    /// F-RTO gives way to the conventional timeout recovery: go-back-N from the first
    /// segment not already retransmitted (the one step 1 resent may still be on its
    /// way), or the SACK flavour's NextSeg over the segments marked lost.
    fn frto_conventional(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if self.recovery.flavour() != Recovery::Sack {
            self.tcb.snd_nxt = match self.scoreboard.first_unacked() {
                Some(head) if head.rexmit => head.seq + head.len as u64,
                _ => self.tcb.snd_una,
            };
        }
        self.transmit(now, out);
    }
}
