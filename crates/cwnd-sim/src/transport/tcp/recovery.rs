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
//!   The inflation starts from min(ssthresh, cwnd before the loss). RFC 5681 §3.2
//!   (step 2) and RFC 6582 §3.2 take ssthresh = FlightSize/2, always below the
//!   window, and step 3's cwnd = ssthresh + 3·SMSS then keeps ssthresh segments in
//!   the network. A controller's ssthresh may exceed the window (Westwood's
//!   BWE·RTTmin when the pipe was not full); ssthresh + 3 would then release a burst
//!   above the pre-loss window at once. Linux never does: recovery runs PRR
//!   (RFC 6937; `tcp_cwnd_reduction` in tcp_input.c), which with pipe below ssthresh
//!   sends only as much as is delivered (plus one on an ACK that advances snd_una
//!   without a new loss), and sets cwnd = ssthresh only when recovery completes
//!   (`tcp_end_cwnd_reduction`). Linux Westwood's own `.ssthresh` is
//!   `tcp_reno_ssthresh`; it applies BWE·RTTmin on `CA_EVENT_COMPLETE_CWR`, and
//!   Mascolo et al. 2001 §3 likewise never raise cwnd on loss ("if (cwnd > ssthresh)
//!   cwnd = ssthresh"). So recovery here keeps the pre-loss window in the network
//!   (packet conservation, as PRR) and the end of recovery sets cwnd = ssthresh. The
//!   SACK flavour's cwnd = ssthresh takes the same min.
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
//! * **SACK** (RFC 6675, `Recovery::Sack`, needs `tcp.sack`): scoreboard, IsLost,
//!   pipe and NextSeg; entered on DupThresh duplicate acknowledgments (RFC 6675's
//!   definition: ACKs bringing new SACK information) or as soon as the first
//!   unacknowledged segment IsLost; ends when the cumulative ACK reaches
//!   RecoveryPoint. No `recover` gate beyond RFC 6675 §5.1's (none while in `Loss`).
//!   See `sack.rs`.
//!
//! Timeout (RFC 5681 §3.1, RFC 6298 §5): ssthresh from the controller (with SACK,
//! FlightSize is the data in flight then: see `Tcb::flight_size`) on the first expiry for a segment only (repeated expiries only back off) and not when
//! the timeout interrupts fast recovery of the same losses (as Linux), cwnd = 1,
//! state `Loss` until everything outstanding at the timeout is acknowledged; every
//! segment not SACKed is presumed lost. Tahoe, Reno and NewReno resend by go-back-N
//! from snd_una (skipping SACKed segments when `tcp.sack` is on); the SACK flavour
//! resends only what its scoreboard marks lost (RFC 6675 §5.1, see `sack.rs`).
//! Duplicate ACKs in `Loss` do not start fast retransmit, which keeps go-back-N from
//! triggering false fast retransmits (as Linux does); with SACK they still clock out
//! NextSeg as pipe falls.
//!
//! `tcp.ssthresh_on_repeated_timeout = "halve"` instead does what ns-2 does
//! (`TcpAgent::timeout` → `slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART)` in
//! ns-2's tcp.cc): every expiry sets ssthresh = max(⌊window/2⌋, 2) with window =
//! min(cwnd, rwnd); on a repeated expiry cwnd is the loss window of 1, so ssthresh
//! falls to 2 (`RepeatedTimeout`).
//!
//! Limited transmit (RFC 3042, `limited_transmit`, all flavours): one new segment on
//! each of the first two duplicate ACKs, cwnd unchanged; those segments do not count
//! in the FlightSize of the ssthresh that follows (RFC 5681 §3.2 step 2).
//!
//! Each reduction (a fast retransmit, or a timeout that reduces ssthresh) starts the
//! spurious-retransmission detectors that are enabled (`spurious.rs`).
//!
//! A controller with `cong_control` (BBR) owns cwnd: recovery then neither sets cwnd
//! to ssthresh (+ dupthresh), nor inflates or deflates it; only a timeout (and Tahoe's
//! fast retransmit, which is one) sets cwnd = 1, as Linux (see `cc/mod.rs`).
//!
//! On loss detection the controller is asked for ssthresh before the state changes,
//! as Linux `tcp_enter_recovery`/`tcp_enter_loss` do.
//!
//! Counting is in segments (see `tcb.rs`); "one SMSS" is one segment.

use super::cc::{AckKind, CaEvent};
use super::sender::TcpSender;
use super::tcb::CaState;
use crate::packet::TcpData;
use crate::time::SimTime;

/// The loss-recovery algorithm of a flow. The default a controller implies is
/// `CcConfig::default_recovery` (cc/mod.rs), derived from the one controller table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    Tahoe,
    Reno,
    NewReno,
    /// RFC 6675 SACK-based recovery (needs `tcp.sack`); see `sack.rs`.
    Sack,
}

impl Recovery {
    pub fn name(self) -> &'static str {
        match self {
            Recovery::Tahoe => "tahoe",
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}

/// The loss episode's counters, owned here and moved only through these methods:
/// duplicate ACKs (RFC 5681 §2, RFC 6675 §2's DupAcks), RFC 6582's `recover`,
/// the timer's consecutive expiries (RFC 6298 §5.5: ssthresh is reduced once per
/// episode), and NewReno's first partial ACK (RFC 6582 §3.2 step 5 restarts the
/// timer on the first only, the "impatient" variant).
#[derive(Clone, Debug, Default)]
pub struct LossEpisode {
    dupacks: u32,
    /// `recover` as an exclusive bound: high_water when the last episode began;
    /// `None` before the first.
    recover: Option<u64>,
    /// Expiries of the timer since new data was last acknowledged.
    consecutive_timeouts: u32,
    /// NewReno: whether a partial ACK has already restarted the timer.
    partial_ack_seen: bool,
}

impl LossEpisode {
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }

    pub fn count_dupack(&mut self) {
        self.dupacks += 1;
    }

    pub fn clear_dupacks(&mut self) {
        self.dupacks = 0;
    }

    /// Whether duplicates at `snd_una` may start a new episode (RFC 6582 §3.2 step
    /// 2, with ns-2's `bug_fix_` reading: the ACK covers data beyond `recover`).
    pub fn is_new(&self, snd_una: u64) -> bool {
        self.recover.is_none_or(|r| snd_una > r)
    }

    /// Whether a cumulative ACK of `ack` completes the episode.
    pub fn reaches_recover(&self, ack: u64) -> bool {
        self.recover.is_none_or(|r| ack >= r)
    }

    /// A fast retransmit begins an episode ending at `high_water`.
    pub fn on_fast_retransmit(&mut self, high_water: u64) {
        self.recover = Some(high_water);
        self.partial_ack_seen = false;
    }

    /// NewReno's partial ACK: whether it is the episode's first.
    pub fn first_partial_ack(&mut self) -> bool {
        !std::mem::replace(&mut self.partial_ack_seen, true)
    }

    /// New data was acknowledged: the next expiry is a first one again.
    pub fn on_progress(&mut self) {
        self.consecutive_timeouts = 0;
    }

    /// The timer expired: the episode now ends at `high_water` and the duplicates
    /// are forgotten. Returns (whether this is the first expiry since progress,
    /// the duplicate ACKs counted before it).
    pub fn on_timeout(&mut self, high_water: u64) -> (bool, u32) {
        let first = self.consecutive_timeouts == 0;
        self.consecutive_timeouts += 1;
        self.recover = Some(high_water);
        (first, std::mem::take(&mut self.dupacks))
    }

    /// A reduction was undone: the sender is back in `Open` with no episode pending.
    pub fn on_undo(&mut self) {
        self.dupacks = 0;
        self.consecutive_timeouts = 0;
    }
}

/// What a repeated expiry of the retransmission timer (no new data acknowledged
/// since the last one) does to ssthresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepeatedTimeout {
    /// Keep it (RFC 5681 §3.1: "the value of ssthresh is held constant").
    Keep,
    /// ns-2's rule: ssthresh = max(⌊min(cwnd, rwnd)/2⌋, 2), which after the first
    /// expiry's cwnd = 1 is 2 (ns-2 tcp.cc `slowdown`).
    Halve,
}

impl TcpSender {
    pub(super) fn set_ca_state(&mut self, now: SimTime, state: CaState) {
        if state == CaState::Open {
            self.reno_sacked = 0;
            self.limited_sent = 0;
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
    /// it already: `Tcb::flight_size`).
    fn reduce_ssthresh(&mut self, now: SimTime) {
        self.tcb.prior_cwnd = self.tcb.cwnd;
        self.tcb.prior_ssthresh = self.tcb.ssthresh;
        if self.limited_sent > 0 && self.tcb.loss_flight.is_none() {
            let flight = self.tcb.flight_segments().saturating_sub(self.limited_sent);
            self.tcb.loss_flight = Some(flight);
        }
        self.tcb.ssthresh = self.cc.ssthresh(&self.tcb, now).max(2);
        self.tcb.loss_flight = None;
        self.limited_sent = 0;
    }

    /// A tail loss probe repaired a loss (RFC 8985 §7.4.2: "invoke congestion
    /// control to react to the loss event the probe has repaired"): one reduction,
    /// as Linux `tcp_process_tlp_ack` does by entering and completing CWR — ssthresh
    /// from the controller, cwnd = ssthresh (not for a controller that owns cwnd).
    pub(super) fn tlp_loss_response(&mut self, now: SimTime) {
        self.reduce_ssthresh(now);
        if !self.model_based {
            self.tcb.cwnd = self.tcb.ssthresh;
            self.tcb.cwnd_cnt = 0;
        }
        self.cc
            .cwnd_event(&mut self.tcb, now, CaEvent::CompleteRecovery);
    }

    /// Resends the first unacknowledged segment, presumed lost (Linux marks the head
    /// lost for a sender without SACK: `tcp_mark_head_lost`).
    pub(super) fn retransmit_first_unacked(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.scoreboard.mark_head_lost();
        if let Some(&head) = self.scoreboard.first_unacked() {
            self.send_segment(now, head.seq, head.len, out);
        }
    }

    /// A duplicate ACK: RFC 5681 §2's definition for Tahoe, Reno and NewReno; for the
    /// SACK flavour `sack_dupack` says whether it is one by RFC 6675 §2's.
    pub(super) fn on_dup_ack(&mut self, now: SimTime, sack_dupack: bool, out: &mut Vec<TcpData>) {
        if self.cfg.recovery == Recovery::Sack {
            match self.tcb.ca_state {
                CaState::Open | CaState::Disorder => {
                    if sack_dupack {
                        self.episode.count_dupack();
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
            return;
        }
        self.episode.count_dupack();
        let dupacks = self.episode.dupacks();
        if !self.cfg.sack && self.tcb.ca_state != CaState::Loss {
            // Linux `tcp_add_reno_sack`: the duplicate stands for a segment received
            // out of order, hence delivered (at most all but the missing one). Not
            // in `Loss`: there Linux caps the count at packets_out − lost_out, 0 once
            // a timeout has marked everything lost (`tcp_limit_reno_sacked`), and
            // the duplicates go-back-N provokes are copies of segments the receiver
            // already held, delivered before.
            let most = self.scoreboard.outstanding().saturating_sub(1);
            if self.reno_sacked < most {
                self.reno_sacked += 1;
            }
            if self.dup_delivered < most {
                self.dup_delivered += 1;
                self.rate.count_delivered(&mut self.tcb, now, 1);
            }
        }
        match self.tcb.ca_state {
            CaState::Open | CaState::Disorder => {
                // Only duplicates for data sent after the last episode began start
                // a new one (RFC 6582 §3.2 step 2, with ns-2's `bug_fix_` reading:
                // the ACK must cover a segment beyond `recover`).
                let new_episode = self.episode.is_new(self.tcb.snd_una);
                // Before dupthresh, Vegas's fine-grained timer may start it early.
                let early = dupacks < self.dupthresh()
                    && new_episode
                    && self.fine_grained_expired(now, AckKind::Duplicate);
                if dupacks < self.dupthresh() && !early {
                    self.set_ca_state(now, CaState::Disorder);
                    self.limited_transmit(now, out);
                    return;
                }
                if new_episode && (early || dupacks == self.dupthresh()) {
                    self.enter_fast_retransmit(now, out);
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
                if self.prr_active() {
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

    /// RFC 3042 §2 (and RFC 6675 §5 step 3), when `limited_transmit` is on: on each
    /// of the first two duplicate ACKs (DupAcks 1 and 2 of a dupthresh of 3, still in
    /// `Disorder`), one segment of previously unsent data, if the receive window
    /// allows it and FlightSize stays at or below cwnd + 2 segments; cwnd does not
    /// change. The segments keep the ACK clock going when the window is too small to
    /// produce dupthresh duplicates.
    fn limited_transmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        if !self.cfg.limited_transmit
            || self.tcb.ca_state != CaState::Disorder
            || self.episode.dupacks() > 2
            || self.tcb.snd_nxt != self.high_water()
        {
            return;
        }
        let Some(len) = self.new_data_len() else {
            return;
        };
        let budget = (u64::from(self.tcb.cwnd) + 2) * u64::from(self.cfg.mss);
        if self.tcb.flight_bytes() + u64::from(len) <= budget {
            let seq = self.high_water();
            self.send_segment(now, seq, len, out);
            self.tcb.snd_nxt = self.high_water();
            self.limited_sent += 1;
        }
    }

    pub(super) fn enter_fast_retransmit(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.stats.fast_retransmits += 1;
        if let Some(t) = &mut self.tlp {
            t.reset();
        }
        self.episode.on_fast_retransmit(self.high_water());
        self.init_undo();
        self.reordering_on_episode(true);
        self.arm_eifel();
        match self.cfg.recovery {
            Recovery::Tahoe => {
                self.reduce_ssthresh(now);
                self.set_ca_state(now, CaState::Loss);
                self.tcb.cwnd = 1;
                self.tcb.cwnd_cnt = 0;
                self.tcb.snd_nxt = self.tcb.snd_una;
            }
            Recovery::Reno | Recovery::NewReno => {
                self.reduce_ssthresh(now);
                self.set_ca_state(now, CaState::Recovery);
                if self.prr_start() {
                    self.scoreboard.mark_head_lost();
                    self.prr_update();
                    self.prr_retransmit_head(now, out);
                } else {
                    if !self.model_based {
                        let base = self.tcb.ssthresh.min(self.tcb.prior_cwnd);
                        // Inflated by the duplicates so far: dupthresh, or fewer
                        // when Vegas's fine-grained timer started the retransmit.
                        self.tcb.cwnd = base + self.episode.dupacks().min(self.dupthresh());
                    }
                    self.retransmit_first_unacked(now, out);
                }
            }
            Recovery::Sack => {
                // RFC 6675 §5 step 4.
                self.reduce_ssthresh(now);
                self.set_ca_state(now, CaState::Recovery);
                if self.prr_start() {
                    self.scoreboard.mark_head_lost();
                    self.prr_update();
                } else if !self.model_based {
                    self.tcb.cwnd = self.tcb.ssthresh.min(self.tcb.prior_cwnd);
                }
                self.start_sack_recovery(now, out);
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
        self.episode.on_progress();
        match self.tcb.ca_state {
            CaState::Recovery => {
                let full = self.episode.reaches_recover(ack);
                if self.cfg.recovery == Recovery::Sack && !full {
                    // RFC 6675: a partial ACK just updates the scoreboard; the
                    // sender's transmit() then sends by pipe.
                    self.prr_update();
                    return true;
                }
                if self.cfg.recovery == Recovery::NewReno && !full {
                    // RFC 6582 step 5: partial ACK.
                    if self.prr_active() {
                        self.scoreboard.mark_head_lost();
                        self.prr_update();
                        self.prr_retransmit_head(now, out);
                    } else {
                        self.retransmit_first_unacked(now, out);
                        if !self.model_based {
                            self.tcb.cwnd = self.tcb.cwnd.saturating_sub(acked) + 1;
                        }
                    }
                    return self.episode.first_partial_ack();
                }
                if !self.model_based {
                    self.tcb.cwnd = self.tcb.ssthresh;
                    self.tcb.cwnd_cnt = 0;
                }
                self.episode.clear_dupacks();
                self.set_ca_state(now, CaState::Open);
                self.cc
                    .cwnd_event(&mut self.tcb, now, CaEvent::CompleteRecovery);
            }
            CaState::Loss => {
                self.episode.clear_dupacks();
                if self.episode.reaches_recover(ack) {
                    self.set_ca_state(now, CaState::Open);
                }
            }
            CaState::Disorder | CaState::Open => {
                self.episode.clear_dupacks();
                self.set_ca_state(now, CaState::Open);
            }
        }
        // Vegas checks the first ACKs after a retransmission: a second loss of the
        // window is resent once the fine-grained timer says so, cwnd unchanged.
        if self.cfg.recovery != Recovery::Sack && self.fine_grained_expired(now, AckKind::New) {
            self.retransmit_first_unacked(now, out);
        }
        true
    }

    /// Whether the controller's fine-grained timer (Vegas,
    /// `CongestionControl::fine_grained_expired`) says the oldest unacknowledged
    /// segment is to be resent now.
    fn fine_grained_expired(&mut self, now: SimTime, ack: AckKind) -> bool {
        let Some(sent) = self.scoreboard.first_unacked().map(|s| s.sent) else {
            return false;
        };
        self.cc.fine_grained_expired(now, sent, ack)
    }

    pub(super) fn on_retransmission_timeout(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.stats.timeouts += 1;
        // Reduce once per loss episode: not again on a repeated expiry, nor when
        // fast recovery already reduced for the same losses (Linux
        // `tcp_enter_loss`; recomputing from FlightSize there would *raise*
        // ssthresh, since window inflation has grown the flight).
        let prior = self.tcb.ca_state;
        let starts_episode = matches!(prior, CaState::Open | CaState::Disorder);
        let (first_expiry, dupacks) = self.episode.on_timeout(self.high_water());
        // A timeout while F-RTO waits: F-RTO starts over, below (RFC 5682 §3.1 step 2
        // returns to step 1).
        self.undo.cancel_frto();
        if first_expiry && prior != CaState::Recovery {
            self.init_undo();
            if self.cfg.sack {
                self.tcb.loss_flight = Some(self.packets_in_flight());
            }
            self.reduce_ssthresh(now);
        } else if !first_expiry && self.cfg.repeated_timeout == RepeatedTimeout::Halve {
            let rwnd = self.peer_window / u64::from(self.cfg.mss);
            let window = u64::from(self.tcb.cwnd).min(rwnd) as u32;
            self.tcb.ssthresh = (window / 2).max(2);
        }
        if starts_episode {
            self.reordering_on_timeout(dupacks);
            self.reordering_on_episode(false);
        }
        self.set_ca_state(now, CaState::Loss);
        if starts_episode {
            self.arm_eifel();
        }
        self.tcb.cwnd = 1;
        self.tcb.cwnd_cnt = 0;
        self.cc.cwnd_event(&mut self.tcb, now, CaEvent::Loss);
        self.reno_sacked = 0;
        self.rto.back_off();
        if let Some(t) = &mut self.tlp {
            t.reset();
        }
        self.mark_all_lost(now);
        // F-RTO step 1, on a timeout that starts a loss episode or repeats one with no
        // progress since (the first retransmission was lost too), as Linux
        // `tcp_enter_loss`; not when the timeout interrupts fast recovery or strikes
        // again after progress in timeout recovery (RFC 5682 §2.1 step 1).
        if self.cfg.frto && (starts_episode || !first_expiry) {
            self.start_frto(now, out);
            return;
        }
        if self.cfg.recovery != Recovery::Sack {
            // Go-back-N: everything after snd_una will be sent again.
            self.tcb.snd_nxt = self.tcb.snd_una;
        }
        self.transmit(now, out);
    }
}
