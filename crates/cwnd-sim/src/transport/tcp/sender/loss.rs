//! Loss detection and the reductions (Linux `tcp_fastretrans_alert`,
//! `tcp_enter_recovery`, `tcp_enter_loss`, `tcp_enter_cwr`): the rules are
//! `recovery.rs`'s (which flavour does what, RFC 5681/6582/6675), `sack.rs`'s
//! (IsLost), `prr.rs`'s (how much goes per ACK), `ecn.rs`'s (when CWR ends) and the
//! controller's (how far ssthresh falls); this file applies their verdicts to the
//! window, the timers and what is sent.

use super::TcpSender;
use crate::packet::TcpData;
use crate::time::SimTime;
use crate::transport::tcp::cc::{AckKind, CaEvent, CongestionControl, EcnEvent};
use crate::transport::tcp::prr::PrrAck;
use crate::transport::tcp::recovery::{
    limited_transmit_fits, DupAckVerdict, NewAckVerdict, Recovery,
};
use crate::transport::tcp::reordering::CostOfLoss;
use crate::transport::tcp::sack::Scoreboard;
use crate::transport::tcp::tcb::CaState;

impl TcpSender {
    /// Moves to `state` (Linux `tcp_set_ca_state`), telling the controller and the
    /// mechanisms that watch recovery end.
    pub(super) fn set_ca_state(&mut self, now: SimTime, state: CaState) {
        if state == CaState::Open {
            self.reno_sacks.reset();
            self.recovery.forget_limited();
        }
        let recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        if let Some(r) = self
            .rack
            .as_mut()
            .filter(|_| recovering && state == CaState::Open)
        {
            r.on_recovery_exit();
        }
        if self.tcb.ca_state != state {
            self.cc.set_state(&self.tcb, now, state);
            self.tcb.ca_state = state;
        }
    }

    /// Saves cwnd/ssthresh for undo and asks the controller for the new ssthresh
    /// (FlightSize without the segments limited transmit sent, unless the caller set
    /// it already: `Tcb::flight_size`). The next new data segment carries CWR.
    pub(super) fn reduce_ssthresh(&mut self, now: SimTime) {
        self.tcb.prior_cwnd = self.tcb.cwnd;
        self.tcb.prior_ssthresh = self.tcb.ssthresh;
        if self.tcb.loss_flight.is_none() {
            let flight = self.tcb.flight_segments();
            self.tcb.loss_flight = self.recovery.flight_without_limited(flight);
        }
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, now).max(2);
        self.tcb.loss_flight = None;
        self.recovery.forget_limited();
        self.ecn.queue_cwr();
    }

    /// RFC 3168 §6.1.2 (Linux `tcp_try_to_open`'s echo): an ACK that echoes CE,
    /// once recovery processing has left the sender in `Open` or `Disorder`, starts
    /// a reduction. In `Cwr`, `Recovery` or `Loss` the echo belongs to the window
    /// already being reduced: at most one response per window. Inline: every ACK
    /// asks, and the answer is almost always no.
    #[inline]
    pub(super) fn respond_to_echo(&mut self, now: SimTime) {
        if self.ack_start.ece && matches!(self.tcb.ca_state, CaState::Open | CaState::Disorder) {
            self.enter_cwr(now);
        }
    }

    /// Linux `tcp_enter_cwr`: ssthresh from the controller (told first that this is
    /// an echo's reduction), the undo detectors disarmed (congestion is proven),
    /// `Cwr` until data sent after now is acknowledged, cwnd brought down by PRR
    /// on each ACK, or set to ssthresh at once without PRR (RFC 3168 §6.1.2: "halves
    /// the congestion window"); a controller that owns cwnd keeps it. Cold: once
    /// per window of marks at most.
    #[cold]
    fn enter_cwr(&mut self, now: SimTime) {
        self.stats.ecn_reductions += 1;
        self.undo.forget_episode();
        self.cc.ecn_event(&mut self.tcb, now, EcnEvent::EnterCwr);
        self.reduce_ssthresh(now);
        self.tcb.prior_ssthresh = 0;
        self.ecn.enter_cwr(self.high_water());
        self.set_ca_state(now, CaState::Cwr);
        if !self.reduction.start(self.tcb.prior_cwnd) && !self.model_based {
            self.tcb.cwnd = self.tcb.cwnd.min(self.tcb.ssthresh);
            self.tcb.cwnd_cnt = 0;
        }
    }

    /// An ACK of new data in `Cwr`: the reduction ends once data above its start is
    /// acknowledged, cwnd = ssthresh (Linux `tcp_end_cwnd_reduction`, not for a
    /// controller that owns cwnd) and back to `Open`.
    fn on_cwr_ack(&mut self, now: SimTime) {
        if !self.ecn.cwr_over(self.tcb.snd_una) {
            return;
        }
        if !self.model_based {
            self.tcb.cwnd = self.tcb.ssthresh;
            self.tcb.cwnd_cnt = 0;
            self.cc
                .cwnd_event(&mut self.tcb, now, CaEvent::CompleteRecovery);
        }
        self.set_ca_state(now, CaState::Open);
    }

    /// Duplicates below dupthresh: `Disorder`, unless in `Cwr`, which holds until its
    /// own end (Linux `tcp_try_to_open` keeps CWR).
    fn enter_disorder(&mut self, now: SimTime) {
        if self.tcb.ca_state != CaState::Cwr {
            self.set_ca_state(now, CaState::Disorder);
        }
    }

    /// A duplicate ACK: RFC 5681 §2's definition for Tahoe, Reno and NewReno; for the
    /// SACK flavour `sack_dupack` says whether it is one by RFC 6675 §2's.
    pub(super) fn on_dup_ack(&mut self, now: SimTime, sack_dupack: bool, out: &mut Vec<TcpData>) {
        if self.recovery.flavour() == Recovery::Sack {
            self.on_sack_dup_ack(now, sack_dupack, out);
            return;
        }
        self.recovery.count_dupack();
        if !self.sack && self.tcb.ca_state != CaState::Loss {
            // Linux `tcp_add_reno_sack`: the duplicate stands for a segment received
            // out of order, hence delivered (at most all but the missing one). Not
            // in `Loss`: there Linux caps the count at packets_out − lost_out, 0 once
            // a timeout has marked everything lost (`tcp_limit_reno_sacked`), and
            // the duplicates go-back-N provokes are copies of segments the receiver
            // already held, delivered before.
            if self.reno_sacks.on_dupack(self.scoreboard.outstanding()) {
                self.rate.count_delivered(&mut self.tcb, now, 1);
            }
        }
        match self.tcb.ca_state {
            CaState::Open | CaState::Disorder | CaState::Cwr => {
                // Before dupthresh, Vegas's fine-grained timer may start it early.
                let dupthresh = self.dupthresh.current();
                let snd_una = self.tcb.snd_una;
                let (scoreboard, cc) = (&self.scoreboard, self.cc.as_mut());
                let verdict = self.recovery.dupack_verdict(snd_una, dupthresh, || {
                    fine_grained_expired(scoreboard, cc, now, AckKind::Duplicate)
                });
                match verdict {
                    DupAckVerdict::Disorder => {
                        self.enter_disorder(now);
                        self.limited_transmit(now, out);
                    }
                    DupAckVerdict::FastRetransmit => self.enter_fast_retransmit(now, out),
                    DupAckVerdict::Ignore => {}
                }
            }
            CaState::Recovery => {
                // RFC 5681 §3.2 step 4: each further duplicate ACK means a segment
                // has left the network; inflate cwnd (or let PRR set it) and send
                // if allowed.
                // A model-based controller sends after its `cong_control`, as Linux
                // (`tcp_cong_control` before `tcp_xmit_recovery`): sending here first,
                // under the old cwnd, would refill the flight before BBR's packet
                // conservation reads it, and cwnd = in-flight + delivered would then
                // grow by one per duplicate.
                if self.reduction.active(self.tcb.ca_state) {
                    self.prr_update();
                    self.prr_retransmit_head(now, out);
                } else if self.model_based {
                    return;
                } else {
                    self.tcb.cwnd += 1;
                }
                self.transmit(now, out);
            }
            CaState::Loss => {}
        }
    }

    /// A duplicate ACK for the SACK flavour (RFC 6675 §5).
    fn on_sack_dup_ack(&mut self, now: SimTime, sack_dupack: bool, out: &mut Vec<TcpData>) {
        match self.tcb.ca_state {
            CaState::Open | CaState::Disorder | CaState::Cwr => {
                if sack_dupack {
                    self.recovery.count_dupack();
                    self.sack_loss_detection(now, out);
                    self.limited_transmit(now, out);
                }
            }
            // RFC 6675 (B)–(C): the scoreboard changed; send what pipe allows
            // (a model-based controller sends after its `cong_control`).
            CaState::Recovery | CaState::Loss => {
                self.prr_update();
                if !self.model_based {
                    self.transmit(now, out);
                }
            }
        }
    }

    /// RFC 3042 §2 (and RFC 6675 §5 step 3), when `limited_transmit` is on: on each
    /// of the first two duplicate ACKs (DupAcks 1 and 2 of a dupthresh of 3, still in
    /// `Disorder`), one segment of previously unsent data, if the receive window
    /// allows it and FlightSize stays at or below cwnd + 2 segments; cwnd does not
    /// change. The segments keep the ACK clock going when the window is too small to
    /// produce dupthresh duplicates.
    fn limited_transmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        let at_high_water = self.tcb.snd_nxt == self.high_water();
        if !self
            .recovery
            .limited_transmit_allowed(self.tcb.ca_state, at_high_water)
        {
            return;
        }
        let Some(len) = self.new_data_len() else {
            return;
        };
        let flight = self.tcb.flight_bytes();
        if limited_transmit_fits(self.tcb.cwnd, self.tcb.mss, flight, len) {
            self.send_new_data(now, len, out);
            self.recovery.on_limited_sent();
        }
    }

    /// RFC 6675 §5 steps 1–2, on a duplicate acknowledgment outside recovery (DupAcks
    /// already counted): starts recovery, or notes the disorder.
    /// With RACK, recovery starts when RACK has marked a segment lost (Linux
    /// `tcp_time_to_recover`), not on DupAcks.
    pub(super) fn sack_loss_detection(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.update_lost();
        let start = if self.rack.is_some() {
            self.scoreboard.any_lost()
        } else {
            let head_lost = self.scoreboard.first_unacked().is_some_and(|s| s.lost);
            self.recovery.dupacks() >= self.dupthresh.current() || head_lost
        };
        if start {
            self.enter_fast_retransmit(now, out);
        } else {
            self.enter_disorder(now);
        }
    }

    /// A fast retransmit: a loss episode begins, the window is reduced by the
    /// flavour's rule and the first loss is resent. Found in `Cwr`, the echo's
    /// reduction carries on (Linux `tcp_enter_recovery`: no new ssthresh, PRR not
    /// restarted, and no undo: `prior_ssthresh` stays 0), the controller told.
    pub(super) fn enter_fast_retransmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.stats.fast_retransmits += 1;
        if let Some(t) = &mut self.tlp {
            t.reset();
        }
        let in_cwr = self.tcb.ca_state == CaState::Cwr;
        self.recovery.on_fast_retransmit(self.high_water());
        self.init_undo();
        self.dupthresh.on_episode(true);
        self.undo.arm_eifel();
        if in_cwr {
            self.tcb.prior_ssthresh = 0;
            self.cc.ecn_event(&mut self.tcb, now, EcnEvent::LossInCwr);
        } else {
            self.stats.loss_reductions += 1;
            self.reduce_ssthresh(now);
        }
        match self.recovery.flavour() {
            Recovery::Tahoe => {
                self.set_ca_state(now, CaState::Loss);
                self.tcb.cwnd = 1;
                self.tcb.cwnd_cnt = 0;
                self.tcb.snd_nxt = self.tcb.snd_una;
            }
            Recovery::Reno | Recovery::NewReno => {
                self.set_ca_state(now, CaState::Recovery);
                if self.recovery_prr(in_cwr) {
                    self.scoreboard.mark_head_lost();
                    self.prr_update();
                    self.prr_retransmit_head(now, out);
                } else {
                    self.set_entry_cwnd();
                    self.retransmit_first_unacked(now, out);
                }
            }
            Recovery::Sack => {
                // RFC 6675 §5 step 4.
                self.set_ca_state(now, CaState::Recovery);
                if self.recovery_prr(in_cwr) {
                    self.scoreboard.mark_head_lost();
                    self.prr_update();
                } else {
                    self.set_entry_cwnd();
                }
                let rack = self.rack.is_some();
                if let Some((seq, len)) = self.scoreboard.first_retransmission(rack) {
                    self.send_segment(now, seq, len, out);
                }
            }
        }
        self.transmit(now, out);
    }

    /// Whether PRR sets cwnd through the fast recovery beginning: a new reduction
    /// from the window before the loss, or CWR's carried on.
    fn recovery_prr(&mut self, in_cwr: bool) -> bool {
        if in_cwr {
            self.reduction.runs()
        } else {
            self.reduction.start(self.tcb.prior_cwnd)
        }
    }

    /// cwnd on entering fast recovery without PRR (`LossRecovery::entry_cwnd`); a
    /// controller that owns cwnd keeps it.
    fn set_entry_cwnd(&mut self) {
        if !self.model_based {
            let (ssthresh, prior) = (self.tcb.ssthresh, self.tcb.prior_cwnd);
            let dupthresh = self.dupthresh.current();
            self.tcb.cwnd = self.recovery.entry_cwnd(ssthresh, prior, dupthresh);
        }
    }

    /// Sets cwnd for the ACK being processed by PRR, when it runs (Linux
    /// `tcp_cwnd_reduction`).
    pub(super) fn prr_update(&mut self) {
        if !self.reduction.active(self.tcb.ca_state) {
            return;
        }
        let pipe = self.packets_in_flight();
        let start = self.ack_start;
        let ack = PrrAck {
            delivered: (self.tcb.delivered - start.delivered) as u32,
            pipe,
            safe: self.tcb.snd_una > start.snd_una && self.scoreboard.marked_lost() == start.lost,
        };
        let (ssthresh, cwnd) = (self.tcb.ssthresh, self.tcb.cwnd);
        self.tcb.cwnd = self.reduction.cwnd_after(ack, ssthresh, cwnd);
    }

    /// Recovery processing of an ACK of `acked` new segments (snd_una already
    /// advanced). Returns whether the retransmission timer is to be restarted.
    pub(super) fn on_recovery_ack(
        &mut self,
        now: SimTime,
        acked: u32,
        out: &mut Vec<TcpData>,
    ) -> bool {
        match self
            .recovery
            .on_new_ack(self.tcb.ca_state, self.tcb.snd_una)
        {
            NewAckVerdict::SackPartial => {
                // RFC 6675: a partial ACK just updates the scoreboard; the sender's
                // transmit() then sends by pipe.
                self.prr_update();
                return true;
            }
            NewAckVerdict::NewRenoPartial { restart_timer } => {
                // RFC 6582 step 5: partial ACK.
                if self.reduction.active(self.tcb.ca_state) {
                    self.scoreboard.mark_head_lost();
                    self.prr_update();
                    self.prr_retransmit_head(now, out);
                } else {
                    self.retransmit_first_unacked(now, out);
                    if !self.model_based {
                        self.tcb.cwnd = self.tcb.cwnd.saturating_sub(acked) + 1;
                    }
                }
                return restart_timer;
            }
            NewAckVerdict::Open if self.tcb.ca_state == CaState::Cwr => self.on_cwr_ack(now),
            NewAckVerdict::RecoveryEnds => {
                if !self.model_based {
                    self.tcb.cwnd = self.tcb.ssthresh;
                    self.tcb.cwnd_cnt = 0;
                }
                self.set_ca_state(now, CaState::Open);
                self.cc
                    .cwnd_event(&mut self.tcb, now, CaEvent::CompleteRecovery);
            }
            NewAckVerdict::Loss { ends } => {
                if ends {
                    self.set_ca_state(now, CaState::Open);
                }
            }
            NewAckVerdict::Open => self.set_ca_state(now, CaState::Open),
        }
        // Vegas checks the first ACKs after a retransmission: a second loss of the
        // window is resent once the fine-grained timer says so, cwnd unchanged.
        let (scoreboard, cc) = (&self.scoreboard, self.cc.as_mut());
        if self.recovery.flavour() != Recovery::Sack
            && fine_grained_expired(scoreboard, cc, now, AckKind::New)
        {
            self.retransmit_first_unacked(now, out);
        }
        true
    }

    /// The retransmission timer expired (RFC 5681 §3.1, RFC 6298 §5; see
    /// `recovery.rs`).
    pub(super) fn on_retransmission_timeout(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.stats.timeouts += 1;
        // Reduce once per loss episode: not again on a repeated expiry, nor when
        // fast recovery already reduced for the same losses (Linux
        // `tcp_enter_loss`; recomputing from FlightSize there would *raise*
        // ssthresh, since window inflation has grown the flight).
        let prior = self.tcb.ca_state;
        let starts_episode = matches!(prior, CaState::Open | CaState::Disorder | CaState::Cwr);
        // In CWR the window was reduced already unless the timeout is for data sent
        // after it began (Linux `tcp_enter_loss`: `!after(high_seq, snd_una)`).
        let reduced = prior == CaState::Recovery
            || (prior == CaState::Cwr && self.ecn.cwr_covers(self.tcb.snd_una));
        let (first_expiry, dupacks) = self.recovery.on_timeout(self.high_water());
        // A timeout while F-RTO waits: F-RTO starts over, below (RFC 5682 §3.1 step 2
        // returns to step 1).
        self.undo.cancel_frto();
        // Every timeout queues CWR (Linux `tcp_enter_loss`).
        self.ecn.queue_cwr();
        if first_expiry && !reduced {
            self.init_undo();
            if self.sack {
                self.tcb.loss_flight = Some(self.packets_in_flight());
            }
            self.stats.loss_reductions += 1;
            self.reduce_ssthresh(now);
        } else {
            let rwnd = self.peer_window / u64::from(self.tcb.mss);
            let cwnd = self.tcb.cwnd;
            if let Some(s) = self.recovery.timeout_ssthresh(first_expiry, cwnd, rwnd) {
                self.tcb.ssthresh = s;
            }
        }
        if starts_episode {
            let cost = self.cost_of_loss(self.tcb.cwnd);
            if self.dupthresh.on_timeout(dupacks, cost) {
                self.stats.avoidable_timeouts += 1;
            }
            self.dupthresh.on_episode(false);
        }
        self.set_ca_state(now, CaState::Loss);
        if starts_episode {
            self.undo.arm_eifel();
        }
        self.tcb.cwnd = 1;
        self.tcb.cwnd_cnt = 0;
        self.cc.cwnd_event(&mut self.tcb, now, CaEvent::Loss);
        self.reno_sacks.reset();
        self.timer.back_off();
        if let Some(t) = &mut self.tlp {
            t.reset();
        }
        self.mark_all_lost(now);
        // F-RTO step 1, on a timeout that starts a loss episode or repeats one with no
        // progress since (the first retransmission was lost too), as Linux
        // `tcp_enter_loss`; not when the timeout interrupts fast recovery or strikes
        // again after progress in timeout recovery (RFC 5682 §2.1 step 1).
        if self.undo.frto_on() && (starts_episode || !first_expiry) {
            self.start_frto(now, out);
            return;
        }
        if self.recovery.flavour() != Recovery::Sack {
            // Go-back-N: everything after snd_una will be sent again.
            self.tcb.snd_nxt = self.tcb.snd_una;
        }
        self.transmit(now, out);
    }

    /// The relative cost of a timeout against a fast retransmit with a window of
    /// `window` segments, for RR-TCP (`reordering.rs`).
    pub(super) fn cost_of_loss(&self, window: u32) -> CostOfLoss {
        CostOfLoss {
            srtt: self.tcb.srtt,
            rto: self.timer.rto(),
            window,
        }
    }

    /// After a timeout: every segment not SACKed is presumed lost, and no
    /// retransmission is in flight any more (RFC 6675 §5.1 as Linux
    /// `tcp_timeout_mark_lost`; see `sack.rs`). With RACK, only the first
    /// segment and those RACK's rule condemns (RFC 8985 §6.3).
    fn mark_all_lost(&mut self, now: SimTime) {
        if self.rack.is_none() {
            self.scoreboard.mark_unsacked_lost();
            return;
        }
        let recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        let segs_sacked = self.scoreboard.sacked_count();
        let dupthresh = self.dupthresh.current();
        if let Some(r) = &mut self.rack {
            let reo_wnd = r.reo_wnd(recovering, segs_sacked, dupthresh, self.tcb.srtt);
            self.scoreboard
                .mark_lost_by(0, |segments| r.mark_losses_on_rto(now, reo_wnd, segments));
        }
    }
}

/// Whether the controller's fine-grained timer (Vegas,
/// `CongestionControl::fine_grained_expired`) says the oldest unacknowledged
/// segment is to be resent now.
fn fine_grained_expired(
    scoreboard: &Scoreboard,
    cc: &mut dyn CongestionControl,
    now: SimTime,
    ack: AckKind,
) -> bool {
    let Some(sent) = scoreboard.first_unacked().map(|s| s.sent) else {
        return false;
    };
    cc.fine_grained_expired(now, sent, ack)
}
