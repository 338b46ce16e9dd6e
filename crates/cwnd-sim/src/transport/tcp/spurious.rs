//! Spurious retransmissions: three detectors and one response. Each detector is a
//! per-flow option, off by default (`tcp.dsack_undo`, `tcp.eifel`, `tcp.frto`); what
//! each detects is counted in `SenderStats` (`spurious_dsack`, `spurious_eifel`,
//! `spurious_frto`) and every undo in `spurious_undone`.
//!
//! **D-SACK** (RFC 3708 §3; counting as Linux `tcp_check_dsack`/`tcp_sacktag_one`).
//! When a loss episode begins — a fast retransmit, or a timeout that reduces ssthresh
//! (not one that interrupts fast recovery or repeats) — its start is remembered
//! (`undo_marker`, Linux's name) and its retransmissions are counted (`undo_retrans`,
//! starting from the retransmissions still in flight, as Linux `tcp_init_undo`). Each
//! D-SACK block discounts the retransmissions it reports: for data still queued, each
//! segment it covers that was retransmitted and ends above the marker (its in-flight
//! mark is cleared: the copy was redundant); for data already cumulatively acknowledged,
//! the segments it spans, if it ends above the marker ("dumb counting"). When every
//! retransmission of the episode has been reported duplicate, the episode was spurious
//! (RFC 3708 §3: every retransmission of the loss event was unnecessary). This
//! detection runs
//! whenever the receiver sends D-SACKs (`tcp.dsack`) and is counted; the reduction is
//! undone only with `tcp.dsack_undo`. RFC 3708 is silent on how long to wait for the
//! D-SACKs; like Linux, detection stays possible until the next episode begins.
//!
//! **Eifel** (RFC 3522 §3.2, needs timestamps). At the start of an episode — a fast
//! retransmit, or a timeout outside recovery — and not again within it (§3.2: it "MUST
//! NOT be reinitiated after loss recovery has already started", nor upon later timeouts
//! for the same segment) the TSval of the first retransmission is remembered
//! (RetransmitTS, step 2). The
//! first ACK that acknowledges the retransmitted segment is the "acceptable ACK"
//! (step 3); if its TSecr is smaller than RetransmitTS (step 4), the original
//! transmission was acknowledged, not the retransmission: spurious (step 6). Step 5 —
//! no verdict when the acceptable ACK carries a D-SACK, or acknowledges everything
//! while the peer never sent a D-SACK — is not applied, as in Linux
//! (`tcp_packet_delayed`): it guards against receivers that echo an old TSval for a
//! duplicate segment, and this receiver takes TS.Recent from any segment at or below
//! Last.ACK.sent before answering (RFC 7323 §4.3), so a duplicate's ACK echoes the
//! retransmission's own TSval.
//!
//! **F-RTO** (RFC 5682). Step 1: after a timeout that starts a loss episode, or that
//! recurs before any progress (the first retransmission was lost too; §3.1 step 2
//! returns to step 1 then), only the first unacknowledged segment is retransmitted;
//! nothing else is sent until F-RTO decides. Not after a timeout that interrupts fast
//! recovery, nor one in timeout recovery after progress (§2.1 step 1 excludes a sender
//! already in RTO recovery), as Linux `tcp_enter_loss`.
//! Step 2, on the first ACK that advances the window: if it acknowledges everything
//! sent ("covers recover") or not all of the retransmission, conventional recovery
//! (2a); otherwise up to two new segments go out (2b) — none possible, conventional
//! recovery. Step 3, on the next duplicate or window-advancing ACK: spurious (3b) or
//! conventional recovery with cwnd ≤ 3 (3a). Two variants, chosen by the flavour:
//! * basic (§2.1, Tahoe/Reno/NewReno): a duplicate ACK in step 2 means conventional
//!   recovery (2a); in step 3 an ACK that advances the window means spurious, a
//!   duplicate means a real loss;
//! * SACK-enhanced (§3.1, `Recovery::Sack`): duplicate ACKs in step 2 only update the
//!   scoreboard; in step 3 the timeout is spurious if the ACK acknowledges, by the
//!   cumulative ACK or by SACK, data below RecoveryPoint (the highest byte sent when
//!   step 2 began) not acknowledged before — data sent before the timeout and never
//!   retransmitted (RFC 4138 App. B: "an acknowledgment for non-retransmitted segment
//!   between SND.UNA and RecoveryPoint") — and real if it only SACKs the new data above
//!   RecoveryPoint, or is a duplicate without such information. An ACK that does both
//!   counts as spurious, as in Linux (`tcp_process_loss` tests FLAG_ORIG_SACK_ACKED
//!   first). Linux's extra early verdict in step 2 is not modelled.
//!   "Conventional recovery" is go-back-N slow start for the basic variant and the
//!   SACK-based loss recovery (NextSeg over the segments marked lost) for the other.
//!
//! **Response** (RFC 4015 semantics through the controller, as Linux
//! `tcp_undo_cwnd_reduction`): cwnd = the controller's `undo_cwnd` (Reno: the cwnd
//! before the reduction, `prior_cwnd`), ssthresh = max(ssthresh, `prior_ssthresh`).
//! If the sender is still recovering it returns to `Open`: the lost marks are cleared
//! and transmission resumes with new data (RFC 4015 step 2, SND.NXT = SND.MAX: no
//! more go-back-N). Fast recovery's window inflation is recovery's, not the
//! controller's, so it is removed (cwnd = ssthresh) before `undo_cwnd` is asked (not
//! for a controller with `cong_control`, whose cwnd recovery never inflates). RFC
//! 4015's own window (cwnd = FlightSize + min(bytes_acked, IW), ssthresh = pipe_prev)
//! and its RTO adaptation are not used; the RTT estimator carries on with its samples.

use super::recovery::Recovery;
use super::sack::SackUpdate;
use super::sender::TcpSender;
use super::tcb::CaState;
use crate::packet::{TcpAck, TcpData};
use crate::time::SimTime;

/// The state of this file's detectors, owned here (the sender reaches it only
/// through the methods below).
#[derive(Clone, Debug)]
pub struct UndoState {
    /// snd_una when the current loss episode began (Linux `undo_marker`).
    marker: Option<u64>,
    /// Retransmissions of the episode not yet shown unnecessary by a D-SACK (`None`:
    /// none sent yet; Linux's −1).
    retrans: Option<u32>,
    eifel: Eifel,
    /// F-RTO: which ACK after a timeout is awaited.
    frto: Frto,
}

impl Default for UndoState {
    fn default() -> Self {
        UndoState {
            marker: None,
            retrans: None,
            eifel: Eifel::Idle,
            frto: Frto::Off,
        }
    }
}

impl UndoState {
    /// F-RTO has not decided yet: nothing but its probes may be sent.
    pub fn frto_waiting(&self) -> bool {
        self.frto != Frto::Off
    }

    /// A new timeout: F-RTO starts over (RFC 5682 §3.1 step 2 returns to step 1).
    pub fn cancel_frto(&mut self) {
        self.frto = Frto::Off;
    }
}

/// Where F-RTO stands after a timeout (RFC 5682).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frto {
    Off,
    /// Step 1 done: waiting for the first ACK that advances the window (step 2).
    /// `rexmit_end`: one past the retransmitted segment.
    FirstAck {
        rexmit_end: u64,
    },
    /// Step 2b done: waiting for the next ACK (step 3). `recover`: the highest byte
    /// sent when step 2 began (exclusive).
    SecondAck {
        recover: u64,
    },
}

/// Eifel detection (RFC 3522 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Eifel {
    Idle,
    /// An episode began; its first retransmission is still to be sent.
    Armed,
    /// The first retransmission (of the segment at `seq`) was sent with TSval
    /// `retransmit_ts`; waiting for the acceptable ACK.
    Waiting {
        retransmit_ts: SimTime,
        seq: u64,
    },
}

impl TcpSender {
    /// A loss episode begins: remember where, and count the retransmissions still in
    /// flight (Linux `tcp_init_undo`: `undo_retrans = retrans_out ?: -1`).
    pub(super) fn init_undo(&mut self) {
        self.undo.marker = Some(self.tcb.snd_una);
        let in_flight = self.scoreboard.retransmissions_in_flight();
        self.undo.retrans = (in_flight > 0).then_some(in_flight);
    }

    /// A retransmission is sent: one more to be shown unnecessary, and the first of an
    /// episode gives Eifel its RetransmitTS.
    pub(super) fn count_retransmission(&mut self, now: SimTime, seq: u64) {
        if self.undo.marker.is_some() {
            self.undo.retrans = Some(self.undo.retrans.unwrap_or(0) + 1);
        }
        if self.undo.eifel == Eifel::Armed {
            self.undo.eifel = Eifel::Waiting {
                retransmit_ts: now,
                seq,
            };
        }
    }

    /// A D-SACK block [start, end) arrived (snd_una not yet advanced by this ACK).
    pub(super) fn on_dsack(&mut self, now: SimTime, start: u64, end: u64) {
        self.reordering_on_dsack(start, end);
        let Some(marker) = self.undo.marker else {
            return;
        };
        let Some(pending) = self.undo.retrans.filter(|&n| n > 0) else {
            return;
        };
        let mut shown = 0u32;
        if end <= self.tcb.snd_una {
            if end > marker {
                shown = (end - start).div_ceil(u64::from(self.cfg.mss)).max(1) as u32;
            }
        } else {
            shown = self.scoreboard.on_dsack_above_una(start, end, marker);
        }
        let left = pending.saturating_sub(shown);
        self.undo.retrans = Some(left);
        if left == 0 {
            self.stats.spurious_dsack += 1;
            self.reordering_on_spurious();
            self.undo.marker = None;
            if self.cfg.dsack_undo {
                self.undo_reduction(now);
            }
        }
    }

    /// Eifel, step 2: an episode begins.
    pub(super) fn arm_eifel(&mut self) {
        if self.cfg.eifel {
            self.undo.eifel = Eifel::Armed;
        }
    }

    /// Eifel, steps 3–6, on an ACK that advances the window.
    pub(super) fn check_eifel(&mut self, now: SimTime, ack: &TcpAck) {
        let Eifel::Waiting { retransmit_ts, seq } = self.undo.eifel else {
            return;
        };
        if ack.ack <= seq {
            return;
        }
        self.undo.eifel = Eifel::Idle;
        if ack.ts_ecr.is_some_and(|echo| echo < retransmit_ts) {
            self.stats.spurious_eifel += 1;
            self.undo_reduction(now);
        }
    }

    /// The response: undo the reduction (see the module header).
    pub(super) fn undo_reduction(&mut self, now: SimTime) {
        let recovering = matches!(self.tcb.ca_state, CaState::Recovery | CaState::Loss);
        let inflated = matches!(self.cfg.recovery, Recovery::Reno | Recovery::NewReno);
        if inflated && self.tcb.ca_state == CaState::Recovery && !self.model_based {
            self.tcb.cwnd = self.tcb.ssthresh;
        }
        self.tcb.cwnd = self.cc.undo_cwnd(&self.tcb).max(1);
        self.tcb.ssthresh = self.tcb.ssthresh.max(self.tcb.prior_ssthresh);
        self.stats.spurious_undone += 1;
        self.undo.marker = None;
        self.undo.retrans = None;
        self.undo.eifel = Eifel::Idle;
        self.undo.frto = Frto::Off;
        if recovering {
            self.scoreboard.clear_lost();
            self.tcb.snd_nxt = self.high_water();
            self.episode.on_undo();
            self.set_ca_state(now, CaState::Open);
        }
    }

    /// F-RTO step 1 (RFC 5682 §2.1/§3.1): only the first unacknowledged segment is
    /// resent; nothing else goes until the next ACKs decide.
    pub(super) fn start_frto(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        let head_end = self.scoreboard.first_unacked().map_or(0, |s| s.end());
        self.undo.frto = Frto::FirstAck {
            rexmit_end: head_end,
        };
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
        let advanced = ack.ack > self.tcb.snd_una;
        let duplicate = ack.ack == self.tcb.snd_una && !window_changed;
        let enhanced = self.cfg.recovery == Recovery::Sack;
        match self.undo.frto {
            Frto::Off => false,
            Frto::FirstAck { rexmit_end } => {
                if !advanced {
                    // Basic 2a: a duplicate ACK means conventional recovery. SACK-
                    // enhanced step 2: the scoreboard is updated; stay in step 2.
                    if duplicate && !enhanced {
                        self.frto_conventional(now, out);
                    }
                    return false;
                }
                let recover = self.high_water();
                if ack.ack >= recover || ack.ack < rexmit_end {
                    // 2a: everything acknowledged, or not all of the retransmission.
                    self.undo.frto = Frto::Off;
                    if ack.ack < recover && !enhanced {
                        self.tcb.snd_nxt = self.tcb.snd_una;
                    }
                    return false;
                }
                // 2b: the ACK is processed (cwnd grows as in slow start; nothing is
                // sent meanwhile), then up to two new segments probe the path.
                self.undo.frto = Frto::SecondAck { recover };
                self.on_new_ack(now, ack, sack.is_dupack(), out);
                let mut sent = 0;
                while sent < 2 {
                    let Some(len) = self.new_data_len() else {
                        break;
                    };
                    let seq = self.high_water();
                    self.send_segment(now, seq, len, out);
                    self.tcb.snd_nxt = self.high_water();
                    sent += 1;
                }
                if sent == 0 {
                    // No new data to send: skip step 3, conventional recovery.
                    self.frto_conventional(now, out);
                }
                true
            }
            Frto::SecondAck { recover } => {
                let (spurious, real) = if enhanced {
                    let below = (advanced && self.tcb.snd_una < recover)
                        || sack.newly_sacked.is_some_and(|(lo, _)| lo < recover);
                    let above = sack.newly_sacked.is_some_and(|(_, hi)| hi > recover);
                    (below, !below && (above || duplicate))
                } else {
                    (advanced, duplicate)
                };
                if spurious {
                    // 3b.
                    self.stats.spurious_frto += 1;
                    self.undo_reduction(now);
                } else if real {
                    // 3a: "set the congestion window to no more than 3 * MSS".
                    self.tcb.cwnd = self.tcb.cwnd.min(3);
                    self.frto_conventional(now, out);
                }
                false
            }
        }
    }

    /// F-RTO gives way to the conventional timeout recovery: go-back-N from the first
    /// segment not already retransmitted (the one step 1 resent may still be on its
    /// way), or the SACK flavour's NextSeg over the segments marked lost.
    fn frto_conventional(&mut self, now: SimTime, out: &mut Vec<TcpData>) {
        self.undo.frto = Frto::Off;
        if self.cfg.recovery != Recovery::Sack {
            self.tcb.snd_nxt = match self.scoreboard.first_unacked() {
                Some(head) if head.rexmit => head.seq + head.len as u64,
                _ => self.tcb.snd_una,
            };
        }
        self.transmit(now, out);
    }
}
